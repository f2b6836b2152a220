// The DGA complex and geometric factors of generated and structured meshes satisfy the identities
// of METHOD.md: Euler characteristic of a ball, manifold faces, d d = 0 between faces, edges and
// vertices, volumes, reciprocal bases and outward face signs.
#include "dgatd/error.hpp"
#include "dgatd/mesh/generators.hpp"
#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/reference_tet.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/mesh/topology.hpp"
#include "dgatd/vec3.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dgatd::mesh {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kEps = std::numeric_limits<double>::epsilon();

Mesh generated_box()
{
  GeneratorSpec spec;
  spec.shape = "box";
  spec.size = {1.0, 0.5, 0.75};
  spec.element_size = 0.2;
  return generate_mesh(spec);
}

Mesh generated_box_with_inner_cylinder(bool reproducible = false)
{
  GeneratorSpec spec;
  spec.reproducible = reproducible;
  spec.shape = "box";
  spec.size = {1.0, 0.5, 0.75};
  spec.element_size = 0.2;
  spec.inner.shape = "cylinder";
  spec.inner.corner = {0.5, 0.25, 0.2};
  spec.inner.size = {0.15, 0.3, 0.0};
  return generate_mesh(spec);
}

Mesh generated_cylinder(double h)
{
  GeneratorSpec spec;
  spec.shape = "cylinder";
  spec.size = {0.5, 1.0, 0.0};
  spec.element_size = h;
  return generate_mesh(spec);
}

Mesh jittered_structured_box()
{
  StructuredBox box;
  box.size[0] = 1.0;
  box.size[1] = 2.0;
  box.size[2] = 0.5;
  box.cells[0] = 5;
  box.cells[1] = 4;
  box.cells[2] = 3;
  box.jitter = 0.25;
  box.seed = 7;
  return structured_box(box);
}

double total_volume(Geometry const& geometry)
{
  double sum = 0;
  for (double v : geometry.tet_volume) sum += v;
  return sum;
}

void expect_euler_characteristic_of_a_ball(Mesh const& mesh, Topology const& topo)
{
  long long const chi = static_cast<long long>(mesh.num_vertices()) - topo.num_edges() + topo.num_faces() -
                        static_cast<long long>(mesh.num_tets());
  EXPECT_EQ(chi, 1) << mesh.source;
}

void expect_manifold_faces(Topology const& topo)
{
  std::vector<int> tets_of_face(topo.num_faces(), 0);
  for (Index t = 0; t < topo.num_tets(); ++t)
    for (int j = 0; j < 4; ++j) ++tets_of_face[topo.tet_faces[t][j]];
  std::size_t boundary = 0;
  for (Index f = 0; f < topo.num_faces(); ++f) {
    bool const on_boundary = topo.face_tets[f][1] < 0;
    ASSERT_GE(topo.face_tets[f][0], 0);
    EXPECT_EQ(tets_of_face[f], on_boundary ? 1 : 2) << "face " << f;
    boundary += on_boundary;
  }
  EXPECT_EQ(boundary, topo.boundary_faces.size());
}

// For every face of every tet, sum_e inc(f, e) (delta_head(e) - delta_tail(e)) vanishes at every
// vertex: the boundary of a boundary is empty.
void expect_curl_of_gradient_zero(Topology const& topo)
{
  for (Index t = 0; t < topo.num_tets(); ++t)
    for (int j = 0; j < 4; ++j) {
      std::map<Index, int> vertex_sum;
      int nonzero = 0;
      for (int k = 0; k < 6; ++k) {
        int const inc = topo.tet_curl[t][j][k];
        if (inc == 0) continue;
        ++nonzero;
        auto const& e = topo.edge_vertices[topo.tet_edges[t][k]];
        vertex_sum[e[1]] += inc;
        vertex_sum[e[0]] -= inc;
      }
      ASSERT_EQ(nonzero, 3) << "tet " << t << " face " << j;
      for (auto const& [v, sum] : vertex_sum) ASSERT_EQ(sum, 0) << "tet " << t << " face " << j << " vertex " << v;
    }
}

// The face sign o_j is +1 exactly when n_f points away from the tet's barycentre.
void expect_face_signs_outward(Mesh const& mesh, Topology const& topo, Geometry const& geometry)
{
  for (Index t = 0; t < topo.num_tets(); ++t)
    for (int j = 0; j < 4; ++j) {
      Index const f = topo.tet_faces[t][j];
      auto const& v = topo.face_vertices[f];
      Vec3 const normal = cross(sub(mesh.points[v[1]], mesh.points[v[0]]), sub(mesh.points[v[2]], mesh.points[v[0]]));
      double const side = dot(normal, sub(geometry.face_barycentre[f], geometry.tet_barycentre[t]));
      ASSERT_NE(side, 0.0);
      ASSERT_EQ(topo.tet_face_sign[t][j], side > 0 ? 1 : -1) << "tet " << t << " face " << j;
    }
}

// w^i . a^j = delta_ij up to rounding: each product is a few dot and cross products, so its error
// is a small multiple of eps |w^i| |a^j| (the condition of the subregion frame).
void expect_reciprocal(std::array<Vec3, 3> const& w, std::array<Vec3, 3> const& a, char const* which, Index t, int lv)
{
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double const tolerance = std::max(1e-12, 64 * kEps * norm(w[i]) * norm(a[j]));
      ASSERT_NEAR(dot(w[i], a[j]), i == j ? 1.0 : 0.0, tolerance) << which << " tet " << t << " vertex " << lv;
    }
}

void expect_subregion_frames(Mesh const& mesh, Topology const& topo, Geometry const& geometry)
{
  for (Index t = 0; t < topo.num_tets(); ++t)
    for (int lv = 0; lv < 4; ++lv) {
      Subregion const s = subregion(mesh, topo, geometry, t, lv);
      expect_reciprocal(s.w, s.a, "primal", t, lv);
      expect_reciprocal(s.w_dual, s.a_dual, "dual", t, lv);
      ASSERT_NEAR(s.volume, 0.25 * geometry.tet_volume[t], 1e-15 * geometry.tet_volume[t]);
    }
}

void expect_complex_identities(Mesh const& mesh)
{
  Topology const topo = build_topology(mesh);
  Geometry const geometry = build_geometry(mesh, topo);
  expect_euler_characteristic_of_a_ball(mesh, topo);
  expect_manifold_faces(topo);
  expect_curl_of_gradient_zero(topo);
  expect_face_signs_outward(mesh, topo, geometry);
  expect_subregion_frames(mesh, topo, geometry);
  for (double v : geometry.tet_volume) ASSERT_GT(v, 0.0);
}

// The reference-tet numbering is what its header documents, the tables agree with one another, and
// the accessors are constant expressions.
static_assert(tet_edge_face(0, 0) == 2 && tet_edge_face(0, 1) == 3 && tet_face_edge(3, 2) == 3);

TEST(ReferenceTet, TablesAgree)
{
  auto on_edge = [](int v, int k) { return tet_edge_vertex(k, 0) == v || tet_edge_vertex(k, 1) == v; };
  for (int k = 0; k < 6; ++k) {
    EXPECT_LT(tet_edge_vertex(k, 0), tet_edge_vertex(k, 1)) << "edge " << k;
    // Edge 5 - k shares no vertex with edge k.
    for (int i = 0; i < 2; ++i) EXPECT_FALSE(on_edge(tet_edge_vertex(5 - k, i), k)) << "edge " << k;
    // The faces holding edge k are those opposite the two vertices off it.
    EXPECT_LT(tet_edge_face(k, 0), tet_edge_face(k, 1)) << "edge " << k;
    for (int i = 0; i < 2; ++i) EXPECT_FALSE(on_edge(tet_edge_face(k, i), k)) << "edge " << k;
  }
  for (int j = 0; j < 4; ++j) {
    int previous_vertex = -1, previous_edge = -1;
    for (int i = 0; i < 3; ++i) {
      // Face j: the vertices other than j, and the edges not touching j, increasing.
      EXPECT_NE(tet_face_vertex(j, i), j) << "face " << j;
      EXPECT_GT(tet_face_vertex(j, i), previous_vertex) << "face " << j;
      previous_vertex = tet_face_vertex(j, i);
      EXPECT_FALSE(on_edge(j, tet_face_edge(j, i))) << "face " << j;
      EXPECT_GT(tet_face_edge(j, i), previous_edge) << "face " << j;
      previous_edge = tet_face_edge(j, i);
    }
  }
  for (int v = 0; v < 4; ++v) {
    int previous_edge = -1, previous_face = -1;
    for (int i = 0; i < 3; ++i) {
      // Vertex v: the edges through it and the faces j != v, increasing.
      EXPECT_TRUE(on_edge(v, tet_vertex_edge(v, i))) << "vertex " << v;
      EXPECT_GT(tet_vertex_edge(v, i), previous_edge) << "vertex " << v;
      previous_edge = tet_vertex_edge(v, i);
      EXPECT_NE(tet_vertex_face(v, i), v) << "vertex " << v;
      EXPECT_GT(tet_vertex_face(v, i), previous_face) << "vertex " << v;
      previous_face = tet_vertex_face(v, i);
    }
  }
}

TEST(MeshTopology, GeneratedBox)
{
  Mesh const mesh = generated_box();
  expect_complex_identities(mesh);
  Topology const topo = build_topology(mesh);
  Geometry const geometry = build_geometry(mesh, topo);
  // A polyhedral box is meshed exactly; only rounding of the summed volumes remains.
  EXPECT_NEAR(total_volume(geometry), 1.0 * 0.5 * 0.75, 1e-12 * 0.375);
  // Every boundary face lies in the physical surface "boundary", no interior face does.
  int const boundary_tag = mesh.group_tag(2, "boundary");
  for (Index f = 0; f < topo.num_faces(); ++f)
    EXPECT_EQ(topo.face_tag[f], topo.face_tets[f][1] < 0 ? boundary_tag : 0) << "face " << f;
}

TEST(MeshTopology, GeneratedBoxWithInnerRegionIsConforming)
{
  Mesh const mesh = generated_box_with_inner_cylinder();
  expect_complex_identities(mesh);
  Topology const topo = build_topology(mesh);
  Geometry const geometry = build_geometry(mesh, topo);
  EXPECT_NEAR(total_volume(geometry), 0.375, 1e-12 * 0.375);
  int const inner = mesh.group_tag(3, "inner");
  double inner_volume = 0;
  for (Index t = 0; t < mesh.num_tets(); ++t)
    if (mesh.tet_region[t] == inner) inner_volume += geometry.tet_volume[t];
  double const exact = kPi * 0.15 * 0.15 * 0.3;
  EXPECT_LT(inner_volume, exact);
  EXPECT_GT(inner_volume, 0.9 * exact);
}

// All boundary nodes lie on the cylinder, which is convex, so the mesh is inscribed and its volume
// falls short of pi r^2 h by the chordal error, O((h/r)^2): (h/r)^2/6 for a polygon of chords h
// inscribed in a circle of radius r (measured: 0.013 at h = r/2, 0.0072 at h = r/4); the bound
// leaves room for Gmsh's chords being somewhat longer than h.
TEST(MeshTopology, GeneratedCylinderVolumeConverges)
{
  double const r = 0.5, height = 1.0, exact = kPi * r * r * height;
  double previous_error = 1.0;
  for (double h : {0.25, 0.125}) {
    Mesh const mesh = generated_cylinder(h);
    expect_complex_identities(mesh);
    Topology const topo = build_topology(mesh);
    double const volume = total_volume(build_geometry(mesh, topo));
    double const error = (exact - volume) / exact;
    EXPECT_GT(error, 0.0) << "h = " << h;
    EXPECT_LT(error, 0.25 * (h / r) * (h / r)) << "h = " << h;
    EXPECT_LT(error, previous_error) << "h = " << h;
    previous_error = error;
  }
}

TEST(MeshTopology, JitteredStructuredBox)
{
  Mesh const mesh = jittered_structured_box();
  expect_complex_identities(mesh);
  Topology const topo = build_topology(mesh);
  EXPECT_NEAR(total_volume(build_geometry(mesh, topo)), 1.0, 1e-12);
  // Kuhn subdivision of an n1 x n2 x n3 grid: 6 n1 n2 n3 tets, 2 (n_i n_j) triangles per side.
  EXPECT_EQ(mesh.num_tets(), 6 * 5 * 4 * 3);
  EXPECT_EQ(topo.boundary_faces.size(), static_cast<std::size_t>(4 * (5 * 4 + 4 * 3 + 5 * 3)));
}

// The documented guarantee of reproducible = true (the default parallel mesher's meshes vary from
// run to run; every other generated-mesh test checks that they are valid).
TEST(MeshTopology, ReproducibleGenerationGivesTheSameMesh)
{
  Mesh const first = generated_box_with_inner_cylinder(true);
  Mesh const second = generated_box_with_inner_cylinder(true);
  EXPECT_EQ(first.points, second.points);
  EXPECT_EQ(first.tets, second.tets);
  EXPECT_EQ(first.tet_region, second.tet_region);
  EXPECT_EQ(first.boundary_triangles, second.boundary_triangles);
}

// Three tets on one triangle: not a manifold. The topology refuses it naming the face and the first
// tet, in tet order, to claim it a third time, whatever the thread count.
TEST(MeshTopology, AFaceOfThreeTetsIsRefused)
{
  Mesh mesh;
  mesh.source = "three_tets_on_a_face";
  mesh.points = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, -1}, {1, 1, 1}, {2, 2, 2}};
  mesh.tets = {{0, 1, 2, 3}, {0, 1, 5, 6}, {0, 1, 2, 4}, {0, 2, 1, 5}};
  mesh.tet_region.assign(mesh.tets.size(), 1);
  try {
    build_topology(mesh);
    FAIL() << "a face of three tets was accepted";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("face (0, 1, 2) is shared by more than two tetrahedra (tet 3)"),
              std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace dgatd::mesh
