// Lumped ports and elements on sheets (docs/method/antennas.md) on every enabled execution space, in c = 1
// units (eps = mu = 1, eta = 1):
// - a TEM line between PEC plates and PMC sides, Z0 = H / W = 1, fed at z = 0 by a lumped port of
//   resistance Z0 and ended at z = L by a resistor: with R_load = Z0 nothing comes back, with
//   3 Z0 a half does, on a jittered mesh;
// - a closed PEC box from a random field with a resistor, an inductor and a series RLC on sheets
//   inside it: the field's energy never rises above where it started (the circuits start empty and
//   the trapezoidal rule gives back no more than they took), at the lossless time step;
// - the backend and the reference backend (reference_space.hpp) record the same port bit for bit.
#include "reference_space.hpp"

#include "dgatd/dga/operators.hpp"
#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/mesh/topology.hpp"
#include "dgatd/mesh/view.hpp"
#include "dgatd/solver/formulations.hpp"
#include "dgatd/solver/leapfrog.hpp"
#include "dgatd/solver/local_step_plan.hpp"
#include "dgatd/solver/lumped_elements.hpp"
#include "dgatd/solver/lumped_stencil.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <memory>
#include <numeric>
#include <vector>

namespace {

using TestSpace = DGATD_TEST_EXEC_SPACE;
using dgatd::Index;
using dgatd::Vec3;
using Complex = std::complex<double>;

constexpr double two_pi = 6.283185307179586;

struct Line {
  dgatd::mesh::Mesh mesh;
  dgatd::mesh::Topology topology;
  dgatd::mesh::Geometry geometry;
  dgatd::dga::HostOperators operators;
  std::vector<dgatd::dga::LumpedSheet> sheets;
};

// The faces of the boundary where where(centroid) holds.
std::vector<Index> faces_where(Line const& g, std::function<bool(Vec3 const&)> const& where)
{
  std::vector<Index> faces;
  for (Index f : g.topology.boundary_faces) {
    Vec3 centroid{};
    for (Index v : g.topology.face_vertices[f])
      for (int c = 0; c < 3; ++c) centroid[c] += g.mesh.points[v][c] / 3;
    if (where(centroid)) faces.push_back(f);
  }
  return faces;
}

// A line 0.1 x 0.1 x length (4 x 4 x cells), plates y = 0 and 0.1 PEC, sides and ends PMC, a port of
// resistance 1 at z = 0 and a load at z = length, along y.
Line tem_line(double length, int cells, double jitter, dgatd::dga::LumpedCircuit const& load)
{
  dgatd::mesh::StructuredBox box;
  box.size[0] = box.size[1] = 0.1;
  box.size[2] = length;
  box.cells[0] = box.cells[1] = 4;
  box.cells[2] = cells;
  box.jitter = jitter;
  Line g;
  g.mesh = dgatd::mesh::structured_box(box);
  g.topology = dgatd::mesh::build_topology(g.mesh);
  g.geometry = dgatd::mesh::build_geometry(g.mesh, g.topology);
  std::vector<dgatd::dga::FaceKind> kinds(g.topology.num_faces(), dgatd::dga::FaceKind::interior_or_pmc);
  for (Index f : faces_where(g, [](Vec3 const& c) { return std::abs(c[1]) < 1e-9 || std::abs(c[1] - 0.1) < 1e-9; }))
    kinds[f] = dgatd::dga::FaceKind::pec;
  dgatd::dga::LumpedCircuit port;
  port.resistance = 1.0;
  auto sheet = [&](char const* name, bool at_start, dgatd::dga::LumpedCircuit const& circuit, bool is_port) {
    dgatd::dga::LumpedSheet s;
    s.name = name;
    s.faces = faces_where(g, [&](Vec3 const& c) { return std::abs(c[2] - (at_start ? 0.0 : length)) < 1e-9; });
    s.direction = {0, 1, 0};
    s.length = 0.1;
    s.width = 0.1;
    s.circuit = circuit;
    s.port = is_port;
    return s;
  };
  g.sheets = {sheet("port", true, port, true), sheet("load", false, load, false)};
  std::size_t const n = g.mesh.tets.size();
  dgatd::dga::Materials materials{std::vector<double>(n, 1.0), std::vector<double>(n, 1.0), {}};
  materials.sheets = g.sheets;
  g.operators = dgatd::dga::assemble(g.mesh, g.topology, g.geometry, materials, kinds);
  return g;
}

dgatd::solver::Waveform pulse()
{
  dgatd::solver::Waveform w;
  w.kind = dgatd::solver::WaveformKind::modulated_gaussian;
  w.frequency = 3.0; // 33 cells per wavelength along the line
  w.sigma = 0.2;
  w.t0 = 1.0;
  w.amplitude = 1.0;
  return w;
}

// The port's record after stepping the line to t_end at dt (0: 0.95 of the bound).
template <class Space>
dgatd::solver::PortSeries run_line(Line const& g, double t_end, double& dt)
{
  auto formulation = dgatd::solver::make_formulation(dgatd::solver::FormulationKind::fractioned, Space(), g.topology,
                                                     g.operators, dgatd::kernels::MatrixPrecision::float64);
  formulation->add_term(
      dgatd::solver::lumped_elements_term(dgatd::solver::lumped_stencil(g.operators, g.sheets, {pulse(), {}})));
  if (dt == 0) dt = 0.95 * formulation->estimate_stability().dt_max;
  formulation->set_dt(dt);
  while ((formulation->steps() + 1) * dt <= t_end) formulation->step();
  return formulation->records().ports.front();
}

// S11 at frequency f from the port's record (docs/method/antennas.md, section 4).
Complex reflection(dgatd::solver::PortSeries const& port, double dt, double f)
{
  Complex incident = 0, leaving = 0;
  for (std::size_t m = 0; m < port.voltage.size(); ++m) {
    Complex const kernel = std::polar(1.0, -two_pi * f * (m + 0.5) * dt);
    incident += port.incident[m] * kernel;
    leaving += (port.voltage[m] - port.incident[m]) * kernel;
  }
  return leaving / incident;
}

TEST(LumpedElements, LineEndedByItsImpedanceReflectsNothingAndByThreeTimesItReflectsHalf)
{
  double const length = 2.0;
  dgatd::dga::LumpedCircuit matched, mismatched;
  matched.resistance = 1.0;
  mismatched.resistance = 3.0;
  // The pulse (1.5 to 4.5 in frequency) leaves the port by t = 2.2 and comes back by 6.2.
  double dt = 0;
  auto const matched_port = run_line<TestSpace>(tem_line(length, 66, 0.15, matched), 8.0, dt);
  double dt_mismatched = 0;
  auto const mismatched_port = run_line<TestSpace>(tem_line(length, 66, 0.15, mismatched), 8.0, dt_mismatched);
  double worst_matched = 0, worst_half = 0;
  for (double f = 2.0; f <= 4.0; f += 0.25) {
    worst_matched = std::max(worst_matched, std::abs(reflection(matched_port, dt, f)));
    worst_half = std::max(worst_half, std::abs(std::abs(reflection(mismatched_port, dt_mismatched, f)) - 0.5));
  }
  std::printf("jittered line: largest |S11| %.4f (%.1f dB) with Z0, largest ||S11| - 0.5| %.4f with 3 Z0\n",
              worst_matched, 20 * std::log10(worst_matched), worst_half);
  // The jittered line's own impedance differs from Z0 by the discretisation's O((k h)^2).
  EXPECT_LT(worst_matched, 0.03);
  EXPECT_LT(worst_half, 0.02);
}

template <class View>
std::vector<double> host_field(View const& view)
{
  auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  return std::vector<double>(host.data(), host.data() + host.size());
}

// With local steps the port's current is solved through the levels (docs/method/local_time_stepping.md,
// section 6): the port on the finest of three levels (tets within 0.3 of it step dt / 4, within 0.6
// dt / 2), the matched line reflects at the port as with one global step at the same dt (measured
// 0.0040 apart, the extrapolated forcing's 0.0038: the levels' interfaces set it, not the port); the
// step does not depend on the forcing rate it started from (the affine response takes any to the
// solved one: 1e-16 of the field, where the extrapolated rate and none differ by 1e-2 of it); and a
// term whose state the response reaches before end_step leaves the rates extrapolated.
TEST(LumpedElements, ThePortsCurrentIsSolvedThroughTheLevels)
{
  using dgatd::solver::FractionedLeapfrog;
  dgatd::dga::LumpedCircuit matched;
  matched.resistance = 1.0;
  auto const g = tem_line(2.0, 66, 0.15, matched);
  auto const stencil = dgatd::solver::lumped_stencil(g.operators, g.sheets, {pulse(), {}});
  std::vector<int> wished(g.mesh.tets.size());
  for (std::size_t t = 0; t < wished.size(); ++t) {
    double z = 0;
    for (Index v : g.mesh.tets[t]) z += g.mesh.points[v][2] / 4;
    wished[t] = z < 0.3 ? 2 : z < 0.6 ? 1 : 0;
  }
  FractionedLeapfrog<TestSpace> local(TestSpace(), g.operators, dgatd::kernels::AmpereBlockPass::columns);
  double const dt = 0.9 * local.estimate_stability().dt_max;
  local.set_local_steps(dgatd::solver::local_step_plan(g.operators, wished));
  auto& port = local.add_term(std::make_unique<dgatd::solver::LumpedElements<TestSpace>>(stencil));
  local.set_dt(dt);
  ASSERT_TRUE(local.local_step_currents_solvable());
  ASSERT_TRUE(local.local_step_currents_solved());

  // One step from the middle of the pulse, with the rate extrapolated and with none.
  while ((local.steps() + 1) * dt <= 1.0) local.step();
  std::vector<double> u, f;
  local.state(u, f);
  auto const steps = local.steps();
  auto const terms = local.terms().save();
  local.step();
  auto const u_extrapolated = host_field(local.fields().u);
  local.set_state(u, f, steps);
  local.restore_terms(terms);
  port.impose_implicit_rates({0.0});
  local.step();
  port.impose_implicit_rates({});
  auto const u_none = host_field(local.fields().u);
  double largest = 0, difference = 0;
  for (std::size_t i = 0; i < u_none.size(); ++i) {
    largest = std::max(largest, std::abs(u_extrapolated[i]));
    difference = std::max(difference, std::abs(u_none[i] - u_extrapolated[i]));
  }
  EXPECT_LE(difference, 1e-12 * largest) << "the solved step depends on the rate it started from";

  while ((local.steps() + 1) * dt <= 8.0) local.step();
  auto const local_port = local.terms().records().ports.front();
  double dt_global = dt;
  auto const global_port = run_line<TestSpace>(g, 8.0, dt_global);
  double worst = 0, worst_matched = 0;
  for (double frequency = 2.0; frequency <= 4.0; frequency += 0.25) {
    worst = std::max(worst, std::abs(reflection(local_port, dt, frequency) - reflection(global_port, dt, frequency)));
    worst_matched = std::max(worst_matched, std::abs(reflection(local_port, dt, frequency)));
  }
  std::printf("three levels, the port on the finest: S11 within %.5f of one global step's, largest |S11| %.4f\n", worst,
              worst_matched);
  EXPECT_LT(worst, 0.005);
  EXPECT_LT(worst_matched, 0.03);

  // A term that keeps u^ at correct in its state: the response reaches it, so the rates stay extrapolated.
  struct Watcher final : dgatd::solver::Term<TestSpace> {
    double seen = 0;
    std::string name() const override { return "watcher"; }
    std::int64_t bytes_per_step() const override { return 0; }
    dgatd::solver::LocalStepSupport local_step_support() const override { return {true, {}}; }
    void correct(Context const& c) override
    {
      auto const u_now = host_field(c.fields.u);
      seen = std::accumulate(u_now.begin(), u_now.end(), 0.0);
    }
    std::size_t state_size(std::int64_t) const override { return 1; }
    void save(std::vector<double>& state) const override { state.push_back(seen); }
    void restore(Context const&, double const* state) override { seen = *state; }
  };
  local.add_term(std::make_unique<Watcher>());
  EXPECT_FALSE(local.local_step_currents_solved());
  EXPECT_TRUE(local.local_step_currents_solvable());
}

// The port's series are sums the host forms in a fixed order from per-kite values, so a host backend
// records them bit for bit. A GPU's compiler fuses multiply-adds that the host's does not (nvcc's
// default), so there the kites' values differ in their last bits each step, and the stable circuit
// keeps those differences at rounding: 1e-12 of the largest value over the run's steps (the field
// tests across backends hold 1e-13 after 500 steps), where a wrong kernel errs by order 1.
TEST(LumpedElements, TheReferenceBackendRecordsThePortToRounding)
{
  if constexpr (!dgatd::testing::has_reference_backend<TestSpace>) GTEST_SKIP() << "no second backend";
  dgatd::dga::LumpedCircuit load;
  load.series = true;
  load.resistance = 0.5;
  load.inductance = 0.05;
  load.capacitance = 0.1;
  auto const line = tem_line(1.0, 33, 0.15, load);
  double dt = 0;
  auto const here = run_line<TestSpace>(line, 4.0, dt);
  auto const there = run_line<dgatd::testing::ReferenceSpaceFor<TestSpace>>(line, 4.0, dt);
  ASSERT_EQ(here.voltage.size(), there.voltage.size());
  constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename TestSpace::memory_space>::accessible;
  double largest_voltage = 0, largest_current = 0, voltage_difference = 0, current_difference = 0;
  for (std::size_t m = 0; m < here.voltage.size(); ++m) {
    if (on_host) {
      ASSERT_EQ(here.voltage[m], there.voltage[m]) << "step " << m;
      ASSERT_EQ(here.current[m], there.current[m]) << "step " << m;
    }
    largest_voltage = std::max(largest_voltage, std::abs(there.voltage[m]));
    largest_current = std::max(largest_current, std::abs(there.current[m]));
    voltage_difference = std::max(voltage_difference, std::abs(here.voltage[m] - there.voltage[m]));
    current_difference = std::max(current_difference, std::abs(here.current[m] - there.current[m]));
  }
  std::printf("against the reference backend: voltage %.2e, current %.2e of the largest\n",
              voltage_difference / largest_voltage, current_difference / largest_current);
  EXPECT_LE(voltage_difference, 1e-12 * largest_voltage);
  EXPECT_LE(current_difference, 1e-12 * largest_current);
}

// Sheets across a closed PEC box (planes z = const from wall y = 0 to wall y = 1, flat in the unjittered
// mesh): a resistor, an
// inductor and a series RLC. From a random field the circuits start empty, so the field's energy W^n
// never exceeds W^0; with the resistor it falls.
TEST(LumpedElements, CircuitsNeverGiveBackMoreEnergyThanTheyTook)
{
  dgatd::mesh::StructuredBox box;
  box.size[0] = box.size[1] = box.size[2] = 1.0;
  box.cells[0] = box.cells[1] = 4;
  box.cells[2] = 8;
  Line g;
  g.mesh = dgatd::mesh::structured_box(box);
  g.topology = dgatd::mesh::build_topology(g.mesh);
  g.geometry = dgatd::mesh::build_geometry(g.mesh, g.topology);
  std::vector<dgatd::dga::FaceKind> kinds(g.topology.num_faces(), dgatd::dga::FaceKind::interior_or_pmc);
  for (Index f : g.topology.boundary_faces) kinds[f] = dgatd::dga::FaceKind::pec;
  // The structured mesh's interior faces in the plane z = z0 (its planes of vertices stay flat).
  auto plane = [&](double z0) {
    std::vector<Index> faces;
    for (Index f = 0; f < g.topology.num_faces(); ++f) {
      bool in = g.topology.face_tets[f][1] >= 0;
      for (Index v : g.topology.face_vertices[f]) in = in && std::abs(g.mesh.points[v][2] - z0) < 1e-12;
      if (in) faces.push_back(f);
    }
    return faces;
  };
  dgatd::dga::LumpedCircuit resistor, inductor, series;
  resistor.resistance = 2.0;
  inductor.inductance = 0.3;
  series.series = true;
  series.resistance = 0.1;
  series.inductance = 0.2;
  series.capacitance = 0.05;
  auto sheet = [&](double z0, dgatd::dga::LumpedCircuit const& circuit) {
    dgatd::dga::LumpedSheet s;
    s.faces = plane(z0);
    s.direction = {0, 1, 0};
    s.length = 1.0;
    s.width = 1.0;
    s.circuit = circuit;
    return s;
  };
  std::size_t const n = g.mesh.tets.size();
  for (auto const& [name, circuits] : {std::pair{"resistor", std::vector{resistor}},
                                       std::pair{"inductor and series RLC", std::vector{inductor, series}}}) {
    g.sheets.clear();
    for (std::size_t k = 0; k < circuits.size(); ++k) g.sheets.push_back(sheet(0.25 * (k + 1), circuits[k]));
    ASSERT_FALSE(g.sheets.front().faces.empty());
    dgatd::dga::Materials materials{std::vector<double>(n, 1.0), std::vector<double>(n, 1.0), {}};
    materials.sheets = g.sheets;
    g.operators = dgatd::dga::assemble(g.mesh, g.topology, g.geometry, materials, kinds);
    dgatd::solver::FractionedLeapfrog<TestSpace> solver(TestSpace(), g.operators);
    solver.add_term(std::make_unique<dgatd::solver::LumpedElements<TestSpace>>(
        dgatd::solver::lumped_stencil(g.operators, g.sheets, std::vector<dgatd::solver::Waveform>(g.sheets.size()))));
    solver.set_dt(0.99 * solver.estimate_stability().dt_max);
    solver.set_random_initial_field(11);
    double const w0 = solver.step_with_energy();
    double largest = w0, previous = w0, largest_rise = 0, last = w0;
    for (int step = 0; step < 3000; ++step) {
      last = solver.step_with_energy();
      largest = std::max(largest, last);
      largest_rise = std::max(largest_rise, last / previous - 1);
      previous = last;
    }
    std::printf("%s: largest W / W0 - 1 = %.2e, largest rise per step %.2e, W / W0 after 3000 steps %.4f\n", name,
                largest / w0 - 1, largest_rise, last / w0);
    EXPECT_LE(largest, w0 * (1 + 1e-12)) << name;
    // A resistor alone only takes; each set has a resistor, so the field ends below where it started.
    if (circuits.size() == 1) {
      EXPECT_LE(largest_rise, 1e-12) << name;
    }
    EXPECT_LT(last, 0.999 * w0) << name;
  }
}

} // namespace
