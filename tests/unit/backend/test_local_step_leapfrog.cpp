// The leapfrog with local time steps (solver/local_steps.hpp, FractionedLeapfrog::set_local_steps): with one level it
// is the leapfrog, kernel for kernel, with an impressed current too; on a mesh graded 8:1 with four levels it conserves
// its energy E^(n+1/2) = |u^(n+1) - u^n|^2_Meps / (2 dt^2) + <A_p u^(n+1), u^n>_Meps / 2 to rounding and stays bounded
// below the finest level's stabilised limit, has a growing mode above it, and a dipole's pulse leaves in it the energy
// it leaves in the leapfrog, to the schemes' order.
#include "cavity_fixture.hpp"

#include "dgatd/dga/local_steps.hpp"
#include "dgatd/solver/current_source.hpp"
#include "dgatd/solver/leapfrog.hpp"
#include "dgatd/solver/local_step_plan.hpp"
#include "dgatd/solver/stencils.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using TestSpace = DGATD_TEST_EXEC_SPACE;
using dgatd::Index;
using dgatd::solver::FractionedLeapfrog;
using dgatd::solver::LocalStepPlan;

template <class View>
std::vector<double> host_values(View const& view)
{
  auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  return std::vector<double>(host.data(), host.data() + host.span());
}

// The unit cube graded 8:1 along each axis (mesh::graded_box), vacuum in c = 1 units, PEC walls.
dgatd::testing::Cavity graded_box(int cells, double ratio)
{
  auto mesh = dgatd::mesh::graded_box(cells, ratio);
  std::size_t const num_tets = mesh.tets.size();
  return dgatd::simulation::make_problem(
      std::move(mesh),
      dgatd::dga::Materials{std::vector<double>(num_tets, 1.0), std::vector<double>(num_tets, 1.0), {}},
      dgatd::simulation::BoundaryKinds{});
}

// Each tet's level from its own step (dga::tet_steps, dga::step_levels): 0 the coarsest.
LocalStepPlan plan_for(dgatd::testing::Cavity const& cavity, int max_levels)
{
  auto const tet_dt = dgatd::dga::tet_steps(cavity.view(), cavity.materials.eps, cavity.materials.mu);
  auto const levels = dgatd::dga::step_levels(cavity.topology, tet_dt, 1.0, max_levels);
  int const finest_step = *std::max_element(levels.tet_level.begin(), levels.tet_level.end());
  std::vector<int> wished(levels.tet_level.size());
  for (std::size_t t = 0; t < wished.size(); ++t) wished[t] = finest_step - levels.tet_level[t];
  return dgatd::solver::local_step_plan(cavity.operators, wished);
}

// The leapfrog on cavity's operators with full block inverses, stepping plan's levels.
std::unique_ptr<FractionedLeapfrog<TestSpace>> with_local_steps(dgatd::testing::Cavity const& cavity,
                                                                LocalStepPlan const& plan)
{
  auto leapfrog = std::make_unique<FractionedLeapfrog<TestSpace>>(TestSpace(), cavity.operators,
                                                                  dgatd::kernels::AmpereBlockPass::columns);
  leapfrog->set_local_steps(plan);
  return leapfrog;
}

TEST(LocalStepLeapfrog, OneLevelIsTheLeapfrogKernelForKernel)
{
  auto const cavity = dgatd::testing::pec_box(1.0, 0.8, 0.6, 4, 4, 3, 0.2);
  auto const plan = dgatd::solver::local_step_plan(cavity.operators, std::vector<int>(cavity.mesh.tets.size(), 0));
  ASSERT_EQ(plan.levels.size(), 1u);
  FractionedLeapfrog<TestSpace> leapfrog(TestSpace(), cavity.operators, dgatd::kernels::AmpereBlockPass::columns);
  auto local = with_local_steps(cavity, plan);
  double const dt = 0.9 * leapfrog.estimate_stability().dt_max;
  leapfrog.set_dt(dt);
  local->set_dt(dt);
  auto const u0 =
      dgatd::solver::random_free_unknowns(leapfrog.operators().num_unknowns, leapfrog.operators().num_free, 3);
  leapfrog.set_initial_field(u0);
  local->set_initial_field(u0);
  for (int n = 0; n < 40; ++n) {
    leapfrog.step();
    local->step();
  }
  EXPECT_EQ(host_values(local->fields().u), host_values(leapfrog.fields().u));
  EXPECT_EQ(host_values(local->fields().f), host_values(leapfrog.fields().f));
}

// The derivative of a Gaussian of width sigma centred at `centre` sigmas: its integral is zero, so the
// dipole leaves no static charge behind.
dgatd::solver::Signal gaussian_derivative(double sigma, double centre = 6)
{
  return [sigma, centre](double t) {
    double const x = (t - centre * sigma) / sigma;
    return -x * std::exp(-0.5 * x * x);
  };
}

TEST(LocalStepLeapfrog, OneLevelWithADipoleIsTheLeapfrogKernelForKernel)
{
  auto const cavity = dgatd::testing::pec_box(1.0, 0.8, 0.6, 4, 4, 3, 0.2);
  auto const plan = dgatd::solver::local_step_plan(cavity.operators, std::vector<int>(cavity.mesh.tets.size(), 0));
  auto const dipole =
      dgatd::solver::dipole_stencil(cavity.view(), cavity.operators, "dipole", {0.41, 0.37, 0.29}, {0.3, 0.5, 0.81});
  FractionedLeapfrog<TestSpace> leapfrog(TestSpace(), cavity.operators, dgatd::kernels::AmpereBlockPass::columns);
  auto local = with_local_steps(cavity, plan);
  double const dt = 0.9 * leapfrog.estimate_stability().dt_max;
  leapfrog.set_dt(dt);
  local->set_dt(dt);
  leapfrog.add_term(
      std::make_unique<dgatd::solver::CurrentSource<TestSpace>>(dipole, 2.5, gaussian_derivative(5 * dt)));
  local->add_term(std::make_unique<dgatd::solver::CurrentSource<TestSpace>>(dipole, 2.5, gaussian_derivative(5 * dt)));
  for (int n = 0; n < 80; ++n) {
    leapfrog.step();
    local->step();
  }
  auto const u = host_values(local->fields().u);
  EXPECT_GT(*std::max_element(u.begin(), u.end()), 0) << "the pulse rang the box";
  EXPECT_EQ(u, host_values(leapfrog.fields().u));
  EXPECT_EQ(host_values(local->fields().f), host_values(leapfrog.fields().f));
}

class GradedBox : public ::testing::Test {
protected:
  static void SetUpTestSuite() { cavity_ = new dgatd::testing::Cavity(graded_box(7, 8.0)); }
  static void TearDownTestSuite()
  {
    delete cavity_;
    cavity_ = nullptr;
  }
  static dgatd::testing::Cavity* cavity_;
};
dgatd::testing::Cavity* GradedBox::cavity_ = nullptr;

// x.Meps y over the free unknowns, on the host.
double electric_product(dgatd::dga::HostOperators const& host, std::vector<double> const& x,
                        std::vector<double> const& y)
{
  auto const& layout = host.layout;
  double sum = 0;
  for (Index b = 0; b < layout.num_blocks(); ++b) {
    Index const first = layout.block_offset[b];
    Index const d = layout.block_size(b);
    for (Index i = 0; i < d; ++i) {
      double row = 0;
      for (Index j = 0; j < d; ++j) row += host.eps[layout.block_matrix_offset[b] + i * d + j] * y[first + j];
      sum += x[first + i] * row;
    }
  }
  return sum;
}

// The energy of the scheme from three consecutive fields (the second-order form).
double scheme_energy(dgatd::dga::HostOperators const& ops, std::vector<double> const& u0, std::vector<double> const& u1,
                     std::vector<double> const& u2, double dt)
{
  std::vector<double> rate(u0.size()), second(u0.size());
  for (std::size_t i = 0; i < u0.size(); ++i) {
    rate[i] = u1[i] - u0[i];
    second[i] = u2[i] - 2 * u1[i] + u0[i];
  }
  return (electric_product(ops, rate, rate) - electric_product(ops, u0, second)) / (2 * dt * dt);
}

// The scheme's coarse step on the box: the finest level at safety x its stabilised limit.
double coarse_step(FractionedLeapfrog<TestSpace> const& local, double dt_max, double safety)
{
  return local.local_steps()->coarse_step(dt_max, safety);
}

// The scheme's spectrum at its current coarse step.
dgatd::solver::LocalStepSpectrum spectrum_of(FractionedLeapfrog<TestSpace> const& local)
{
  return local.local_steps()->spectrum(TestSpace(), local.operators(), local.dt());
}

TEST_F(GradedBox, FourLevelsConserveTheSchemesEnergyAndStayBounded)
{
  auto const& cavity = *cavity_;
  auto const plan = plan_for(cavity, 4);
  ASSERT_EQ(plan.levels.size(), 4u) << "a mesh graded 8:1 takes four levels of steps";
  FractionedLeapfrog<TestSpace> leapfrog(TestSpace(), cavity.operators, dgatd::kernels::AmpereBlockPass::columns);
  double const dt_max = leapfrog.estimate_stability().dt_max;
  auto local = with_local_steps(cavity, plan);
  double const dt = coarse_step(*local, dt_max, 0.9);
  local->set_dt(dt);

  // Stable: every eigenvalue of A_p in [0, 4 / dt^2). Lanczos finds the extreme ones to about 1e-7 of
  // the largest; the largest is the stabilisation's own ceiling for the resonant modes of level 1,
  // (1 + 1 / T_2(nu_1)) / 2.
  auto const spectrum = spectrum_of(*local);
  double const nu = dgatd::solver::local_step_stabilisation(1);
  EXPECT_GT(spectrum.lowest, -1e-6);
  EXPECT_LT(spectrum.highest, (1 + 1 / (2 * nu * nu - 1)) / 2 + 1e-6);

  auto const u0 = dgatd::solver::random_free_unknowns(local->operators().num_unknowns, local->operators().num_free, 5);
  local->set_initial_field(u0);
  // The energy from three consecutive fields, every `every` steps.
  auto const energy_now = [&] {
    std::vector<std::vector<double>> u{host_values(local->fields().u)};
    for (int n = 0; n < 2; ++n) {
      local->step();
      u.push_back(host_values(local->fields().u));
    }
    return scheme_energy(cavity.operators, u[0], u[1], u[2], dt);
  };
  double const start = energy_now();
  ASSERT_GT(start, 0);
  double const initial_norm = electric_product(cavity.operators, u0, u0);
  double largest_drift = 0, largest_norm = 0;
  int const steps = 5000, every = 500;
  while (local->steps() < steps) {
    for (int n = 0; n < every - 2; ++n) local->step();
    largest_norm = std::max(largest_norm, electric_product(cavity.operators, host_values(local->fields().u),
                                                           host_values(local->fields().u)));
    largest_drift = std::max(largest_drift, std::abs(energy_now() / start - 1));
  }
  // Rounding alone: about 1e-16 per step, accumulated over 5e3 steps as a random walk, times the
  // cancellation between the energy's two terms (measured: 1e-14).
  EXPECT_LT(largest_drift, 1e-10);
  // Each mode of A_p (Meps-orthogonal) keeps its amplitude below 1 / sqrt(1 - r) of its start, r its
  // dt^2 lambda / 4: the field's Meps norm below the start's over 1 - r_max.
  EXPECT_LT(largest_norm, initial_norm / (1 - spectrum.highest));
}

// The Meps norm of a - b over b's.
double relative_difference(dgatd::dga::HostOperators const& ops, std::vector<double> const& a,
                           std::vector<double> const& b)
{
  std::vector<double> d(a.size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = a[i] - b[i];
  return std::sqrt(electric_product(ops, d, d) / electric_product(ops, b, b));
}

// A current's pulse in the box's level 2 of four (a Gaussian's derivative of width sigma, switched on
// at 1e-30 of its peak), in the local steps at safety times their limit and in the leapfrog at half
// the finest level's step: the field's difference at the pulse's peak (mostly the near field) and
// after it (what the pulse left in the modes). The levels' middle steps force the current's rows
// (docs/method/local_time_stepping.md, section 4), so both differences are the schemes' second
// order: below (dt / sigma)^2, the size of the leapfrog's own second-order term at the coarse step
// for the pulse's frequencies, and 4 times smaller (3 allowing for the terms beyond) when the coarse
// step halves. Two currents: the dipole, and b = A x for x the dipole's stencil (no charge: its near
// field is all of its static response, which the levels' operator without the forcing gets wrong:
// 40 % at the peak, measured).
struct PulseDifferences {
  double at_peak, after;
};

PulseDifferences pulse_differences(dgatd::testing::Cavity const& cavity, dgatd::solver::CurrentStencil const& current,
                                   double sigma, double safety)
{
  auto local = with_local_steps(cavity, plan_for(cavity, 4));
  FractionedLeapfrog<TestSpace> fine(TestSpace(), cavity.operators, dgatd::kernels::AmpereBlockPass::columns);
  double const dt = coarse_step(*local, fine.estimate_stability().dt_max, safety);
  local->set_dt(dt);
  fine.set_dt(dt / 16);
  auto const pulse = gaussian_derivative(sigma, 12);
  local->add_term(std::make_unique<dgatd::solver::CurrentSource<TestSpace>>(current, 1.0, pulse));
  fine.add_term(std::make_unique<dgatd::solver::CurrentSource<TestSpace>>(current, 1.0, pulse));
  auto const difference = [&] {
    return relative_difference(cavity.operators, host_values(local->fields().u), host_values(fine.fields().u));
  };
  PulseDifferences differences{};
  auto const peak = static_cast<int>(std::round(13 * sigma / dt)), end = static_cast<int>(std::round(36 * sigma / dt));
  for (int n = 0; n < end; ++n) {
    local->step();
    for (int m = 0; m < 16; ++m) fine.step();
    if (n + 1 == peak) differences.at_peak = difference();
  }
  differences.after = difference();
  return differences;
}

TEST_F(GradedBox, ACurrentsPulseInTheLevelsIsSecondOrder)
{
  auto const& cavity = *cavity_;
  auto const dipole =
      dgatd::solver::dipole_stencil(cavity.view(), cavity.operators, "dipole", {0.52, 0.47, 0.55}, {0.3, 0.5, 0.81});
  // b = A x: one leapfrog step from u = x and f = 0 leaves x - tau^2 A x.
  FractionedLeapfrog<TestSpace> leapfrog(TestSpace(), cavity.operators, dgatd::kernels::AmpereBlockPass::columns);
  double const tau = 0.1 * leapfrog.estimate_stability().dt_max;
  std::vector<double> x(cavity.operators.layout.size(), 0.0);
  for (std::size_t i = 0; i < dipole.rows.size(); ++i) x[dipole.rows[i]] = dipole.weights[i];
  leapfrog.set_dt(tau);
  leapfrog.set_initial_field(x);
  leapfrog.step();
  auto const stepped = host_values(leapfrog.fields().u);
  dgatd::solver::CurrentStencil curl;
  for (Index i = 0; i < cavity.operators.layout.num_free; ++i)
    if (double const b = (x[i] - stepped[i]) / (tau * tau); b != 0) {
      curl.rows.push_back(i);
      curl.weights.push_back(b);
    }
  auto const plan = plan_for(cavity, 4);
  int level = 0;
  for (Index const r : dipole.rows) level = std::max(level, plan.block_level[cavity.operators.layout.block_of(r)]);
  ASSERT_EQ(level, 2) << "the current in a finer level";

  FractionedLeapfrog<TestSpace> probe(TestSpace(), cavity.operators, dgatd::kernels::AmpereBlockPass::columns);
  auto const limit = with_local_steps(cavity, plan)->local_steps()->coarse_step(probe.estimate_stability().dt_max, 1);
  double const sigma = 0.5;
  for (dgatd::solver::CurrentStencil const* current :
       {&dipole, static_cast<dgatd::solver::CurrentStencil const*>(&curl)}) {
    auto const coarse = pulse_differences(cavity, *current, sigma, 0.9);
    auto const halved = pulse_differences(cavity, *current, sigma, 0.45);
    double const bound = std::pow(0.9 * limit / sigma, 2);
    std::printf("%s: at the peak %.3e then %.3e, after %.3e then %.3e (bound %.3f)\n",
                current == &dipole ? "dipole" : "b = A x", coarse.at_peak, halved.at_peak, coarse.after, halved.after,
                bound);
    EXPECT_LT(coarse.at_peak, bound);
    EXPECT_LT(coarse.after, bound);
    EXPECT_GT(coarse.at_peak / halved.at_peak, 3);
    EXPECT_GT(coarse.after / halved.after, 3);
  }
}

// Terms that need their tets on the coarse level (matched layers, plane-wave surfaces) pin them: a
// coarse tet pinned keeps levels, the finest tet pinned leaves one, and a term whose tets the plan
// steps finer is refused.
TEST_F(GradedBox, PinnedTetsStepTheCoarseLevel)
{
  auto const& cavity = *cavity_;
  auto const tet_dt = dgatd::dga::tet_steps(cavity.view(), cavity.materials.eps, cavity.materials.mu);
  auto const levels = dgatd::dga::step_levels(cavity.topology, tet_dt, 1.0, 4);
  auto const& doublings = levels.tet_level;
  // The largest tet, in the box's coarse corner among tets as coarse, and one of the finest.
  auto const coarsest = static_cast<Index>(std::max_element(tet_dt.begin(), tet_dt.end()) - tet_dt.begin());
  auto const finest = static_cast<Index>(std::min_element(doublings.begin(), doublings.end()) - doublings.begin());

  auto const free = dgatd::solver::local_step_plan_for_steps(cavity.operators, doublings, 4, {});
  ASSERT_EQ(free.levels.size(), 4u);
  EXPECT_EQ(free.pinned_tets, 0);
  auto const coarse = dgatd::solver::local_step_plan_for_steps(cavity.operators, doublings, 4, {coarsest});
  // The tets around the pinned tet's vertices wish the coarse level too; on this box some of them
  // are finer than the corner's largest, which then costs levels, not all of them.
  EXPECT_EQ(coarse.tet_level[coarsest], 0);
  EXPECT_GT(coarse.pinned_tets, 1);
  EXPECT_GE(coarse.levels.size(), 2u);
  EXPECT_EQ(coarse.limiting_tets > 0, coarse.levels.size() < 4u);
  auto const fine = dgatd::solver::local_step_plan_for_steps(cavity.operators, doublings, 4, {finest});
  EXPECT_EQ(fine.levels.size(), 1u);
  EXPECT_EQ(fine.levels_of_the_steps, 4);
  EXPECT_GE(fine.limiting_tets, 1);
  // Held against the pins, the levels stay those of the other tets' steps, the pinned tets (the same
  // ones) on the coarse level, for the scheme's spectrum to judge.
  auto const held = dgatd::solver::local_step_plan_for_steps(cavity.operators, doublings, 4, {finest}, nullptr,
                                                             dgatd::solver::PinnedLevels::hold);
  EXPECT_EQ(held.levels.size(), 4u);
  EXPECT_EQ(held.tet_level[finest], 0);
  EXPECT_EQ(held.pinned_tets, fine.pinned_tets);
  EXPECT_EQ(held.limiting_tets, fine.limiting_tets);
  auto const held_unpinned = dgatd::solver::local_step_plan_for_steps(cavity.operators, doublings, 4, {}, nullptr,
                                                                      dgatd::solver::PinnedLevels::hold);
  EXPECT_EQ(held_unpinned.tet_level, free.tet_level) << "without pins holding changes nothing";

  // A current source pins nothing; a term whose tet the plan steps finer is refused.
  auto local = with_local_steps(cavity, coarse);
  EXPECT_FALSE(local->local_step_drives_currents());
  auto const dipole =
      dgatd::solver::dipole_stencil(cavity.view(), cavity.operators, "dipole", {0.52, 0.47, 0.55}, {0.3, 0.5, 0.81});
  local->add_term(std::make_unique<dgatd::solver::CurrentSource<TestSpace>>(dipole, 1.0, gaussian_derivative(1.0)));
  EXPECT_TRUE(local->local_step_drives_currents()) << "a current source drives a current";
  EXPECT_EQ(local->local_step_current_rows(), dipole.rows) << "into its stencil's rows";
  ASSERT_GT(coarse.tet_level[finest], 0);
  struct Pinning final : dgatd::solver::Term<TestSpace> {
    Index tet;
    explicit Pinning(Index t) : tet(t) {}
    std::string name() const override { return "pinning"; }
    std::int64_t bytes_per_step() const override { return 0; }
    dgatd::solver::LocalStepSupport local_step_support() const override { return {true, {tet}}; }
  };
  EXPECT_THROW(local->add_term(std::make_unique<Pinning>(finest)), std::logic_error);
  EXPECT_NO_THROW(local->add_term(std::make_unique<Pinning>(coarsest)));
  struct Unsupported final : dgatd::solver::Term<TestSpace> {
    std::string name() const override { return "unsupported"; }
    std::int64_t bytes_per_step() const override { return 0; }
  };
  EXPECT_THROW(local->add_term(std::make_unique<Unsupported>()), std::logic_error);
}

// Past the finest level's stabilised limit the scheme has a negative eigenvalue and grows: the limit
// is where the derivation puts it.
TEST_F(GradedBox, AStepPastTheFinestLevelsLimitIsUnstable)
{
  auto const& cavity = *cavity_;
  FractionedLeapfrog<TestSpace> leapfrog(TestSpace(), cavity.operators, dgatd::kernels::AmpereBlockPass::columns);
  double const dt_max = leapfrog.estimate_stability().dt_max;
  auto local = with_local_steps(cavity, plan_for(cavity, 4));
  local->set_dt(coarse_step(*local, dt_max, 1.03));
  EXPECT_LT(spectrum_of(*local).lowest, -1e-3);
}

} // namespace
