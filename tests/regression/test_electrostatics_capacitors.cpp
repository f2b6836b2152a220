// Capacitors with curved conductors against their analytic capacitance (issue 50, acceptance 1),
// solved on the default execution space: the spherical capacitor between radii a and b,
// C = 4 pi eps a b / (b - a), on three meshes of Gmsh's (sizes h, h/sqrt 2, h/2), and a coaxial one.
// The capacitance is the energy of the solve at 1 V, which
// converges at second order in h: the potential's gradient is first order, its energy error the
// square of that, and the spheres' flat facets move the surfaces by O(h^2) too.
#include "scratch_directory.hpp"

#include "dgatd/dga/laplacian.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/solver/electrostatics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using dgatd::Index;
using dgatd::testing::ScratchDirectory;

constexpr double eps0 = 8.8541878128e-12;

struct Measured {
  Index tets = 0;
  double capacitance = 0;
  int iterations = 0;
};

Measured spherical_capacitor(ScratchDirectory const& scratch, double a, double b, double eps_r, double h)
{
  auto const geo = scratch.write("shell_" + std::to_string(h) + ".geo",
                                 "SetFactory(\"OpenCASCADE\");\nSphere(1) = {0, 0, 0, " + std::to_string(b) +
                                     "};\nSphere(2) = {0, 0, 0, " + std::to_string(a) +
                                     "};\nBooleanDifference(3) = { Volume{1}; Delete; }{ Volume{2}; Delete; };\n"
                                     "Physical Volume(\"shell\") = {3};\nMesh.MeshSizeMin = " +
                                     std::to_string(h) + ";\nMesh.MeshSizeMax = " + std::to_string(h) +
                                     ";\nMesh.Algorithm3D = 1;\n");
  auto const mesh = dgatd::mesh::read_mesh(geo);
  std::vector<Index> inner, outer;
  for (Index v = 0; v < mesh.num_vertices(); ++v) {
    double const r = dgatd::norm(mesh.points[v]);
    if (std::abs(r - a) < 1e-6 * a) inner.push_back(v);
    if (std::abs(r - b) < 1e-6 * b) outer.push_back(v);
  }
  auto const laplacian = dgatd::dga::node_laplacian(mesh, std::vector<double>(mesh.tets.size(), eps_r * eps0));
  auto const c =
      dgatd::solver::capacitance_matrix<Kokkos::DefaultExecutionSpace>(laplacian, {inner}, outer, 1e-10, 10000);
  return {mesh.num_tets(), c.matrix[0][0], c.solves[0].iterations};
}

TEST(Capacitors, SphericalCapacitorConvergesAtSecondOrderToTheAnalyticCapacitance)
{
  ScratchDirectory scratch("spherical_capacitor");
  double const a = 0.5, b = 1.0, eps_r = 2.2;
  double const analytic = 4 * M_PI * eps_r * eps0 * a * b / (b - a);
  std::vector<double> const sizes = {0.11, 0.11 / std::sqrt(2.0), 0.055};
  std::vector<double> errors;
  for (double const h : sizes) {
    auto const m = spherical_capacitor(scratch, a, b, eps_r, h);
    errors.push_back(m.capacitance / analytic - 1);
    std::printf("h = %.4f: %lld tets, C = %.6e F (analytic %.6e), error %+.3f %%, %d CG iterations\n", h,
                static_cast<long long>(m.tets), m.capacitance, analytic, 100 * errors.back(), m.iterations);
  }
  for (std::size_t k = 0; k + 1 < sizes.size(); ++k) {
    double const order = std::log(std::abs(errors[k] / errors[k + 1])) / std::log(sizes[k] / sizes[k + 1]);
    std::printf("order between h = %.4f and %.4f: %.2f\n", sizes[k], sizes[k + 1], order);
  }
  double const overall = std::log(std::abs(errors.front() / errors.back())) / std::log(sizes.front() / sizes.back());
  std::printf("order over the three meshes: %.2f\n", overall);
  EXPECT_LT(std::abs(errors.back()), 0.005);
  EXPECT_NEAR(overall, 2.0, 0.3);
}

// The coaxial capacitor between radii a and b, of length L with open ends: the ends are natural
// boundaries (no normal D), so the field is the infinite line's and C = 2 pi eps L / ln(b / a)
// exactly; within 0.5 % at about 1e5 tets.
TEST(Capacitors, CoaxialCapacitorIsTheLinesCapacitance)
{
  ScratchDirectory scratch("coaxial_capacitor");
  double const a = 0.4, b = 1.0, length = 0.6, eps_r = 4.4, h = 0.05;
  auto const geo = scratch.write(
      "coax.geo", "SetFactory(\"OpenCASCADE\");\nCylinder(1) = {0, 0, 0, 0, 0, " + std::to_string(length) + ", " +
                      std::to_string(b) + "};\nCylinder(2) = {0, 0, 0, 0, 0, " + std::to_string(length) + ", " +
                      std::to_string(a) +
                      "};\nBooleanDifference(3) = { Volume{1}; Delete; }{ Volume{2}; "
                      "Delete; };\nPhysical Volume(\"dielectric\") = {3};\n"
                      "Mesh.MeshSizeMin = " +
                      std::to_string(h) + ";\nMesh.MeshSizeMax = " + std::to_string(h) + ";\nMesh.Algorithm3D = 1;\n");
  auto const mesh = dgatd::mesh::read_mesh(geo);
  std::vector<Index> inner, outer;
  for (Index v = 0; v < mesh.num_vertices(); ++v) {
    double const r = std::hypot(mesh.points[v][0], mesh.points[v][1]);
    if (std::abs(r - a) < 1e-6 * a) inner.push_back(v);
    if (std::abs(r - b) < 1e-6 * b) outer.push_back(v);
  }
  auto const laplacian = dgatd::dga::node_laplacian(mesh, std::vector<double>(mesh.tets.size(), eps_r * eps0));
  auto const c =
      dgatd::solver::capacitance_matrix<Kokkos::DefaultExecutionSpace>(laplacian, {inner}, outer, 1e-10, 10000);
  double const analytic = 2 * M_PI * eps_r * eps0 * length / std::log(b / a);
  double const error = c.matrix[0][0] / analytic - 1;
  std::printf("%lld tets: C = %.6e F (analytic %.6e), error %+.3f %%, %d CG iterations\n",
              static_cast<long long>(mesh.num_tets()), c.matrix[0][0], analytic, 100 * error, c.solves[0].iterations);
  EXPECT_LT(std::abs(error), 0.005);
}

} // namespace
