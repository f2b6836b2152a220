// What dgatd info reports about a mesh (mesh/statistics.hpp): tet quality of the regular and the Kuhn
// tetrahedron against their closed forms, and the counts, degree histogram, sizes and group
// elements of structured Kuhn boxes, whose lattice gives every number exactly.
#include "dgatd/mesh/statistics.hpp"

#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/mesh/topology.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <vector>

namespace dgatd::mesh {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
// The quality measures are a few dozen roundings of O(1) quotients of the coordinates (cross
// products, square roots, one division each): 64 eps bounds their error with room to spare.
constexpr double kQualityTolerance = 64 * kEps;

double signed_volume(std::array<Vec3, 4> const& p)
{
  return dot(sub(p[1], p[0]), cross(sub(p[2], p[0]), sub(p[3], p[0]))) / 6.0;
}

TEST(TetQuality, RegularTetIsOne)
{
  std::array<Vec3, 4> const p{{{1, 1, 1}, {-1, 1, -1}, {1, -1, -1}, {-1, -1, 1}}};
  ASSERT_NEAR(signed_volume(p), 8.0 / 3.0, 8 * kEps);
  auto const q = tet_quality(p, signed_volume(p));
  EXPECT_NEAR(q.radius_ratio, 1.0, kQualityTolerance);
  EXPECT_NEAR(q.volume_ratio, 1.0, kQualityTolerance);
}

// The Kuhn tet (0,0,0), (1,0,0), (1,1,0), (1,1,1) of a unit cube: volume 1/6; its vertices are cube
// corners, so R = sqrt(3)/2; its faces are right triangles of areas 1/2, 1/2, sqrt(2)/2, sqrt(2)/2,
// so r = 3 |t| / area = (sqrt(2) - 1)/2; its longest edge is the diagonal sqrt(3). Hence
// 3r/R = sqrt(3) (sqrt(2) - 1) = 0.71744... and 6 sqrt(2) |t| / l_max^3 = sqrt(2/27) = 0.27216...
double const kuhn_radius_ratio = std::sqrt(3.0) * (std::sqrt(2.0) - 1.0);
double const kuhn_volume_ratio = std::sqrt(2.0 / 27.0);

TEST(TetQuality, KuhnTetMatchesItsClosedForm)
{
  // Both measures are invariant under scaling and translation.
  for (double const h : {1.0, 0.25, 3e-3}) {
    Vec3 const o{0.5, -2.0, 7.0};
    std::array<Vec3, 4> const p{
        {{o[0], o[1], o[2]}, {o[0] + h, o[1], o[2]}, {o[0] + h, o[1] + h, o[2]}, {o[0] + h, o[1] + h, o[2] + h}}};
    auto const q = tet_quality(p, h * h * h / 6.0);
    EXPECT_NEAR(q.radius_ratio, kuhn_radius_ratio, kQualityTolerance) << "h = " << h;
    EXPECT_NEAR(q.volume_ratio, kuhn_volume_ratio, kQualityTolerance) << "h = " << h;
  }
}

TEST(TetQuality, FlatteningTetTendsToZero)
{
  double previous = 1.0;
  for (double const height : {1.0, 1e-1, 1e-2, 1e-3}) {
    std::array<Vec3, 4> const p{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.3, 0.3, height}}};
    auto const q = tet_quality(p, signed_volume(p));
    EXPECT_GT(q.radius_ratio, 0.0);
    EXPECT_LT(q.radius_ratio, previous);
    previous = q.radius_ratio;
  }
  EXPECT_LT(previous, 1e-2);
}

TEST(Summary, EmptyAndFilled)
{
  Summary s;
  EXPECT_EQ(s.mean(), 0.0);
  EXPECT_EQ(s.min, HUGE_VAL);
  for (double x : {2.0, -1.0, 5.0}) s.add(x);
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.min, -1.0);
  EXPECT_EQ(s.max, 5.0);
  EXPECT_EQ(s.sum, 6.0);
  EXPECT_EQ(s.mean(), 2.0);
}

// Degrees of the Kuhn subdivision of an n x n x n grid: its edges join lattice points differing by
// a nonzero vector of {0,1}^3 or of {0,-1}^3, so a vertex has (number of such neighbours inside).
std::map<Index, Index> kuhn_degree_histogram(int n)
{
  std::map<Index, Index> histogram;
  for (int k = 0; k <= n; ++k)
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i <= n; ++i) {
        int const up = (1 + (i < n)) * (1 + (j < n)) * (1 + (k < n)) - 1;
        int const down = (1 + (i > 0)) * (1 + (j > 0)) * (1 + (k > 0)) - 1;
        ++histogram[up + down];
      }
  return histogram;
}

TEST(MeshStatistics, KuhnBoxOfCubesIsExact)
{
  int const n = 4;
  double const side = 1.0, h = side / n;
  StructuredBox box;
  box.cells[0] = box.cells[1] = box.cells[2] = n;
  Mesh const mesh = structured_box(box);
  Topology const topology = build_topology(mesh);
  MeshStatistics const s = mesh_statistics(mesh, topology, build_geometry(mesh, topology));

  // (n+1)^3 vertices; edges: 3 n (n+1)^2 along the axes, 3 n^2 (n+1) face diagonals, n^3 cube
  // diagonals; 6 n^3 tets; faces from 4T = 2 F_interior + F_boundary with 2 triangles per square.
  EXPECT_EQ(s.vertices, (n + 1) * (n + 1) * (n + 1));
  EXPECT_EQ(s.edges, 3 * n * (n + 1) * (n + 1) + 3 * n * n * (n + 1) + n * n * n);
  EXPECT_EQ(s.tets, 6 * n * n * n);
  EXPECT_EQ(s.boundary_faces, static_cast<std::size_t>(12 * n * n));
  EXPECT_EQ(s.faces, (4 * s.tets + 12 * n * n) / 2);
  EXPECT_EQ(s.tagged_faces, 0u); // a structured box has no physical surfaces
  EXPECT_EQ(s.euler_characteristic, 1);
  EXPECT_EQ(s.reoriented_tets, 0);
  EXPECT_EQ(s.half_edge_dofs, 2LL * s.edges);
  EXPECT_EQ(s.dual_half_edge_dofs, 4LL * s.tets);

  auto const degrees = kuhn_degree_histogram(n);
  EXPECT_EQ(s.vertices_of_degree, degrees);
  EXPECT_EQ(s.degree.count, static_cast<std::size_t>(s.vertices));
  EXPECT_EQ(s.degree.sum, 2.0 * s.edges);
  EXPECT_EQ(s.degree.min, degrees.begin()->first);
  EXPECT_EQ(s.degree.max, 14.0); // an interior vertex: 7 neighbours up, 7 down

  // Cubic cells: all 6 n^3 tets are congruent Kuhn tets.
  EXPECT_EQ(s.radius_ratio.count, static_cast<std::size_t>(s.tets));
  EXPECT_NEAR(s.radius_ratio.min, kuhn_radius_ratio, kQualityTolerance);
  EXPECT_NEAR(s.radius_ratio.max, kuhn_radius_ratio, kQualityTolerance);
  EXPECT_NEAR(s.volume_ratio.min, kuhn_volume_ratio, kQualityTolerance);
  EXPECT_NEAR(s.volume_ratio.max, kuhn_volume_ratio, kQualityTolerance);
  // Coordinates are multiples of h = 1/4, exact in binary: lengths and volumes round once or twice.
  EXPECT_NEAR(s.edge_length.min, h, 4 * kEps * h);
  EXPECT_NEAR(s.edge_length.max, std::sqrt(3.0) * h, 4 * kEps * h);
  EXPECT_EQ(s.edge_length.count, static_cast<std::size_t>(s.edges));
  EXPECT_NEAR(s.tet_volume.min, h * h * h / 6, 8 * kEps * h * h * h);
  EXPECT_NEAR(s.tet_volume.max, h * h * h / 6, 8 * kEps * h * h * h);
  EXPECT_NEAR(s.tet_volume.sum, side * side * side, 1e-12);

  ASSERT_EQ(s.group_elements.size(), 1u); // the volume group "box", tag 1
  EXPECT_EQ(s.group_elements[0], s.tets);
  EXPECT_EQ(s.tets_without_region, 0);
}

TEST(MeshStatistics, JitteredBoxKeepsTheInvariants)
{
  StructuredBox box;
  box.size[0] = 1.0;
  box.size[1] = 0.6;
  box.size[2] = 0.3;
  box.cells[0] = 5;
  box.cells[1] = 3;
  box.cells[2] = 2;
  box.jitter = 0.2;
  Mesh const mesh = structured_box(box);
  Topology const topology = build_topology(mesh);
  MeshStatistics const s = mesh_statistics(mesh, topology, build_geometry(mesh, topology));
  EXPECT_EQ(s.euler_characteristic, 1);
  EXPECT_EQ(s.tets, 6 * 5 * 3 * 2);
  for (Summary const* quality : {&s.radius_ratio, &s.volume_ratio}) {
    EXPECT_GT(quality->min, 0.0);
    EXPECT_LE(quality->min, quality->mean());
    EXPECT_LE(quality->mean(), quality->max);
    EXPECT_LE(quality->max, 1.0 + kQualityTolerance);
  }
  EXPECT_GT(s.edge_length.min, 0.0);
  EXPECT_GT(s.tet_volume.min, 0.0);
  EXPECT_NEAR(s.tet_volume.sum, 1.0 * 0.6 * 0.3, 1e-12);
  Index vertices = 0;
  for (auto const& [degree, count] : s.vertices_of_degree) vertices += count;
  EXPECT_EQ(vertices, s.vertices);
}

TEST(MeshStatistics, GroupElementsAndUnassignedTets)
{
  StructuredBox box;
  box.cells[0] = box.cells[1] = box.cells[2] = 2;
  Mesh mesh = structured_box(box);
  // Three boundary faces into a physical surface "side" (tag 7); a surface and a volume group with
  // no elements; five tets out of every physical volume.
  Topology const plain = build_topology(mesh);
  for (std::size_t i = 0; i < 3; ++i) {
    mesh.boundary_triangles.push_back(plain.face_vertices[plain.boundary_faces[i]]);
    mesh.boundary_triangle_tag.push_back(7);
  }
  mesh.groups.push_back({2, 7, "side"});
  mesh.groups.push_back({2, 8, "empty_surface"});
  mesh.groups.push_back({3, 2, "empty_volume"});
  for (Index t = 0; t < 5; ++t) mesh.tet_region[t] = 0;

  Topology const topology = build_topology(mesh);
  MeshStatistics const s = mesh_statistics(mesh, topology, build_geometry(mesh, topology));
  EXPECT_EQ(s.tagged_faces, 3u);
  EXPECT_EQ(s.group_elements, (std::vector<long long>{s.tets - 5, 3, 0, 0}));
  EXPECT_EQ(s.tets_without_region, 5);
}

// The pace setters of a Kuhn box: every tet has the Kuhn tet's inradius h (sqrt(2) - 1)/2, so none is
// an outlier. A sliver added to it (one tet of height delta over a right triangle, its inradius
// 3 |t| / area about delta / 2) is the one outlier, named first, unless light is slow enough in it.
TEST(PaceSettingTets, OneSliverIsTheOutlier)
{
  int const n = 6;
  double const h = 1.0 / n;
  StructuredBox box;
  box.cells[0] = box.cells[1] = box.cells[2] = n;
  Mesh mesh = structured_box(box);
  double const kuhn_inradius = h * (std::sqrt(2.0) - 1.0) / 2.0;

  auto const uniform = pace_setting_tets(mesh, {}, 3);
  ASSERT_EQ(uniform.shortest.size(), 3u);
  EXPECT_EQ(uniform.outliers, 0);
  for (double const bound : uniform.bound) EXPECT_NEAR(bound, kuhn_inradius, 16 * kEps);
  EXPECT_NEAR(uniform.quantile_bound, kuhn_inradius, 16 * kEps);

  double const delta = 0.01 * h;
  Index const first = mesh.num_vertices();
  for (Vec3 const p : {Vec3{2, 2, 2}, Vec3{2 + h, 2, 2}, Vec3{2, 2 + h, 2}, Vec3{2 + 0.3 * h, 2 + 0.3 * h, 2 + delta}})
    mesh.points.push_back(p);
  mesh.tets.push_back({first, first + 1, first + 2, first + 3});
  mesh.tet_region.push_back(0);
  Index const sliver = mesh.num_tets() - 1;
  std::array<Vec3, 4> p;
  for (int k = 0; k < 4; ++k) p[k] = mesh.points[first + k];
  double const sliver_inradius = tet_quality(p, std::abs(signed_volume(p))).inradius;
  ASSERT_LT(sliver_inradius, 0.1 * kuhn_inradius);

  auto const with_sliver = pace_setting_tets(mesh, {}, 2);
  EXPECT_EQ(with_sliver.outliers, 1);
  ASSERT_EQ(with_sliver.shortest.size(), 2u);
  EXPECT_EQ(with_sliver.shortest[0], sliver);
  EXPECT_NEAR(with_sliver.bound[0], sliver_inradius, 64 * kEps * kuhn_inradius);
  EXPECT_NEAR(with_sliver.bound[1], kuhn_inradius, 16 * kEps);

  // eps_r = 10^4 in the sliver: light is 100 times slower there, and its bound 100 times larger.
  std::vector<double> slowness(static_cast<std::size_t>(mesh.num_tets()), 1.0);
  slowness[static_cast<std::size_t>(sliver)] = 100;
  auto const slow_sliver = pace_setting_tets(mesh, slowness, 1);
  EXPECT_EQ(slow_sliver.outliers, 0);
  EXPECT_NE(slow_sliver.shortest[0], sliver);
}

} // namespace
} // namespace dgatd::mesh
