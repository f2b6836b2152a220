// The port mode solver (dga/cross_section.hpp, solver/port_modes.hpp) on each backend: the 2D
// operators hold a linear potential exactly, the rectangular guide's TE and TM cut-offs converge at
// second order to pi sqrt((m/a)^2 + (n/b)^2), and bad sections and unconverged solves are refused in
// one line.
#include "cross_section_fixture.hpp"

#include "dgatd/dga/cross_section.hpp"
#include "dgatd/solver/port_modes.hpp"

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using TestSpace = DGATD_TEST_EXEC_SPACE;
using dgatd::Index;
using dgatd::solver::ModeKind;
using dgatd::testing::ScratchDirectory;

constexpr double a = 1.0, b = 0.6;

// The a x b rectangle at mesh size h, and (bent) two sides of the slab as one physical surface.
dgatd::mesh::Mesh rectangle(ScratchDirectory const& scratch, double h)
{
  std::string const section = "h = " + std::to_string(h) + ";\nPoint(1) = {0, 0, 0, h}; Point(2) = {" +
                              std::to_string(a) + ", 0, 0, h}; Point(3) = {" + std::to_string(a) + ", " +
                              std::to_string(b) + ", 0, h}; Point(4) = {0, " + std::to_string(b) +
                              ", 0, h};\nLine(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};\n"
                              "Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};\nport[] = {1};\n";
  return dgatd::testing::extruded_section(scratch, "rectangle_" + std::to_string(h), section, h,
                                          "Physical Surface(\"bent\") = {slab[2], slab[3]};\n"
                                          "Physical Volume(\"fill\") = {slab[1]};\n");
}

dgatd::dga::CrossSection port_of(dgatd::mesh::Mesh const& mesh, double eps_r = 1)
{
  return dgatd::dga::cross_section(mesh, mesh.group_tag(2, "port"), std::vector<double>(mesh.tets.size(), eps_r),
                                   std::vector<double>(mesh.tets.size(), 1.0));
}

TEST(PortModes, RectangleSectionIsOneGroundedWall)
{
  ScratchDirectory scratch("port_modes_section");
  auto const mesh = rectangle(scratch, 0.1);
  auto const s = port_of(mesh);
  EXPECT_EQ(s.conductor_count, 1);
  double area = 0;
  for (Index t = 0; t < s.num_triangles(); ++t) {
    EXPECT_GT(s.area(t), 0) << "triangle " << t << " is not counter-clockwise";
    area += s.area(t);
  }
  EXPECT_NEAR(area, a * b, 1e-12);
  // The slab lies above the port: the normal points into it.
  EXPECT_NEAR(s.normal[2], 1.0, 1e-12);
  for (Index i = 0; i < s.num_vertices(); ++i) {
    auto const& x = mesh.points[s.mesh_vertex[i]];
    bool const on_wall =
        std::abs(x[0]) < 1e-9 || std::abs(x[0] - a) < 1e-9 || std::abs(x[1]) < 1e-9 || std::abs(x[1] - b) < 1e-9;
    EXPECT_EQ(s.conductor[i], on_wall ? 0 : -1) << "vertex at " << x[0] << ", " << x[1];
  }
}

// A linear potential is in the P1 space, so with its values on the wall the free vertices take it to
// the CG's tolerance (1e-13 relative residual; the largest error is a few times that of 1 V).
TEST(PortModes, LaplaceOfTheSectionHoldsALinearPotential)
{
  ScratchDirectory scratch("port_modes_laplace");
  auto const mesh = rectangle(scratch, 0.05);
  auto const s = port_of(mesh, 3.0);
  auto const k = dgatd::dga::cross_section_stiffness(s, s.eps_r);
  auto exact = [&](Index i) { return 1 + 2 * s.points[i][0] - 3 * s.points[i][1]; };
  std::vector<char> fixed(static_cast<std::size_t>(s.num_vertices()));
  std::vector<double> prescribed(fixed.size(), 0.0);
  for (Index i = 0; i < s.num_vertices(); ++i)
    if (s.conductor[i] >= 0) fixed[i] = 1, prescribed[i] = exact(i);
  auto const solve = dgatd::solver::solve_potential<TestSpace>(k, fixed, prescribed, 1e-13, 2000);
  double largest = 0;
  for (Index i = 0; i < s.num_vertices(); ++i) largest = std::max(largest, std::abs(solve.potential[i] - exact(i)));
  std::printf("%d vertices, %d CG iterations, largest error %.2e V\n", s.num_vertices(), solve.iterations, largest);
  EXPECT_LT(largest, 1e-11);
  // Its field is the constant -grad phi = (-2, 3) in every triangle.
  for (auto const& g : dgatd::dga::triangle_gradients(s, solve.potential)) {
    EXPECT_NEAR(g[0], 2.0, 1e-9);
    EXPECT_NEAR(g[1], -3.0, 1e-9);
  }
}

// TE10, TE01, TE11 and TM11 on two meshes, h and h / 2. Linear elements' eigenvalues converge at
// second order from above (a conforming Rayleigh-Ritz method); the error of k_c is about
// (k_c h)^2 / 24 on Gmsh's near-equilateral triangles (measured: 0.65 to 0.74 times that), so the check
// is that the finer mesh is within (k_c h)^2 / 12 and above the exact value, and the observed order
// is 2 within 0.3.
TEST(PortModes, RectangularGuideCutoffsConvergeAtSecondOrder)
{
  ScratchDirectory scratch("port_modes_rectangle");
  struct Expected {
    ModeKind kind;
    int m, n;
  };
  std::vector<Expected> const expected = {
      {ModeKind::te, 1, 0}, {ModeKind::te, 0, 1}, {ModeKind::te, 1, 1}, {ModeKind::tm, 1, 1}};
  std::vector<double> const sizes = {0.08, 0.04};
  std::vector<std::vector<double>> errors(expected.size());
  for (double const h : sizes) {
    auto const s = port_of(rectangle(scratch, h));
    auto const te = dgatd::solver::hollow_modes<TestSpace>(s, ModeKind::te, 3, 1e-8, 500);
    auto const tm = dgatd::solver::hollow_modes<TestSpace>(s, ModeKind::tm, 1, 1e-8, 500);
    std::printf("h = %.3f: %d vertices, TE %d iterations (residual %.1e), TM %d iterations\n", h, s.num_vertices(),
                te[0].iterations, te[0].relative_residual, tm[0].iterations);
    for (std::size_t k = 0; k < expected.size(); ++k) {
      auto const& mode = expected[k].kind == ModeKind::te ? te[k] : tm[0];
      double const exact = M_PI * std::hypot(expected[k].m / a, expected[k].n / b);
      errors[k].push_back(mode.cutoff_wavenumber / exact - 1);
      std::printf("  %s%d%d: k_c = %.6f 1/m (exact %.6f), error %+.4f %%, (k_c h)^2 / 24 = %.4f %%\n",
                  dgatd::solver::mode_kind_name(expected[k].kind).c_str(), expected[k].m, expected[k].n,
                  mode.cutoff_wavenumber, exact, 100 * errors[k].back(), 100 * exact * exact * h * h / 24);
      if (h == sizes.back()) {
        EXPECT_GT(errors[k].back(), 0);
        EXPECT_LT(errors[k].back(), exact * exact * h * h / 12);
      }
      EXPECT_EQ(mode.kind, expected[k].kind);
      EXPECT_NEAR(mode.cutoff_frequency, 299792458.0 * mode.cutoff_wavenumber / (2 * M_PI), 1e-6);
      // The transverse pattern has unit norm.
      double norm = 0;
      for (Index t = 0; t < s.num_triangles(); ++t) norm += s.area(t) * dgatd::dot(mode.electric[t], mode.electric[t]);
      EXPECT_NEAR(norm, 1.0, 1e-6);
    }
  }
  for (std::size_t k = 0; k < expected.size(); ++k) {
    double const order = std::log(errors[k][0] / errors[k][1]) / std::log(sizes[0] / sizes[1]);
    std::printf("mode %zu: order %.2f\n", k, order);
    EXPECT_NEAR(order, 2.0, 0.3);
  }
}

TEST(PortModes, BentSurfaceIsRefused)
{
  ScratchDirectory scratch("port_modes_bent");
  auto const mesh = rectangle(scratch, 0.1);
  try {
    dgatd::dga::cross_section(mesh, mesh.group_tag(2, "bent"), std::vector<double>(mesh.tets.size(), 1.0),
                              std::vector<double>(mesh.tets.size(), 1.0));
    FAIL() << "a bent surface was taken as a cross-section";
  } catch (dgatd::Error const& e) {
    std::string const what = e.what();
    EXPECT_NE(what.find("'bent'"), std::string::npos) << what;
    EXPECT_NE(what.find("is not planar"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(PortModes, TooFewIterationsAreRefused)
{
  ScratchDirectory scratch("port_modes_iterations");
  auto const s = port_of(rectangle(scratch, 0.1));
  try {
    dgatd::solver::hollow_modes<TestSpace>(s, ModeKind::te, 2, 1e-8, 3);
    FAIL() << "three iterations reached 1e-8";
  } catch (dgatd::Error const& e) {
    std::string const what = e.what();
    EXPECT_NE(what.find("after 3 iterations"), std::string::npos) << what;
    EXPECT_NE(what.find("TE modes"), std::string::npos) << what;
  }
}

// A rectangle has no TEM mode: one conductor.
TEST(PortModes, OneConductorHasNoTemMode)
{
  ScratchDirectory scratch("port_modes_tem");
  auto const s = port_of(rectangle(scratch, 0.1));
  EXPECT_THROW(dgatd::solver::tem_modes<TestSpace>(s, 1e-10, 100), dgatd::Error);
}

} // namespace
