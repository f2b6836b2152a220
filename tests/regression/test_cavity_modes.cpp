// Eigenfrequencies of the unit PEC cube (c = 1) from the time domain: omega = pi sqrt 2 and
// pi sqrt 3 within 1 % at 8 cells per side, and second-order convergence from 4 to 8 cells.
#include "cavity_fixture.hpp"

#include "dgatd/solver/formulations.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

namespace {

using Space = DGATD_TEST_EXEC_SPACE;

// |DTFT| of the Hamming-windowed record at angular frequency omega.
double windowed_magnitude(std::vector<double> const& x, double dt, double omega)
{
  std::complex<double> sum = 0;
  std::size_t const n = x.size();
  for (std::size_t k = 0; k < n; ++k) {
    double const window = 0.54 - 0.46 * std::cos(2 * M_PI * k / (n - 1));
    sum += window * x[k] * std::polar(1.0, -omega * k * dt);
  }
  return std::abs(sum);
}

// The spectral peak in [lo, hi]: a grid finer than the main lobe, then golden-section refinement
// of the maximum (the windowed DTFT of a tone is smooth and unimodal inside its main lobe).
double peak_between(std::vector<double> const& x, double dt, double lo, double hi)
{
  int const samples = 400;
  double best = lo, best_value = -1;
  for (int i = 0; i <= samples; ++i) {
    double const omega = lo + (hi - lo) * i / samples;
    double const v = windowed_magnitude(x, dt, omega);
    if (v > best_value) {
      best_value = v;
      best = omega;
    }
  }
  double a = best - (hi - lo) / samples, b = best + (hi - lo) / samples;
  double const g = 0.5 * (std::sqrt(5.0) - 1);
  for (int it = 0; it < 60; ++it) {
    double const c = b - g * (b - a), d = a + g * (b - a);
    if (windowed_magnitude(x, dt, c) > windowed_magnitude(x, dt, d))
      b = d;
    else
      a = c;
  }
  return 0.5 * (a + b);
}

struct Modes {
  double low;  // near pi sqrt 2
  double high; // near pi sqrt 3
};

Modes cube_modes(int cells)
{
  auto const cavity = dgatd::testing::pec_box(1, 1, 1, cells, cells, cells, 0.15);
  dgatd::solver::FractionedFormulation<Space> formulation(Space(), cavity.topology, cavity.operators);
  auto& solver = formulation.leapfrog();
  solver.set_dt(0.9 * solver.estimate_stability().dt_max);
  // A (0,1,1) mode at pi sqrt 2 plus a divergence-free (1,1,1) field at pi sqrt 3: the smooth start
  // keeps the high, mesh-scale modes out of the record.
  solver.set_initial_field(dgatd::solver::project_field(cavity.view(), cavity.operators.layout, [](auto const& p) {
    double const s[3] = {std::sin(M_PI * p[0]), std::sin(M_PI * p[1]), std::sin(M_PI * p[2])};
    double const c[3] = {std::cos(M_PI * p[0]), std::cos(M_PI * p[1]), std::cos(M_PI * p[2])};
    return dgatd::mesh::Vec3{s[1] * s[2] + c[0] * s[1] * s[2], -s[0] * c[1] * s[2], 0.0};
  }));
  formulation.set_probes(
      {dgatd::solver::probe_stencil(cavity.view(), cavity.operators.layout, "p", {0.31, 0.43, 0.37})});
  double const record = 300; // about 210 periods of the lowest mode: a main lobe 0.04 wide.
  int const steps = static_cast<int>(record / solver.dt());
  std::vector<double> ex;
  for (int n = 0; n < steps; ++n) {
    formulation.step();
    formulation.record_probes();
  }
  auto const samples = formulation.take_probe_samples();
  for (int n = 0; n < steps; ++n) ex.push_back(samples.e(n, 0)[0]);
  return {peak_between(ex, solver.dt(), 3.8, 4.9), peak_between(ex, solver.dt(), 5.0, 5.9)};
}

TEST(CavityModes, UnitCubeConvergesAtSecondOrder)
{
  double const exact_low = M_PI * std::sqrt(2.0), exact_high = M_PI * std::sqrt(3.0);
  auto const coarse = cube_modes(4);
  auto const fine = cube_modes(8);
  double const coarse_low = std::abs(coarse.low / exact_low - 1), fine_low = std::abs(fine.low / exact_low - 1);
  double const coarse_high = std::abs(coarse.high / exact_high - 1), fine_high = std::abs(fine.high / exact_high - 1);
  std::printf("omega pi sqrt2: n=4 %.6f (%.3e), n=8 %.6f (%.3e)\n", coarse.low, coarse_low, fine.low, fine_low);
  std::printf("omega pi sqrt3: n=4 %.6f (%.3e), n=8 %.6f (%.3e)\n", coarse.high, coarse_high, fine.high, fine_high);
  EXPECT_LT(fine_low, 0.01);
  EXPECT_LT(fine_high, 0.01);
  // Second order would give 4x; 3x leaves room for the jitter's irregularity.
  EXPECT_GT(coarse_low / fine_low, 3.0);
  EXPECT_GT(coarse_high / fine_high, 3.0);
}

} // namespace
