// dgatd statics: the electrostatic problem of a configuration (simulation/statics.hpp): the
// conductors' capacitance matrix, their potentials and charges, the field's energy and largest
// value, and the potential and E written for ParaView.
#include "commands.hpp"

#include "dgatd/simulation/statics.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dgatd::app {
namespace {

struct StaticsCommand {
  std::string config;
  std::string output; // empty: statics_output_path
  simulation::StaticsOptions options;
};

// The SI prefix that shows a capacitance of this size in three to six digits: {factor, unit}.
std::pair<double, char const*> capacitance_unit(double largest)
{
  if (largest >= 1e-6) return {1e6, "uF"};
  if (largest >= 1e-9) return {1e9, "nF"};
  if (largest >= 1e-12) return {1e12, "pF"};
  return {1e15, "fF"};
}

void print_solution(simulation::StaticsSolution const& s, simulation::StaticsOptions const& options)
{
  std::printf("mesh               %s: %lld tets, %lld vertices (%.2f s)\n", s.mesh.source.c_str(),
              static_cast<long long>(s.mesh.num_tets()), static_cast<long long>(s.mesh.num_vertices()), s.mesh_seconds);
  std::printf("unknowns           %lld free vertices; the Laplacian assembled in %.2f s\n",
              static_cast<long long>(s.free_vertices), s.assembly_seconds);
  std::printf("solves             one per conductor at 1 V, conjugate gradients with a Jacobi preconditioner on %s "
              "to a relative residual of %.1e: %.2f s\n",
              Kokkos::DefaultExecutionSpace::name(), options.tolerance, s.solve_seconds);
  std::size_t width = 9;
  for (auto const& c : s.conductors) width = std::max(width, c.name.size());
  for (auto const& c : s.conductors)
    std::printf("  %-*s %lld vertices, %d iterations, residual %.1e\n", static_cast<int>(width), c.name.c_str(),
                static_cast<long long>(c.vertices), c.iterations, c.relative_residual);
  double largest = 0;
  for (auto const& row : s.capacitance)
    for (double const value : row) largest = std::max(largest, std::abs(value));
  auto const [factor, unit] = capacitance_unit(largest);
  std::printf("capacitance matrix (%s; C_ij is the charge on i with j at 1 V and the others at 0)\n", unit);
  std::printf("  %-*s", static_cast<int>(width), "");
  for (auto const& c : s.conductors) std::printf(" %14s", c.name.c_str());
  std::printf("\n");
  for (std::size_t i = 0; i < s.conductors.size(); ++i) {
    std::printf("  %-*s", static_cast<int>(width), s.conductors[i].name.c_str());
    for (double const value : s.capacitance[i]) std::printf(" %14.6g", value * factor);
    std::printf("\n");
  }
  std::printf("conductors\n");
  for (auto const& c : s.conductors)
    std::printf("  %-*s potential %.6g V%s, charge %.6g C%s\n", static_cast<int>(width), c.name.c_str(), c.potential,
                c.potential_given ? " (given)" : "", c.charge, c.potential_given ? "" : " (given)");
  std::printf("energy             %.6g J\n", s.energy);
  std::printf("largest |E|        %.6g V/m, at (%.6g, %.6g, %.6g) m\n", s.largest_field, s.largest_field_at[0],
              s.largest_field_at[1], s.largest_field_at[2]);
  for (auto const& note : s.notes) std::printf("note: %s\n", note.c_str());
}

int run_statics(StaticsCommand const& command)
{
  auto const config = io::load_config(command.config, io::ConfigUse::statics);
  auto const solution = simulation::solve_statics(config, command.options);
  print_solution(solution, command.options);
  std::string const output = command.output.empty() ? simulation::statics_output_path(config) : command.output;
  simulation::write_statics(solution, config, output);
  std::string const xdmf = std::filesystem::path(output).replace_extension(".xdmf").string();
  std::printf("wrote              %s and %s\n", output.c_str(), xdmf.c_str());
  return 0;
}

} // namespace

void add_statics_command(CLI::App& app, Action* action)
{
  auto command = std::make_shared<StaticsCommand>();
  auto* statics = app.add_subcommand(
      "statics", "Solve the electrostatic problem of a configuration: the potential around its [[conductor]]s, "
                 "their capacitance matrix, potentials and charges (docs/method/electrostatics.md)");
  statics->add_option("config", command->config, "The configuration (.toml): [mesh], [[material]], [[conductor]]")
      ->required()
      ->check(CLI::ExistingFile);
  statics->add_option("-o,--output", command->output,
                      "The HDF5 file to write (default: [output] file with the extension .statics.h5)");
  statics
      ->add_option("--tolerance", command->options.tolerance,
                   "The conjugate gradients' relative residual (default 1e-10)")
      ->check(CLI::Range(1e-15, 1e-2));
  statics
      ->add_option("--max-iterations", command->options.max_iterations,
                   "The conjugate gradients' iterations per solve at most (default 20000)")
      ->check(CLI::Range(1, 100000000));
  statics->callback([action, command] { *action = [command] { return run_statics(*command); }; });
}

} // namespace dgatd::app
