// Conductivity in Ampère's law (time-averaged loss term): in a PEC box filled with a uniform
// conductor every mode decays as exp(-sigma t / (2 eps)), the leapfrog's energy never increases,
// and the lossless time step stays stable for any sigma. Run on every enabled execution space.
#include "cavity_fixture.hpp"
#include "loss_fixtures.hpp"

#include "dgatd/simulation/problem.hpp"
#include "dgatd/solver/leapfrog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace {

using TestSpace = DGATD_TEST_EXEC_SPACE;
using dgatd::Vec3;
using dgatd::solver::FractionedLeapfrog;
using dgatd::testing::a;
using dgatd::testing::b;
using dgatd::testing::d;
using dgatd::testing::layered_guide;
using dgatd::testing::lossy_box;

// E of the TE_mnp-like field with E only along one axis: E_z = sin(m pi x / a) sin(n pi y / b).
Vec3 mode_110(Vec3 const& p) { return {0, 0, std::sin(M_PI * p[0] / a) * std::sin(M_PI * p[1] / b)}; }
Vec3 mode_101(Vec3 const& p) { return {0, std::sin(M_PI * p[0] / a) * std::sin(M_PI * p[2] / d), 0}; }

struct Decay {
  double rate = 0;       // fitted d(ln W)/dt
  double worst_rise = 0; // largest W^(n+1) / W^n - 1
};

Decay energy_decay(dgatd::simulation::Problem const& problem, std::function<Vec3(Vec3 const&)> const& mode,
                   double t_end)
{
  FractionedLeapfrog<TestSpace> solver(TestSpace(), problem.operators);
  solver.set_dt(0.95 * solver.estimate_stability().dt_max);
  solver.set_initial_field(dgatd::solver::project_field(problem.view(), problem.operators.layout, mode));
  int const steps = static_cast<int>(t_end / solver.dt());
  std::vector<double> t, log_w;
  Decay decay;
  double previous = 0;
  for (int n = 0; n < steps; ++n) {
    double const w = solver.step_with_energy();
    if (n > 0) decay.worst_rise = std::max(decay.worst_rise, w / previous - 1);
    previous = w;
    t.push_back(n * solver.dt());
    log_w.push_back(std::log(w));
  }
  // Least squares over the whole record: the 2 omega ripple of a lossy mode's energy (losses act on
  // e only) averages out over its many periods.
  double st = 0, sw = 0, stt = 0, stw = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    st += t[i];
    sw += log_w[i];
    stt += t[i] * t[i];
    stw += t[i] * log_w[i];
  }
  double const count = static_cast<double>(t.size());
  decay.rate = (count * stw - st * sw) / (count * stt - st * st);
  return decay;
}

TEST(Losses, EachModeDecaysAtSigmaOverTwoEps)
{
  double const sigma = 0.1; // amplitude rate sigma / (2 eps) = 0.05 against omega = 5.2 and 6.9
  auto const problem = lossy_box(sigma);
  for (auto const& [name, mode] : {std::pair{"110", &mode_110}, std::pair{"101", &mode_101}}) {
    auto const decay = energy_decay(problem, mode, 60.0);
    // The energy of a mode decaying as exp(-sigma t / (2 eps)) decays as exp(-sigma t / eps).
    double const expected = -sigma / 1.0;
    std::printf("mode %s: d ln W / dt = %.6f, expected %.6f (%.3f %%); largest rise per step %.2e\n", name, decay.rate,
                expected, 100 * (decay.rate / expected - 1), decay.worst_rise);
    // The semi-implicit term is second order in dt (about 1e-4 here) and the mesh resolves the mode's
    // shape, so the rate matches well within the 1 % the issue asks.
    EXPECT_NEAR(decay.rate / expected, 1.0, 0.01) << name;
    // Energy never increases: at most rounding (1e-13 of W per step) above the previous value.
    EXPECT_LT(decay.worst_rise, 1e-13) << name;
  }
}

// In both precisions: with float matrices (precision = "mixed") L is rounded too, a relative
// perturbation of the loss itself, which cannot outweigh the loss it perturbs.
TEST(Losses, AnySigmaIsStableAtTheLosslessTimeStep)
{
  using dgatd::kernels::MatrixPrecision;
  for (auto const precision : {MatrixPrecision::float64, MatrixPrecision::float32})
    for (double const sigma : {1e-3, 1.0, 1e3, 1e8}) {
      auto const problem = lossy_box(sigma);
      FractionedLeapfrog<TestSpace> solver(TestSpace(), problem.operators,
                                           dgatd::kernels::default_block_pass<TestSpace>(), precision);
      solver.set_dt(0.95 * solver.estimate_stability().dt_max);
      solver.set_random_initial_field(7);
      double const w0 = solver.step_with_energy();
      double largest = 0;
      for (int n = 1; n < 3000; ++n) largest = std::max(largest, solver.step_with_energy() / w0);
      std::printf("%s matrices, sigma %.0e: largest W / W0 over 3000 steps %.3e\n",
                  dgatd::kernels::matrix_precision_name(precision), sigma, largest);
      EXPECT_LE(largest, 1.0 + 1e-12) << sigma;
    }
}

} // namespace

namespace {

// A TEM pulse between PEC plates (y = 0, b) and PMC sides (x = 0, a), in a guide ended at both
// z = 0 and z = L by absorbing surfaces: at normal incidence the first-order condition is exact, so
// after the two halves of the pulse have met the ends only the discretisation's reflection is left.
TEST(AbsorbingSurfaces, NormallyIncidentPlaneWaveLeavesTheGuide)
{
  dgatd::mesh::StructuredBox box;
  double const length = 4.0;
  box.size[0] = 0.1;
  box.size[1] = 0.1;
  box.size[2] = length;
  box.cells[0] = 4;
  box.cells[1] = 4;
  box.cells[2] = 160;
  auto mesh = dgatd::mesh::structured_box(box);
  auto const topology = dgatd::mesh::build_topology(mesh);
  auto const geometry = dgatd::mesh::build_geometry(mesh, topology);
  std::vector<dgatd::dga::FaceKind> kinds(topology.num_faces(), dgatd::dga::FaceKind::interior_or_pmc);
  for (auto f : topology.boundary_faces) {
    double y = 0, z = 0;
    for (auto v : topology.face_vertices[f]) {
      y += mesh.points[v][1] / 3;
      z += mesh.points[v][2] / 3;
    }
    bool const on_plate = std::abs(y) < 1e-9 || std::abs(y - 0.1) < 1e-9;
    bool const at_end = std::abs(z) < 1e-9 || std::abs(z - length) < 1e-9;
    if (on_plate && !at_end) kinds[f] = dgatd::dga::FaceKind::pec;
    if (at_end) kinds[f] = dgatd::dga::FaceKind::absorbing;
  }
  std::size_t const n = mesh.tets.size();
  dgatd::dga::Materials const vacuum{std::vector<double>(n, 1.0), std::vector<double>(n, 1.0), {}};
  auto const operators = dgatd::dga::assemble(mesh, topology, geometry, vacuum, kinds);
  FractionedLeapfrog<TestSpace> solver(TestSpace(), operators);
  solver.set_dt(0.95 * solver.estimate_stability().dt_max);
  dgatd::mesh::MeshView const view{mesh, topology, geometry};
  solver.set_initial_field(dgatd::solver::project_field(view, operators.layout, [&](Vec3 const& p) {
    double const x = (p[2] - 0.5 * length) / 0.2;
    return Vec3{0, std::exp(-0.5 * x * x), 0};
  }));
  double const w0 = solver.step_with_energy();
  // The halves reach the ends at t = 2; their reflections, energy R^2 W0, the opposite ends at t = 6,
  // where they leave too. What stays is the static part of the projected start (the difference of
  // the two halves of an edge, which Faraday does not see), so the reflection is W(4) - W(8.5).
  auto energy_at = [&](double t) {
    double w = 0;
    while ((solver.steps() + 1) * solver.dt() < t) w = solver.step_with_energy();
    return w;
  };
  double const after_first = energy_at(4.0), after_second = energy_at(8.5);
  double const reflected = (after_first - after_second) / w0;
  std::printf("W/W0: %.6e after the ends, %.6e after the reflections left; reflected %.2e (|R| %.2e)\n",
              after_first / w0, after_second / w0, reflected, std::sqrt(std::max(reflected, 0.0)));
  // Exact at normal incidence: what reflects is the discretisation's O((k h)^2), k h < 0.4 here.
  EXPECT_LT(reflected, 1e-4);
  EXPECT_GE(reflected, -1e-12); // energy never rises
}

} // namespace

namespace {

// A TEM pulse (a derivative of a Gaussian: no static part) starts in the middle of the guide; its
// halves enter the layers at normal incidence, decay there and come back only as the layers'
// reflection. The electric energy of the guide away from the layers, once the reflections are
// back, over the halves' electric energy W0 / 2, is |R|^2; what stays after them is the static
// part of the projected start (the two halves of an edge differ; Faraday does not see it).
TEST(MatchedLayers, PlaneWaveEntersAndDoesNotComeBack)
{
  double const length = 4.0, layer = 0.25;
  auto const g = layered_guide(length, 160, layer, {}, 0.2);
  FractionedLeapfrog<TestSpace> solver(TestSpace(), g.operators);
  solver.set_dt(0.95 * solver.estimate_stability().dt_max);
  solver.set_initial_field(dgatd::testing::guide_pulse(g, length));
  auto guide_energy = [&]() {
    std::vector<double> u, f;
    solver.state(u, f);
    auto const& ops = g.operators;
    double sum = 0;
    for (dgatd::Index b = 0; b < ops.layout.num_blocks(); ++b) {
      double const z = g.mesh.points[ops.layout.block_vertex[b]][2];
      if (z < layer + 0.05 || z > length - layer - 0.05) continue;
      auto const first = ops.layout.block_offset[b];
      auto const size = ops.layout.block_offset[b + 1] - first;
      for (dgatd::Index i = 0; i < size; ++i)
        for (dgatd::Index j = 0; j < size; ++j)
          sum += 0.5 * u[first + i] * ops.eps[ops.layout.block_matrix_offset[b] + i * size + j] * u[first + j];
    }
    return sum;
  };
  double const w0 = solver.step_with_energy();
  auto advance_to = [&](double t) {
    double w = 0;
    while ((solver.steps() + 1) * solver.dt() < t) w = solver.step_with_energy();
    return w;
  };
  // The halves (width about 1) are in the layers from t = 1.75 and back in the guide from 3.5 to 6.
  double reflected = 0;
  for (double t = 3.5; t <= 6.0; t += 0.25) {
    advance_to(t);
    reflected = std::max(reflected, guide_energy());
  }
  double const w_after = advance_to(10);
  double const static_part = guide_energy();
  double const w_late = advance_to(60);
  double const r = std::sqrt(std::max(reflected - static_part, 0.0) / (0.5 * w0));
  std::printf("guide energy / W0: %.3e with the reflections, %.3e static; |R| %.2e; W / W0 %.3e at t = 10, %.3e at "
              "t = 60\n",
              reflected / w0, static_part / w0, r, w_after / w0, w_late / w0);
  // Measured 6.4e-3 (-44 dB) with ten cells and the default linear profile (7.9e-3 with order 2,
  // 1.2e-2 with order 3) on this jittered mesh; a PEC end in place of the layer reflects 1, a layer
  // that does not match its neighbour several times the bar.
  EXPECT_LT(r, 2e-2);
  // Nothing grows in the layers once the pulse has gone.
  EXPECT_LT(w_late, w_after);
}

} // namespace

namespace {

// The largest difference of a and b over the largest value of b.
double largest_difference(std::vector<double> const& a, std::vector<double> const& b)
{
  double difference = 0, largest = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    difference = std::max(difference, std::abs(a[i] - b[i]));
    largest = std::max(largest, std::abs(b[i]));
  }
  return difference / largest;
}

// The largest difference of the fields of two runs over the largest value, after both ran to time t
// from the same start: the split (modal) and the general form of the same layer.
std::pair<double, double> split_against_general(dgatd::testing::LayeredProblem const& split,
                                                dgatd::testing::LayeredProblem const& general,
                                                std::vector<double> const& start, double t)
{
  auto run = [&](dgatd::testing::LayeredProblem const& g) {
    FractionedLeapfrog<TestSpace> solver(TestSpace(), g.operators);
    solver.set_dt(0.95 * solver.estimate_stability().dt_max);
    solver.set_initial_field(start);
    while (solver.steps() * solver.dt() < t) solver.step();
    std::vector<double> u, f;
    solver.state(u, f);
    return std::make_pair(u, f);
  };
  auto const [u_split, f_split] = run(split);
  auto const [u_general, f_general] = run(general);
  EXPECT_EQ(u_split.size(), u_general.size());
  EXPECT_EQ(f_split.size(), f_general.size());
  return {largest_difference(u_split, u_general), largest_difference(f_split, f_general)};
}

// How many stretched tets split into `count` modes.
long tets_with_modes(dgatd::dga::HostOperators const& ops, int count)
{
  return std::count_if(ops.stretched_tet_modes.begin(), ops.stretched_tet_modes.end(),
                       [&](auto const& modes) { return modes.count == count; });
}

dgatd::dga::AssemblyOptions general_form()
{
  dgatd::dga::AssemblyOptions general;
  general.split_stretch_modes = false;
  return general;
}

// A flat layer's stretch is rank one, G = n g^T, and its tets step with one auxiliary per subregion
// (HostOperators::StretchModes). The general six-auxiliary form is the same discretisation of the
// same equations, so both give the same fields to rounding, on both sides of the step.
TEST(MatchedLayers, RankOneStretchStepsLikeTheGeneralForm)
{
  double const length = 2.0, layer = 0.25;
  auto const split = layered_guide(length, 80, layer, {}, 0.2);
  auto const general = layered_guide(length, 80, layer, {}, 0.2, general_form());
  long const one_mode = tets_with_modes(split.operators, 1);
  ASSERT_GT(one_mode, 0);
  EXPECT_EQ(static_cast<std::size_t>(one_mode), split.operators.stretched_tets.size());
  EXPECT_EQ(static_cast<std::size_t>(tets_with_modes(general.operators, 0)), general.operators.stretched_tets.size());
  // The pulse's halves reach the layers after about 0.6 and are deep in them by 1.2.
  auto const [du, df] = split_against_general(split, general, dgatd::testing::guide_pulse(split, length), 1.5);
  std::printf("%ld rank-one tets; after the halves entered the layers, |u1 - u6| %.2e, |f1 - f6| %.2e of the "
              "largest\n",
              one_mode, du, df);
  // Rounding, not a different scheme: a wrong coupling or rate in either form differs by percents.
  EXPECT_LT(du, 1e-10);
  EXPECT_LT(df, 1e-10);
}

// A shell's bars and corners are stretched along two and three axes: G has three distinct real
// eigenvalues there (one of them zero in a bar), and the tets step with three auxiliaries per
// subregion, one per eigenvalue, instead of six; the slabs with one. The same discretisation of the
// same equations as the general form, so the same fields to rounding.
TEST(MatchedLayers, ThreeModeStretchStepsLikeTheGeneralForm)
{
  auto const split = dgatd::testing::shelled_box(10, 0.3);
  auto const general = dgatd::testing::shelled_box(10, 0.3, general_form());
  long const one_mode = tets_with_modes(split.operators, 1), three_modes = tets_with_modes(split.operators, 3);
  long const stretched = static_cast<long>(split.operators.stretched_tets.size());
  std::printf("%ld stretched tets: %ld one mode, %ld three modes, %ld general\n", stretched, one_mode, three_modes,
              stretched - one_mode - three_modes);
  ASSERT_GT(three_modes, 0);
  ASSERT_GT(one_mode, 0);
  // A Gaussian pulse of E_z at the centre: it fills the shell from about t = 0.2.
  dgatd::mesh::MeshView const view{split.mesh, split.topology, split.geometry};
  auto const start = dgatd::solver::project_field(view, split.operators.layout, [](Vec3 const& p) {
    double const r2 = (p[0] - 0.5) * (p[0] - 0.5) + (p[1] - 0.5) * (p[1] - 0.5) + (p[2] - 0.5) * (p[2] - 0.5);
    return Vec3{0.3 * std::exp(-r2 / 0.01), 0.0, std::exp(-r2 / 0.01)};
  });
  auto const [du, df] = split_against_general(split, general, start, 0.6);
  std::printf("at t = 0.6, |u_modes - u_general| %.2e, |f_modes - f_general| %.2e of the largest\n", du, df);
  // The eigenvectors' condition is at most 10, so the modes' weights cancel by at most 100 times
  // more than rounding: a wrong rate, weight or direction differs by percents.
  EXPECT_LT(du, 1e-10);
  EXPECT_LT(df, 1e-10);
}

// A Gaussian E_z at the centre of the shelled box: its divergence leaves a static field that
// reaches into the shell, with a normal part on its faces.
std::vector<double> charged_pulse(dgatd::testing::LayeredProblem const& shelled)
{
  dgatd::mesh::MeshView const view{shelled.mesh, shelled.topology, shelled.geometry};
  return dgatd::solver::project_field(view, shelled.operators.layout, [](Vec3 const& p) {
    double const r2 = (p[0] - 0.5) * (p[0] - 0.5) + (p[1] - 0.5) * (p[1] - 0.5) + (p[2] - 0.5) * (p[2] - 0.5);
    return Vec3{0.3 * std::exp(-r2 / 0.01), 0.0, std::exp(-r2 / 0.01)};
  });
}

dgatd::dga::PmlProfile shifted_profile(double shift)
{
  dgatd::dga::PmlProfile profile;
  profile.shift = shift;
  return profile;
}

// With a complex frequency shift a (x~ = x + F / (a + i omega)) every form sees the shifted input
// e - a p, p' + a p = e, and its rates move by a: the modal and the general forms are still the
// same discretisation, so they give the same fields to rounding; and the shift changes them.
TEST(MatchedLayers, ShiftedStretchStepsLikeTheGeneralFormAndDiffersFromThePlainOne)
{
  double const shift = 3.0; // against alpha_max = 45 and the pulse's omega of 10 to 30
  auto const split = dgatd::testing::shelled_box(10, 0.3, {}, shifted_profile(shift));
  auto const general = dgatd::testing::shelled_box(10, 0.3, general_form(), shifted_profile(shift));
  auto const plain = dgatd::testing::shelled_box(10, 0.3);
  ASSERT_GT(tets_with_modes(split.operators, 3), 0);
  ASSERT_GT(tets_with_modes(split.operators, 1), 0);
  auto const start = charged_pulse(split);
  auto const [du, df] = split_against_general(split, general, start, 0.6);
  auto const [du_plain, df_plain] = split_against_general(split, plain, start, 0.6);
  std::printf("at t = 0.6, shifted: |u_modes - u_general| %.2e, |f_modes - f_general| %.2e; shifted against plain "
              "%.2e, %.2e of the largest\n",
              du, df, du_plain, df_plain);
  EXPECT_LT(du, 1e-10);
  EXPECT_LT(df, 1e-10);
  // The shift acts: below a the layer absorbs less, so the fields in the shell differ by percents.
  EXPECT_GT(std::max(du_plain, df_plain), 1e-3);
}

// A new dt in the middle of a run. Between steps the modal tets' magnetic auxiliaries (and p with a
// shift) hold all but the share of f^(n+1/2) that the next step adds with its rule
// (kernels::MagneticModalStep), and the general form keeps its auxiliaries as [z / dt; z']: at the
// change the first are rebased on the new rule and the second rescaled by the old dt over the new.
// Then both forms, stepped at dt and then at 0.7 dt, give the same fields to rounding. Without the
// rebase f differed by a third of the largest, without the rescale (as before 2026-11-28) by 0.7.
TEST(MatchedLayers, ModalTetsFollowAChangeOfTimeStep)
{
  auto const split = dgatd::testing::shelled_box(10, 0.3, {}, shifted_profile(3.0));
  auto const general = dgatd::testing::shelled_box(10, 0.3, general_form(), shifted_profile(3.0));
  ASSERT_GT(tets_with_modes(split.operators, 3), 0);
  ASSERT_GT(tets_with_modes(split.operators, 1), 0);
  auto const start = charged_pulse(split);
  FractionedLeapfrog<TestSpace> reference(TestSpace(), general.operators);
  double const dt = 0.95 * reference.estimate_stability().dt_max;
  auto run = [&](dgatd::testing::LayeredProblem const& g) {
    FractionedLeapfrog<TestSpace> solver(TestSpace(), g.operators);
    solver.set_dt(dt);
    solver.set_initial_field(start);
    // The pulse is in the shell by t = 0.3.
    while (solver.steps() * dt < 0.3) solver.step();
    solver.set_dt(0.7 * dt);
    for (int i = 0; i < 60; ++i) solver.step();
    std::vector<double> u, f;
    solver.state(u, f);
    return std::make_pair(u, f);
  };
  auto const [u_split, f_split] = run(split);
  auto const [u_general, f_general] = run(general);
  double const du = largest_difference(u_split, u_general), df = largest_difference(f_split, f_general);
  std::printf("after a change of dt: |u_modes - u_general| %.2e, |f_modes - f_general| %.2e of the largest\n", du, df);
  EXPECT_LT(du, 1e-10);
  EXPECT_LT(df, 1e-10);
}

// The layer terms place two things by the tets' layout: the lossy blocks' L and K (by columns for
// LayoutLeft, the GPUs', by rows for LayoutRight) and the force pieces (in the tet's column or row,
// kernels::PiecePlace). Both layouts run the same sums in the same order, so a shifted shell
// (general, one-mode and three-mode tets, p per lossy row) steps to the same fields in both: the
// GPUs' placement runs here on the host too.
TEST(MatchedLayers, BothTetLayoutsStepTheSameFields)
{
  using OtherLayout = dgatd::testing::OtherTetLayout<TestSpace>;
  auto const shelled = dgatd::testing::shelled_box(10, 0.3, {}, shifted_profile(3.0));
  ASSERT_GT(tets_with_modes(shelled.operators, 0), 0);
  ASSERT_GT(tets_with_modes(shelled.operators, 1), 0);
  ASSERT_GT(tets_with_modes(shelled.operators, 3), 0);
  auto const start = charged_pulse(shelled);
  FractionedLeapfrog<TestSpace> preferred(TestSpace(), shelled.operators);
  FractionedLeapfrog<TestSpace, OtherLayout> other(TestSpace(), shelled.operators);
  // One dt for both: the bound's reductions may round differently.
  double const dt = 0.95 * preferred.estimate_stability().dt_max;
  auto run = [&](auto& solver) {
    solver.set_dt(dt);
    solver.set_initial_field(start);
    while (solver.steps() * solver.dt() < 0.6) solver.step();
    std::vector<double> u, f;
    solver.state(u, f);
    return std::make_pair(u, f);
  };
  auto const [u_preferred, f_preferred] = run(preferred);
  auto const [u_other, f_other] = run(other);
  std::printf("%lld steps of %zu stretched tets in both layouts\n", static_cast<long long>(preferred.steps()),
              shelled.operators.stretched_tets.size());
  double const du = largest_difference(u_other, u_preferred), df = largest_difference(f_other, f_preferred);
  std::printf("|u_left - u_right| %.2e, |f_left - f_right| %.2e of the largest\n", du, df);
  // Not the same bits where the compiler fuses multiply-adds: it fuses the products of a row of L
  // and K into the sum differently when the row is one contiguous run (1e-15 here; compiled with
  // -ffp-contract=off both layouts gave the same bits). A misplaced entry or piece differs by percents.
  EXPECT_LT(du, 1e-13);
  EXPECT_LT(df, 1e-13);
}

// The layer terms' bytes per step under each precision of the core's matrices.
std::vector<std::int64_t> layer_term_bytes(dgatd::testing::LayeredProblem const& g,
                                           dgatd::kernels::MatrixPrecision precision)
{
  FractionedLeapfrog<TestSpace> solver(TestSpace(), g.operators, dgatd::kernels::default_block_pass<TestSpace>(),
                                       precision);
  solver.set_dt(0.95 * solver.estimate_stability().dt_max);
  std::vector<std::int64_t> bytes;
  for (std::size_t i = 0; i < solver.terms().size(); ++i) bytes.push_back(solver.terms()[i].bytes_per_step());
  return bytes;
}

// Mixed precision stores the layer terms' matrices in float only where the layer is shifted: a
// plain layer's static response is an integrator, a Jordan block at 1, which float rounding of L, K
// or S' apart splits into exponential growth (regression.LongRunOpen), so its terms move the bytes of
// double, but for the step matrix (Mmu + dt S' / 2)^-1 of its modal tets on Faraday's side, which
// sits among the lossless kernel's float matrices: rounded symmetrically it is the exact step of a
// slightly different Mmu, and the magnetic term reads it there (10 numbers per modal tet).
TEST(MatchedLayers, MixedPrecisionFloatsTheMatricesOfShiftedLayersOnly)
{
  using dgatd::kernels::MatrixPrecision;
  auto const plain = dgatd::testing::shelled_box(10, 0.3);
  auto const shifted = dgatd::testing::shelled_box(10, 0.3, {}, shifted_profile(2.0));
  auto const plain_double = layer_term_bytes(plain, MatrixPrecision::float64);
  auto const plain_mixed = layer_term_bytes(plain, MatrixPrecision::float32);
  auto const shifted_double = layer_term_bytes(shifted, MatrixPrecision::float64);
  auto const shifted_mixed = layer_term_bytes(shifted, MatrixPrecision::float32);
  ASSERT_EQ(plain_double.size(), 2u); // the electric and the magnetic side
  ASSERT_EQ(shifted_double.size(), 2u);
  auto const modal_tets = tets_with_modes(plain.operators, 1) + tets_with_modes(plain.operators, 3);
  ASSERT_GT(modal_tets, 0);
  for (std::size_t i = 0; i < 2; ++i) {
    std::printf("term %zu: plain %lld / %lld B, shifted %lld / %lld B (double / mixed)\n", i,
                static_cast<long long>(plain_double[i]), static_cast<long long>(plain_mixed[i]),
                static_cast<long long>(shifted_double[i]), static_cast<long long>(shifted_mixed[i]));
    std::int64_t const float_step_matrices = i == 1 ? modal_tets * 10 * 4 : 0;
    EXPECT_EQ(plain_double[i] - plain_mixed[i], float_step_matrices);
    EXPECT_LT(shifted_mixed[i], shifted_double[i]);
  }
}

// precision = "mixed" stores a shifted layer's L, K and modal directions in float (the directions
// rounded before the implicit steps are built from them): the same scheme with matrices rounded to
// 6e-8, so the same fields to that order once the pulse has gone through the shell, and the shell
// takes out the same energy as in double.
TEST(MatchedLayers, FloatMatricesOfAShiftedLayerStepLikeDouble)
{
  using dgatd::kernels::MatrixPrecision;
  auto const shelled = dgatd::testing::shelled_box(10, 0.3, {}, shifted_profile(2.0));
  auto const start = charged_pulse(shelled);
  struct Run {
    std::vector<double> u, f;
    double last = 0;
  };
  auto run = [&](MatrixPrecision precision) {
    FractionedLeapfrog<TestSpace> solver(TestSpace(), shelled.operators,
                                         dgatd::kernels::default_block_pass<TestSpace>(), precision);
    solver.set_dt(0.95 * solver.estimate_stability().dt_max);
    solver.set_initial_field(start);
    Run r;
    while (solver.steps() * solver.dt() < 2.0) r.last = solver.step_with_energy();
    solver.state(r.u, r.f);
    return r;
  };
  Run const fp64 = run(MatrixPrecision::float64), fp32 = run(MatrixPrecision::float32);
  double const du = largest_difference(fp32.u, fp64.u), df = largest_difference(fp32.f, fp64.f);
  std::printf("at t = 2: |u_float - u_double| %.2e, |f_float - f_double| %.2e of the largest; energy float / "
              "double %.8f\n",
              du, df, fp32.last / fp64.last);
  // Rounding to float (6e-8) in every matrix, carried over a few hundred steps: well below 1e-5,
  // where a float matrix read in the wrong place or a direction the implicit step does not share
  // differs by percents.
  EXPECT_LT(du, 1e-5);
  EXPECT_LT(df, 1e-5);
  EXPECT_NEAR(fp32.last / fp64.last, 1.0, 1e-4);
}

} // namespace

namespace {

// A layer one cell deep (the guide's cells are 0.025 long, their mean edge about 0.035) is thinner
// than two element layers: refused in one line that names the layer, its thickness and the fix.
} // namespace
