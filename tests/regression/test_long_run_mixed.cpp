// Mixed precision over a long run: 1e5 steps of a closed cavity with the step's local matrices in
// float. The float (Mmu_t)^-1 and (Meps_v)^-1 are still symmetric positive definite, so the step
// conserves the energy measured with the masses of those inverses exactly, as double does its own:
// only the rounding of the double fields moves it.
#include "cavity_fixture.hpp"

#include "dgatd/solver/leapfrog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace {

using Space = DGATD_TEST_EXEC_SPACE;

TEST(LongRunMixed, HundredThousandStepsOfAClosedCavityConserveTheEnergy)
{
  // Jittered PEC box, 1440 tets: every mode of a rich spectrum, 1e5 steps in seconds.
  auto const cavity = dgatd::testing::pec_box(1.0, 0.75, 0.5, 8, 6, 5, 0.2);
  dgatd::solver::FractionedLeapfrog<Space> solver(
      Space(), cavity.operators, dgatd::kernels::default_block_pass<Space>(), dgatd::kernels::MatrixPrecision::float32);
  solver.set_dt(0.95 * solver.estimate_stability().dt_max);
  solver.set_random_initial_field(77);
  double const w0 = solver.step_with_energy();
  ASSERT_GT(w0, 0);
  double worst = 0, largest = 0;
  constexpr int steps = 100000;
  for (int n = 1; n < steps; ++n) {
    if (n % 100 != 0) {
      solver.step();
      continue;
    }
    double const w = solver.step_with_energy();
    worst = std::max(worst, std::abs(w - w0) / w0);
    largest = std::max(largest, w / w0);
  }
  std::printf("float matrices: W0 = %.6e, max relative drift %.3e, largest W/W0 - 1 = %.3e over 1e5 steps\n", w0, worst,
              largest - 1);
  // The acceptance bar, 1e-9, is far above the rounding of the double fields (about 1e-14 over 1e4
  // steps, tests/unit/backend/test_leapfrog.cpp) and far below the 6e-8 by which the float matrices
  // differ from the double ones: a step that conserved only the double energy would miss it.
  EXPECT_LT(worst, 1e-9);
  EXPECT_LT(largest, 1 + 1e-9);
}

} // namespace
