// Electrostatics on the DGA complex (dga/laplacian.hpp, solver/electrostatics.hpp) on each backend,
// against potentials linear elements hold exactly: a capacitor of two dielectric layers between
// plates at z = 0 and z = L, whose potential is linear in each layer (the interface a mesh plane),
// so the discrete potential is the analytic one to the solver's tolerance and the capacitance is the
// series A / (d1 / eps1 + d2 / eps2).
#include "dgatd/dga/laplacian.hpp"
#include "dgatd/mesh/generators.hpp"
#include "dgatd/solver/electrostatics.hpp"

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <vector>

namespace {

using TestSpace = DGATD_TEST_EXEC_SPACE;
using dgatd::Index;

constexpr double eps0 = 8.8541878128e-12;

struct LayeredCapacitor {
  double a = 0.5, b = 0.4, length = 0.6, cut = 0.21, eps_below = 2.0 * eps0, eps_above = 5.0 * eps0;
  dgatd::mesh::Mesh mesh;
  std::vector<double> eps;
  std::vector<Index> bottom, top;

  LayeredCapacitor()
  {
    dgatd::mesh::GeneratorSpec spec;
    spec.shape = "cell";
    spec.size = {a, b, length};
    spec.element_size = 0.08;
    spec.cuts = {cut};
    spec.reproducible = true;
    mesh = dgatd::mesh::generate_mesh(spec);
    int const below = mesh.group_tag(3, "layer_0");
    for (int const region : mesh.tet_region) eps.push_back(region == below ? eps_below : eps_above);
    for (Index v = 0; v < mesh.num_vertices(); ++v) {
      if (std::abs(mesh.points[v][2]) < 1e-9) bottom.push_back(v);
      if (std::abs(mesh.points[v][2] - length) < 1e-9) top.push_back(v);
    }
  }

  // The analytic potential with the top plate at 1 V and the bottom one grounded: D is uniform, so
  // the field in each layer is D / eps.
  double potential(double z) const
  {
    double const d = 1 / (cut / eps_below + (length - cut) / eps_above);
    return z <= cut ? d * z / eps_below : d * (cut / eps_below + (z - cut) / eps_above);
  }
  double capacitance() const { return a * b / (cut / eps_below + (length - cut) / eps_above); }
};

TEST(Electrostatics, LayeredCapacitorHoldsItsPiecewiseLinearPotential)
{
  LayeredCapacitor const c;
  ASSERT_GT(c.bottom.size(), 10u);
  ASSERT_GT(c.top.size(), 10u);
  auto const laplacian = dgatd::dga::node_laplacian(c.mesh, c.eps);
  std::vector<char> fixed(c.mesh.points.size(), 0);
  std::vector<double> prescribed(c.mesh.points.size(), 0.0);
  for (Index const v : c.bottom) fixed[v] = 1;
  for (Index const v : c.top) fixed[v] = 1, prescribed[v] = 1;
  auto const solve = dgatd::solver::solve_potential<TestSpace>(laplacian, fixed, prescribed, 1e-12, 2000);
  EXPECT_LT(solve.relative_residual, 1e-12);
  EXPECT_GT(solve.iterations, 0);
  double largest = 0;
  for (Index v = 0; v < c.mesh.num_vertices(); ++v)
    largest = std::max(largest, std::abs(solve.potential[v] - c.potential(c.mesh.points[v][2])));
  std::printf("%d iterations, largest difference from the analytic potential %.2e V\n", solve.iterations, largest);
  EXPECT_LT(largest, 1e-9);
}

// The capacitance matrix of the two plates with no ground: each plate's self capacitance equals the
// series capacitance and the mutual one its negative (the charges are equal and opposite), to the
// solver's tolerance; the matrix is symmetric.
TEST(Electrostatics, CapacitanceMatrixOfTwoPlatesIsTheSeriesCapacitance)
{
  LayeredCapacitor const c;
  auto const laplacian = dgatd::dga::node_laplacian(c.mesh, c.eps);
  auto const capacitances = dgatd::solver::capacitance_matrix<TestSpace>(laplacian, {c.bottom, c.top}, {}, 1e-12, 2000);
  auto const& m = capacitances.matrix;
  double const expected = c.capacitance();
  std::printf("C = [%.6e %.6e; %.6e %.6e] F, series capacitance %.6e F\n", m[0][0], m[0][1], m[1][0], m[1][1],
              expected);
  EXPECT_NEAR(m[0][0], expected, 1e-9 * expected);
  EXPECT_NEAR(m[1][1], expected, 1e-9 * expected);
  EXPECT_NEAR(m[0][1], -expected, 1e-9 * expected);
  EXPECT_NEAR(m[1][0], m[0][1], 1e-12 * expected);
}

// Too few iterations for the tolerance asked are refused, saying how far the solve got.
TEST(Electrostatics, TooFewIterationsAreRefused)
{
  LayeredCapacitor const c;
  auto const laplacian = dgatd::dga::node_laplacian(c.mesh, c.eps);
  std::vector<char> fixed(c.mesh.points.size(), 0);
  std::vector<double> prescribed(c.mesh.points.size(), 0.0);
  for (Index const v : c.bottom) fixed[v] = 1;
  for (Index const v : c.top) fixed[v] = 1, prescribed[v] = 1;
  try {
    dgatd::solver::solve_potential<TestSpace>(laplacian, fixed, prescribed, 1e-12, 3);
    FAIL() << "three iterations reached 1e-12";
  } catch (dgatd::Error const& e) {
    EXPECT_NE(std::string(e.what()).find("after 3 iterations"), std::string::npos) << e.what();
  }
}

} // namespace
