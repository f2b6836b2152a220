// Mixed and single precision over a long run: 1e5 steps of a closed cavity with the step's local
// matrices in float (and in single precision the fields too). The float (Mmu_t)^-1 and (Meps_v)^-1
// are still symmetric positive definite, so the step conserves the energy measured with the masses
// of those inverses exactly, as double does its own: only the rounding of the fields moves it.
#include "cavity_fixture.hpp"

#include "dgatd/solver/leapfrog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace {

using Space = DGATD_TEST_EXEC_SPACE;

struct Drift {
  double worst = 0;   // max |W/W0 - 1|
  double largest = 0; // max W/W0
};

// Jittered PEC box, 1440 tets: every mode of a rich spectrum, 1e5 steps in seconds.
template <class FieldScalar>
Drift hundred_thousand_steps(char const* precision)
{
  auto const cavity = dgatd::testing::pec_box(1.0, 0.75, 0.5, 8, 6, 5, 0.2);
  dgatd::solver::FractionedLeapfrog<Space, dgatd::kernels::DefaultTetLayout<Space>, FieldScalar> solver(
      Space(), cavity.operators, dgatd::kernels::default_block_pass<Space>(), dgatd::kernels::MatrixPrecision::float32);
  solver.set_dt(0.95 * solver.estimate_stability().dt_max);
  solver.set_random_initial_field(77);
  double const w0 = solver.step_with_energy();
  EXPECT_GT(w0, 0);
  Drift drift;
  constexpr int steps = 100000;
  for (int n = 1; n < steps; ++n) {
    if (n % 100 != 0) {
      solver.step();
      continue;
    }
    double const w = solver.step_with_energy();
    drift.worst = std::max(drift.worst, std::abs(w - w0) / w0);
    drift.largest = std::max(drift.largest, w / w0);
  }
  std::printf("%s: W0 = %.6e, max relative drift %.3e, largest W/W0 - 1 = %.3e over 1e5 steps\n", precision, w0,
              drift.worst, drift.largest - 1);
  return drift;
}

TEST(LongRunMixed, HundredThousandStepsOfAClosedCavityConserveTheEnergy)
{
  Drift const drift = hundred_thousand_steps<double>("mixed (float matrices)");
  // The acceptance bar, 1e-9, is far above the rounding of the double fields (about 1e-14 over 1e4
  // steps, tests/unit/backend/test_leapfrog.cpp) and far below the 6e-8 by which the float matrices
  // differ from the double ones: a step that conserved only the double energy would miss it.
  EXPECT_LT(drift.worst, 1e-9);
  EXPECT_LT(drift.largest, 1 + 1e-9);
}

// In single precision the float fields' rounding (6e-8 of each value a step) moves the energy: the
// acceptance bar is 1e-4 over 1e5 steps with no growth. Measured: 1.5e-6, rising about linearly
// (1.4e-7 after 1e4 steps), so by about 1.5e-11 a step, 4000 times less than one value's rounding.
// A rounding bias in a kernel, or an operator that lost its symmetry, drifts by order
// 1e5 x 6e-8 = 6e-3 and fails it.
TEST(LongRunSingle, HundredThousandStepsOfAClosedCavityConserveTheEnergyToFloatRounding)
{
  Drift const drift = hundred_thousand_steps<float>("single (float matrices and fields)");
  EXPECT_LT(drift.worst, 1e-4);
  EXPECT_LT(drift.largest, 1 + 1e-4);
}

} // namespace
