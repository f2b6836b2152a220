// dgatd spectrum: the resonances seen by one probe of a finished run, as a peak table, a CSV of
// the magnitude spectrum and optionally a plot.
#include "commands.hpp"

#include "dgatd/error.hpp"
#include "dgatd/io/analysis/results.hpp"
#include "dgatd/io/analysis/spectrum.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace dgatd::app {

namespace {

namespace fs = std::filesystem;

struct SpectrumOptions {
  std::string file;
  std::string probe;
  std::string component;
  std::string field = "E";
  double fmin = 0;
  double fmax = std::numeric_limits<double>::infinity();
  std::string csv;
  std::string png;
  std::size_t peaks = 10;
  double threshold = io::PeakOptions{}.threshold;
  std::size_t padding = io::SpectrumOptions{}.padding;
};

struct Unit {
  char const* name;
  double hertz;
};

Unit unit_for(double frequency)
{
  if (frequency >= 1e9) return {"GHz", 1e9};
  if (frequency >= 1e6) return {"MHz", 1e6};
  if (frequency >= 1e3) return {"kHz", 1e3};
  return {"Hz", 1.0};
}

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
  return fs::path(__FILE__).parent_path().parent_path().parent_path() / "scripts" / "plot_spectrum.py";
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

void write_csv(std::string const& path, io::Spectrum const& spectrum)
{
  std::ofstream out(path);
  if (!out) throw Error(path, "cannot write the CSV file", "check that the directory exists and is writable");
  out << "frequency_hz,magnitude\n";
  out.precision(10);
  for (std::size_t i = 0; i < spectrum.frequency.size(); ++i)
    out << spectrum.frequency[i] << ',' << spectrum.magnitude[i] << '\n';
  if (!out.flush()) throw Error(path, "cannot write the CSV file", "check the free disk space");
}

void write_png(SpectrumOptions const& options, std::string const& csv, std::vector<io::Peak> const& peaks)
{
  fs::path const script = plot_script();
  if (!fs::exists(script)) {
    std::cout << "plot skipped: " << script.string() << " not found (set DGATD_SCRIPTS_DIR)\n";
    return;
  }
  std::string const python = plotting_python();
  if (python.empty()) {
    std::cout << "plot skipped: python3 with numpy and matplotlib is not available\n";
    return;
  }
  std::ostringstream command;
  command.precision(12);
  command << python << ' ' << shell_quote(script.string()) << ' ' << shell_quote(csv) << ' ' << shell_quote(options.png)
          << " --title " << shell_quote(options.probe + ": " + options.field + "_" + options.component);
  if (!peaks.empty()) {
    command << " --peaks";
    for (auto const& peak : peaks) command << ' ' << peak.frequency;
  }
  if (std::system(command.str().c_str()) != 0)
    throw Error(options.png, "the plot script failed", "run " + command.str() + " to see why");
  std::cout << "wrote " << options.png << '\n';
}

int run_spectrum(SpectrumOptions const& options)
{
  char const field = options.field == "H" ? 'H' : 'E';
  auto const record = io::read_probe(options.file, options.probe, field);
  std::string const where = options.file + ": probe '" + options.probe + "'";
  double const dt = io::uniform_step(record.time, where);
  std::size_t const axis = static_cast<std::size_t>(options.component[0] - 'x');
  std::vector<double> signal(record.values.size());
  for (std::size_t i = 0; i < signal.size(); ++i) signal[i] = record.values[i][axis];

  io::SpectrumOptions spectrum_options;
  spectrum_options.fmin = options.fmin;
  spectrum_options.fmax = options.fmax;
  spectrum_options.padding = options.padding;
  if (!(options.fmin < std::min(options.fmax, 0.5 / dt)))
    throw Error(where, "the band [fmin, fmax] is empty (the Nyquist frequency is " + std::to_string(0.5 / dt) + " Hz)",
                "choose --fmin below --fmax and the Nyquist frequency");
  auto const spectrum = io::compute_spectrum(signal, dt, spectrum_options);
  io::PeakOptions peak_options;
  peak_options.threshold = options.threshold;
  peak_options.max_peaks = options.peaks;
  auto const peaks = io::find_peaks(spectrum, peak_options);

  std::string const label = options.field + options.component;
  Unit const unit = unit_for(peaks.empty() ? spectrum.frequency.back() : peaks.back().frequency);
  // Enough decimals to show a hundredth of the record's resolution.
  int const decimals =
      std::clamp(static_cast<int>(std::ceil(-std::log10(0.01 * spectrum.resolution / unit.hertz))), 0, 9);
  Unit const fine = unit_for(spectrum.resolution);
  std::cout << "probe " << options.probe << ", " << label << ": " << signal.size() << " samples, dt = " << dt
            << " s, resolution " << spectrum.resolution / fine.hertz << ' ' << fine.name << ", band "
            << spectrum.frequency.front() / unit.hertz << " to " << spectrum.frequency.back() / unit.hertz << ' '
            << unit.name << "\n";
  if (peaks.empty()) {
    std::cout << "no peaks in the band\n";
  } else {
    char line[128];
    std::snprintf(line, sizeof line, "%4s  %18s  %18s\n", "#", (std::string("frequency (") + unit.name + ")").c_str(),
                  "relative amplitude");
    std::cout << line;
    for (std::size_t i = 0; i < peaks.size(); ++i) {
      std::snprintf(line, sizeof line, "%4zu  %18.*f  %18.4e\n", i + 1, decimals, peaks[i].frequency / unit.hertz,
                    peaks[i].relative);
      std::cout << line;
    }
  }

  fs::path const h5(options.file);
  std::string const csv =
      !options.csv.empty()
          ? options.csv
          : (h5.parent_path() / (h5.stem().string() + "_" + options.probe + "_" + label + "_spectrum.csv")).string();
  write_csv(csv, spectrum);
  std::cout << "wrote " << csv << '\n';
  if (!options.png.empty()) write_png(options, csv, peaks);
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
