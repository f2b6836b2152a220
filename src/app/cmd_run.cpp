// `dgatd run CONFIG.toml [--output FILE.h5]`.
#include "commands.hpp"
#include "simulation.hpp"

#include <memory>

namespace dgatd::app {

void add_run_command(CLI::App& app, Action* action)
{
  auto options = std::make_shared<RunOptions>();
  auto* run = app.add_subcommand("run", "Run a simulation described by a TOML configuration file");
  run->add_option("config", options->config_path, "Configuration file (see inputs/ for examples)")->required();
  run->add_option("-o,--output", options->output_override, "HDF5 output file (overrides [output] file)");
  run->callback([options, action]() { *action = [options]() { return run_simulation(*options); }; });
}

} // namespace dgatd::app
