#include "dgatd/dga/pml.hpp"

#include "dgatd/error.hpp"
#include "dgatd/host_parallel.hpp"
#include "dgatd/mesh/surfaces.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <vector>

namespace dgatd::dga {
namespace {

struct Triangle {
  Vec3 p[3];
  Vec3 centre;
  double radius = 0; // of the sphere about centre holding the triangle
};

// The point of triangle abc nearest to p (Ericson, Real-Time Collision Detection, 5.1.5).
Vec3 closest_point(Vec3 const& p, Triangle const& t)
{
  Vec3 const& a = t.p[0];
  Vec3 const& b = t.p[1];
  Vec3 const& c = t.p[2];
  Vec3 const ab = sub(b, a), ac = sub(c, a), ap = sub(p, a);
  double const d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return a;
  Vec3 const bp = sub(p, b);
  double const d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return b;
  double const vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return add(a, scaled(ab, d1 / (d1 - d3)));
  Vec3 const cp = sub(p, c);
  double const d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return c;
  double const vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return add(a, scaled(ac, d2 / (d2 - d6)));
  double const va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) return add(b, scaled(sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6))));
  double const denominator = 1.0 / (va + vb + vc);
  return add(a, add(scaled(ab, vb * denominator), scaled(ac, vc * denominator)));
}

// Depth and direction of a point: distance to the nearest interface triangle, and the unit vector
// from there to the point (zero on the interface).
struct Depth {
  double d = 0;
  Vec3 n{};
};

Depth depth_of(Vec3 const& p, std::vector<Triangle> const& interface)
{
  double best = std::numeric_limits<double>::infinity();
  Vec3 nearest{};
  for (auto const& t : interface) {
    if (norm(sub(p, t.centre)) - t.radius >= best) continue;
    Vec3 const q = closest_point(p, t);
    double const d = norm(sub(p, q));
    if (d < best) {
      best = d;
      nearest = q;
    }
  }
  Depth depth;
  depth.d = best;
  if (best > 0) depth.n = scaled(sub(p, nearest), 1.0 / best);
  return depth;
}

// Whether face f lies between a tet of the layer and one outside it: on the interface.
bool on_interface(mesh::Topology const& topology, std::vector<char> const& in_layer, Index f)
{
  auto const& tets = topology.face_tets[f];
  return tets[1] >= 0 && (in_layer[tets[0]] != 0) != (in_layer[tets[1]] != 0);
}

// The interface's triangles.
std::vector<Triangle> interface_triangles(mesh::MeshView const& m, std::vector<char> const& in_layer,
                                          std::string const& name)
{
  auto const& topology = m.topology;
  auto triangle_of = [&](Index f) {
    Triangle t;
    for (int i = 0; i < 3; ++i) t.p[i] = m.mesh.points[topology.face_vertices[f][i]];
    t.centre = scaled(add(add(t.p[0], t.p[1]), t.p[2]), 1.0 / 3.0);
    for (int i = 0; i < 3; ++i) t.radius = std::max(t.radius, norm(sub(t.p[i], t.centre)));
    return t;
  };
  std::vector<Triangle> interface;
  for (Index f = 0; f < topology.num_faces(); ++f)
    if (on_interface(topology, in_layer, f)) interface.push_back(triangle_of(f));
  if (interface.empty())
    throw ModelError(ModelSubject::matched_layer, name, "touches no other region of " + m.mesh.source,
                     "mesh the layer around (or behind) the domain it absorbs for, as its own physical volume");
  return interface;
}

// The layer's size in tets and its mean edge length, and the fastest wave speed in it.
struct LayerCells {
  Index num_tets = 0;
  double element_size = 0;
  double fastest = 0;
};
LayerCells layer_cells(mesh::Mesh const& mesh, Materials const& materials, std::vector<char> const& in_layer)
{
  LayerCells cells;
  double edge_length = 0;
  Index num_edges = 0;
  for (Index t = 0; t < mesh.num_tets(); ++t) {
    if (!in_layer[t]) continue;
    ++cells.num_tets;
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b, ++num_edges)
        edge_length += norm(sub(mesh.points[mesh.tets[t][a]], mesh.points[mesh.tets[t][b]]));
    cells.fastest = std::max(cells.fastest, 1.0 / std::sqrt(materials.eps[t] * materials.mu[t]));
  }
  cells.element_size = edge_length / static_cast<double>(num_edges);
  return cells;
}

// The depth of each vertex of the layer (the others keep a zero depth).
std::vector<Depth> vertex_depths(mesh::MeshView const& m, std::vector<char> const& in_layer,
                                 std::vector<Triangle> const& interface)
{
  std::vector<char> layer_vertex(m.topology.num_vertices, 0);
  for (Index t = 0; t < m.mesh.num_tets(); ++t)
    if (in_layer[t])
      for (Index v : m.mesh.tets[t]) layer_vertex[v] = 1;
  std::vector<Depth> vertex_depth(m.topology.num_vertices);
  host_parallel_for("dgatd::pml::vertex_depth", m.topology.num_vertices, [&](std::int64_t v) {
    if (layer_vertex[v]) vertex_depth[v] = depth_of(m.mesh.points[v], interface);
  });
  return vertex_depth;
}

// The thickness: the depth of the outer surface where it faces the layer's direction (the end of
// a waveguide's layer, not its side walls), the median over those vertices.
double layer_thickness(mesh::MeshView const& m, std::vector<char> const& in_layer,
                       std::vector<Depth> const& vertex_depth, std::string const& name)
{
  auto const& topology = m.topology;
  std::vector<double> ends;
  for (Index f : topology.boundary_faces) {
    if (!in_layer[topology.face_tets[f][0]]) continue;
    Vec3 const area_vector = mesh::face_area_vector(m, f, topology.face_tets[f][0]);
    Vec3 const normal = scaled(area_vector, 1.0 / norm(area_vector));
    for (Index v : topology.face_vertices[f])
      if (vertex_depth[v].d > 0 && std::abs(dot(normal, vertex_depth[v].n)) > 0.9) ends.push_back(vertex_depth[v].d);
  }
  if (ends.empty())
    throw ModelError(ModelSubject::matched_layer, name, "has no outer surface across its depth in " + m.mesh.source,
                     "end the layer with an exterior surface parallel to where it meets the domain");
  std::nth_element(ends.begin(), ends.begin() + static_cast<std::ptrdiff_t>(ends.size() / 2), ends.end());
  return ends[ends.size() / 2];
}

// A layer thinner than two element layers (each the height of a regular tet of the layer's mean
// edge) absorbs badly.
void require_two_element_layers(PmlLayer const& layer)
{
  double const element_layer = std::sqrt(2.0 / 3.0) * layer.element_size;
  if (!(layer.thickness < 2 * element_layer)) return;
  auto metres = [](double x) {
    std::ostringstream s;
    s << std::setprecision(3) << x << " m";
    return s.str();
  };
  throw ModelError(ModelSubject::matched_layer, layer.name,
                   "is " + metres(layer.thickness) + " thick, less than two element layers (" + metres(element_layer) +
                       " each): a PML thinner than two element layers absorbs badly",
                   "make the layer at least " + metres(2 * element_layer) + " thick or refine its mesh",
                   {{"thickness", layer.thickness}, {"element layer", element_layer}});
}

// How one connected piece of the layer is stretched (a guide's two end layers are two pieces).
struct PieceStretch {
  bool meets_domain = false;
  bool flat = true;
  Vec3 normal{};      // of a flat piece, into the layer
  Vec3 low{}, high{}; // the box a shell wraps
  int order = 0;
  double alpha_max = 0;
};

// Flat or a shell, from where the piece meets the domain: a flat layer meets it in a plane, rough by
// about a cell where the region follows tet faces (0.5 mean edges rms on the jittered guide of the
// tests), and its faces point one way; a shell meets it in a closed surface (0.37 of a cube's side
// off any plane), whose faces' area vectors sum to nothing, however few cells the box has. The
// normal of a flat piece is its interface's least-squares plane's, pointing into the layer; the box
// of a shell is its interface's.
std::vector<PieceStretch> piece_shapes(mesh::MeshView const& m, std::vector<char> const& in_layer,
                                       mesh::TetPieces const& pieces, double element_size)
{
  auto const& topology = m.topology;
  std::vector<std::vector<mesh::SurfaceFace>> interface(static_cast<std::size_t>(pieces.count));
  for (Index f = 0; f < topology.num_faces(); ++f) {
    if (!on_interface(topology, in_layer, f)) continue;
    auto const& tets = topology.face_tets[f];
    Index const layer_tet = in_layer[tets[0]] ? tets[0] : tets[1];
    interface[pieces.piece[layer_tet]].push_back({f, layer_tet});
  }
  std::vector<Vec3> layer_centre(static_cast<std::size_t>(pieces.count), Vec3{});
  std::vector<double> layer_tets(static_cast<std::size_t>(pieces.count), 0.0);
  for (Index t = 0; t < topology.num_tets(); ++t)
    if (in_layer[t]) {
      layer_centre[pieces.piece[t]] = add(layer_centre[pieces.piece[t]], m.geometry.tet_barycentre[t]);
      layer_tets[pieces.piece[t]] += 1;
    }
  std::vector<PieceStretch> stretches(static_cast<std::size_t>(pieces.count));
  for (Index p = 0; p < pieces.count; ++p) {
    if (interface[p].empty()) continue; // a piece that meets no domain stays unstretched
    auto const shape = mesh::surface_shape(m, interface[p]);
    auto& piece = stretches[p];
    piece.meets_domain = true;
    piece.low = shape.low;
    piece.high = shape.high;
    piece.flat = std::sqrt(std::max(shape.vertices.mean_square_distance(), 0.0)) <= 2 * element_size &&
                 norm(shape.area_vector) > 0.5 * shape.area;
    if (piece.flat) {
      Vec3 const normal = shape.vertices.normal();
      Vec3 const inward = sub(scaled(layer_centre[p], 1.0 / layer_tets[p]), shape.vertices.centre());
      piece.normal = dot(normal, inward) < 0 ? scaled(normal, -1.0) : normal;
    }
  }
  return stretches;
}

// The profile of each piece that meets the domain: the order asked for (steeper ones than 1 are
// unstable in a shell's bends and are refused there), and alpha_max for the
// reflection asked for: a wave crossing the layer at normal incidence decays as
// exp(-int alpha / c dz) each way.
void set_profiles(std::vector<PieceStretch>& pieces, PmlProfile const& profile, double fastest, PmlLayer& layer)
{
  for (auto& piece : pieces) {
    if (!piece.meets_domain) continue;
    piece.order = profile.order;
    if (!piece.flat && piece.order > 1)
      throw ModelError(ModelSubject::matched_layer, layer.name,
                       "bends around the domain (a shell), where a profile of order " + std::to_string(piece.order) +
                           " is unstable",
                       "use a profile of order 1 (the default), or flat layers",
                       {{"order", static_cast<double>(piece.order)}, {"stable order", 1}});
    piece.alpha_max = (piece.order + 1) * fastest * -std::log(profile.reflection) / (2 * layer.thickness);
    layer.alpha_max = std::max(layer.alpha_max, piece.alpha_max);
  }
}

// G = grad F in each tet of the layer, F interpolated from the stretch at its vertices:
// G e_i = F_i - F_0 for its edges e_i from vertex 0, so G = [F_i - F_0] E^-1, E^-1's rows
// (e_j x e_k) / (e_i . e_j x e_k), (i, j, k) cyclic. F(d) is the integral of
// alpha(d) = alpha_max min(d / L, 1)^order over the depth.
void set_jacobians(Stretching& stretching, mesh::Mesh const& mesh, std::vector<char> const& in_layer,
                   mesh::TetPieces const& pieces, std::vector<PieceStretch> const& stretches,
                   std::vector<Depth> const& vertex_depth, double L)
{
  auto integral = [&](PieceStretch const& piece, double d) {
    double const m = piece.order, a = piece.alpha_max;
    return d <= L ? a * L / (m + 1) * std::pow(d / L, m + 1) : a * (L / (m + 1) + d - L);
  };
  auto stretch_at = [&](PieceStretch const& piece, Index v) {
    if (piece.flat) return scaled(piece.normal, integral(piece, vertex_depth[v].d));
    Vec3 stretch{};
    Vec3 const& x = mesh.points[v];
    for (int k = 0; k < 3; ++k) {
      if (x[k] > piece.high[k]) stretch[k] = integral(piece, x[k] - piece.high[k]);
      if (x[k] < piece.low[k]) stretch[k] = -integral(piece, piece.low[k] - x[k]);
    }
    return stretch;
  };
  stretching.tet_jacobian.resize(mesh.num_tets(), std::array<double, 9>{});
  host_parallel_for("dgatd::pml::jacobian", mesh.num_tets(), [&](std::int64_t t) {
    if (!in_layer[t]) return;
    auto const& piece = stretches[pieces.piece[t]];
    auto const& v = mesh.tets[t];
    Vec3 const& p0 = mesh.points[v[0]];
    Vec3 const e[3] = {sub(mesh.points[v[1]], p0), sub(mesh.points[v[2]], p0), sub(mesh.points[v[3]], p0)};
    double const volume6 = dot(e[0], cross(e[1], e[2]));
    Vec3 const f0 = stretch_at(piece, v[0]);
    std::array<double, 9> g{};
    for (int i = 0; i < 3; ++i) {
      Vec3 const rise = sub(stretch_at(piece, v[1 + i]), f0);
      Vec3 const dual = scaled(cross(e[(i + 1) % 3], e[(i + 2) % 3]), 1.0 / volume6);
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) g[3 * r + c] += rise[r] * dual[c];
    }
    stretching.tet_jacobian[t] = g;
  });
}

} // namespace

PmlLayer add_pml_layer(Stretching& stretching, mesh::Mesh const& mesh, mesh::Topology const& topology,
                       mesh::Geometry const& geometry, Materials const& materials, std::vector<char> const& in_layer,
                       PmlProfile const& profile, std::string const& name)
{
  mesh::MeshView const m{mesh, topology, geometry};
  auto const interface = interface_triangles(m, in_layer, name);
  auto const cells = layer_cells(mesh, materials, in_layer);
  PmlLayer layer;
  layer.name = name;
  layer.shift = profile.shift;
  if (!stretching.empty() && stretching.shift != profile.shift)
    throw ModelError(ModelSubject::matched_layer, name,
                     "has another cfs_frequency than a layer before it: the stretch x + F / (a + i omega) is one "
                     "map over all layers",
                     "give every [[pml]] the same cfs_frequency");
  stretching.shift = profile.shift;
  layer.num_tets = cells.num_tets;
  layer.element_size = cells.element_size;
  auto const vertex_depth = vertex_depths(m, in_layer, interface);
  layer.thickness = layer_thickness(m, in_layer, vertex_depth, name);
  require_two_element_layers(layer);
  auto const pieces = mesh::connected_pieces(topology, in_layer);
  auto stretches = piece_shapes(m, in_layer, pieces, layer.element_size);
  set_profiles(stretches, profile, cells.fastest, layer);
  set_jacobians(stretching, mesh, in_layer, pieces, stretches, vertex_depth, layer.thickness);
  return layer;
}

} // namespace dgatd::dga
