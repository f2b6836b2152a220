// dgatd command line: splits off the Kokkos options, parses the subcommand, initialises Kokkos
// once and turns every error into one line and a non-zero exit status.
#include "commands.hpp"

#include "dgatd/device_compatibility.hpp"
#include "dgatd/device_info.hpp"
#include "dgatd/error.hpp"
#include "dgatd/kokkos_compat.hpp"
#include "dgatd/parallel/communicator.hpp"
#include "dgatd/version.hpp"
#ifdef DGATD_HAVE_MPI
#include "partition/mpi_communicator.hpp"

#include <mpi.h>
#endif

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

std::shared_ptr<dgatd::parallel::Communicator> world_communicator;

#ifdef DGATD_HAVE_MPI
// MPI for the life of main, around Kokkos: initialised before it and finalised after it.
class MpiSession {
public:
  MpiSession(int& argc, char**& argv)
  {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  }
  ~MpiSession()
  {
    world_communicator.reset();
    MPI_Finalize();
  }
  MpiSession(MpiSession const&) = delete;
  MpiSession& operator=(MpiSession const&) = delete;
};
#endif

// The GPU the user picked: --kokkos-device-id (--kokkos-device before 3.7), else KOKKOS_DEVICE_ID;
// nothing when neither says.
std::optional<std::string> chosen_device(std::vector<std::string> const& kokkos_arguments)
{
  std::optional<std::string> value;
  for (auto const& argument : kokkos_arguments) {
    for (std::string const option : {"--kokkos-device-id=", "--kokkos-device="}) {
      if (argument.rfind(option, 0) == 0) value = argument.substr(option.size());
    }
  }
  if (!value) {
    if (char const* environment = std::getenv("KOKKOS_DEVICE_ID")) value = environment;
  }
  return value;
}

// The GPU Kokkos will be asked to use: the chosen one, else 0. Anything unparsable is left for
// Kokkos to reject.
int requested_device_id(std::vector<std::string> const& kokkos_arguments)
{
  auto const value = chosen_device(kokkos_arguments);
  if (!value) return 0;
  char* end = nullptr;
  long const id = std::strtol(value->c_str(), &end, 10);
  return end != value->c_str() && *end == '\0' && id >= 0 && id < 1024 ? static_cast<int>(id) : 0;
}

std::string device_line(dgatd::DeviceInfo const& device, dgatd::CudaCompatibility const& compatibility)
{
  if (!device.is_gpu) return device.name + " (CPU)";
  std::string line = device.name + ", compute capability " + dgatd::compute_capability(device);
  auto const& code = compatibility.running_code;
  if (code.rfind("sm_", 0) == 0) line += ", running machine code " + code;
  if (code.rfind("compute_", 0) == 0) line += ", running PTX " + code + " compiled by the driver";
  return line + "; GPU code compiled in: " + device.compiled_architectures;
}

// This rank's place among the ranks of its node, as Open MPI, MPICH (Hydra) or Slurm says; 0 when
// none does.
int node_local_rank()
{
  for (char const* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
    if (char const* value = std::getenv(name)) return std::max(0, std::atoi(value));
  return 0;
}

// Where an MPI launcher started this process as one of several ranks: Open MPI's mpirun sets
// OMPI_COMM_WORLD_SIZE and _RANK, MPICH's and Intel MPI's PMI_SIZE and PMI_RANK.
struct LaunchedRank {
  int rank = 0;
  int size = 1;
  std::string variable;
};

std::optional<LaunchedRank> launched_as_rank()
{
  for (auto const& [size_name, rank_name] :
       {std::pair<char const*, char const*>{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"},
        std::pair<char const*, char const*>{"PMI_SIZE", "PMI_RANK"}}) {
    char const* size = std::getenv(size_name);
    if (size == nullptr || std::atoi(size) <= 1) continue;
    char const* rank = std::getenv(rank_name);
    return LaunchedRank{rank ? std::atoi(rank) : 0, std::atoi(size), std::string(size_name) + "=" + size};
  }
  return std::nullopt;
}

void print_version_banner(dgatd::DeviceInfo const& device, dgatd::CudaCompatibility const& compatibility)
{
  int const major = KOKKOS_VERSION / 10000;
  int const minor = KOKKOS_VERSION / 100 % 100;
  int const patch = KOKKOS_VERSION % 100;
  std::cout << "dgatd " << dgatd::version_string << "  (fractioned DGATD Maxwell solver)\n"
            << "Kokkos " << major << '.' << minor << '.' << patch << "\n"
            << "execution spaces: " << dgatd::compat::enabled_execution_spaces() << "\n"
            << "default execution space: " << Kokkos::DefaultExecutionSpace::name() << ", concurrency "
            << Kokkos::DefaultExecutionSpace().concurrency() << "\n"
            << "device: " << device_line(device, compatibility) << "\n";
}

} // namespace

std::shared_ptr<dgatd::parallel::Communicator> const& dgatd::app::world() { return world_communicator; }

int main(int argc, char* argv[])
{
  // Kokkos options go to Kokkos, everything else to the command line parser.
  std::vector<std::string> kokkos_arguments{argv[0]};
  std::vector<std::string> cli_arguments;
  for (int i = 1; i < argc; ++i) {
    std::string const argument = argv[i];
    if (argument.rfind("--kokkos-", 0) == 0)
      kokkos_arguments.push_back(dgatd::compat::translate_kokkos_argument(argument));
    else
      cli_arguments.push_back(argument);
  }

  CLI::App app{"dgatd: fractioned DGATD solver for Maxwell's equations in the time domain on "
               "tetrahedral meshes (Kokkos: OpenMP, CUDA).\nKokkos options (--kokkos-num-threads=N, "
               "--kokkos-device-id=N, ...) are passed through to Kokkos."};
  app.name("dgatd");
  bool show_version = false;
  app.add_flag("--version", show_version,
               "Print the dgatd and Kokkos versions, the execution spaces and the device (GPU code compiled in)");
  app.require_subcommand(0, 1);
  dgatd::app::Action action;
  dgatd::app::add_info_command(app, &action);
  dgatd::app::add_mesh_command(app, &action);
  dgatd::app::add_spectrum_command(app, &action);
  dgatd::app::add_sparams_command(app, &action);
  dgatd::app::add_farfield_command(app, &action);
  dgatd::app::add_bench_command(app, &action);
  dgatd::app::add_run_command(app, &action);
  dgatd::app::add_partition_command(app, &action);
  dgatd::app::add_capabilities_command(app, &action);
  dgatd::app::add_fit_material_command(app, &action);
  dgatd::app::add_materials_command(app, &action);
  dgatd::app::add_statics_command(app, &action);
  dgatd::app::add_ports_command(app, &action);

  try {
    std::vector<std::string> reversed(cli_arguments.rbegin(), cli_arguments.rend());
    app.parse(reversed);
  } catch (CLI::ParseError const& e) {
    return app.exit(e);
  }
  if (!show_version && !action) {
    std::cout << app.help();
    return 0;
  }

  // Under `mpirun -n N` only `dgatd run` spans the ranks, and only in an MPI build; anything else
  // would run N times over and write the same files. Refused on every rank, said once, by rank 0.
  auto const launched = launched_as_rank();
  if (launched) {
    std::optional<dgatd::Error> refusal;
#ifdef DGATD_HAVE_MPI
    if (!app.got_subcommand("run"))
      refusal = dgatd::Error("mpirun",
                             "started as " + std::to_string(launched->size) + " ranks (" + launched->variable +
                                 "), but only dgatd run spans ranks",
                             "run this command as one process, without mpirun");
#else
    refusal = dgatd::Error("mpirun",
                           "started as " + std::to_string(launched->size) + " ranks (" + launched->variable +
                               "), but this dgatd was built without MPI: each rank would run the whole problem",
                           "build dgatd with MPI (libopenmpi-dev installed, DGATD_ENABLE_MPI), or run it as one "
                           "process, without mpirun");
#endif
    if (refusal) {
      if (launched->rank == 0) std::cerr << "dgatd: error: " << refusal->what() << '\n';
      return 1;
    }
  }
  // A table of facts, the same on every machine: it starts neither MPI, Kokkos nor a GPU.
  if (app.got_subcommand("capabilities") || app.got_subcommand("fit-material") || app.got_subcommand("materials"))
    return action();
#ifdef DGATD_HAVE_MPI
  std::optional<MpiSession> mpi;
  if (launched) {
    mpi.emplace(argc, argv);
    world_communicator = std::make_shared<dgatd::parallel::MpiCommunicator>(MPI_COMM_WORLD);
  }
#endif
  int const rank = world_communicator ? world_communicator->rank() : 0;

  // libgomp has read its environment already, so this changes no binding: it only keeps Kokkos from
  // warning on every start that OMP_PROC_BIND is unset.
  if (std::getenv("OMP_PROC_BIND") == nullptr) setenv("OMP_PROC_BIND", "false", 0);

  // One rank per GPU: ranks on one node take the node's GPUs in turn by their node-local rank,
  // unless the GPU is chosen (--kokkos-device-id, KOKKOS_DEVICE_ID).
  if (launched && !chosen_device(kokkos_arguments)) {
    int const devices = dgatd::visible_device_count();
    if (devices > 1) kokkos_arguments.push_back(dgatd::compat::device_id_argument(node_local_rank() % devices));
  }
  auto const device = dgatd::describe_default_device(requested_device_id(kokkos_arguments));
  auto const compatibility = dgatd::check_device_compatibility(device);
  if (auto const problem = dgatd::start_up_problem(device, compatibility)) {
    std::cerr << "dgatd: error: " << *problem << '\n';
    return 1;
  }

  try {
    std::vector<char*> kokkos_argv;
    for (auto& argument : kokkos_arguments) kokkos_argv.push_back(argument.data());
    kokkos_argv.push_back(nullptr);
    int kokkos_argc = static_cast<int>(kokkos_arguments.size());
    Kokkos::ScopeGuard kokkos(kokkos_argc, kokkos_argv.data());
    if (show_version) print_version_banner(device, compatibility);
    return action ? action() : 0;
  } catch (dgatd::parallel::CollectiveError const& e) {
    // Every rank has it: said once, and each rank ends normally.
    if (rank == 0) std::cerr << "dgatd: error: " << e.what() << '\n';
  } catch (std::exception const& e) {
    if (!world_communicator) {
      std::cerr << "dgatd: error: " << e.what() << '\n';
      return 1;
    }
    // On this rank alone: the others may be waiting for it in a collective, so all are stopped.
    std::cerr << "dgatd: error (rank " << rank << "): " << e.what() << '\n';
#ifdef DGATD_HAVE_MPI
    MPI_Abort(MPI_COMM_WORLD, 1);
#endif
  }
  return 1;
}
