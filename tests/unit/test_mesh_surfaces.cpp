// Surface queries on a jittered box a x b x c: the outward area vectors of its boundary sum to
// nothing and their lengths to its area; one side's shape is its rectangle (area, mean normal,
// centre, a least-squares plane it lies in); layers at both ends are two connected pieces.
#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/mesh/surfaces.hpp"
#include "dgatd/mesh/topology.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace dgatd::mesh {
namespace {

constexpr double a = 1.0, b = 0.5, c = 0.75;
// Sums of a few hundred terms of size one: rounding stays far below 1e-12.
constexpr double kTolerance = 1e-12;

struct Box {
  Mesh mesh;
  Topology topology;
  Geometry geometry;
  MeshView view() const { return {mesh, topology, geometry}; }
};

Box jittered_box()
{
  StructuredBox const spec{{a, b, c}, {6, 4, 5}, 0.25};
  Box box;
  box.mesh = structured_box(spec);
  box.topology = build_topology(box.mesh);
  box.geometry = build_geometry(box.mesh, box.topology);
  return box;
}

TEST(Surfaces, OutwardAreaVectorsOfAClosedBoundarySumToNothing)
{
  auto const box = jittered_box();
  Vec3 sum{};
  double area = 0;
  for (Index f : box.topology.boundary_faces) {
    Vec3 const vector = face_area_vector(box.view(), f, box.topology.face_tets[f][0]);
    // Out of the mesh: away from its tet's barycentre.
    EXPECT_LT(
        dot(vector, sub(box.geometry.tet_barycentre[box.topology.face_tets[f][0]], box.geometry.face_barycentre[f])),
        0);
    sum = add(sum, vector);
    area += norm(vector);
  }
  EXPECT_LT(norm(sum), kTolerance);
  EXPECT_NEAR(area, 2 * (a * b + b * c + c * a), kTolerance);
}

TEST(Surfaces, ShapeOfOneSideIsItsRectangle)
{
  auto const box = jittered_box();
  std::vector<SurfaceFace> side;
  for (Index f : box.topology.boundary_faces)
    if (std::abs(box.geometry.face_barycentre[f][0]) < 1e-12) side.push_back({f, box.topology.face_tets[f][0]});
  auto const shape = surface_shape(box.view(), side);
  EXPECT_NEAR(shape.area, b * c, kTolerance);
  EXPECT_NEAR(shape.area_vector[0], -b * c, kTolerance);
  EXPECT_NEAR(norm(shape.area_vector), b * c, kTolerance);
  EXPECT_NEAR(shape.centre[1], b / 2, kTolerance);
  EXPECT_NEAR(shape.centre[2], c / 2, kTolerance);
  ASSERT_EQ(shape.face_normal.size(), side.size());
  for (auto const& n : shape.face_normal) EXPECT_NEAR(n[0], -1, kTolerance);
  EXPECT_NEAR(shape.vertices.mean_square_distance(), 0, kTolerance);
  EXPECT_NEAR(std::abs(shape.vertices.normal()[0]), 1, 1e-9);
  EXPECT_NEAR(shape.vertices.centre()[0], 0, kTolerance);
  EXPECT_EQ(shape.high[0], 0);
  EXPECT_NEAR(shape.high[1], b, kTolerance);
}

TEST(Surfaces, LayersAtBothEndsAreTwoPieces)
{
  auto const box = jittered_box();
  std::vector<char> ends(box.mesh.tets.size(), 0);
  for (std::size_t t = 0; t < ends.size(); ++t) {
    double const z = box.geometry.tet_barycentre[t][2];
    ends[t] = z < 0.15 || z > c - 0.15;
  }
  auto const pieces = connected_pieces(box.topology, ends);
  EXPECT_EQ(pieces.count, 2);
  Index end_piece[2] = {-1, -1}; // of the low and the high end
  for (std::size_t t = 0; t < ends.size(); ++t) {
    if (!ends[t]) {
      EXPECT_EQ(pieces.piece[t], -1);
      continue;
    }
    Index& expected = end_piece[box.geometry.tet_barycentre[t][2] > c / 2];
    if (expected < 0) expected = pieces.piece[t];
    EXPECT_EQ(pieces.piece[t], expected) << "tet " << t;
  }
  EXPECT_NE(end_piece[0], end_piece[1]);
}

} // namespace
} // namespace dgatd::mesh
