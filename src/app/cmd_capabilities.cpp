// dgatd capabilities: what runs with what (simulation/capabilities.hpp), and what this build adds to
// it. Needs neither Kokkos nor a GPU: main runs it before either starts.
#include "commands.hpp"

#include "dgatd/kokkos_compat.hpp"
#include "dgatd/simulation/capabilities.hpp"

#include <iostream>

namespace dgatd::app {

void add_capabilities_command(CLI::App& app, Action* action)
{
  auto* command = app.add_subcommand("capabilities", "Print which capabilities run over MPI ranks, in single and "
                                                     "mixed precision, with the assembled formulation and on a GPU");
  command->callback([action] {
    *action = [] {
      simulation::print_capabilities(std::cout);
#ifdef DGATD_HAVE_MPI
      bool constexpr mpi = true;
#else
      bool constexpr mpi = false;
#endif
      std::cout << "\nThis build: execution spaces " << compat::enabled_execution_spaces() << "; runs over ranks "
                << (mpi ? "built in (mpirun -n N dgatd run ...)" : "not built in (no MPI)") << ".\n";
      return 0;
    };
  });
}

} // namespace dgatd::app
