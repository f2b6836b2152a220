#pragma once
// Running a configuration through the library (the physics cases) or through the real dgatd
// executable (the command-line cases), and reading what it wrote.

#include "dgatd/io/analysis/results.hpp"
#include "dgatd/io/analysis/spectrum.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/simulation/simulation.hpp"
#include "scratch_directory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace dgatd::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// text with the first occurrence of from replaced by to; a from that is not there fails the test.
inline std::string replaced(std::string text, std::string const& from, std::string const& to)
{
  auto const at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "'" << from << "' is not in the text";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

inline std::string slurp(std::filesystem::path const& file)
{
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

#ifdef DGATD_SOURCE_DIR
// The shipped example inputs/STEM.toml written into scratch as name.toml: its .geo read from the
// source tree, its output name.h5 without progress lines. Returns the configuration's path.
inline std::string shipped_example(ScratchDirectory const& scratch, std::string const& stem, std::string const& name)
{
  std::string const inputs = std::string(DGATD_SOURCE_DIR) + "/inputs/";
  auto text = slurp(inputs + stem + ".toml");
  text = replaced(text, "file = \"" + stem + ".geo\"", "file = \"" + inputs + stem + ".geo\"");
  text = replaced(text, "file = \"" + stem + ".h5\"", "file = \"" + name + ".h5\"\nprogress = false");
  return scratch.write(name + ".toml", text);
}
#endif

// environment: VARIABLE=value assignments the command runs with, as a shell reads them.
inline CommandResult run_dgatd(std::string const& arguments, std::filesystem::path const& scratch,
                               std::string const& environment = "")
{
  auto const out = scratch / "stdout.txt";
  auto const err = scratch / "stderr.txt";
  std::string const command = (environment.empty() ? "" : environment + " ") + std::string(DGATD_EXECUTABLE) + " " +
                              arguments + " > " + out.string() + " 2> " + err.string();
  int const status = std::system(command.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

// What `dgatd run config -o output` does, through the library and silently.
inline simulation::RunResult run_config(std::string const& config_path, std::string const& output)
{
  simulation::SimulationOptions options;
  options.output_path = output;
  simulation::Simulation simulation(io::load_config(config_path), options);
  return simulation.run();
}

// One component (0, 1, 2) of a probe's record.
inline std::vector<double> component(io::ProbeRecord const& record, int c)
{
  std::vector<double> values;
  for (auto const& v : record.values) values.push_back(v[c]);
  return values;
}

// A CSV file as dgatd writes them (`dgatd sparams --csv`): a header line, then rows of numbers.
struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;

  // The index of the named column, or header.size() when there is none.
  std::size_t column(std::string const& name) const
  {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  }
};

inline CsvTable read_csv(std::filesystem::path const& file)
{
  CsvTable table;
  std::ifstream in(file);
  std::string line, cell;
  if (std::getline(in, line)) {
    std::istringstream cells(line);
    while (std::getline(cells, cell, ',')) table.header.push_back(cell);
  }
  while (std::getline(in, line)) {
    std::istringstream cells(line);
    std::vector<double> row;
    while (std::getline(cells, cell, ',')) row.push_back(std::stod(cell));
    table.rows.push_back(std::move(row));
  }
  return table;
}

} // namespace dgatd::testing
