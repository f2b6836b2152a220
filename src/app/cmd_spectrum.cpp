// dgatd spectrum: the resonances seen by one probe of a finished run, as a peak table, a CSV of
// the magnitude spectrum and optionally a plot.
#include "commands.hpp"

#include "dgatd/io/analysis/probe_spectrum.hpp"
#include "dgatd/io/analysis/spectrum.hpp"
#include "dgatd/io/analysis/spectrum_csv.hpp"
#include "dgatd/io/analysis/spectrum_plot.hpp"
#include "dgatd/io/analysis/spectrum_svg.hpp"

#include <cstddef>
#include <iostream>
#include <limits>
#include <memory>
#include <string>

namespace dgatd::app {

namespace {

struct SpectrumOptions {
  std::string file;
  std::string probe;
  std::string component;
  std::string field = "E";
  double fmin = 0;
  double fmax = std::numeric_limits<double>::infinity();
  std::string csv;
  std::string png;
  std::string svg;
  std::size_t peaks = 10;
  double threshold = io::PeakOptions{}.threshold;
  std::size_t padding = io::SpectrumOptions{}.padding;
};

int run_spectrum(SpectrumOptions const& options)
{
  char const field = options.field == "H" ? 'H' : 'E';
  io::SpectrumOptions spectrum_options;
  spectrum_options.fmin = options.fmin;
  spectrum_options.fmax = options.fmax;
  spectrum_options.padding = options.padding;
  io::PeakOptions peak_options;
  peak_options.threshold = options.threshold;
  peak_options.max_peaks = options.peaks;
  auto const result =
      io::probe_spectrum(options.file, options.probe, field, options.component[0], spectrum_options, peak_options);
  auto const& spectrum = result.spectrum;
  auto const& peaks = result.peaks;

  std::string const label = options.field + options.component;
  auto const unit = io::frequency_unit(peaks.empty() ? spectrum.frequency.back() : peaks.back().frequency);
  auto const fine = io::frequency_unit(spectrum.resolution);
  std::cout << "probe " << options.probe << ", " << label << ": " << result.samples << " samples, dt = " << result.dt
            << " s, resolution " << spectrum.resolution / fine.hertz << ' ' << fine.name << ", band "
            << spectrum.frequency.front() / unit.hertz << " to " << spectrum.frequency.back() / unit.hertz << ' '
            << unit.name << "\n";
  std::cout << io::peak_table(spectrum, peaks);

  std::string const csv =
      !options.csv.empty() ? options.csv : io::spectrum_csv_path(options.file, options.probe, label);
  io::write_spectrum_csv(csv, spectrum);
  std::cout << "wrote " << csv << '\n';
  std::string const title = options.probe + ": " + options.field + "_" + options.component;
  if (!options.svg.empty()) {
    auto const axis = io::frequency_unit(spectrum.frequency.back());
    io::write_spectrum_svg(options.svg, spectrum, peaks, title, axis.name, axis.hertz);
    std::cout << "wrote " << options.svg << '\n';
  }
  if (options.png.empty()) return 0;
  auto const plot = io::plot_spectrum(csv, options.png, title, peaks);
  std::cout << io::plot_report(plot, options.png) << '\n';
  return 0;
}

} // namespace

void add_spectrum_command(CLI::App& app, Action* action)
{
  auto options = std::make_shared<SpectrumOptions>();
  CLI::App* command = app.add_subcommand(
      "spectrum", "Resonance frequencies of one probe component of a run (Hamming-windowed FFT, peak table, CSV)");
  command->add_option("file", options->file, "Output file of a run (.h5)")->required();
  command->add_option("--probe", options->probe, "Probe name (a [[probe]] of the run)")->required();
  command->add_option("--component", options->component, "Field component")
      ->required()
      ->check(CLI::IsMember({"x", "y", "z"}));
  command->add_option("--field", options->field, "Field: E or H")
      ->capture_default_str()
      ->check(CLI::IsMember({"E", "H"}));
  command->add_option("--fmin", options->fmin, "Lowest frequency of the band, Hz")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  command->add_option("--fmax", options->fmax, "Highest frequency of the band, Hz (default: Nyquist)")
      ->check(CLI::PositiveNumber);
  command->add_option("--csv", options->csv,
                      "CSV of the spectrum (default: <stem>_<probe>_<field><component>_spectrum.csv beside the file)");
  command->add_option("--svg", options->svg, "Plot of the spectrum with the peaks marked, drawn by dgatd itself (SVG)");
  command->add_option("--png", options->png, "Plot of the spectrum with the peaks marked (needs python3 + matplotlib)");
  command->add_option("--peaks", options->peaks, "Report at most this many of the largest peaks (0: all)")
      ->capture_default_str();
  command->add_option("--threshold", options->threshold, "Drop peaks below this fraction of the largest one")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  command->add_option("--padding", options->padding, "Zero padding: transform length >= padding x samples")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  command->callback([options, action] { *action = [options] { return run_spectrum(*options); }; });
}

} // namespace dgatd::app
