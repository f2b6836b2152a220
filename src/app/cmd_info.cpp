// dgatd info: what a mesh holds before any physics is run on it — entity and dof counts, vertex
// degrees (the dual block sizes), element quality, the tets that set dt and the levels of a local
// time stepping, sizes, physical groups.
#include "commands.hpp"

#include "dgatd/dga/local_steps.hpp"
#include "dgatd/dga/operators.hpp"
#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/mesh/statistics.hpp"
#include "dgatd/mesh/topology.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace dgatd::app {
namespace {

struct InfoOptions {
  std::string file;
  double scale = 1.0;
};

// How a local time stepping would group the tets (in vacuum: the mesh holds no materials), from
// each tet's own step (docs/method/local_time_stepping.md): the levels dt0, 2 dt0, 4 dt0, ... and the
// tets' updates saved against one global dt0.
void print_step_levels(mesh::Mesh const& m, mesh::Topology const& topology, mesh::Geometry const& geometry)
{
  constexpr int max_levels = 8;
  std::vector<double> const eps(m.tets.size(), dga::eps0), mu(m.tets.size(), dga::mu0);
  auto const tet_dt = dga::tet_steps({m, topology, geometry}, eps, mu);
  auto const levels = dga::step_levels(topology, tet_dt, 1.0, max_levels);
  std::printf("local time steps   (in vacuum, levels of dt0 = %.4g s, the smallest tet's own step)\n", levels.dt0);
  for (std::size_t k = 0; k < levels.tets.size(); ++k)
    std::printf("  %4g dt0  %lld tets (%.1f %%)\n", std::ldexp(1.0, static_cast<int>(k)),
                static_cast<long long>(levels.tets[k]), 100.0 * levels.tets[k] / m.num_tets());
  std::printf("  the tets' updates a local time stepping would save: %.2fx (at most %d levels)\n", levels.work_ratio,
              max_levels);
  std::printf("  with whole blocks, as the scheme steps them: %.2fx (a tet at the finest level of its vertices)\n",
              levels.whole_block_work_ratio);
}

int run_info(InfoOptions const& options)
{
  mesh::Mesh const m = mesh::read_mesh(options.file, options.scale);
  mesh::Topology const topo = mesh::build_topology(m);
  mesh::Geometry const geo = mesh::build_geometry(m, topo);
  mesh::MeshStatistics const s = mesh::mesh_statistics(m, topo, geo);

  std::printf("mesh               %s (scale %g m per unit)\n", m.source.c_str(), options.scale);
  std::printf("vertices V         %lld\n", static_cast<long long>(s.vertices));
  std::printf("edges E            %lld\n", static_cast<long long>(s.edges));
  std::printf("faces F            %lld\n", static_cast<long long>(s.faces));
  std::printf("tets T             %lld\n", static_cast<long long>(s.tets));
  std::printf("boundary faces     %zu (%zu in physical surfaces)\n", s.boundary_faces, s.tagged_faces);
  std::printf("V - E + F - T      %lld\n", s.euler_characteristic);
  std::printf("reoriented tets    %d\n", s.reoriented_tets);
  std::printf("half-edge dofs     %lld (2E)\n", s.half_edge_dofs);
  std::printf("dual half-edge dofs %lld (4T)\n", s.dual_half_edge_dofs);

  std::printf("vertex degree d_v  min %g, mean %.2f, max %g (d_v x d_v dual blocks)\n", s.degree.min, s.degree.mean(),
              s.degree.max);
  for (auto const& [d, count] : s.vertices_of_degree)
    std::printf("  d_v = %-3d %lld\n", d, static_cast<long long>(count));

  std::printf("quality (1 = regular tet)\n");
  std::printf("  radius ratio 3r/R        min %.4f, mean %.4f\n", s.radius_ratio.min, s.radius_ratio.mean());
  std::printf("  6 sqrt2 |t| / l_max^3    min %.4f, mean %.4f\n", s.volume_ratio.min, s.volume_ratio.mean());
  // The tets that set dt's pace, by inradius (in vacuum: the mesh holds no materials), with where
  // they are: whether a sliver or the geometry's fine features hold the step down.
  auto const pace = mesh::pace_setting_tets(m, {}, 5);
  if (pace.outliers == 0)
    std::printf("shortest inradius  (dt scales with it; no outliers)\n");
  else
    std::printf("shortest inradius  (dt scales with it; %lld below half the 0.1 %% quantile's, %.3g times smaller: "
                "slivers?)\n",
                static_cast<long long>(pace.outliers), pace.quantile_bound / pace.bound.front());
  for (std::size_t k = 0; k < pace.shortest.size(); ++k) {
    Index const t = pace.shortest[k];
    auto const& centre = geo.tet_barycentre[t];
    std::array<Vec3, 4> p;
    for (int j = 0; j < 4; ++j) p[j] = m.points[m.tets[t][j]];
    std::printf("  tet %-10lld %.4g m at (%.6g, %.6g, %.6g), radius ratio %.4f\n", static_cast<long long>(t),
                pace.bound[k], centre[0], centre[1], centre[2], mesh::tet_quality(p, geo.tet_volume[t]).radius_ratio);
  }
  print_step_levels(m, topo, geo);
  std::printf("edge length (m)    min %.4g, mean %.4g, max %.4g\n", s.edge_length.min, s.edge_length.mean(),
              s.edge_length.max);
  std::printf("tet volume (m^3)   min %.4g, mean %.4g, max %.4g, total %.6g\n", s.tet_volume.min, s.tet_volume.mean(),
              s.tet_volume.max, s.tet_volume.sum);

  std::printf("physical groups\n  %-4s %-6s %-20s %s\n", "dim", "tag", "name", "elements");
  for (std::size_t i = 0; i < m.groups.size(); ++i) {
    auto const& g = m.groups[i];
    std::printf("  %-4d %-6d %-20s %lld %s\n", g.dim, g.tag, g.name.empty() ? "(unnamed)" : g.name.c_str(),
                s.group_elements[i],
                g.dim == 3   ? "tets"
                : g.dim == 2 ? "triangles"
                             : "segments");
  }
  if (s.tets_without_region > 0)
    std::printf("  %lld tets belong to no physical volume (region 0)\n", s.tets_without_region);
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
