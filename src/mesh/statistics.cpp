#include "dgatd/mesh/statistics.hpp"

#include "dgatd/mesh/reference_tet.hpp"

#include <algorithm>
#include <numeric>

namespace dgatd::mesh {

void Summary::add(double x)
{
  min = std::min(min, x);
  max = std::max(max, x);
  sum += x;
  ++count;
}

double Summary::mean() const { return count ? sum / static_cast<double>(count) : 0.0; }

namespace {

// r_in = 3 |t| / (area of the four faces).
double inradius(std::array<Vec3, 4> const& p, double volume)
{
  double area = 0;
  for (int j = 0; j < 4; ++j) {
    Vec3 const& f0 = p[tet_face_vertex(j, 0)];
    area += 0.5 * norm(cross(sub(p[tet_face_vertex(j, 1)], f0), sub(p[tet_face_vertex(j, 2)], f0)));
  }
  return 3.0 * volume / area;
}

} // namespace

TetQuality tet_quality(std::array<Vec3, 4> const& p, double volume)
{
  Vec3 const a = sub(p[1], p[0]), b = sub(p[2], p[0]), c = sub(p[3], p[0]);
  // Circumcentre relative to p0: (|a|^2 b x c + |b|^2 c x a + |c|^2 a x b) / (2 a . b x c).
  Vec3 const bc = cross(b, c), ca = cross(c, a), ab = cross(a, b);
  double const denominator = 2.0 * dot(a, bc);
  Vec3 centre;
  for (int k = 0; k < 3; ++k) centre[k] = (dot(a, a) * bc[k] + dot(b, b) * ca[k] + dot(c, c) * ab[k]) / denominator;
  double const circumradius = norm(centre);
  double longest = 0;
  for (int k = 0; k < 6; ++k)
    longest = std::max(longest, norm(sub(p[tet_edge_vertex(k, 1)], p[tet_edge_vertex(k, 0)])));
  double const r_in = inradius(p, volume);
  return {3.0 * r_in / circumradius, 6.0 * std::sqrt(2.0) * volume / (longest * longest * longest), r_in};
}

PaceSetters pace_setting_tets(Mesh const& mesh, std::vector<double> const& relative_slowness, std::size_t count)
{
  PaceSetters pace;
  auto const tets = static_cast<std::size_t>(mesh.num_tets());
  if (tets == 0) return pace;
  std::vector<double> bound(tets);
  for (std::size_t t = 0; t < tets; ++t) {
    std::array<Vec3, 4> p;
    for (int k = 0; k < 4; ++k) p[k] = mesh.points[mesh.tets[t][k]];
    double const volume = std::abs(dot(sub(p[1], p[0]), cross(sub(p[2], p[0]), sub(p[3], p[0])))) / 6.0;
    bound[t] = inradius(p, volume) * (relative_slowness.empty() ? 1.0 : relative_slowness[t]);
  }
  std::vector<Index> order(tets);
  std::iota(order.begin(), order.end(), Index(0));
  // The quantile's tet and, before it, the tets below it in order: enough to name count of them.
  std::size_t const quantile = std::min(tets - 1, std::max<std::size_t>(9, tets / 1000));
  std::size_t const sorted = std::max(quantile + 1, std::min(count, tets));
  auto const by_bound = [&bound](Index a, Index b) { return bound[a] < bound[b] || (bound[a] == bound[b] && a < b); };
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(sorted), order.end(), by_bound);
  pace.quantile_bound = bound[order[quantile]];
  for (std::size_t k = 0; k < quantile && bound[order[k]] < 0.5 * pace.quantile_bound; ++k) ++pace.outliers;
  for (std::size_t k = 0; k < std::min(count, tets); ++k) {
    pace.shortest.push_back(order[k]);
    pace.bound.push_back(bound[order[k]]);
  }
  return pace;
}

MeshStatistics mesh_statistics(Mesh const& mesh, Topology const& topology, Geometry const& geometry)
{
  MeshStatistics s;
  s.vertices = mesh.num_vertices();
  s.edges = topology.num_edges();
  s.faces = topology.num_faces();
  s.tets = mesh.num_tets();
  s.boundary_faces = topology.boundary_faces.size();
  s.tagged_faces = static_cast<std::size_t>(
      std::count_if(topology.face_tag.begin(), topology.face_tag.end(), [](int tag) { return tag != 0; }));
  s.euler_characteristic = static_cast<long long>(s.vertices) - s.edges + s.faces - s.tets;
  s.reoriented_tets = mesh.reoriented_tets;
  s.half_edge_dofs = 2LL * s.edges;
  s.dual_half_edge_dofs = 4LL * s.tets;

  for (Index v = 0; v < topology.num_vertices; ++v) {
    ++s.vertices_of_degree[topology.degree(v)];
    s.degree.add(topology.degree(v));
  }

  for (Index t = 0; t < s.tets; ++t) {
    std::array<Vec3, 4> p;
    for (int i = 0; i < 4; ++i) p[i] = mesh.points[mesh.tets[t][i]];
    auto const q = tet_quality(p, geometry.tet_volume[t]);
    s.radius_ratio.add(q.radius_ratio);
    s.volume_ratio.add(q.volume_ratio);
    s.tet_volume.add(geometry.tet_volume[t]);
  }
  for (auto const& e : topology.edge_vertices) s.edge_length.add(norm(sub(mesh.points[e[1]], mesh.points[e[0]])));

  std::map<int, long long> tets_in_region, triangles_with_tag, segments_with_tag;
  for (int r : mesh.tet_region) ++tets_in_region[r];
  for (int tag : mesh.boundary_triangle_tag) ++triangles_with_tag[tag];
  for (int tag : mesh.curve_segment_tag) ++segments_with_tag[tag];
  for (auto const& g : mesh.groups) {
    auto const& counts = g.dim == 3 ? tets_in_region : g.dim == 2 ? triangles_with_tag : segments_with_tag;
    auto const it = counts.find(g.tag);
    s.group_elements.push_back(it == counts.end() ? 0LL : it->second);
  }
  auto const unassigned = tets_in_region.find(0);
  s.tets_without_region = unassigned == tets_in_region.end() ? 0LL : unassigned->second;
  return s;
}

} // namespace dgatd::mesh
