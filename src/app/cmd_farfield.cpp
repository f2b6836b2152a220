// dgatd farfield: the far field of a run's near-to-far-field surfaces (docs/method/plane_waves.md, section
// 5): radiated power against the flux through the surface, directivity, and for a plane-wave run
// the bistatic radar cross section, as a table, CSVs of a theta-phi grid and of polar cuts, and a plot.
#include "commands.hpp"

#include "dgatd/dga/operators.hpp"
#include "dgatd/io/analysis/far_field.hpp"
#include "dgatd/io/analysis/results.hpp"
#include "dgatd/io/analysis/sparams.hpp"
#include "dgatd/io/analysis/spectrum_plot.hpp"

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace dgatd::app {
namespace {

struct FarFieldOptions {
  std::string file;
  double theta_step = 5;
  double phi_step = 5;
  std::vector<double> cuts{0, 90};
  std::string prefix;
};

int run_far_field(FarFieldOptions const& options)
{
  auto const records = io::require_far_fields(options.file);
  auto const ports = io::read_ports(options.file);
  bool fed = false;
  for (auto const& port : ports) fed = fed || io::port_power_known(port);
  for (auto const& record : records) {
    auto const patterns = io::far_field_patterns(record, options.theta_step, options.phi_step, options.cuts);
    bool const rcs = record.has_incident;
    std::printf("far-field surface '%s': %zu faces; %s\n", record.name.c_str(), record.areas.size(),
                rcs ? "the scattered field of the run's plane wave" : "what radiates inside it");
    // Optical runs (a particle lit at hundreds of THz) read in THz and vacuum wavelengths.
    bool optical = false;
    for (auto const& p : patterns) optical = optical || p.frequency >= kOpticalFrequency;
    std::printf("  %s  far field / flux  D max (dBi) at theta, phi (deg)%s%s\n",
                optical ? "f (THz)  lambda (nm)" : "f (GHz)",
                rcs ? "   backscatter RCS (m^2, dBsm)   cross sections (m^2): scattering, extinction, absorption" : "",
                fed ? "   far field / accepted  gain (dBi)  realized gain (dBi)" : "");
    for (auto const& p : patterns) {
      // At a pole phi is no direction: said so rather than a number.
      bool const pole = p.strongest.theta <= 0 || p.strongest.theta >= 180;
      char phi[16] = "  any";
      if (!pole) std::snprintf(phi, sizeof phi, "%5.1f", p.strongest.phi);
      if (optical)
        std::printf("%9.2f  %11.1f", p.frequency / 1e12, 1e9 * dga::speed_of_light / p.frequency);
      else
        std::printf("%9.4f", p.frequency / 1e9);
      std::printf("  %16.4f  %11.3f at %5.1f, %s", p.radiated / p.flux, 10 * std::log10(p.strongest.directivity),
                  p.strongest.theta, phi);
      if (rcs)
        std::printf("   %.4g, %.2f   %41.4g", p.backscatter.rcs, 10 * std::log10(std::max(p.backscatter.rcs, 1e-300)),
                    p.scattering);
      if (rcs && p.has_extinction) std::printf(", %.4g, %.4g", p.extinction, p.absorption);
      if (fed) {
        // Gain refers the strongest intensity to the power the ports put in, realized gain to the
        // power their sources could give: 4 pi U / P = D P_rad / P.
        auto const power = io::port_power(ports, p.frequency);
        double const intensity = p.strongest.directivity * p.radiated;
        std::printf("   %20.4f  %11.3f  %19.3f", p.radiated / power.accepted,
                    10 * std::log10(std::max(intensity / power.accepted, 1e-300)),
                    10 * std::log10(std::max(intensity / power.available, 1e-300)));
      }
      std::printf("\n");
    }
    if (fed)
      std::printf("  (far field / accepted is the radiation efficiency: below 1 where the structure or the "
                  "surface's inside absorbs)\n");
    // -o STEM names what the output file's stem names by default: STEM_farfield_SURFACE.*
    std::string const stem =
        (options.prefix.empty() ? io::beside_output(options.file, "") : options.prefix) + "_farfield_" + record.name;
    io::write_far_field_csv(stem + ".csv", stem + "_cuts.csv", patterns);
    std::printf("wrote %s.csv (theta-phi grid) and %s_cuts.csv (cuts at phi =", stem.c_str(), stem.c_str());
    for (double phi : options.cuts) std::printf(" %g", phi);
    std::printf(" deg)\n");
    std::string const png = stem + ".png";
    auto const plot = io::run_plot_script("plot_farfield.py", {stem + ".csv", stem + "_cuts.csv", png}, png);
    std::printf("%s\n", io::plot_report(plot, png).c_str());
  }
  return 0;
}

} // namespace

void add_farfield_command(CLI::App& app, Action* action)
{
  auto options = std::make_shared<FarFieldOptions>();
  CLI::App* command = app.add_subcommand(
      "farfield", "Far field of a run's [[farfield]] surfaces: power, directivity (dBi) and, lit by a plane wave, "
                  "the bistatic radar cross section (m^2, dBsm) on a theta-phi grid and polar cuts (CSV, PNG)");
  command->add_option("file", options->file, "Output file of a run with a [[farfield]] table (.h5)")->required();
  command->add_option("--theta", options->theta_step, "Grid step in theta, degrees")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 90.0));
  command->add_option("--phi", options->phi_step, "Grid step in phi, degrees")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 180.0));
  command->add_option("--cut", options->cuts, "Planes phi = value (degrees) of the polar cuts")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 360.0));
  command->add_option("-o,--output", options->prefix,
                      "Stem of the CSVs and the plot, STEM_farfield_<surface>.csv (default: the file's stem, "
                      "beside it)");
  command->callback([options, action] { *action = [options] { return run_far_field(*options); }; });
}

} // namespace dgatd::app
