// dgatd info: what a mesh holds before any physics is run on it — entity and dof counts, vertex
// degrees (the dual block sizes), element quality and sizes, physical groups.
#include "commands.hpp"

#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/mesh/reference_tet.hpp"
#include "dgatd/mesh/topology.hpp"
#include "dgatd/vec3.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dgatd::app {
namespace {

struct InfoOptions {
  std::string file;
  double scale = 1.0;
};

struct Summary {
  double min = HUGE_VAL, max = -HUGE_VAL, sum = 0;
  std::size_t count = 0;
  void add(double x)
  {
    min = std::min(min, x);
    max = std::max(max, x);
    sum += x;
    ++count;
  }
  double mean() const { return count ? sum / static_cast<double>(count) : 0.0; }
};

struct TetQuality {
  double radius_ratio; // 3 r_in / R_circ, 1 for the regular tet, 0 for a flat one
  double volume_ratio; // 6 sqrt(2) |t| / l_max^3, 1 for the regular tet
};

TetQuality tet_quality(std::array<Vec3, 4> const& p, double volume)
{
  Vec3 const a = sub(p[1], p[0]), b = sub(p[2], p[0]), c = sub(p[3], p[0]);
  // Circumcentre relative to p0: (|a|^2 b x c + |b|^2 c x a + |c|^2 a x b) / (2 a . b x c).
  Vec3 const bc = cross(b, c), ca = cross(c, a), ab = cross(a, b);
  double const denominator = 2.0 * dot(a, bc);
  Vec3 centre;
  for (int k = 0; k < 3; ++k) centre[k] = (dot(a, a) * bc[k] + dot(b, b) * ca[k] + dot(c, c) * ab[k]) / denominator;
  double const circumradius = norm(centre);
  double area = 0, longest = 0;
  for (int j = 0; j < 4; ++j) {
    Vec3 const& f0 = p[mesh::tet_face_vertex(j, 0)];
    area += 0.5 * norm(cross(sub(p[mesh::tet_face_vertex(j, 1)], f0), sub(p[mesh::tet_face_vertex(j, 2)], f0)));
  }
  for (int k = 0; k < 6; ++k)
    longest = std::max(longest, norm(sub(p[mesh::tet_edge_vertex(k, 1)], p[mesh::tet_edge_vertex(k, 0)])));
  double const inradius = 3.0 * volume / area;
  return {3.0 * inradius / circumradius, 6.0 * std::sqrt(2.0) * volume / (longest * longest * longest)};
}

int run_info(InfoOptions const& options)
{
  mesh::Mesh const m = mesh::read_mesh(options.file, options.scale);
  mesh::Topology const topo = mesh::build_topology(m);
  mesh::Geometry const geo = mesh::build_geometry(m, topo);

  long long const V = m.num_vertices(), E = topo.num_edges(), F = topo.num_faces(), T = m.num_tets();
  std::size_t const tagged_faces =
      static_cast<std::size_t>(std::count_if(topo.face_tag.begin(), topo.face_tag.end(), [](int t) { return t != 0; }));
  std::printf("mesh               %s (scale %g m per unit)\n", m.source.c_str(), options.scale);
  std::printf("vertices V         %lld\n", V);
  std::printf("edges E            %lld\n", E);
  std::printf("faces F            %lld\n", F);
  std::printf("tets T             %lld\n", T);
  std::printf("boundary faces     %zu (%zu in physical surfaces)\n", topo.boundary_faces.size(), tagged_faces);
  std::printf("V - E + F - T      %lld\n", V - E + F - T);
  std::printf("reoriented tets    %d\n", m.reoriented_tets);
  std::printf("half-edge dofs     %lld (2E)\n", 2 * E);
  std::printf("dual half-edge dofs %lld (4T)\n", 4 * T);

  std::map<int, long long> degree_count;
  Summary degree;
  for (Index v = 0; v < topo.num_vertices; ++v) {
    ++degree_count[topo.degree(v)];
    degree.add(topo.degree(v));
  }
  std::printf("vertex degree d_v  min %g, mean %.2f, max %g (d_v x d_v dual blocks)\n", degree.min, degree.mean(),
              degree.max);
  for (auto const& [d, count] : degree_count) std::printf("  d_v = %-3d %lld\n", d, count);

  Summary radius_ratio, volume_ratio, volume, edge_length;
  for (Index t = 0; t < T; ++t) {
    std::array<Vec3, 4> p;
    for (int i = 0; i < 4; ++i) p[i] = m.points[m.tets[t][i]];
    auto const q = tet_quality(p, geo.tet_volume[t]);
    radius_ratio.add(q.radius_ratio);
    volume_ratio.add(q.volume_ratio);
    volume.add(geo.tet_volume[t]);
  }
  for (auto const& e : topo.edge_vertices) edge_length.add(norm(sub(m.points[e[1]], m.points[e[0]])));
  std::printf("quality (1 = regular tet)\n");
  std::printf("  radius ratio 3r/R        min %.4f, mean %.4f\n", radius_ratio.min, radius_ratio.mean());
  std::printf("  6 sqrt2 |t| / l_max^3    min %.4f, mean %.4f\n", volume_ratio.min, volume_ratio.mean());
  std::printf("edge length (m)    min %.4g, mean %.4g, max %.4g\n", edge_length.min, edge_length.mean(),
              edge_length.max);
  std::printf("tet volume (m^3)   min %.4g, mean %.4g, max %.4g, total %.6g\n", volume.min, volume.mean(), volume.max,
              volume.sum);

  std::map<int, long long> tets_in_region, triangles_with_tag;
  for (int r : m.tet_region) ++tets_in_region[r];
  for (int s : m.boundary_triangle_tag) ++triangles_with_tag[s];
  std::printf("physical groups\n  %-4s %-6s %-20s %s\n", "dim", "tag", "name", "elements");
  for (auto const& g : m.groups) {
    auto const& counts = g.dim == 3 ? tets_in_region : triangles_with_tag;
    auto const it = counts.find(g.tag);
    std::printf("  %-4d %-6d %-20s %lld %s\n", g.dim, g.tag, g.name.empty() ? "(unnamed)" : g.name.c_str(),
                it == counts.end() ? 0LL : it->second, g.dim == 3 ? "tets" : "triangles");
  }
  if (tets_in_region.count(0)) std::printf("  %lld tets belong to no physical volume (region 0)\n", tets_in_region[0]);
  return 0;
}

} // namespace

void add_info_command(CLI::App& app, Action* action)
{
  auto options = std::make_shared<InfoOptions>();
  auto* command = app.add_subcommand("info", "Print the counts, dofs, vertex degrees, element quality, sizes and "
                                             "physical groups of a Gmsh .msh mesh");
  command->add_option("file", options->file, "Gmsh mesh (.msh 2.2 or 4.1, ASCII or binary)")->required();
  command->add_option("--scale", options->scale, "Metres per mesh unit (e.g. 1e-3 for a mesh in mm)")
      ->capture_default_str();
  command->callback([options, action] { *action = [options] { return run_info(*options); }; });
}

} // namespace dgatd::app
