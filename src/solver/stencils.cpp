#include "dgatd/solver/stencils.hpp"

#include "dgatd/error.hpp"
#include "dgatd/host_parallel.hpp"
#include "dgatd/mesh/point_location.hpp"
#include "dgatd/mesh/reference_tet.hpp"
#include "dgatd/mesh/surfaces.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <utility>

namespace dgatd::solver {
namespace {

std::string format_point(Vec3 const& x)
{
  std::ostringstream s;
  s << '(' << x[0] << ", " << x[1] << ", " << x[2] << ')';
  return s.str();
}

} // namespace

CurrentStencil apply_block_inverses(dga::HostOperators const& ops, std::vector<Index> const& rows,
                                    std::vector<double> const& current)
{
  auto const& layout = ops.layout;
  // The rows grouped by block, in their order within each: a block's weights sum over its own rows
  // only (a port of 1e4 faces touches thousands of blocks).
  std::vector<std::pair<Index, std::size_t>> by_block;
  by_block.reserve(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) by_block.emplace_back(layout.block_of(rows[k]), k);
  std::sort(by_block.begin(), by_block.end());
  CurrentStencil stencil;
  for (std::size_t start = 0; start < by_block.size();) {
    Index const b = by_block[start].first;
    std::size_t end = start;
    while (end < by_block.size() && by_block[end].first == b) ++end;
    Index const first = layout.block_offset[b];
    Index const d = layout.block_size(b);
    double const* inverse = ops.eps_inverse.data() + layout.block_matrix_offset[b];
    for (Index i = 0; i < d; ++i) {
      double weight = 0;
      for (std::size_t g = start; g < end; ++g) {
        std::size_t const k = by_block[g].second;
        weight += inverse[i * d + (rows[k] - first)] * current[k];
      }
      stencil.rows.push_back(first + i);
      stencil.weights.push_back(weight);
    }
    start = end;
  }
  return stencil;
}

SubregionFrame subregion_frame(mesh::MeshView const& m, dga::DofLayout const& layout, Index tet, int local_vertex)
{
  SubregionFrame frame;
  frame.tet = tet;
  frame.local_vertex = local_vertex;
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
  return frame;
}

TetMeanStencil tet_mean_stencil(mesh::MeshView const& m, dga::DofLayout const& layout, Index tet)
{
  TetMeanStencil mean;
  for (int lv = 0; lv < 4; ++lv) {
    auto const frame = subregion_frame(m, layout, tet, lv);
    for (int i = 0; i < 3; ++i) {
      mean.h[frame.faces[i]] = add(mean.h[frame.faces[i]], scaled(frame.w_dual[i], 0.25));
      mean.dofs[3 * lv + i] = frame.dofs[i];
      mean.e[3 * lv + i] = scaled(frame.w[i], 0.25);
    }
  }
  return mean;
}

Error outside_the_mesh(std::string const& name, Vec3 const& x)
{
  return Error(name, "position " + format_point(x) + " lies outside the mesh",
               "move it inside the computational domain");
}

Index containing_tet(mesh::MeshView const& m, std::string const& name, Vec3 const& x)
{
  Index const tet = mesh::locate_tet(m, x);
  if (tet < 0) throw outside_the_mesh(name, x);
  return tet;
}

SubregionFrame locate_subregion(mesh::MeshView const& m, dga::DofLayout const& layout, std::string const& name,
                                Vec3 const& x)
{
  Index const tet = containing_tet(m, name, x);
  auto const lambda = mesh::barycentric(m.mesh, tet, x);
  return subregion_frame(m, layout, tet,
                         static_cast<int>(std::max_element(lambda.begin(), lambda.end()) - lambda.begin()));
}

ProbeStencil probe_stencil(mesh::MeshView const& m, dga::DofLayout const& layout, std::string const& name,
                           Vec3 const& x, ProbeReading reading)
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

CurrentStencil dipole_stencil(mesh::MeshView const& m, dga::HostOperators const& ops, std::string const& name,
                              Vec3 const& x, Vec3 const& direction)
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

CurrentStencil edge_current_stencil(mesh::MeshView const& m, dga::HostOperators const& ops, std::string const& name,
                                    Vec3 const& x, Vec3 const& direction)
{
  Index const best = mesh::nearest_edge(m, x);
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

PrescribedStencil te10_port_stencil(mesh::MeshView const& m, dga::DofLayout const& layout, int surface_tag,
                                    std::string const& surface_name)
{
  return te10_port_stencil(m, m, layout, surface_tag, surface_name);
}

PrescribedStencil te10_port_stencil(mesh::MeshView const& whole, mesh::MeshView const& m, dga::DofLayout const& layout,
                                    int surface_tag, std::string const& surface_name)
{
  double x_min = std::numeric_limits<double>::infinity(), x_max = -x_min;
  auto const whole_faces = mesh::surface_faces(whole.topology, surface_tag);
  if (whole_faces.empty())
    throw Error("port '" + surface_name + "'", "the surface has no faces in the mesh",
                "name a physical surface of the mesh in the port source");
  for (Index f : whole_faces)
    for (Index v : whole.topology.face_vertices[f]) {
      x_min = std::min(x_min, whole.mesh.points[v][0]);
      x_max = std::max(x_max, whole.mesh.points[v][0]);
    }
  std::vector<Index> edges;
  for (Index f : mesh::surface_faces(m.topology, surface_tag)) {
    Index const t = m.topology.face_tets[f][0];
    for (int j = 0; j < 4; ++j)
      if (m.topology.tet_faces[t][j] == f)
        for (int i = 0; i < 3; ++i) edges.push_back(m.topology.tet_edges[t][mesh::tet_face_edge(j, i)]);
  }
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

namespace {

// The steps of a matched port (docs/method/open_regions.md section 4). Each throws dgatd::ModelError about
// the port when the surface is not what a matched TE10 port needs.
void refuse_port(std::string const& name, std::string const& problem, std::string const& remedy)
{
  throw ModelError(ModelSubject::matched_port, name, problem, remedy);
}

// The plane of the port: the area-weighted mean of its faces' normals, through its centre; every face
// must agree with it.
struct PortPlane {
  Vec3 normal;
  Vec3 centre;
};
PortPlane port_plane(mesh::MeshView const& m, std::vector<mesh::SurfaceFace> const& faces,
                     mesh::SurfaceShape const& shape, std::string const& name)
{
  PortPlane plane{scaled(shape.area_vector, 1.0 / norm(shape.area_vector)), shape.centre};
  double worst_cosine = 1, size = std::sqrt(shape.area), worst_offset = 0;
  for (std::size_t k = 0; k < faces.size(); ++k) {
    worst_cosine = std::min(worst_cosine, dot(shape.face_normal[k], plane.normal));
    for (Index v : m.topology.face_vertices[faces[k].face])
      worst_offset = std::max(worst_offset, std::abs(dot(sub(m.mesh.points[v], plane.centre), plane.normal)));
  }
  if (worst_cosine < 1 - 1e-6 || worst_offset > 1e-6 * size) {
    std::ostringstream what;
    what << "is not planar (its faces' normals differ by up to " << std::acos(std::max(-1.0, worst_cosine)) * 180 / M_PI
         << " degrees)";
    refuse_port(name, what.str(), "a matched port must be a plane cross-section of the guide");
  }
  return plane;
}

// The rectangle's sides: the principal axes of the area-weighted second moment in the plane, the
// broad side along u, the narrow one along v, each with its largest component positive.
struct PortRectangle {
  Vec3 broad, narrow;
  double u_min = 0;
  double width = 0, height = 0;
};
PortRectangle port_rectangle(mesh::MeshView const& m, std::vector<mesh::SurfaceFace> const& faces,
                             mesh::SurfaceShape const& shape, PortPlane const& plane, std::string const& name)
{
  Vec3 const& normal = plane.normal;
  Vec3 const& centre = plane.centre;
  Vec3 e1 = std::abs(normal[0]) < 0.9 ? Vec3{1, 0, 0} : Vec3{0, 1, 0};
  e1 = sub(e1, scaled(normal, dot(e1, normal)));
  e1 = scaled(e1, 1.0 / norm(e1));
  Vec3 const e2 = cross(normal, e1);
  double s11 = 0, s12 = 0, s22 = 0;
  for (std::size_t k = 0; k < faces.size(); ++k) {
    auto const& v = m.topology.face_vertices[faces[k].face];
    // Exact second moment of the triangle about the centre: (A / 12) (sum of the vertices' outer
    // products + the centroid's times 9).
    Vec3 mean{0, 0, 0};
    for (Index i : v) mean = add(mean, scaled(sub(m.mesh.points[i], centre), 1.0 / 3));
    auto accumulate = [&](Vec3 const& d, double weight) {
      double const x = dot(d, e1), y = dot(d, e2);
      s11 += weight * x * x;
      s12 += weight * x * y;
      s22 += weight * y * y;
    };
    for (Index i : v) accumulate(sub(m.mesh.points[i], centre), shape.face_area[k] / 12);
    accumulate(mean, 9 * shape.face_area[k] / 12);
  }
  double const angle = 0.5 * std::atan2(2 * s12, s11 - s22); // the larger moment's axis
  auto orient = [](Vec3 x) {
    int largest = 0;
    for (int c = 1; c < 3; ++c)
      if (std::abs(x[c]) > std::abs(x[largest])) largest = c;
    return x[largest] < 0 ? scaled(x, -1.0) : x;
  };
  PortRectangle rectangle;
  Vec3 const broad = add(scaled(e1, std::cos(angle)), scaled(e2, std::sin(angle)));
  rectangle.broad = orient(broad);
  rectangle.narrow = orient(cross(normal, broad));
  double u_max = -std::numeric_limits<double>::infinity(), v_min = -u_max, v_max = u_max;
  rectangle.u_min = v_min;
  for (auto const& face : faces)
    for (Index i : m.topology.face_vertices[face.face]) {
      Vec3 const d = sub(m.mesh.points[i], centre);
      rectangle.u_min = std::min(rectangle.u_min, dot(d, rectangle.broad));
      u_max = std::max(u_max, dot(d, rectangle.broad));
      v_min = std::min(v_min, dot(d, rectangle.narrow));
      v_max = std::max(v_max, dot(d, rectangle.narrow));
    }
  rectangle.width = u_max - rectangle.u_min;
  rectangle.height = v_max - v_min;
  if (rectangle.height > 0.99 * rectangle.width)
    refuse_port(name, "is square (TE10 and TE01 have the same cutoff)",
                "a matched port launches TE10 of a rectangular guide, broad side a > narrow side b");
  if (std::abs(rectangle.width * rectangle.height - shape.area) > 1e-3 * shape.area)
    refuse_port(name, "is not a rectangle (its area differs from its sides' product)",
                "a matched port launches TE10 of a rectangular guide");
  return rectangle;
}

// The medium behind the port: eps and mu of its tets, which must all be alike.
std::array<double, 2> medium_behind(std::vector<mesh::SurfaceFace> const& faces, std::vector<double> const& eps,
                                    std::vector<double> const& mu, std::string const& name)
{
  double const eps_behind = eps[faces[0].behind], mu_behind = mu[faces[0].behind];
  for (auto const& face : faces) {
    Index const t = face.behind;
    if (std::abs(eps[t] - eps_behind) > 1e-12 * eps_behind || std::abs(mu[t] - mu_behind) > 1e-12 * mu_behind)
      refuse_port(name, "has more than one material behind it",
                  "fill the guide at the port with one material (TE10 of a homogeneous guide)");
  }
  return {eps_behind, mu_behind};
}

// c_e of every edge of the port, one entry per (face, edge) pair, sorted by edge: the Whitney forms
// of each face against the mode's e, by a degree-4 rule (TE10's e varies over a / pi).
std::vector<std::pair<Index, double>> mode_projections(mesh::MeshView const& m,
                                                       std::vector<mesh::SurfaceFace> const& faces,
                                                       mesh::SurfaceShape const& shape, MatchedPortMode const& mode)
{
  struct Point {
    double l0, l1, l2, weight;
  };
  static constexpr double a1 = 0.445948490915965, b1 = 0.108103018168070, w1 = 0.223381589678011;
  static constexpr double a2 = 0.091576213509771, b2 = 0.816847572980459, w2 = 0.109951743655322;
  static constexpr Point rule[6] = {{a1, a1, b1, w1}, {a1, b1, a1, w1}, {b1, a1, a1, w1},
                                    {a2, a2, b2, w2}, {a2, b2, a2, w2}, {b2, a2, a2, w2}};
  std::vector<std::pair<Index, double>> edge_weights;
  for (std::size_t n = 0; n < faces.size(); ++n) {
    Index const f = faces[n].face;
    auto const& v = m.topology.face_vertices[f];
    std::array<Vec3, 3> p{m.mesh.points[v[0]], m.mesh.points[v[1]], m.mesh.points[v[2]]};
    std::array<Vec3, 3> gradient;
    for (int i = 0; i < 3; ++i) {
      Vec3 const opposite = sub(p[(i + 2) % 3], p[(i + 1) % 3]);
      gradient[i] = scaled(cross(shape.face_normal[n], opposite), 1 / (2 * shape.face_area[n]));
      if (dot(gradient[i], sub(p[i], p[(i + 1) % 3])) < 0) gradient[i] = scaled(gradient[i], -1.0);
    }
    Index const t = faces[n].behind;
    for (int j = 0; j < 4; ++j) {
      if (m.topology.tet_faces[t][j] != f) continue;
      for (int i = 0; i < 3; ++i) {
        Index const e = m.topology.tet_edges[t][mesh::tet_face_edge(j, i)];
        auto const& ends = m.topology.edge_vertices[e];
        int const a = static_cast<int>(std::find(v.begin(), v.end(), ends[0]) - v.begin());
        int const b = static_cast<int>(std::find(v.begin(), v.end(), ends[1]) - v.begin());
        double c = 0;
        for (auto const& q : rule) {
          double const lambda[3] = {q.l0, q.l1, q.l2};
          Vec3 x{0, 0, 0};
          for (int r = 0; r < 3; ++r) x = add(x, scaled(p[r], lambda[r]));
          Vec3 const whitney = sub(scaled(gradient[b], lambda[a]), scaled(gradient[a], lambda[b]));
          c += q.weight * shape.face_area[n] * dot(whitney, mode.field(p, x));
        }
        edge_weights.push_back({e, c});
      }
    }
  }
  std::sort(edge_weights.begin(), edge_weights.end());
  return edge_weights;
}

// The port's rows: both free halves of each of its edges (of the blocks owned marks, all where it is
// empty), with c_e summed over the edge's faces. The rim's halves lie on the guide's PEC walls and
// are not unknowns.
void add_port_rows(dga::HostOperators const& ops, std::vector<std::pair<Index, double>> const& edge_weights,
                   mesh::Topology const& topology, std::vector<char> const& owned, std::string const& name,
                   MatchedPortStencil& stencil)
{
  for (std::size_t i = 0; i < edge_weights.size();) {
    Index const e = edge_weights[i].first;
    double c = 0;
    for (; i < edge_weights.size() && edge_weights[i].first == e; ++i) c += edge_weights[i].second;
    for (Index h : topology.edge_half_edges[e]) {
      Index const dof = ops.layout.dof_of_half_edge[h];
      if (dof >= ops.layout.num_free || (!owned.empty() && !owned[ops.layout.block_of(dof)])) continue;
      if (std::binary_search(ops.lossy_blocks.begin(), ops.lossy_blocks.end(), ops.layout.block_of(dof)))
        refuse_port(name, "touches a lossy region (sigma, an absorbing surface or a matched layer)",
                    "keep the guide lossless at the port; the port itself absorbs the TE10 wave");
      stencil.rows.push_back(dof);
      stencil.projection.push_back(c);
    }
  }
}

} // namespace

std::vector<mesh::SurfaceFace> exterior_port_faces(mesh::MeshView const& m, int surface_tag, std::string const& name)
{
  std::vector<mesh::SurfaceFace> faces;
  for (Index f : mesh::surface_faces(m.topology, surface_tag)) {
    if (m.topology.face_tets[f][1] >= 0)
      refuse_port(name, "lies inside the mesh (its faces have tets on both sides)",
                  "put the port on an end of the guide, an exterior surface");
    faces.push_back({f, m.topology.face_tets[f][0]});
  }
  if (faces.empty())
    refuse_port(name, "has no faces in the mesh", "name a physical surface of the mesh in the port source");
  return faces;
}

MatchedPortMode te10_mode(mesh::MeshView const& whole, std::vector<double> const& whole_eps,
                          std::vector<double> const& whole_mu, int surface_tag, std::string const& surface_name)
{
  auto const faces = exterior_port_faces(whole, surface_tag, surface_name);
  auto const shape = mesh::surface_shape(whole, faces);
  auto const plane = port_plane(whole, faces, shape, surface_name);
  auto const rectangle = port_rectangle(whole, faces, shape, plane, surface_name);
  auto const [eps_behind, mu_behind] = medium_behind(faces, whole_eps, whole_mu, surface_name);
  MatchedPortMode mode;
  mode.admittance = std::sqrt(eps_behind / mu_behind);
  mode.cutoff = M_PI / (rectangle.width * std::sqrt(eps_behind * mu_behind));
  mode.peak_voltage = std::sqrt(rectangle.width * rectangle.height / 2);
  // e = sqrt(2 / (a b)) sin(pi u / a) along the narrow side: unit power normalisation.
  double const amplitude = std::sqrt(2 / (rectangle.width * rectangle.height)), k = M_PI / rectangle.width;
  mode.field = [amplitude, k, plane, rectangle](std::array<Vec3, 3> const&, Vec3 const& x) {
    return scaled(rectangle.narrow,
                  amplitude * std::sin(k * (dot(sub(x, plane.centre), rectangle.broad) - rectangle.u_min)));
  };
  return mode;
}

MatchedPortStencil matched_port_stencil(mesh::MeshView const& m, dga::HostOperators const& ops,
                                        std::vector<char> const& owned_blocks, int surface_tag,
                                        std::string const& surface_name, MatchedPortMode const& mode)
{
  MatchedPortStencil stencil;
  stencil.admittance = mode.admittance;
  stencil.cutoff = mode.cutoff;
  stencil.peak_voltage = mode.peak_voltage;
  // A part may hold none of the port, or some of its faces: each is seen from its tet, which the
  // part holds with the face.
  std::vector<mesh::SurfaceFace> faces;
  for (Index f : mesh::surface_faces(m.topology, surface_tag)) faces.push_back({f, m.topology.face_tets[f][0]});
  auto const shape = mesh::surface_shape(m, faces);
  add_port_rows(ops, mode_projections(m, faces, shape, mode), m.topology, owned_blocks, surface_name, stencil);
  stencil.response = apply_block_inverses(ops, stencil.rows, stencil.projection);
  std::unordered_map<Index, double> projection_of;
  for (std::size_t j = 0; j < stencil.rows.size(); ++j) projection_of[stencil.rows[j]] += stencil.projection[j];
  for (std::size_t i = 0; i < stencil.response.rows.size(); ++i)
    if (auto const found = projection_of.find(stencil.response.rows[i]); found != projection_of.end())
      stencil.self_coupling += found->second * stencil.response.weights[i];
  return stencil;
}

MatchedPortStencil matched_te10_port_stencil(mesh::MeshView const& m, dga::HostOperators const& ops,
                                             std::vector<double> const& eps, std::vector<double> const& mu,
                                             int surface_tag, std::string const& surface_name)
{
  return matched_port_stencil(m, ops, {}, surface_tag, surface_name, te10_mode(m, eps, mu, surface_tag, surface_name));
}

std::vector<double> project_field(mesh::MeshView const& m, dga::DofLayout const& layout,
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

void tet_average_fields(mesh::MeshView const& m, std::vector<double> const& edge_circulations,
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
