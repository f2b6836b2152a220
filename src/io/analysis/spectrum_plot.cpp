#include "dgatd/io/analysis/spectrum_plot.hpp"

#include "dgatd/error.hpp"

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace dgatd::io {

namespace {

namespace fs = std::filesystem;

std::string shell_quote(std::string const& text)
{
  std::string quoted = "'";
  for (char const c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Plot scripts live in the source tree's scripts/ (DGATD_SCRIPTS_DIR overrides that).
fs::path plot_script(std::string const& name)
{
  if (char const* dir = std::getenv("DGATD_SCRIPTS_DIR")) return fs::path(dir) / name;
  return fs::path(DGATD_SOURCE_SCRIPTS_DIR) / name;
}

// A Python with numpy and matplotlib: the one on PATH, else the system one (a pyenv or venv python3
// first on PATH often lacks them).
std::string plotting_python()
{
  for (char const* python : {"python3", "/usr/bin/python3"}) {
    std::string const probe = std::string(python) + " -c 'import numpy, matplotlib' >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) return python;
  }
  return "";
}

} // namespace

SpectrumPlot run_plot_script(std::string const& script_name, std::vector<std::string> const& arguments,
                             std::string const& png)
{
  SpectrumPlot plot;
  fs::path const script = plot_script(script_name);
  plot.script = script.string();
  if (!fs::exists(script)) {
    plot.outcome = SpectrumPlot::Outcome::script_missing;
    return plot;
  }
  std::string const python = plotting_python();
  if (python.empty()) {
    plot.outcome = SpectrumPlot::Outcome::python_missing;
    return plot;
  }
  std::string command = python + ' ' + shell_quote(plot.script);
  for (auto const& argument : arguments) command += ' ' + shell_quote(argument);
  if (std::system(command.c_str()) != 0) throw Error(png, "the plot script failed", "run " + command + " to see why");
  return plot;
}

int run_python_script(std::string const& script_name, std::vector<std::string> const& arguments)
{
  fs::path const script = plot_script(script_name);
  if (!fs::exists(script))
    throw Error(script.string(), "is missing", "point DGATD_SCRIPTS_DIR at the scripts/ folder of dgatd's sources");
  std::string const python = plotting_python();
  if (python.empty())
    throw Error(script.string(), "needs python3 with numpy and matplotlib, which this machine lacks",
                "install python3-numpy, python3-scipy and python3-matplotlib");
  std::string command = python + ' ' + shell_quote(script.string());
  for (auto const& argument : arguments) command += ' ' + shell_quote(argument);
  int const status = std::system(command.c_str());
  return status == 0 ? 0 : 1;
}

std::string plot_report(SpectrumPlot const& plot, std::string const& png)
{
  switch (plot.outcome) {
  case SpectrumPlot::Outcome::script_missing:
    return "plot skipped: " + plot.script + " not found (set DGATD_SCRIPTS_DIR)";
  case SpectrumPlot::Outcome::python_missing:
    return "plot skipped: python3 with numpy and matplotlib is not available";
  case SpectrumPlot::Outcome::written:
    break;
  }
  return "wrote " + png;
}

SpectrumPlot plot_spectrum(std::string const& csv, std::string const& png, std::string const& title,
                           std::vector<Peak> const& peaks)
{
  std::vector<std::string> arguments{csv, png, "--title", title};
  if (!peaks.empty()) {
    arguments.push_back("--peaks");
    for (auto const& peak : peaks) {
      std::ostringstream frequency;
      frequency.precision(12);
      frequency << peak.frequency;
      arguments.push_back(frequency.str());
    }
  }
  return run_plot_script("plot_spectrum.py", arguments, png);
}

} // namespace dgatd::io
