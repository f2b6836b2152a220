// dgatd sparams: the S-parameters of a run's matched ports (reflection at the driven port,
// transmission to the others) over the excitation's band, as a table, a CSV and a plot.
#include "commands.hpp"

#include "dgatd/error.hpp"
#include "dgatd/io/analysis/results.hpp"
#include "dgatd/io/analysis/sparams.hpp"
#include "dgatd/io/analysis/spectrum_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

namespace dgatd::app {

namespace {

struct SparamsOptions {
  std::string file;
  double fmin = 0;
  double fmax = 0;
  std::size_t points = 201;
  std::string csv;
  std::string png;
};

int run_sparams(SparamsOptions const& options)
{
  auto const s =
      io::s_parameters(io::read_ports(options.file), options.file, options.fmin, options.fmax, options.points);
  std::cout << "ports: 1 = " << s.ports[0] << " (driven)";
  for (std::size_t k = 1; k < s.ports.size(); ++k) std::cout << ", " << k + 1 << " = " << s.ports[k];
  std::cout << "\nexcitation band (within 20 dB of its peak): " << s.band_low / 1e9 << " to " << s.band_high / 1e9
            << " GHz\n";
  if (s.tail > 1e-3)
    std::cout << "warning: the waves leaving the ports still reach " << s.tail
              << " of the incident peak in the record's last tenth; a longer t_end sharpens the spectra\n";
  std::string header = "  f (GHz)";
  for (std::size_t k = 0; k < s.ports.size(); ++k) {
    char column[96];
    std::snprintf(column, sizeof column, "  |S%zu1| (dB)  arg S%zu1 (deg)", k + 1, k + 1);
    header += column;
  }
  bool const lumped = !s.impedance.empty();
  if (lumped) header += "  Re Z_in (ohm)  Im Z_in (ohm)";
  std::cout << header << '\n';
  std::size_t const stride = std::max<std::size_t>(1, (s.frequency.size() - 1) / 20);
  for (std::size_t i = 0; i < s.frequency.size(); i += stride) {
    char cell[96];
    std::snprintf(cell, sizeof cell, "%9.4f", s.frequency[i] / 1e9);
    std::string line = cell;
    for (std::size_t k = 0; k < s.ports.size(); ++k) {
      std::snprintf(cell, sizeof cell, "  %11.2f  %14.2f", 20 * std::log10(std::abs(s.s[k][i])),
                    std::arg(s.s[k][i]) * 180 / M_PI);
      line += cell;
    }
    if (lumped) {
      std::snprintf(cell, sizeof cell, "  %13.2f  %13.2f", s.impedance[i].real(), s.impedance[i].imag());
      line += cell;
    }
    std::cout << line << '\n';
  }
  if (lumped) {
    std::cout << "reference resistance " << s.resistance << " ohm; resonances (X_in = 0):";
    bool any = false;
    for (std::size_t i = 0; i + 1 < s.frequency.size(); ++i) {
      double const x0 = s.impedance[i].imag(), x1 = s.impedance[i + 1].imag();
      // A reactance that only wanders about zero (a matched line) has no resonance.
      double const scale = 1e-3 * std::max(s.impedance[i].real(), s.impedance[i + 1].real());
      if ((x0 < 0) == (x1 < 0) || std::max(std::abs(x0), std::abs(x1)) < scale) continue;
      double const w = x0 / (x0 - x1);
      double const f = s.frequency[i] + w * (s.frequency[i + 1] - s.frequency[i]);
      double const r = s.impedance[i].real() + w * (s.impedance[i + 1].real() - s.impedance[i].real());
      std::printf("%s %.4f GHz (R_in %.1f ohm)", any ? "," : "", f / 1e9, r);
      any = true;
    }
    std::cout << (any ? "" : " none in the band") << '\n';
    // A fed patch or a probe's inductance can keep X_in from crossing zero: its resonance is then
    // where the port takes most power and where the input resistance peaks.
    std::size_t best = 0, peak = 0;
    for (std::size_t i = 0; i < s.frequency.size(); ++i) {
      if (std::abs(s.s[0][i]) < std::abs(s.s[0][best])) best = i;
      if (s.impedance[i].real() > s.impedance[peak].real()) peak = i;
    }
    std::printf("best match: %.4f GHz (|S11| %.2f dB, Z_in %.1f %+.1fj ohm); largest R_in: %.4f GHz (Z_in %.1f "
                "%+.1fj ohm)\n",
                s.frequency[best] / 1e9, 20 * std::log10(std::abs(s.s[0][best])), s.impedance[best].real(),
                s.impedance[best].imag(), s.frequency[peak] / 1e9, s.impedance[peak].real(), s.impedance[peak].imag());
  }
  std::string const csv = options.csv.empty() ? io::beside_output(options.file, "_sparams.csv") : options.csv;
  io::write_sparameters_csv(csv, s);
  std::cout << "wrote " << csv << " (" << s.frequency.size() << " frequencies)\n";
  std::string const png = options.png.empty() ? io::beside_output(options.file, "_sparams.png") : options.png;
  std::vector<std::string> arguments{csv, png, "--title", options.file};
  std::string const smith = io::beside_output(png, "_smith.png");
  if (lumped) arguments.insert(arguments.end(), {"--smith", smith, "--resistance", format_number(s.resistance)});
  auto const plot = io::run_plot_script("plot_sparams.py", arguments, png);
  std::cout << io::plot_report(plot, png) << '\n';
  if (lumped && plot.outcome == io::SpectrumPlot::Outcome::written) std::cout << "wrote " << smith << '\n';
  return 0;
}

} // namespace

void add_sparams_command(CLI::App& app, Action* action)
{
  auto options = std::make_shared<SparamsOptions>();
  CLI::App* command = app.add_subcommand(
      "sparams", "S-parameters of a run's matched or lumped ports: |S11|, |S21|, ... in dB and their phases against "
                 "frequency over the excitation's band, and a lumped port's input impedance (table, CSV, PNG, Smith "
                 "chart)");
  command->add_option("file", options->file, "Output file of a run with matched ports (.h5)")->required();
  command->add_option("--fmin", options->fmin, "Lowest frequency, Hz (default: the excitation's band, -20 dB)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--fmax", options->fmax, "Highest frequency, Hz (default: the excitation's band, -20 dB)")
      ->check(CLI::PositiveNumber);
  command->add_option("--points", options->points, "Number of frequencies")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  command->add_option("--csv", options->csv, "CSV (default: <stem>_sparams.csv beside the file)");
  command->add_option("--png", options->png,
                      "Plot (default: <stem>_sparams.png beside the file; needs python3 + "
                      "matplotlib)");
  command->callback([options, action] { *action = [options] { return run_sparams(*options); }; });
}

} // namespace dgatd::app
