// `dgatd run CONFIG.toml [--output FILE.h5] [--restart FILE.checkpoint.h5]`.
#include "commands.hpp"

#include "dgatd/error.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/simulation/simulation.hpp"
#include "partition/partition.hpp"

#include <atomic>
#include <csignal>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace dgatd::app {
namespace {

struct RunOptions {
  std::string config_path;
  std::string output_override;
  std::string restart_from;
};

std::atomic<bool> stop_requested{false};
volatile std::sig_atomic_t stopping_signal = 0;
extern "C" void request_stop(int signal)
{
  stopping_signal = signal;
  stop_requested = true;
}

// Ctrl-C, and SIGTERM (what batch schedulers send at the time limit), end the time loop cleanly
// with a checkpoint; outside the loop's object the default behaviour returns.
class StopSignals {
public:
  StopSignals()
      : previous_interrupt_(std::signal(SIGINT, request_stop)), previous_terminate_(std::signal(SIGTERM, request_stop))
  {
  }
  ~StopSignals()
  {
    std::signal(SIGINT, previous_interrupt_);
    std::signal(SIGTERM, previous_terminate_);
  }
  StopSignals(StopSignals const&) = delete;
  StopSignals& operator=(StopSignals const&) = delete;

private:
  void (*previous_interrupt_)(int);
  void (*previous_terminate_)(int);
};

int run_simulation(io::Config const& config, RunOptions const& options)
{
  auto const& ranks = world();
  bool const reporting = !ranks || ranks->rank() == 0;
  simulation::SimulationOptions settings;
  settings.output_path = options.output_override;
  settings.restart_from = options.restart_from;
  settings.report = reporting ? &std::cout : nullptr;
  settings.stop_requested = &stop_requested;
  settings.communicator = ranks;
  settings.partitioner = [](mesh::Mesh const& mesh, mesh::Topology const& topology, int parts,
                            std::vector<int> const& weight, int constraints) {
    return partition::partition_tets(mesh, topology, parts, weight, constraints);
  };
  StopSignals const signals;
  simulation::Simulation simulation(config, settings);
  auto const result = simulation.run();
  if (result.complete) return 0;
  if (reporting) {
    std::cerr << "dgatd: " << (stopping_signal == SIGTERM ? "terminated" : "interrupted") << " after " << result.steps
              << " of " << simulation.plan().steps << " steps; " << simulation.output_path()
              << " holds the results so far (complete = 0); ";
    if (result.checkpoint.empty())
      std::cerr << "no checkpoint was written: the fields had blown up, so there is nothing to continue\n";
    else {
      // A run from parts continues on the ranks its parts were made for, or on parts made again.
      auto const& parts = simulation.config().mesh.parts;
      std::string const which_ranks = parts.empty() ? " (N: any number of ranks)"
                                                    : " (N: the ranks of the parts in " + parts +
                                                          ", or another N after dgatd partition -n N -o " + parts + ")";
      std::cerr << "continue with: " << (ranks ? "mpirun -n N " : "") << "dgatd run " << options.config_path
                << (options.output_override.empty() ? "" : " -o " + options.output_override) << " --restart "
                << result.checkpoint << (ranks ? which_ranks : "") << "\n";
    }
  }
  return 128 + (stopping_signal ? static_cast<int>(stopping_signal) : SIGINT);
}

// Every rank reads the configuration, and all stop on an error in it together.
int run(RunOptions const& options)
{
  io::Config config;
  auto const read = [&] { config = io::load_config(options.config_path); };
  if (world())
    parallel::together(*world(), read);
  else
    read();
  return run_simulation(config, options);
}

} // namespace

void add_run_command(CLI::App& app, Action* action)
{
  auto options = std::make_shared<RunOptions>();
  auto* command = app.add_subcommand("run", "Run a simulation described by a TOML configuration file");
  command->add_option("config", options->config_path, "Configuration file (see inputs/ for examples)")->required();
  command->add_option("-o,--output", options->output_override, "HDF5 output file (overrides [output] file)");
  command->add_option("--restart", options->restart_from,
                      "Continue the run from its checkpoint (<output>.checkpoint.h5), appending to its output");
  command->callback([options, action]() { *action = [options]() { return run(*options); }; });
}

} // namespace dgatd::app
