// dgatd fit-material: a passive pole-residue model fitted to tabulated permittivity, written as
// [[material]] and [[material.pole]] tables. The fit is Python's (python/dgatd/materials.py, run
// through scripts/fit_material.py); it needs neither Kokkos nor a GPU: main runs it before either.
#include "commands.hpp"

#include "dgatd/error.hpp"
#include "dgatd/io/analysis/spectrum_plot.hpp"

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dgatd::app {
namespace {

struct FitArguments {
  std::string data, region = "REGION", output, png;
  int poles = 3;
  std::optional<double> fmin, fmax;
};

std::string number(double value)
{
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

int fit_material(FitArguments const& a)
{
  std::vector<std::string> arguments{a.data, "--poles", std::to_string(a.poles), "--region", a.region};
  if (a.fmin) arguments.insert(arguments.end(), {"--fmin", number(*a.fmin)});
  if (a.fmax) arguments.insert(arguments.end(), {"--fmax", number(*a.fmax)});
  if (!a.output.empty()) arguments.insert(arguments.end(), {"--output", a.output});
  if (!a.png.empty()) arguments.insert(arguments.end(), {"--png", a.png});
  try {
    return io::run_python_script("fit_material.py", arguments);
  } catch (Error const& e) {
    std::cerr << "dgatd: error: " << e.what() << '\n';
    return 1;
  }
}

} // namespace

void add_fit_material_command(CLI::App& app, Action* action)
{
  auto* command = app.add_subcommand(
      "fit-material", "Fit a passive pole-residue model to tabulated permittivity or n, k (a CSV: frequency_<unit> "
                      "or wavelength_<unit>, then eps_re, eps_im or n, k) and write it as [[material]] tables");
  auto arguments = std::make_shared<FitArguments>();
  command->add_option("data", arguments->data, "the CSV file")->required();
  command->add_option("--poles", arguments->poles, "pole pairs (default 3)")->check(CLI::Range(1, 12));
  command->add_option("--fmin", arguments->fmin, "lowest frequency fitted, Hz");
  command->add_option("--fmax", arguments->fmax, "highest frequency fitted, Hz");
  command->add_option("--region", arguments->region, "the [[material]]'s region in the snippet");
  command->add_option("-o,--output", arguments->output, "write the snippet here instead of printing it");
  command->add_option("--png", arguments->png, "plot the data against the model here");
  command->callback([action, arguments] { *action = [arguments] { return fit_material(*arguments); }; });
}

} // namespace dgatd::app
