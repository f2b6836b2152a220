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

// Two coupled strips (w = h, gap h / 2) on eps_r = 4.4, PEC sheets in a box of 10 h: two signal
// conductors, so two quasi-TEM modes from C V = eps_eff C_mu V. By symmetry they are the odd mode,
// V = (1, -1), and the even one, V = (1, 1), with more of its field in the substrate (eps_eff odd <
// even); their impedances are the textbook ones, 1 / (c0 sqrt((C11 -+ C12)(C_mu11 -+ C_mu12))), with
// the capacitances computed here independently, to 1e-3: those formulas take C11 = C22, which Gmsh's
// mesh holds to about 1e-4.
TEST(PortModes, CoupledStripsHaveOddAndEvenModes)
{
  ScratchDirectory scratch("port_modes_coupled");
  double const hs = 1, w = 1, gap = 0.5, half_box = 10, top = 10, eps_r = 4.4;
  std::vector<double> const xs = {half_box, gap / 2 + w, gap / 2, -gap / 2, -gap / 2 - w, -half_box};
  std::string section =
      "Point(1) = {" + std::to_string(-half_box) + ", 0, 0};\nPoint(2) = {" + std::to_string(half_box) + ", 0, 0};\n";
  for (std::size_t k = 0; k < xs.size(); ++k)
    section +=
        "Point(" + std::to_string(3 + k) + ") = {" + std::to_string(xs[k]) + ", " + std::to_string(hs) + ", 0};\n";
  section += "Point(9) = {" + std::to_string(half_box) + ", " + std::to_string(top) + ", 0};\nPoint(10) = {" +
             std::to_string(-half_box) + ", " + std::to_string(top) +
             ", 0};\n"
             "Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 5}; Line(5) = {5, 6};\n"
             "Line(6) = {6, 7}; Line(7) = {7, 8}; Line(8) = {8, 1}; Line(9) = {3, 9}; Line(10) = {9, 10};\n"
             "Line(11) = {10, 8};\nCurve Loop(1) = {1, 2, 3, 4, 5, 6, 7, 8}; Plane Surface(1) = {1};\n"
             "Curve Loop(2) = {-7, -6, -5, -4, -3, 9, 10, 11}; Plane Surface(2) = {2};\nport[] = {1, 2};\n"
             "Field[1] = Distance; Field[1].PointsList = {4, 5, 6, 7};\nField[2] = MathEval;\n"
             "Field[2].F = \"min(1, 0.02 + 0.2 * F1)\";\nBackground Field = 2;\n"
             "Mesh.MeshSizeExtendFromBoundary = 0; Mesh.MeshSizeFromPoints = 0; Mesh.MeshSizeFromCurvature = 0;\n";
  auto box = [&](double x0, double x1) {
    return "Surface In BoundingBox{" + std::to_string(x0) + " - e, " + std::to_string(hs) + " - e, -e, " +
           std::to_string(x1) + " + e, " + std::to_string(hs) + " + e, 0.02 + e}";
  };
  std::string const groups =
      "right() = " + box(gap / 2, gap / 2 + w) + ";\nleft() = " + box(-gap / 2 - w, -gap / 2) +
      ";\nPhysical Surface(\"strips\") = {left(), right()};\n"
      "Physical Volume(\"substrate\") = Volume In BoundingBox{-10 - e, -e, -e, 10 + e, 1 + e, 0.02 + e};\n"
      "Physical Volume(\"air\") = Volume In BoundingBox{-10 - e, 1 - e, -e, 10 + e, 10 + e, 0.02 + e};\n";
  auto const mesh = dgatd::testing::extruded_section(scratch, "coupled", section, 0.02, groups);
  int const substrate = mesh.group_tag(3, "substrate");
  std::vector<double> eps(mesh.tets.size());
  for (std::size_t t = 0; t < eps.size(); ++t) eps[t] = mesh.tet_region[t] == substrate ? eps_r : 1.0;
  auto const s = dgatd::dga::cross_section(mesh, mesh.group_tag(2, "port"), eps,
                                           std::vector<double>(mesh.tets.size(), 1.0), {mesh.group_tag(2, "strips")});
  ASSERT_EQ(s.conductor_count, 3);
  auto const modes = dgatd::solver::tem_modes<TestSpace>(s, 1e-12, 5000);
  ASSERT_EQ(modes.size(), 2u);

  // The capacitances again, from the section's operators.
  auto const conductors = s.conductor_vertices();
  std::vector<double> with_eps(s.triangles.size()), with_mu(s.triangles.size());
  for (std::size_t t = 0; t < s.triangles.size(); ++t)
    with_eps[t] = dgatd::dga::eps0 * s.eps_r[t], with_mu[t] = dgatd::dga::eps0 / s.mu_r[t];
  auto const c =
      dgatd::solver::capacitance_matrix<TestSpace>(dgatd::dga::cross_section_stiffness(s, with_eps),
                                                   {conductors[1], conductors[2]}, conductors[0], 1e-12, 5000)
          .matrix;
  auto const c_mu =
      dgatd::solver::capacitance_matrix<TestSpace>(dgatd::dga::cross_section_stiffness(s, with_mu),
                                                   {conductors[1], conductors[2]}, conductors[0], 1e-12, 5000)
          .matrix;
  double const c0 = dgatd::dga::speed_of_light;
  double const odd = 1 / (c0 * std::sqrt((c[0][0] - c[0][1]) * (c_mu[0][0] - c_mu[0][1])));
  double const even = 1 / (c0 * std::sqrt((c[0][0] + c[0][1]) * (c_mu[0][0] + c_mu[0][1])));
  std::printf("%d triangles: odd eps_eff %.4f Z %.3f ohm (V = %.6f, %.6f), even eps_eff %.4f Z %.3f ohm (V = %.6f, "
              "%.6f); from C: odd %.3f, even %.3f ohm\n",
              s.num_triangles(), modes[0].eps_eff, modes[0].impedance, modes[0].voltages[0], modes[0].voltages[1],
              modes[1].eps_eff, modes[1].impedance, modes[1].voltages[0], modes[1].voltages[1], odd, even);
  EXPECT_LT(modes[0].eps_eff, modes[1].eps_eff);
  EXPECT_GT(modes[0].eps_eff, 1.0);
  EXPECT_LT(modes[1].eps_eff, eps_r);
  // The mesh is symmetric only to Gmsh's meshing (the voltages measured symmetric to 7e-5).
  EXPECT_NEAR(modes[0].voltages[0] + modes[0].voltages[1], 0.0, 1e-3);
  EXPECT_NEAR(modes[1].voltages[0], modes[1].voltages[1], 1e-3);
  EXPECT_NEAR(modes[0].impedance, odd, 1e-3 * odd);
  EXPECT_NEAR(modes[1].impedance, even, 1e-3 * even);
  EXPECT_LT(modes[0].impedance, modes[1].impedance);
}

// Two unit squares side by side as one port: sharing an edge (filled with eps_r 1 and 2), or apart.
dgatd::mesh::Mesh two_squares(ScratchDirectory const& scratch, bool apart)
{
  std::string const right = apart ? "Point(5) = {1.5, 0, 0, 0.2}; Point(6) = {2.5, 0, 0, 0.2}; "
                                    "Point(7) = {2.5, 1, 0, 0.2}; Point(8) = {1.5, 1, 0, 0.2};\n"
                                    "Line(5) = {5, 6}; Line(6) = {6, 7}; Line(7) = {7, 8}; Line(8) = {8, 5};\n"
                                    "Curve Loop(2) = {5, 6, 7, 8};\n"
                                  : "Point(6) = {2, 0, 0, 0.2}; Point(7) = {2, 1, 0, 0.2};\n"
                                    "Line(5) = {2, 6}; Line(6) = {6, 7}; Line(7) = {7, 3};\n"
                                    "Curve Loop(2) = {5, 6, 7, -2};\n";
  std::string const section = "Point(1) = {0, 0, 0, 0.2}; Point(2) = {1, 0, 0, 0.2}; Point(3) = {1, 1, 0, 0.2}; "
                              "Point(4) = {0, 1, 0, 0.2};\nLine(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; "
                              "Line(4) = {4, 1};\nCurve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};\n" +
                              right + "Plane Surface(2) = {2};\nport[] = {1, 2};\n";
  return dgatd::testing::extruded_section(scratch, apart ? "apart" : "joined", section, 0.2,
                                          "Physical Volume(\"left\") = {slab[1]};\n"
                                          "Physical Volume(\"right\") = {slab[7]};\n");
}

TEST(PortModes, DisconnectedSurfaceIsRefused)
{
  ScratchDirectory scratch("port_modes_apart");
  auto const mesh = two_squares(scratch, true);
  try {
    port_of(mesh);
    FAIL() << "two pieces were taken as one cross-section";
  } catch (dgatd::Error const& e) {
    std::string const what = e.what();
    EXPECT_NE(what.find("'port'"), std::string::npos) << what;
    EXPECT_NE(what.find("is not one connected piece"), std::string::npos) << what;
  }
}

// Two materials across a hollow guide: its modes are hybrid, which the TE/TM solver does not claim.
TEST(PortModes, InhomogeneousHollowGuideIsRefused)
{
  ScratchDirectory scratch("port_modes_joined");
  auto const mesh = two_squares(scratch, false);
  int const right = mesh.group_tag(3, "right");
  std::vector<double> eps(mesh.tets.size());
  for (std::size_t t = 0; t < eps.size(); ++t) eps[t] = mesh.tet_region[t] == right ? 2.0 : 1.0;
  auto const s =
      dgatd::dga::cross_section(mesh, mesh.group_tag(2, "port"), eps, std::vector<double>(mesh.tets.size(), 1.0));
  EXPECT_EQ(s.conductor_count, 1);
  try {
    dgatd::solver::lowest_modes<TestSpace>(s, 2, 1e-8, 500);
    FAIL() << "an inhomogeneous hollow guide was solved as TE/TM";
  } catch (dgatd::Error const& e) {
    std::string const what = e.what();
    EXPECT_NE(what.find("more than one material"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
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
