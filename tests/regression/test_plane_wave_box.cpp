// A plane wave through an empty total-field box (inputs/plane_wave_box.toml, run by the real
// executable; issue 23, acceptance 1): 15 elements per wavelength at the carrier, the field around
// the box (the scattered-field region, with nothing in it to scatter) stays below -30 dB of the
// incident peak, and the field at the box's centre is the analytic plane wave: its spectrum's
// magnitude within 1 % over the pulse's band, its phase within that of half an element's distance
// (the probe reads piecewise-uniform fields, METHOD.md).
#include "run_helpers.hpp"

#include "dgatd/io/analysis/results.hpp"
#include "dgatd/io/analysis/spectrum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

namespace {

using dgatd::Vec3;
using Complex = std::complex<double>;

constexpr double c0 = 299792458.0;
constexpr double two_pi = 6.283185307179586;
// The example's wave: down z from the box's top face z = 0.22 (its origin), e along y, a 1 GHz
// carrier under a Gaussian of sigma 1 ns peaking at 5 ns.
constexpr double top = 0.22, carrier = 1e9, sigma = 1e-9, t0 = 5e-9, h = 0.02;

double incident(double t, double z)
{
  double const s = t - (top - z) / c0 - t0;
  return std::abs(s) > 6 * sigma ? 0.0 : std::exp(-0.5 * s * s / (sigma * sigma)) * std::sin(two_pi * carrier * s);
}

// Probes on the faces of the cube of half-side 0.115 about the box's centre: 0.035 m (1.75 elements)
// outside the box, 0.025 m inside the layer.
std::vector<std::pair<std::string, Vec3>> surrounding_points()
{
  std::vector<std::pair<std::string, Vec3>> points;
  for (int axis = 0; axis < 3; ++axis)
    for (int side = 0; side < 2; ++side)
      for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) {
          Vec3 x{0.14, 0.14, 0.14};
          x[axis] += side == 0 ? -0.115 : 0.115;
          x[(axis + 1) % 3] += -0.1 + 0.05 * i;
          x[(axis + 2) % 3] += -0.1 + 0.05 * j;
          points.push_back(
              {"s" + std::to_string(axis) + std::to_string(side) + std::to_string(i) + std::to_string(j), x});
        }
  return points;
}

TEST(PlaneWaveBox, LeakageAndTheFieldInside)
{
  dgatd::testing::ScratchDirectory scratch("plane_wave_box");
  std::string const example_path = std::string(DGATD_SOURCE_DIR) + "/inputs/plane_wave_box.toml";
  std::string const example = dgatd::testing::slurp(example_path);
  auto const output_table = example.find("\n[output]");
  ASSERT_NE(output_table, std::string::npos) << example_path << " should end with its [output] table";
  std::string probes;
  auto const around = surrounding_points();
  for (auto const& [name, x] : around)
    probes += "[[probe]]\nname = \"" + name + "\"\nposition = [" + std::to_string(x[0]) + ", " + std::to_string(x[1]) +
              ", " + std::to_string(x[2]) + "]\n";
  auto const config = scratch.write("box.toml", example.substr(0, output_table + 1) + probes +
                                                    "[output]\nfile = \"box.h5\"\nprogress = false\n");
  std::string const output = scratch.file("box.h5");
  auto const run = dgatd::testing::run_dgatd("run " + config + " -o " + output, scratch.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;

  double leakage = 0;
  std::string worst;
  for (auto const& [name, x] : around) {
    auto const record = dgatd::io::read_probe(output, name, 'E');
    for (auto const& e : record.values)
      if (dgatd::norm(e) > leakage) {
        leakage = dgatd::norm(e);
        worst = name;
      }
  }
  double const decibels = 20 * std::log10(leakage);
  EXPECT_LT(decibels, -30.0) << "at probe " << worst;
  std::printf("largest scattered field around the box: %.1f dB of the incident peak (probe %s)\n", decibels,
              worst.c_str());

  auto const centre = dgatd::io::read_probe(output, "centre", 'E');
  double const dt = dgatd::io::uniform_step(centre.time, output);
  for (double f : {0.8e9, 0.9e9, 1.0e9, 1.1e9, 1.2e9}) {
    Complex measured = 0, analytic = 0;
    for (std::size_t n = 0; n < centre.time.size(); ++n) {
      Complex const kernel = std::polar(dt, -two_pi * f * centre.time[n]);
      measured += centre.values[n][1] * kernel;
      analytic += incident(centre.time[n], 0.14) * kernel;
    }
    Complex const ratio = measured / analytic;
    EXPECT_NEAR(std::abs(ratio), 1.0, 0.01) << "at " << f << " Hz";
    EXPECT_LT(std::abs(std::arg(ratio)), 0.5 * two_pi * f / c0 * h) << "at " << f << " Hz";
    std::printf("centre at %.2f GHz: |E| / |E_inc| = %.4f, phase %+.4f rad\n", f / 1e9, std::abs(ratio),
                std::arg(ratio));
  }
}

} // namespace
