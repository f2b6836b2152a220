// A dielectric slab in a unit cell at normal incidence (inputs/slab_reflectance.toml, run by the
// real executable; issue 23, acceptance 3): the reflectance and transmittance measured with a plane
// wave through a total-field/scattered-field surface equal the characteristic-matrix result within
// 0.02 over the pulse's band, 0.5 to 1.5 GHz.
#include "run_helpers.hpp"

#include "dgatd/io/analysis/results.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <string>

namespace {

using Complex = std::complex<double>;

constexpr double c0 = 299792458.0;
constexpr double two_pi = 6.283185307179586;
// The example's slab and wave: index 2, 5 cm thick; down z from the total-field region's top at
// z = 0.35, a 1 GHz carrier under a Gaussian of sigma 0.5 ns peaking at 5 sigma.
constexpr double index = 2.0, thickness = 0.05, top = 0.35, carrier = 1e9, sigma = 0.5e-9, t0 = 5 * sigma;

double incident(double t, double z)
{
  double const s = t - (top - z) / c0 - t0;
  return std::abs(s) > 6 * sigma ? 0.0 : std::exp(-0.5 * s * s / (sigma * sigma)) * std::sin(two_pi * carrier * s);
}

// The slab's characteristic matrix between vacuum on both sides: r = (B - C) / (B + C),
// t = 2 / (B + C), with (B, C) = M (1, 1).
std::pair<double, double> exact_reflectance_and_transmittance(double f)
{
  double const delta = two_pi * index * thickness * f / c0;
  Complex const i(0, 1);
  Complex const b = std::cos(delta) + i * std::sin(delta) / index;
  Complex const c = i * index * std::sin(delta) + std::cos(delta);
  return {std::norm((b - c) / (b + c)), std::norm(2.0 / (b + c))};
}

// |E(f)|^2 / |E_inc(f)|^2 at a probe, E_inc the analytic incident wave at its height.
double power_ratio(dgatd::io::ProbeRecord const& probe, double f)
{
  Complex measured = 0, analytic = 0;
  for (std::size_t n = 0; n < probe.time.size(); ++n) {
    Complex const kernel = std::polar(1.0, -two_pi * f * probe.time[n]);
    measured += probe.values[n][1] * kernel;
    analytic += incident(probe.time[n], probe.position[2]) * kernel;
  }
  return std::norm(measured / analytic);
}

TEST(SlabReflectance, EqualsTheCharacteristicMatrix)
{
  dgatd::testing::ScratchDirectory scratch("slab_reflectance");
  std::string const output = scratch.file("slab.h5");
  auto const run = dgatd::testing::run_dgatd(
      "run " + std::string(DGATD_SOURCE_DIR) + "/inputs/slab_reflectance.toml -o " + output, scratch.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto const reflected = dgatd::io::read_probe(output, "reflected", 'E');
  auto const transmitted = dgatd::io::read_probe(output, "transmitted", 'E');
  for (int k = 0; k <= 10; ++k) {
    double const f = 0.5e9 + 1e8 * k;
    auto const [r, t] = exact_reflectance_and_transmittance(f);
    double const measured_r = power_ratio(reflected, f), measured_t = power_ratio(transmitted, f);
    EXPECT_NEAR(measured_r, r, 0.02) << "R at " << f << " Hz";
    EXPECT_NEAR(measured_t, t, 0.02) << "T at " << f << " Hz";
    std::printf("%.2f GHz: R %.4f (exact %.4f), T %.4f (exact %.4f)\n", f / 1e9, measured_r, r, measured_t, t);
  }
}

} // namespace
