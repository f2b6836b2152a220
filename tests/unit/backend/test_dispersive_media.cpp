// Dispersive media in a PEC box (c = 1 units, eps = mu = 1; docs/method/dispersive_media.md), on
// every enabled execution space:
// - a static (gradient) field in a medium filling the box has no curl, so every unknown follows the
//   same scalar step of the medium's poles, which the mesh's blocks, forces and implicit update must
//   reproduce exactly; in a lossless plasma that step is a rotation by 2 atan(w_p dt / 2) per step;
// - with three poles (Drude and two Lorentz) in half of the box, at 0.99 of the bound, the leapfrog's
//   energy plus the poles' stored energy is conserved to rounding where the poles are lossless and
//   never grows where they are lossy.
#include "dgatd/dga/dispersion.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/simulation/problem.hpp"
#include "dgatd/solver/leapfrog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

namespace {

using TestSpace = DGATD_TEST_EXEC_SPACE;
using dgatd::Index;
using dgatd::dga::Dispersion;
using dgatd::solver::FractionedLeapfrog;

// The jittered box 1 x 0.75 x 0.5, its tets with centroid x below x_limit dispersive.
dgatd::simulation::Problem dispersive_box(Dispersion const& model, double x_limit)
{
  dgatd::mesh::StructuredBox box;
  box.size[0] = 1.0;
  box.size[1] = 0.75;
  box.size[2] = 0.5;
  box.cells[0] = 6;
  box.cells[1] = 5;
  box.cells[2] = 4;
  box.jitter = 0.2;
  auto mesh = dgatd::mesh::structured_box(box);
  std::size_t const n = mesh.tets.size();
  dgatd::dga::Materials materials{std::vector<double>(n, 1.0), std::vector<double>(n, 1.0), {}};
  materials.dispersions = {model};
  materials.dispersion.assign(n, -1);
  for (std::size_t t = 0; t < n; ++t) {
    double x = 0;
    for (Index v : mesh.tets[t]) x += mesh.points[v][0] / 4;
    if (x < x_limit) materials.dispersion[t] = 0;
  }
  return dgatd::simulation::make_problem(std::move(mesh), std::move(materials), {});
}

// The gradient of a random potential that vanishes on the box's PEC walls: each half-edge holds half
// the potential's difference along its edge, so every face's circulation is zero.
std::vector<double> gradient_field(dgatd::simulation::Problem const& p)
{
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<double> phi(p.mesh.num_vertices(), 0.0);
  std::vector<char> on_wall(p.mesh.num_vertices(), 0);
  for (Index f : p.topology.boundary_faces)
    for (Index v : p.topology.face_vertices[f]) on_wall[v] = 1;
  for (std::size_t v = 0; v < phi.size(); ++v)
    if (!on_wall[v]) phi[v] = uniform(random);
  auto const& layout = p.operators.layout;
  std::vector<double> u(static_cast<std::size_t>(p.operators.layout.size()), 0.0);
  for (Index e = 0; e < p.topology.num_edges(); ++e) {
    auto const& ends = p.topology.edge_vertices[e];
    for (Index v : ends) {
      Index const dof = layout.dof_of_half_edge[dgatd::mesh::half_edge_of(p.topology, e, v)];
      if (dof < layout.num_free) u[dof] = (phi[ends[1]] - phi[ends[0]]) / 2;
    }
  }
  return u;
}

// u^n over u^0 of the scalar step eps (u^(n+1) - u^n) / dt = -eps (history . x^n + conductance
// (u^n + u^(n+1)) / 2) with the poles' rules: what every unknown of a curl-free field in the medium does.
std::vector<double> scalar_step_ratios(Dispersion const& model, double dt, int steps)
{
  std::vector<dgatd::dga::PoleRule> rules;
  double conductance = 0;
  for (auto const& pole : model.poles) {
    rules.push_back(dgatd::dga::pole_rule(pole, dt));
    conductance += rules.back().conductance;
  }
  std::vector<std::array<double, 2>> x(rules.size(), {0, 0});
  std::vector<double> ratios{1.0};
  double u = 1;
  for (int n = 0; n < steps; ++n) {
    double history = 0;
    for (std::size_t p = 0; p < rules.size(); ++p)
      history += rules[p].history[0] * x[p][0] + rules[p].history[1] * x[p][1];
    double const next = (u * (1 - dt * conductance / 2) - dt * history) / (1 + dt * conductance / 2);
    double const average = (u + next) / 2;
    for (std::size_t p = 0; p < rules.size(); ++p) {
      auto const& r = rules[p];
      x[p] = {r.advance[0] * x[p][0] + r.advance[1] * x[p][1] + r.drive[0] * average,
              r.advance[2] * x[p][0] + r.advance[3] * x[p][1] + r.drive[1] * average};
    }
    u = next;
    ratios.push_back(u);
  }
  return ratios;
}

// Steps the box from u0 and returns the largest |u^n - ratio_n u0| over the largest |u0|.
double largest_departure(dgatd::simulation::Problem const& p, std::vector<double> const& u0, double dt,
                         std::vector<double> const& ratios)
{
  FractionedLeapfrog<TestSpace> solver(TestSpace(), p.operators);
  solver.set_dt(dt);
  solver.set_initial_field(u0);
  double scale = 0;
  for (double value : u0) scale = std::max(scale, std::abs(value));
  double worst = 0;
  std::vector<double> u, f;
  for (std::size_t n = 1; n < ratios.size(); ++n) {
    solver.step();
    solver.state(u, f);
    for (std::size_t i = 0; i < u0.size(); ++i) worst = std::max(worst, std::abs(u[i] - ratios[n] * u0[i]));
  }
  return worst / scale;
}

TEST(DispersiveMedia, AStaticFieldFollowsThePolesScalarStepInEveryUnknown)
{
  double const w = 2 * M_PI; // about a mode's frequency of the box
  std::vector<std::pair<char const*, Dispersion>> const models{
      {"lossless Drude", {{dgatd::dga::drude_pole(3 * w, 0)}}},
      {"Debye", {{dgatd::dga::debye_pole(2.0, 0.1)}}},
      {"Lorentz", {{dgatd::dga::lorentz_pole(1.5, 2 * w, 0.3 * w)}}},
      {"Drude and Lorentz", {{dgatd::dga::drude_pole(2 * w, 0.2 * w), dgatd::dga::lorentz_pole(1.0, 3 * w, 0.1 * w)}}}};
  for (auto const& [name, model] : models) {
    auto const box = dispersive_box(model, 2.0);
    double const dt = 0.9 * FractionedLeapfrog<TestSpace>(TestSpace(), box.operators).estimate_stability().dt_max;
    double const departure = largest_departure(box, gradient_field(box), dt, scalar_step_ratios(model, dt, 400));
    std::printf("%s: largest departure from the scalar step over 400 steps %.2e\n", name, departure);
    EXPECT_LT(departure, 1e-12) << name;
  }
}

// The trapezoidal rule on J' = w_p^2 e with Ampere's u' = -J is the Cayley transform of a rotation:
// u^n = u^0 cos(n theta), theta = 2 atan(w_p dt / 2), the plasma frequency less (w_p dt)^2 / 12.
TEST(DispersiveMedia, ALosslessPlasmaOscillatesAtItsTrapezoidalFrequency)
{
  double const wp = 6 * M_PI;
  Dispersion const plasma{{dgatd::dga::drude_pole(wp, 0)}};
  auto const box = dispersive_box(plasma, 2.0);
  double const dt = 0.9 * FractionedLeapfrog<TestSpace>(TestSpace(), box.operators).estimate_stability().dt_max;
  double const theta = 2 * std::atan(wp * dt / 2);
  std::vector<double> cosines;
  for (int n = 0; n <= 400; ++n) cosines.push_back(std::cos(n * theta));
  double const departure = largest_departure(box, gradient_field(box), dt, cosines);
  std::printf("w_p dt = %.3f, frequency %.6f of w_p; departure from cos(n theta) %.2e\n", wp * dt, theta / (wp * dt),
              departure);
  EXPECT_LT(departure, 1e-12);
}

// The stored energy of a Drude pole (x = J) and two Lorentz poles (x = P, P') of a model, from the
// Losses term's state (the box's only term: per dispersive tet four slices, subregion by subregion, of
// three values per state) and the subregions' masses eps |s| G_s: 1/2 J.M J / w_p^2 and
// 1/2 (P.M P / delta_eps + P'.M P' / (delta_eps w_0^2)) per Lorentz pole.
double pole_energy(dgatd::simulation::Problem const& p, std::vector<double> const& state, double wp,
                   std::array<double, 2> const& strength, std::array<double, 2> const& w0)
{
  auto const& ops = p.operators;
  std::size_t const tets = ops.dispersive_tets.size(), width = state.size() / tets, slice = width / 4;
  double energy = 0;
  for (std::size_t k = 0; k < tets; ++k)
    for (std::size_t lv = 0; lv < 4; ++lv) {
      auto const& m = ops.dispersive_mass[k];
      double const g[3][3] = {{m[6 * lv], m[6 * lv + 1], m[6 * lv + 2]},
                              {m[6 * lv + 1], m[6 * lv + 3], m[6 * lv + 4]},
                              {m[6 * lv + 2], m[6 * lv + 4], m[6 * lv + 5]}};
      auto const norm = [&](std::size_t state_index) {
        double const* x = state.data() + k * width + lv * slice + 3 * state_index;
        double sum = 0;
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) sum += x[r] * g[r][c] * x[c];
        return sum;
      };
      energy += 0.5 * norm(0) / (wp * wp);
      for (std::size_t i = 0; i < 2; ++i)
        energy += 0.5 * (norm(1 + 2 * i) / strength[i] + norm(2 + 2 * i) / (strength[i] * w0[i] * w0[i]));
    }
  return energy;
}

// In both precisions. Asked for float matrices (precision = "mixed"), the lossy blocks keep theirs
// double where poles are (rounded, a lossless medium's energy grew by 1e-8 per step); the core's
// float Meps^-1 against them still leaves a growth of 3e-11 per step (1.3e-7 over these 5,000 steps,
// 1.1e-6 over 40,000), which the test bounds at 1e-6.
TEST(DispersiveMedia, FieldAndPolesKeepTheirEnergyWhenLosslessAndLoseItOtherwise)
{
  using dgatd::kernels::MatrixPrecision;
  double const w = 2 * M_PI, wp = 2 * w, strength = 1.5, w0 = 3 * w, strength2 = 0.5, w02 = 5 * w;
  for (auto const precision : {MatrixPrecision::float64, MatrixPrecision::float32})
    for (double const loss : {0.0, 0.2 * w}) {
      Dispersion const model{{dgatd::dga::drude_pole(wp, loss), dgatd::dga::lorentz_pole(strength, w0, loss),
                              dgatd::dga::lorentz_pole(strength2, w02, loss / 2)}};
      auto const box = dispersive_box(model, 0.5);
      FractionedLeapfrog<TestSpace> solver(TestSpace(), box.operators, dgatd::kernels::default_block_pass<TestSpace>(),
                                           precision);
      solver.set_dt(0.99 * solver.estimate_stability().dt_max);
      solver.set_random_initial_field(5);
      double first = 0, previous = 0, worst_drift = 0, worst_rise = 0, last = 0;
      for (int n = 0; n < 5000; ++n) {
        double const poles = pole_energy(box, solver.terms().save(), wp, {strength, strength2}, {w0, w02});
        double const total = solver.step_with_energy() + poles;
        if (n == 0) first = total;
        if (n > 0) worst_rise = std::max(worst_rise, total / previous - 1);
        worst_drift = std::max(worst_drift, std::abs(total / first - 1));
        previous = last = total;
      }
      std::printf("%s matrices, loss %.2f: energy at the end %.6f of the start, largest drift %.2e, largest rise per "
                  "step %.2e\n",
                  dgatd::kernels::matrix_precision_name(precision), loss, last / first, worst_drift, worst_rise);
      bool const exact = precision == MatrixPrecision::float64;
      if (loss == 0)
        EXPECT_LT(worst_drift, exact ? 1e-12 : 1e-6);
      else
        EXPECT_LT(last / first, 0.9); // the poles take energy from the field and lose it
      EXPECT_LT(worst_rise, exact ? 1e-13 : 1e-8);
    }
}

} // namespace
