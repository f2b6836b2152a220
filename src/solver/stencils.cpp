#include "dgatd/solver/stencils.hpp"

#include "dgatd/error.hpp"
#include "dgatd/host_parallel.hpp"
#include "dgatd/mesh/reference_tet.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace dgatd::solver {
namespace {

double squared_distance(Vec3 const& x, Vec3 const& y)
{
  return (x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) + (x[2] - y[2]) * (x[2] - y[2]);
}

std::string format_point(Vec3 const& x)
{
  std::ostringstream s;
  s << '(' << x[0] << ", " << x[1] << ", " << x[2] << ')';
  return s.str();
}

Index block_of_dof(dga::DofLayout const& layout, Index dof)
{
  auto it = std::upper_bound(layout.block_offset.begin(), layout.block_offset.end(), dof);
  return static_cast<Index>(it - layout.block_offset.begin()) - 1;
}

// Multiplies a current vector (entries on free unknowns) by the block inverses of the blocks it touches.
CurrentStencil apply_block_inverses(dga::HostOperators const& ops, std::vector<Index> const& rows,
                                    std::vector<double> const& current)
{
  auto const& layout = ops.layout;
  std::vector<Index> blocks;
  for (Index r : rows) blocks.push_back(block_of_dof(layout, r));
  std::sort(blocks.begin(), blocks.end());
  blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  CurrentStencil stencil;
  for (Index b : blocks) {
    Index const first = layout.block_offset[b];
    Index const d = layout.block_offset[b + 1] - first;
    double const* inverse = ops.eps_inverse.data() + layout.block_matrix_offset[b];
    for (Index i = 0; i < d; ++i) {
      double weight = 0;
      for (std::size_t k = 0; k < rows.size(); ++k)
        if (rows[k] >= first && rows[k] < first + d) weight += inverse[i * d + (rows[k] - first)] * current[k];
      stencil.rows.push_back(first + i);
      stencil.weights.push_back(weight);
    }
  }
  return stencil;
}

} // namespace

namespace {

void fill_frame(MeshView const& m, dga::DofLayout const& layout, SubregionFrame& frame)
{
  auto const s = mesh::subregion(m.mesh, m.topology, m.geometry, frame.tet, frame.local_vertex);
  Index const v = m.mesh.tets[frame.tet][frame.local_vertex];
  for (int i = 0; i < 3; ++i) {
    Index const e = m.topology.tet_edges[frame.tet][mesh::tet_vertex_edge(frame.local_vertex, i)];
    Index const h = mesh::half_edge_of(m.topology, e, v);
    frame.dofs[i] = layout.dof_of_half_edge[h];
    frame.w[i] = s.w[i];
    frame.faces[i] = mesh::tet_vertex_face(frame.local_vertex, i);
    frame.w_dual[i] = s.w_dual[i];
  }
}

} // namespace

Index locate(MeshView const& m, Vec3 const& x)
{
  Index best = -1;
  double best_min = -std::numeric_limits<double>::infinity();
  for (Index t = 0; t < m.mesh.num_tets(); ++t) {
    // Cheap rejection: a point of the tet is no farther from its barycentre than its farthest vertex.
    auto const& c = m.geometry.tet_barycentre[t];
    double reach = 0;
    for (Index v : m.mesh.tets[t]) reach = std::max(reach, squared_distance(m.mesh.points[v], c));
    if (squared_distance(x, c) > reach * (1 + 1e-9)) continue;
    auto const lambda = mesh::barycentric(m.mesh, t, x);
    double const smallest = *std::min_element(lambda.begin(), lambda.end());
    if (smallest > best_min) {
      best_min = smallest;
      best = t;
    }
  }
  return best_min >= -1e-9 ? best : -1;
}

SubregionFrame locate_subregion(MeshView const& m, dga::DofLayout const& layout, std::string const& name, Vec3 const& x)
{
  SubregionFrame frame;
  frame.tet = locate(m, x);
  if (frame.tet < 0)
    throw Error(name, "position " + format_point(x) + " lies outside the mesh",
                "move it inside the computational domain");
  auto const lambda = mesh::barycentric(m.mesh, frame.tet, x);
  frame.local_vertex = static_cast<int>(std::max_element(lambda.begin(), lambda.end()) - lambda.begin());
  fill_frame(m, layout, frame);
  return frame;
}

ProbeStencil probe_stencil(MeshView const& m, dga::DofLayout const& layout, std::string const& name, Vec3 const& x,
                           ProbeReading reading)
{
  auto const located = locate_subregion(m, layout, "probe '" + name + "'", x);
  ProbeStencil probe;
  Index const t = located.tet;
  int const first = reading == ProbeReading::subregion ? located.local_vertex : 0;
  int const last = reading == ProbeReading::subregion ? located.local_vertex + 1 : 4;
  auto const lambda = mesh::barycentric(m.mesh, t, x);
  for (int lv = first; lv < last; ++lv) {
    double const share =
        reading == ProbeReading::subregion ? 1.0 : (reading == ProbeReading::tet_average ? 0.25 : lambda[lv]);
    auto const s = mesh::subregion(m.mesh, m.topology, m.geometry, t, lv);
    for (int i = 0; i < 3; ++i) {
      int const k = 3 * (lv - first) + i;
      probe.edges[k] = m.topology.tet_edges[t][mesh::tet_vertex_edge(lv, i)];
      probe.faces[k] = m.topology.tet_faces[t][mesh::tet_vertex_face(lv, i)];
      double const face_share = m.topology.face_tets[probe.faces[k]][1] < 0 ? 1.0 : 0.5;
      for (int c = 0; c < 3; ++c) {
        probe.w[k][c] = share * 0.5 * s.w[i][c];
        probe.w_dual[k][c] = share * face_share * s.w_dual[i][c];
      }
    }
  }
  return probe;
}

CurrentStencil dipole_stencil(MeshView const& m, dga::HostOperators const& ops, std::string const& name, Vec3 const& x,
                              Vec3 const& direction)
{
  auto const frame = locate_subregion(m, ops.layout, name, x);
  std::vector<Index> rows;
  std::vector<double> current;
  for (int i = 0; i < 3; ++i)
    if (frame.dofs[i] < ops.layout.num_free) {
      rows.push_back(frame.dofs[i]);
      current.push_back(dot(direction, frame.w[i]));
    }
  return apply_block_inverses(ops, rows, current);
}

CurrentStencil edge_current_stencil(MeshView const& m, dga::HostOperators const& ops, std::string const& name,
                                    Vec3 const& x, Vec3 const& direction)
{
  Index best = -1;
  double best_distance = std::numeric_limits<double>::infinity();
  for (Index e = 0; e < m.topology.num_edges(); ++e) {
    double const d = squared_distance(x, m.geometry.edge_midpoint[e]);
    if (d < best_distance) {
      best_distance = d;
      best = e;
    }
  }
  if (best < 0) throw Error("source '" + name + "'", "the mesh has no edges", "use a non-empty mesh");
  auto const& ab = m.topology.edge_vertices[best];
  auto const& pa = m.mesh.points[ab[0]];
  auto const& pb = m.mesh.points[ab[1]];
  Vec3 const edge = sub(pb, pa);
  double const sign = dot(direction, edge) >= 0 ? 1.0 : -1.0;
  std::vector<Index> rows;
  std::vector<double> current;
  for (Index h : m.topology.edge_half_edges[best]) {
    Index const dof = ops.layout.dof_of_half_edge[h];
    if (dof < ops.layout.num_free) {
      rows.push_back(dof);
      current.push_back(sign);
    }
  }
  if (rows.empty())
    throw Error("source '" + name + "'", "the edge nearest to " + format_point(x) + " lies on a PEC or port surface",
                "move the source into the interior");
  return apply_block_inverses(ops, rows, current);
}

PrescribedStencil te10_port_stencil(MeshView const& m, dga::DofLayout const& layout, int surface_tag,
                                    std::string const& surface_name)
{
  std::vector<Index> edges;
  double x_min = std::numeric_limits<double>::infinity(), x_max = -x_min;
  for (Index f = 0; f < m.topology.num_faces(); ++f) {
    if (m.topology.face_tag[f] != surface_tag) continue;
    for (Index v : m.topology.face_vertices[f]) {
      x_min = std::min(x_min, m.mesh.points[v][0]);
      x_max = std::max(x_max, m.mesh.points[v][0]);
    }
    Index const t = m.topology.face_tets[f][0];
    for (int j = 0; j < 4; ++j)
      if (m.topology.tet_faces[t][j] == f)
        for (int i = 0; i < 3; ++i) edges.push_back(m.topology.tet_edges[t][mesh::tet_face_edge(j, i)]);
  }
  if (edges.empty())
    throw Error("port '" + surface_name + "'", "the surface has no faces in the mesh",
                "name a physical surface of the mesh in the port source");
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  double const width = x_max - x_min;
  double const k = M_PI / width;
  PrescribedStencil stencil;
  for (Index e : edges) {
    auto const& pa = m.mesh.points[m.topology.edge_vertices[e][0]];
    auto const& pb = m.mesh.points[m.topology.edge_vertices[e][1]];
    // Exact line integral of y-hat sin(k (x - x_min)) along the straight edge.
    double const dx = pb[0] - pa[0];
    double const mean_sine = std::abs(dx) > 1e-12 * width
                                 ? (std::cos(k * (pa[0] - x_min)) - std::cos(k * (pb[0] - x_min))) / (k * dx)
                                 : std::sin(k * (pa[0] - x_min));
    double const circulation = mean_sine * (pb[1] - pa[1]);
    for (Index h : m.topology.edge_half_edges[e]) {
      Index const dof = layout.dof_of_half_edge[h];
      if (dof < layout.num_free || dof == layout.zero_slot) continue;
      stencil.dofs.push_back(dof);
      stencil.weights.push_back(0.5 * circulation);
    }
  }
  return stencil;
}

std::vector<double> project_field(MeshView const& m, dga::DofLayout const& layout,
                                  std::function<Vec3(Vec3 const&)> const& field)
{
  std::vector<double> values(layout.size(), 0.0);
  for (Index e = 0; e < m.topology.num_edges(); ++e) {
    auto const& pa = m.mesh.points[m.topology.edge_vertices[e][0]];
    auto const& pb = m.mesh.points[m.topology.edge_vertices[e][1]];
    Vec3 const half = scaled(sub(pb, pa), 0.5);
    for (int side = 0; side < 2; ++side) {
      Index const dof = layout.dof_of_half_edge[m.topology.edge_half_edges[e][side]];
      if (dof >= layout.num_free) continue;
      double const offset = side == 0 ? 0.25 : 0.75;
      Vec3 const x{pa[0] + 2 * offset * half[0], pa[1] + 2 * offset * half[1], pa[2] + 2 * offset * half[2]};
      values[dof] = dot(field(x), half);
    }
  }
  return values;
}

void tet_average_fields(MeshView const& m, std::vector<double> const& edge_circulations,
                        std::vector<double> const& face_circulations, std::vector<Vec3>& e, std::vector<Vec3>& h)
{
  Index const num_tets = m.mesh.num_tets();
  e.assign(num_tets, Vec3{0, 0, 0});
  h.assign(num_tets, Vec3{0, 0, 0});
  host_parallel_for("dgatd::tet_average_fields", num_tets, [&](std::int64_t t) {
    for (int lv = 0; lv < 4; ++lv) {
      auto const s = mesh::subregion(m.mesh, m.topology, m.geometry, static_cast<Index>(t), lv);
      for (int i = 0; i < 3; ++i) {
        double const u_i = 0.5 * edge_circulations[m.topology.tet_edges[t][mesh::tet_vertex_edge(lv, i)]];
        Index const face = m.topology.tet_faces[t][mesh::tet_vertex_face(lv, i)];
        double const f_i = face_circulations[face] * (m.topology.face_tets[face][1] < 0 ? 1.0 : 0.5);
        for (int c = 0; c < 3; ++c) {
          e[t][c] += 0.25 * u_i * s.w[i][c];
          h[t][c] += 0.25 * f_i * s.w_dual[i][c];
        }
      }
    }
  });
}

} // namespace dgatd::solver
