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

// The plot script lives in the source tree's scripts/ (DGATD_SCRIPTS_DIR overrides that).
fs::path plot_script()
{
  if (char const* dir = std::getenv("DGATD_SCRIPTS_DIR")) return fs::path(dir) / "plot_spectrum.py";
  return fs::path(DGATD_SOURCE_SCRIPTS_DIR) / "plot_spectrum.py";
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

SpectrumPlot plot_spectrum(std::string const& csv, std::string const& png, std::string const& title,
                           std::vector<Peak> const& peaks)
{
  SpectrumPlot plot;
  fs::path const script = plot_script();
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
  std::ostringstream command;
  command.precision(12);
  command << python << ' ' << shell_quote(plot.script) << ' ' << shell_quote(csv) << ' ' << shell_quote(png)
          << " --title " << shell_quote(title);
  if (!peaks.empty()) {
    command << " --peaks";
    for (auto const& peak : peaks) command << ' ' << peak.frequency;
  }
  if (std::system(command.str().c_str()) != 0)
    throw Error(png, "the plot script failed", "run " + command.str() + " to see why");
  return plot;
}

} // namespace dgatd::io
