#pragma once
// Each subcommand registers its options on the CLI and returns the action main runs once Kokkos
// is initialised.

#include "dgatd/parallel/communicator.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>

namespace dgatd::app {

using Action = std::function<int()>;

// From 10 THz up a frequency is optical: the commands show it in THz beside its vacuum wavelength in nm.
inline constexpr double kOpticalFrequency = 1e13;

// The ranks of an MPI run (`mpirun -n N dgatd run ...`, an MPI build); nullptr in one process.
std::shared_ptr<parallel::Communicator> const& world();

// Adds a subcommand to app; when the user picks it, *action is set to what it runs.
void add_info_command(CLI::App& app, Action* action);
void add_mesh_command(CLI::App& app, Action* action);
void add_spectrum_command(CLI::App& app, Action* action);
void add_sparams_command(CLI::App& app, Action* action);
void add_farfield_command(CLI::App& app, Action* action);
void add_bench_command(CLI::App& app, Action* action);
void add_run_command(CLI::App& app, Action* action);
void add_partition_command(CLI::App& app, Action* action);
void add_capabilities_command(CLI::App& app, Action* action);
void add_fit_material_command(CLI::App& app, Action* action);
void add_materials_command(CLI::App& app, Action* action);
void add_statics_command(CLI::App& app, Action* action);
void add_ports_command(CLI::App& app, Action* action);

} // namespace dgatd::app
