#pragma once
// A PNG of a spectrum CSV (spectrum_csv.hpp) with its peaks marked, drawn by
// scripts/plot_spectrum.py in a Python with numpy and matplotlib, run as a separate process.

#include "dgatd/io/analysis/spectrum.hpp"

#include <string>
#include <vector>

namespace dgatd::io {

struct SpectrumPlot {
  enum class Outcome {
    written,        // png holds the plot
    script_missing, // no plot script at `script`
    python_missing, // no python3 on PATH nor /usr/bin/python3 imports numpy and matplotlib
  };
  Outcome outcome = Outcome::written;
  std::string script; // the plot script: $DGATD_SCRIPTS_DIR/plot_spectrum.py, else the source tree's scripts/
};

// Runs scripts/<script_name> (or $DGATD_SCRIPTS_DIR/<script_name>) with a plotting Python and the
// given arguments, to draw png; the outcome as below.
SpectrumPlot run_plot_script(std::string const& script_name, std::vector<std::string> const& arguments,
                             std::string const& png);

// Runs scripts/<script_name> (or $DGATD_SCRIPTS_DIR/<script_name>) with the Python run_plot_script
// finds, passing its output through, and returns its exit status; a missing script or Python is a
// dgatd::Error naming what is missing.
int run_python_script(std::string const& script_name, std::vector<std::string> const& arguments);

// The line a command prints about a plot: "wrote <png>", or why it was skipped.
std::string plot_report(SpectrumPlot const& plot, std::string const& png);

// Plots the spectrum in csv to png with the given title, marking the peaks' frequencies. A missing
// script or plotting Python is reported in the result and draws nothing; a script that fails is a
// dgatd::Error naming png and the command to rerun.
SpectrumPlot plot_spectrum(std::string const& csv, std::string const& png, std::string const& title,
                           std::vector<Peak> const& peaks);

} // namespace dgatd::io
