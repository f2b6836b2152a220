// Point location through the tet bins answers exactly what the scan over every tet (or edge) in
// increasing id answers, ties included: points inside, on faces, edges and vertices (where several
// tets tie), at edge midpoints and between equally near ones, and outside the mesh.
#include "dgatd/mesh/generators.hpp"
#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/point_location.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/mesh/topology.hpp"
#include "dgatd/random.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace dgatd::mesh {
namespace {

struct Located {
  Mesh mesh;
  Topology topology;
  Geometry geometry;
  MeshView view() const { return {mesh, topology, geometry}; }
};

Located prepare(Mesh mesh)
{
  Located m;
  m.mesh = std::move(mesh);
  m.topology = build_topology(m.mesh);
  m.geometry = build_geometry(m.mesh, m.topology);
  return m;
}

Index scan_tets(MeshView const& m, Vec3 const& x)
{
  ContainingTet search(m, x);
  for (Index t = 0; t < m.mesh.num_tets(); ++t) search.consider(t);
  return search.result();
}

Index scan_edges(MeshView const& m, Vec3 const& x)
{
  Index best = -1;
  double best_distance = std::numeric_limits<double>::infinity();
  for (Index e = 0; e < m.topology.num_edges(); ++e)
    if (double const d = squared_distance(x, m.geometry.edge_midpoint[e]); d < best_distance) {
      best_distance = d;
      best = e;
    }
  return best;
}

// Random points of the mesh's box widened by a quarter on each side, the vertices, face
// barycentres, edge midpoints, random points on faces, and points far outside.
std::vector<Vec3> query_points(Mesh const& mesh, Topology const& topology, Geometry const& geometry)
{
  Vec3 low = mesh.points[0], high = mesh.points[0];
  for (auto const& p : mesh.points)
    for (int c = 0; c < 3; ++c) {
      low[c] = std::min(low[c], p[c]);
      high[c] = std::max(high[c], p[c]);
    }
  std::uint64_t state = 11;
  std::vector<Vec3> points;
  for (int i = 0; i < 400; ++i) {
    Vec3 x;
    for (int c = 0; c < 3; ++c)
      x[c] = 0.5 * (low[c] + high[c]) + 0.75 * (high[c] - low[c]) * uniform_minus_one_to_one(state);
    points.push_back(x);
  }
  points.insert(points.end(), mesh.points.begin(), mesh.points.end());
  for (std::size_t f = 0; f < geometry.face_barycentre.size(); f += 3) points.push_back(geometry.face_barycentre[f]);
  for (std::size_t e = 0; e < geometry.edge_midpoint.size(); e += 3) points.push_back(geometry.edge_midpoint[e]);
  for (Index f = 0; f < topology.num_faces(); f += 5) {
    double const a = 0.5 + 0.5 * uniform_minus_one_to_one(state),
                 b = (1 - a) * (0.5 + 0.5 * uniform_minus_one_to_one(state));
    auto const& v = topology.face_vertices[f];
    points.push_back(
        add(add(scaled(mesh.points[v[0]], a), scaled(mesh.points[v[1]], b)), scaled(mesh.points[v[2]], 1 - a - b)));
  }
  points.push_back({low[0] - 10 * (high[0] - low[0]), low[1], low[2]});
  points.push_back({high[0], high[1] + 3 * (high[1] - low[1]), 0.5 * (low[2] + high[2])});
  points.push_back({std::numeric_limits<double>::quiet_NaN(), 0, 0});
  return points;
}

void expect_same_as_scans(Located const& m)
{
  auto const view = m.view();
  int inside = 0;
  for (auto const& x : query_points(m.mesh, m.topology, m.geometry)) {
    Index const tet = locate_tet(view, x);
    ASSERT_EQ(tet, scan_tets(view, x)) << "at (" << x[0] << ", " << x[1] << ", " << x[2] << ")";
    ASSERT_EQ(nearest_edge(view, x), scan_edges(view, x)) << "at (" << x[0] << ", " << x[1] << ", " << x[2] << ")";
    inside += tet >= 0;
  }
  EXPECT_GT(inside, 100); // the check is not only about points outside
}

TEST(PointLocation, AgreesWithTheScansOnAKuhnBoxWhereManyTetsAndEdgesTie)
{
  StructuredBox const box{{1.0, 0.5, 0.75}, {8, 4, 6}};
  expect_same_as_scans(prepare(structured_box(box)));
}

TEST(PointLocation, AgreesWithTheScansOnAJitteredBox)
{
  StructuredBox const box{{1.0, 1.0, 1.0}, {7, 5, 6}, 0.3, 5};
  expect_same_as_scans(prepare(structured_box(box)));
}

TEST(PointLocation, AgreesWithTheScansOnAGmshMeshWithAnInnerCylinder)
{
  GeneratorSpec spec;
  spec.shape = "box";
  spec.size = {1.0, 0.5, 0.75};
  spec.element_size = 0.12;
  spec.reproducible = true;
  spec.inner.shape = "cylinder";
  spec.inner.corner = {0.5, 0.25, 0.2};
  spec.inner.size = {0.15, 0.3, 0.0};
  expect_same_as_scans(prepare(generate_mesh(spec)));
}

TEST(PointLocation, EveryTetIsInTheBinOfItsBarycentre)
{
  StructuredBox const box{{1.0, 1.0, 1.0}, {4, 4, 4}, 0.2};
  auto const m = prepare(structured_box(box));
  auto const& bins = m.geometry.tet_bins;
  for (Index t = 0; t < m.mesh.num_tets(); ++t) {
    auto const& c = m.geometry.tet_barycentre[t];
    Index const b = bins.bin({bins.coordinate(c[0], 0), bins.coordinate(c[1], 1), bins.coordinate(c[2], 2)});
    bool found = false;
    for (Index i = bins.b2t_offsets[b]; i < bins.b2t_offsets[b + 1]; ++i) found = found || bins.b2t[i] == t;
    ASSERT_TRUE(found) << "tet " << t;
    EXPECT_EQ(locate_tet(m.view(), c), t);
  }
}

} // namespace
} // namespace dgatd::mesh
