// The fractioned and the assembled DGATD are the same scheme: summing the fractioned unknowns
// (U = u^(a) + u^(b), F = sum_t f^(t)) reproduces the assembled SpMV run up to rounding.
#include "cavity_fixture.hpp"

#include "dgatd/dga/assembled.hpp"
#include "dgatd/kernels/assembled.hpp"
#include "dgatd/solver/current_source.hpp"
#include "dgatd/solver/leapfrog.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

namespace {
using dgatd::testing::relative_difference;

using TestSpace = DGATD_TEST_EXEC_SPACE;

TEST(AssembledEquivalence, DipoleInJitteredCavityAfterThousandSteps)
{
  auto const cavity = dgatd::testing::pec_box(1.0, 0.8, 0.6, 7, 6, 5, 0.2);
  auto const& ops = cavity.operators;
  auto const global = dgatd::dga::assemble_global(cavity.topology, ops);

  dgatd::solver::FractionedLeapfrog<TestSpace> fractioned(TestSpace(), ops);
  dgatd::kernels::AssembledLeapfrog<TestSpace> assembled(TestSpace(), global);
  double const dt = 0.9 * fractioned.estimate_stability().dt_max;
  fractioned.set_dt(dt);
  assembled.set_dt(dt);

  auto const pulse = [](double t) { return std::exp(-0.5 * std::pow((t - 0.6) / 0.15, 2)) * std::sin(9.0 * t); };
  auto const dipole = dgatd::solver::dipole_stencil(cavity.view(), ops, "dipole", {0.41, 0.37, 0.29}, {0.3, 0.5, 0.81});
  fractioned.add_term(std::make_unique<dgatd::solver::CurrentSource<TestSpace>>(dipole, 1.0, pulse));
  assembled.add_current_source(
      dgatd::dga::half_edge_rows_to_edges(cavity.topology, ops.layout, dipole.rows, dipole.weights), 1.0, pulse);

  for (int n = 0; n < 1000; ++n) {
    fractioned.step();
    assembled.step();
  }

  auto const u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fractioned.fields().u);
  auto const f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fractioned.fields().f);
  std::vector<double> u_host(u.data(), u.data() + u.extent(0));
  std::vector<double> f_host(4 * f.extent(0));
  for (std::size_t t = 0; t < f.extent(0); ++t)
    for (int j = 0; j < 4; ++j) f_host[4 * t + j] = f(t, j);
  auto const summed_u = dgatd::dga::sum_to_edges(cavity.topology, ops.layout, u_host);
  auto const summed_f = dgatd::dga::sum_to_faces(cavity.topology, f_host);

  auto const U = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), assembled.edge_circulations());
  auto const F = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), assembled.face_circulations());
  std::vector<double> const U_host(U.data(), U.data() + U.extent(0));
  std::vector<double> const F_host(F.data(), F.data() + F.extent(0));
  double const u_error = relative_difference(summed_u, U_host);
  double const f_error = relative_difference(summed_f, F_host);
  std::printf("max |U_frac - U_asm| / max |U| = %.3e, same for F: %.3e\n", u_error, f_error);
  // Same scheme, different summation order: only rounding separates them.
  EXPECT_LT(u_error, 1e-12);
  EXPECT_LT(f_error, 1e-12);
  // And the source did drive the cavity.
  double largest = 0;
  for (double v : U_host) largest = std::max(largest, std::abs(v));
  EXPECT_GT(largest, 1e-3);
}

} // namespace
