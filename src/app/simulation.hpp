#pragma once
// `dgatd run`: from a configuration file to an HDF5 result, through every stage of the data flow.

#include <string>

namespace dgatd::app {

struct RunOptions {
  std::string config_path;
  std::string output_override; // replaces [output] file when not empty
};

// Returns the process exit status: 0 when the run completed, 130 when Ctrl-C interrupted it (the
// output then holds what was computed and says so).
int run_simulation(RunOptions const& options);

} // namespace dgatd::app
