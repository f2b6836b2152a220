// Slabs in a unit cell at normal incidence, run by the real executable: the reflectance and
// transmittance measured with a plane wave through a total-field/scattered-field surface equal the
// characteristic-matrix result over the pulse's band, 0.5 to 1.5 GHz: a dielectric slab
// (inputs/slab_reflectance.toml; issue 23, acceptance 3) within 0.02, and a Lorentz slab and a
// Drude film (inputs/lorentz_slab.toml, inputs/drude_film.toml; issue 49, acceptance 1) within 0.01
// with their eps(w), and their absorption 1 - R - T within 0.005.
#include "run_helpers.hpp"

#include "dgatd/io/analysis/results.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <string>

namespace {

using Complex = std::complex<double>;

constexpr double c0 = 299792458.0;
constexpr double two_pi = 6.283185307179586;
// The examples' wave: down z from the total-field region's top at z = 0.35, a 1 GHz carrier under
// a Gaussian of sigma 0.5 ns peaking at 5 sigma.
constexpr double top = 0.35, carrier = 1e9, sigma = 0.5e-9, t0 = 5 * sigma;

double incident(double t, double z)
{
  double const s = t - (top - z) / c0 - t0;
  return std::abs(s) > 6 * sigma ? 0.0 : std::exp(-0.5 * s * s / (sigma * sigma)) * std::sin(two_pi * carrier * s);
}

// A slab of permittivity eps and the given thickness between vacuum on both sides, by its
// characteristic matrix (time dependence e^(+j w t), so a lossy slab's index has Im n < 0, the
// principal root): r = (B - C) / (B + C), t = 2 / (B + C), with (B, C) = M (1, 1).
std::pair<double, double> exact_reflectance_and_transmittance(Complex eps, double thickness, double f)
{
  Complex const index = std::sqrt(eps);
  Complex const delta = two_pi * index * thickness * f / c0;
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

// Runs an example and compares R and T at 0.5, 0.6, ..., 1.5 GHz with the exact ones, and, where
// absorption_tolerance > 0, the absorption A = 1 - R - T (the energy balance) with the exact one.
void expect_characteristic_matrix(std::string const& example, std::function<Complex(double)> const& eps,
                                  double thickness, double tolerance, double absorption_tolerance = 0)
{
  dgatd::testing::ScratchDirectory scratch(example);
  std::string const output = scratch.file(example + ".h5");
  auto const run = dgatd::testing::run_dgatd(
      "run " + std::string(DGATD_SOURCE_DIR) + "/inputs/" + example + ".toml -o " + output, scratch.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto const reflected = dgatd::io::read_probe(output, "reflected", 'E');
  auto const transmitted = dgatd::io::read_probe(output, "transmitted", 'E');
  for (int k = 0; k <= 10; ++k) {
    double const f = 0.5e9 + 1e8 * k;
    auto const [r, t] = exact_reflectance_and_transmittance(eps(two_pi * f), thickness, f);
    double const measured_r = power_ratio(reflected, f), measured_t = power_ratio(transmitted, f);
    EXPECT_NEAR(measured_r, r, tolerance) << "R at " << f << " Hz";
    EXPECT_NEAR(measured_t, t, tolerance) << "T at " << f << " Hz";
    if (absorption_tolerance > 0) {
      EXPECT_NEAR(1 - measured_r - measured_t, 1 - r - t, absorption_tolerance) << "A at " << f << " Hz";
    }
    std::printf("%.2f GHz: R %.4f (exact %.4f), T %.4f (exact %.4f)\n", f / 1e9, measured_r, r, measured_t, t);
  }
}

// Index 2, 5 cm thick.
TEST(SlabReflectance, EqualsTheCharacteristicMatrix)
{
  expect_characteristic_matrix(
      "slab_reflectance", [](double) { return Complex(4.0); }, 0.05, 0.02);
}

// The examples' models in the formulas users know them by (not dgatd's pole form), e^(+j w t). At
// their h = 3.5 mm R and T stay within 0.0022 of the exact ones and A = 1 - R - T within 0.0023
// (0.0035 and 0.0047 at 5 mm, 0.0015 and 0.0016 at 2.5 mm): the tolerances are the issue's, 0.01 and
// 0.005.
TEST(SlabReflectance, ALorentzSlabEqualsTheCharacteristicMatrixWithItsPermittivity)
{
  double const w0 = two_pi * 1.2e9, delta = two_pi * 0.1e9;
  auto const eps = [&](double w) { return 2.0 + w0 * w0 / (w0 * w0 - w * w + Complex(0, 2 * w * delta)); };
  expect_characteristic_matrix("lorentz_slab", eps, 0.05, 0.01, 0.005);
}

TEST(SlabReflectance, ADrudeFilmEqualsTheCharacteristicMatrixWithItsPermittivity)
{
  double const wp = two_pi * 3e9, gamma = two_pi * 0.3e9;
  auto const eps = [&](double w) { return 1.0 - wp * wp / (w * w - Complex(0, w * gamma)); };
  expect_characteristic_matrix("drude_film", eps, 0.02, 0.01, 0.005);
}

} // namespace
