// Assembly of the loss terms and the checks on matched layers that do not step anything: tests of
// host code alone, built and run once (not per execution space).
#include "loss_fixtures.hpp"

#include "dgatd/dga/operators.hpp"
#include "dgatd/error.hpp"
#include "dgatd/mesh/surfaces.hpp"
#include "dgatd/solver/stencils.hpp"
#include "dgatd/vec3.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using dgatd::Vec3;
using dgatd::testing::layered_guide;
using dgatd::testing::lossy_box;

// The absorbing term is the power Y |e_t|^2 the surface radiates, integrated over the kites, where
// e_t comes from the half-edges at each vertex; for a uniform field that reconstruction is exact, so
// sum_v u_v . S_v u_v must equal Y |E_t|^2 times the area, face by face, whatever the mesh and the
// edges' orientations (a sign lost for half-edges pointing into v made it 8 % off on WR-90).
TEST(AbsorbingSurfaces, UniformFieldRadiatesYTimesTangentialFieldSquaredTimesArea)
{
  // The jittered box of the loss tests, for its mesh only.
  auto const box = lossy_box(0.0);
  auto const& mesh = box.mesh;
  auto const& topology = box.topology;
  auto const& geometry = box.geometry;
  // Absorbing on the whole boundary: a PEC face would force the uniform field's tangential part to zero.
  std::vector<dgatd::dga::FaceKind> kinds(topology.num_faces(), dgatd::dga::FaceKind::interior_or_pmc);
  double expected = 0;
  double const eps = 2.0, mu = 0.5, admittance = std::sqrt(eps / mu);
  Vec3 const field{0.3, -1.2, 0.7};
  dgatd::mesh::MeshView const view{mesh, topology, geometry};
  for (auto f : topology.boundary_faces) {
    kinds[f] = dgatd::dga::FaceKind::absorbing;
    Vec3 const area_vector = dgatd::mesh::face_area_vector(view, f, topology.face_tets[f][0]);
    double const area = dgatd::norm(area_vector);
    double const normal_part = dgatd::dot(field, area_vector) / area;
    expected += admittance * area * (dgatd::dot(field, field) - normal_part * normal_part);
  }
  std::size_t const n = mesh.tets.size();
  dgatd::dga::Materials const medium{std::vector<double>(n, eps), std::vector<double>(n, mu), {}};
  auto const operators = dgatd::dga::assemble(mesh, topology, geometry, medium, kinds);
  auto const u = dgatd::solver::project_field(view, operators.layout, [&](Vec3 const&) { return field; });
  double power = 0;
  for (std::size_t k = 0; k < operators.lossy_blocks.size(); ++k) {
    auto const b = operators.lossy_blocks[k];
    auto const first = operators.layout.block_offset[b];
    auto const size = operators.layout.block_offset[b + 1] - first;
    double const* s = operators.conductance.data() + operators.lossy_matrix_offset[k];
    for (int i = 0; i < size; ++i)
      for (int j = 0; j < size; ++j) power += u[first + i] * s[i * size + j] * u[first + j];
  }
  EXPECT_NEAR(power, expected, 1e-12 * expected);
}

TEST(MatchedLayers, ThinnerThanTwoElementLayersIsRefused)
{
  try {
    layered_guide(4.0, 160, 0.025, {}, 0.0);
    FAIL() << "a layer one cell deep was accepted";
  } catch (dgatd::ModelError const& e) {
    // In the method's words: the configuration layer adds the [[pml]] line (tests/unit/test_config_errors.cpp).
    EXPECT_EQ(e.subject(), dgatd::ModelSubject::matched_layer);
    EXPECT_EQ(e.name(), "ends");
    EXPECT_NE(e.problem().find("less than two element layers"), std::string::npos) << e.what();
    EXPECT_NE(e.remedy().find("make the layer at least"), std::string::npos) << e.what();
  }
}

// A shell's tets that straddle a plane of its box, where one axis's stretch starts, are what make a
// shell meshed as one volume grow (docs/method/open_regions.md, section 3); a run that grows names
// them. On the grid the box's planes are grid planes, which no tet crosses; moving the vertices lets
// the tets beside the planes cross them.
TEST(MatchedLayers, ShellTetsAcrossAPlaneWhereAStretchStartsAreCounted)
{
  // 16^3 cells, the tets within 0.25 of a face in the shell.
  auto const aligned = dgatd::testing::shelled_box(16, 0.25, {}, {}, 0.0).layer;
  EXPECT_EQ(aligned.straddling_tets, 0);
  auto const jittered = dgatd::testing::shelled_box(16, 0.25, {}, {}, 0.2).layer;
  EXPECT_GT(jittered.straddling_tets, 0);
  EXPECT_LT(jittered.straddling_tets, jittered.num_tets / 2) << "only tets beside the box's six planes cross them";
}

} // namespace
