#include "dgatd/dga/pml.hpp"

#include "dgatd/error.hpp"
#include "dgatd/host_parallel.hpp"
#include "dgatd/mesh/surfaces.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
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

// The connected pieces of the layer over all ranks' parts, numbered as mesh::connected_pieces numbers
// them in the whole mesh (in the order of their lowest tet). Each rank's pieces are joined through
// the tets where parts meet (those a rank holds but does not count, and counted ones beside them),
// each piece named by its lowest global tet.
mesh::TetPieces connected_pieces(mesh::Topology const& topology, std::vector<char> const& in_layer,
                                 PartOfTheMesh const& part)
{
  auto pieces = mesh::connected_pieces(topology, in_layer);
  std::vector<std::int64_t> lowest(static_cast<std::size_t>(pieces.count), std::numeric_limits<std::int64_t>::max());
  for (Index t = 0; t < topology.num_tets(); ++t)
    if (in_layer[t]) lowest[pieces.piece[t]] = std::min<std::int64_t>(lowest[pieces.piece[t]], part.tet_id(t));
  // Rows (global tet, piece) where parts meet, and (-1, piece) for every piece.
  std::vector<std::int64_t> rows;
  for (auto name : lowest) rows.insert(rows.end(), {-1, name});
  for (Index t = 0; t < topology.num_tets(); ++t) {
    if (!in_layer[t]) continue;
    bool meets = !part.counts(t);
    for (Index f : topology.tet_faces[t])
      for (Index u : topology.face_tets[f]) meets = meets || (u >= 0 && !part.counts(u));
    if (meets) rows.insert(rows.end(), {part.tet_id(t), lowest[pieces.piece[t]]});
  }
  auto const all = parallel::all_gathered(part.communicator, rows);
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  for (std::size_t k = 0; k < all.size(); k += 2) pairs.emplace_back(all[k], all[k + 1]);
  std::sort(pairs.begin(), pairs.end());
  // Union-find over the pieces' names, each set named by its lowest.
  std::map<std::int64_t, std::int64_t> joined;
  for (auto const& [tet, name] : pairs) joined.emplace(name, name);
  auto root = [&](std::int64_t name) {
    while (joined[name] != name) name = joined[name] = joined[joined[name]];
    return name;
  };
  for (std::size_t k = 1; k < pairs.size(); ++k)
    if (pairs[k].first >= 0 && pairs[k].first == pairs[k - 1].first) {
      auto const a = root(pairs[k].second), b = root(pairs[k - 1].second);
      joined[std::max(a, b)] = std::min(a, b);
    }
  std::vector<std::int64_t> roots;
  for (auto const& entry : joined) roots.push_back(root(entry.first));
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  for (Index t = 0; t < topology.num_tets(); ++t)
    if (in_layer[t])
      pieces.piece[t] = static_cast<Index>(std::lower_bound(roots.begin(), roots.end(), root(lowest[pieces.piece[t]])) -
                                           roots.begin());
  pieces.count = static_cast<Index>(roots.size());
  return pieces;
}

// A face of the interface: its global id, the piece behind it, its area vector out of that piece and
// its corners in the order of their ids.
struct InterfaceFace {
  Index face = 0;
  Index piece = 0;
  Vec3 area_vector{};
  std::array<Vec3, 3> corners{};
};

// The interface over all ranks, in increasing global face id, each face from the rank that counts its
// layer tet.
std::vector<InterfaceFace> interface_faces(mesh::MeshView const& m, std::vector<char> const& in_layer,
                                           mesh::TetPieces const& pieces, PartOfTheMesh const& part,
                                           std::string const& name)
{
  auto const& topology = m.topology;
  std::vector<std::int64_t> rows;
  for (Index f = 0; f < topology.num_faces(); ++f) {
    if (!on_interface(topology, in_layer, f)) continue;
    auto const& tets = topology.face_tets[f];
    Index const layer_tet = in_layer[tets[0]] ? tets[0] : tets[1];
    if (!part.counts(layer_tet)) continue;
    rows.push_back(part.face_id(f));
    rows.push_back(pieces.piece[layer_tet]);
    parallel::append_point(rows, mesh::face_area_vector(m, f, layer_tet));
    for (Index v : topology.face_vertices[f]) parallel::append_point(rows, m.mesh.points[v]);
  }
  auto const all = parallel::all_gathered(part.communicator, rows);
  std::vector<InterfaceFace> interface;
  for (std::size_t k = 0; k < all.size(); k += 14) {
    InterfaceFace face;
    face.face = static_cast<Index>(all[k]);
    face.piece = static_cast<Index>(all[k + 1]);
    face.area_vector = parallel::point_at(&all[k + 2]);
    for (int i = 0; i < 3; ++i) face.corners[i] = parallel::point_at(&all[k + 5 + 3 * i]);
    interface.push_back(face);
  }
  std::sort(interface.begin(), interface.end(),
            [](InterfaceFace const& a, InterfaceFace const& b) { return a.face < b.face; });
  if (interface.empty())
    throw ModelError(ModelSubject::matched_layer, name, "touches no other region of " + m.mesh.source,
                     "mesh the layer around (or behind) the domain it absorbs for, as its own physical volume");
  return interface;
}

// The interface's triangles, as the depth of a point takes them.
std::vector<Triangle> triangles_of(std::vector<InterfaceFace> const& interface)
{
  std::vector<Triangle> triangles;
  for (auto const& face : interface) {
    Triangle t;
    for (int i = 0; i < 3; ++i) t.p[i] = face.corners[i];
    t.centre = scaled(add(add(t.p[0], t.p[1]), t.p[2]), 1.0 / 3.0);
    for (int i = 0; i < 3; ++i) t.radius = std::max(t.radius, norm(sub(t.p[i], t.centre)));
    triangles.push_back(t);
  }
  return triangles;
}

// The layer's size in tets and its mean edge length, and the fastest wave speed in it, over the
// tets the ranks count.
struct LayerCells {
  Index num_tets = 0;
  double element_size = 0;
  double fastest = 0;
};
LayerCells layer_cells(mesh::Mesh const& mesh, Materials const& materials, std::vector<char> const& in_layer,
                       PartOfTheMesh const& part)
{
  double sums[3] = {0, 0, 0}; // tets, edge length, edges
  double fastest = 0;
  for (Index t = 0; t < mesh.num_tets(); ++t) {
    if (!in_layer[t] || !part.counts(t)) continue;
    sums[0] += 1;
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b, sums[2] += 1)
        sums[1] += norm(sub(mesh.points[mesh.tets[t][a]], mesh.points[mesh.tets[t][b]]));
    fastest = std::max(fastest, 1.0 / std::sqrt(materials.eps[t] * materials.mu[t]));
  }
  part.communicator.sum(sums, 3);
  LayerCells cells;
  for (double speed : parallel::all_gathered(part.communicator, std::vector<double>{fastest}))
    cells.fastest = std::max(cells.fastest, speed);
  cells.num_tets = static_cast<Index>(sums[0]);
  cells.element_size = sums[1] / sums[2];
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
// a waveguide's layer, not its side walls), the median over those vertices of all ranks' counted tets
// (whose faces without a tet beyond lie on the whole mesh's boundary).
double layer_thickness(mesh::MeshView const& m, std::vector<char> const& in_layer,
                       std::vector<Depth> const& vertex_depth, PartOfTheMesh const& part, std::string const& name)
{
  auto const& topology = m.topology;
  std::vector<double> mine;
  for (Index f : topology.boundary_faces) {
    Index const t = topology.face_tets[f][0];
    if (!in_layer[t] || !part.counts(t)) continue;
    Vec3 const area_vector = mesh::face_area_vector(m, f, t);
    Vec3 const normal = scaled(area_vector, 1.0 / norm(area_vector));
    for (Index v : topology.face_vertices[f])
      if (vertex_depth[v].d > 0 && std::abs(dot(normal, vertex_depth[v].n)) > 0.9) mine.push_back(vertex_depth[v].d);
  }
  auto ends = parallel::all_gathered(part.communicator, mine);
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
                                       mesh::TetPieces const& pieces, std::vector<InterfaceFace> const& interface,
                                       double element_size, PartOfTheMesh const& part)
{
  auto const count = static_cast<std::size_t>(pieces.count);
  std::vector<mesh::SurfaceShape> shapes(count);
  std::vector<char> meets_domain(count, 0);
  for (auto const& face : interface) {
    shapes[face.piece].add_face(face.area_vector, face.corners);
    meets_domain[face.piece] = 1;
  }
  std::vector<double> layer_centre(4 * count, 0.0); // per piece: sum of barycentres, tets
  for (Index t = 0; t < m.topology.num_tets(); ++t)
    if (in_layer[t] && part.counts(t)) {
      double* sums = &layer_centre[4 * static_cast<std::size_t>(pieces.piece[t])];
      for (int c = 0; c < 3; ++c) sums[c] += m.geometry.tet_barycentre[t][c];
      sums[3] += 1;
    }
  part.communicator.sum(layer_centre.data(), layer_centre.size());
  std::vector<PieceStretch> stretches(count);
  for (std::size_t p = 0; p < count; ++p) {
    if (!meets_domain[p]) continue; // a piece that meets no domain stays unstretched
    auto& shape = shapes[p];
    shape.finish();
    auto& piece = stretches[p];
    piece.meets_domain = true;
    piece.low = shape.low;
    piece.high = shape.high;
    piece.flat = std::sqrt(std::max(shape.vertices.mean_square_distance(), 0.0)) <= 2 * element_size &&
                 norm(shape.area_vector) > 0.5 * shape.area;
    if (piece.flat) {
      Vec3 const normal = shape.vertices.normal();
      double const* sums = &layer_centre[4 * p];
      Vec3 const inward = sub(scaled(Vec3{sums[0], sums[1], sums[2]}, 1.0 / sums[3]), shape.vertices.centre());
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

// The tets of the bent pieces that straddle a plane of their box (x_k = low_k or high_k), over the
// ranks' counted tets; a corner within a millionth of the layer's mean edge of the plane lies on it.
Index straddling_tets(mesh::Mesh const& mesh, std::vector<char> const& in_layer, mesh::TetPieces const& pieces,
                      std::vector<PieceStretch> const& stretches, double element_size, PartOfTheMesh const& part)
{
  double const on_plane = 1e-6 * element_size;
  double count = 0;
  for (Index t = 0; t < mesh.num_tets(); ++t) {
    if (!in_layer[t] || !part.counts(t)) continue;
    auto const& piece = stretches[pieces.piece[t]];
    if (!piece.meets_domain || piece.flat) continue;
    bool straddles = false;
    for (int k = 0; k < 3 && !straddles; ++k)
      for (double plane : {piece.low[k], piece.high[k]}) {
        bool below = false, above = false;
        for (Index v : mesh.tets[t]) {
          below = below || mesh.points[v][k] < plane - on_plane;
          above = above || mesh.points[v][k] > plane + on_plane;
        }
        straddles = straddles || (below && above);
      }
    count += straddles ? 1 : 0;
  }
  part.communicator.sum(&count, 1);
  return static_cast<Index>(count);
}

} // namespace

PmlLayer add_pml_layer(Stretching& stretching, mesh::Mesh const& mesh, mesh::Topology const& topology,
                       mesh::Geometry const& geometry, Materials const& materials, std::vector<char> const& in_layer,
                       PmlProfile const& profile, std::string const& name, PartOfTheMesh const* part)
{
  if (!part) {
    // The whole mesh: one part, counting every tet, in its own numbering.
    parallel::SingleProcess const alone{};
    std::vector<char> const every_tet;
    std::vector<Index> const own_ids;
    PartOfTheMesh const whole{alone, every_tet, own_ids, own_ids};
    return add_pml_layer(stretching, mesh, topology, geometry, materials, in_layer, profile, name, &whole);
  }
  mesh::MeshView const m{mesh, topology, geometry};
  auto const pieces = connected_pieces(topology, in_layer, *part);
  auto const interface = interface_faces(m, in_layer, pieces, *part, name);
  auto const cells = layer_cells(mesh, materials, in_layer, *part);
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
  auto const vertex_depth = vertex_depths(m, in_layer, triangles_of(interface));
  layer.thickness = layer_thickness(m, in_layer, vertex_depth, *part, name);
  require_two_element_layers(layer);
  auto stretches = piece_shapes(m, in_layer, pieces, interface, layer.element_size, *part);
  set_profiles(stretches, profile, cells.fastest, layer);
  set_jacobians(stretching, mesh, in_layer, pieces, stretches, vertex_depth, layer.thickness);
  layer.straddling_tets = straddling_tets(mesh, in_layer, pieces, stretches, layer.element_size, *part);
  return layer;
}

} // namespace dgatd::dga
