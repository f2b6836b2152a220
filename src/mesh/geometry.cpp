#include "dgatd/mesh/geometry.hpp"

#include "dgatd/host_parallel.hpp"
#include "dgatd/mesh/reference_tet.hpp"

#include <cstdint>

namespace dgatd::mesh {
namespace {

// w^i = (a^j x a^k) / (a^i . a^j x a^k) for cyclic (i, j, k), so that w^i . a^j = delta_ij.
std::array<Vec3, 3> reciprocal_basis(std::array<Vec3, 3> const& a)
{
  double const triple = dot(a[0], cross(a[1], a[2]));
  std::array<Vec3, 3> w;
  for (int i = 0; i < 3; ++i) w[i] = scaled(cross(a[(i + 1) % 3], a[(i + 2) % 3]), 1.0 / triple);
  return w;
}

} // namespace

Geometry build_geometry(Mesh const& mesh, Topology const& topology)
{
  Geometry g;
  auto const& p = mesh.points;
  g.tet_volume.resize(mesh.tets.size());
  g.tet_barycentre.resize(mesh.tets.size());
  host_parallel_for("dgatd::geometry::tets", mesh.num_tets(), [&](std::int64_t t) {
    auto const& v = mesh.tets[t];
    g.tet_volume[t] = dot(sub(p[v[1]], p[v[0]]), cross(sub(p[v[2]], p[v[0]]), sub(p[v[3]], p[v[0]]))) / 6.0;
    for (int c = 0; c < 3; ++c) g.tet_barycentre[t][c] = 0.25 * (p[v[0]][c] + p[v[1]][c] + p[v[2]][c] + p[v[3]][c]);
  });
  g.face_barycentre.resize(topology.face_vertices.size());
  host_parallel_for("dgatd::geometry::faces", topology.num_faces(), [&](std::int64_t f) {
    auto const& v = topology.face_vertices[f];
    for (int c = 0; c < 3; ++c) g.face_barycentre[f][c] = (p[v[0]][c] + p[v[1]][c] + p[v[2]][c]) / 3.0;
  });
  g.edge_midpoint.resize(topology.edge_vertices.size());
  host_parallel_for("dgatd::geometry::edges", topology.num_edges(), [&](std::int64_t e) {
    auto const& v = topology.edge_vertices[e];
    for (int c = 0; c < 3; ++c) g.edge_midpoint[e][c] = 0.5 * (p[v[0]][c] + p[v[1]][c]);
  });
  g.tet_bins = build_tet_bins(mesh, g.tet_barycentre);
  return g;
}

Subregion subregion(Mesh const& mesh, Topology const& topology, Geometry const& geometry, Index tet, int local_vertex)
{
  Subregion s;
  Index const v = mesh.tets[tet][local_vertex];
  Vec3 const& pv = mesh.points[v];
  for (int i = 0; i < 3; ++i) {
    Index const e = topology.tet_edges[tet][tet_vertex_edge(local_vertex, i)];
    double const sigma = topology.edge_vertices[e][0] == v ? 1.0 : -1.0;
    s.a[i] = scaled(sub(geometry.edge_midpoint[e], pv), sigma);
    int const j = tet_vertex_face(local_vertex, i);
    Index const f = topology.tet_faces[tet][j];
    s.a_dual[i] =
        scaled(sub(geometry.face_barycentre[f], geometry.tet_barycentre[tet]), topology.tet_face_sign[tet][j]);
  }
  s.w = reciprocal_basis(s.a);
  s.w_dual = reciprocal_basis(s.a_dual);
  s.volume = 0.25 * geometry.tet_volume[tet];
  return s;
}

std::array<double, 4> barycentric(Mesh const& mesh, Index tet, Vec3 const& x)
{
  auto const& v = mesh.tets[tet];
  auto const& p = mesh.points;
  Vec3 const e1 = sub(p[v[1]], p[v[0]]), e2 = sub(p[v[2]], p[v[0]]), e3 = sub(p[v[3]], p[v[0]]);
  Vec3 const r = sub(x, p[v[0]]);
  double const det = dot(e1, cross(e2, e3));
  double const l1 = dot(r, cross(e2, e3)) / det;
  double const l2 = dot(e1, cross(r, e3)) / det;
  double const l3 = dot(e1, cross(e2, r)) / det;
  return {1.0 - l1 - l2 - l3, l1, l2, l3};
}

} // namespace dgatd::mesh
