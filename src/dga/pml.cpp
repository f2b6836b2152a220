#include "dgatd/dga/pml.hpp"

#include "dgatd/error.hpp"
#include "dgatd/host_parallel.hpp"

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

} // namespace

PmlLayer add_pml_layer(Stretching& stretching, mesh::Mesh const& mesh, mesh::Topology const& topology,
                       mesh::Geometry const& geometry, Materials const& materials, std::vector<char> const& in_layer,
                       PmlProfile const& profile, std::string const& name, std::string const& where)
{
  PmlLayer layer;
  layer.name = name;
  Index const num_tets = topology.num_tets();
  auto triangle_of = [&](Index f) {
    Triangle t;
    for (int i = 0; i < 3; ++i) t.p[i] = mesh.points[topology.face_vertices[f][i]];
    t.centre = scaled(add(add(t.p[0], t.p[1]), t.p[2]), 1.0 / 3.0);
    for (int i = 0; i < 3; ++i) t.radius = std::max(t.radius, norm(sub(t.p[i], t.centre)));
    return t;
  };
  std::vector<Triangle> interface;
  for (Index f = 0; f < topology.num_faces(); ++f) {
    auto const& tets = topology.face_tets[f];
    if (tets[1] >= 0 && (in_layer[tets[0]] != 0) != (in_layer[tets[1]] != 0)) interface.push_back(triangle_of(f));
  }
  if (interface.empty())
    throw Error(where, "[[pml]] region '" + name + "' touches no other region of " + mesh.source,
                "mesh the layer around (or behind) the domain it absorbs for, as its own physical volume");

  std::vector<char> layer_vertex(topology.num_vertices, 0);
  double edge_length = 0;
  Index num_edges = 0;
  double fastest = 0;
  for (Index t = 0; t < num_tets; ++t) {
    if (!in_layer[t]) continue;
    ++layer.num_tets;
    for (Index v : mesh.tets[t]) layer_vertex[v] = 1;
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b, ++num_edges)
        edge_length += norm(sub(mesh.points[mesh.tets[t][a]], mesh.points[mesh.tets[t][b]]));
    fastest = std::max(fastest, 1.0 / std::sqrt(materials.eps[t] * materials.mu[t]));
  }
  layer.element_size = edge_length / static_cast<double>(num_edges);

  std::vector<Depth> vertex_depth(topology.num_vertices);
  host_parallel_for("dgatd::pml::vertex_depth", topology.num_vertices, [&](std::int64_t v) {
    if (layer_vertex[v]) vertex_depth[v] = depth_of(mesh.points[v], interface);
  });

  // The thickness: the depth of the outer surface where it faces the layer's direction (the end of
  // a waveguide's layer, not its side walls), the median over those vertices.
  std::vector<double> ends;
  for (Index f : topology.boundary_faces) {
    if (!in_layer[topology.face_tets[f][0]]) continue;
    auto const& p = topology.face_vertices[f];
    Vec3 normal = cross(sub(mesh.points[p[1]], mesh.points[p[0]]), sub(mesh.points[p[2]], mesh.points[p[0]]));
    normal = scaled(normal, 1.0 / norm(normal));
    for (Index v : p)
      if (vertex_depth[v].d > 0 && std::abs(dot(normal, vertex_depth[v].n)) > 0.9) ends.push_back(vertex_depth[v].d);
  }
  if (ends.empty())
    throw Error(where, "[[pml]] region '" + name + "' has no outer surface across its depth in " + mesh.source,
                "end the layer with an exterior surface parallel to where it meets the domain");
  std::nth_element(ends.begin(), ends.begin() + static_cast<std::ptrdiff_t>(ends.size() / 2), ends.end());
  layer.thickness = ends[ends.size() / 2];
  // One element layer: the height of a regular tet of the layer's mean edge.
  double const element_layer = std::sqrt(2.0 / 3.0) * layer.element_size;
  auto metres = [](double x) {
    std::ostringstream s;
    s << std::setprecision(3) << x << " m";
    return s.str();
  };
  if (layer.thickness < 2 * element_layer)
    throw Error(where,
                "[[pml]] region '" + name + "' is " + metres(layer.thickness) +
                    " thick, less than two element layers (" + metres(element_layer) +
                    " each): a PML thinner than two element layers absorbs badly",
                "make the layer at least " + metres(2 * element_layer) + " thick or refine its mesh");

  // The connected pieces of the layer (a guide's two end layers are two), each stretched on its own.
  std::vector<Index> piece(num_tets, -1);
  Index pieces = 0;
  {
    std::vector<Index> stack;
    for (Index t0 = 0; t0 < num_tets; ++t0) {
      if (!in_layer[t0] || piece[t0] >= 0) continue;
      piece[t0] = pieces;
      stack.assign(1, t0);
      while (!stack.empty()) {
        Index const t = stack.back();
        stack.pop_back();
        for (Index f : topology.tet_faces[t])
          for (Index u : topology.face_tets[f])
            if (u >= 0 && in_layer[u] && piece[u] < 0) {
              piece[u] = pieces;
              stack.push_back(u);
            }
      }
      ++pieces;
    }
  }
  // Per piece: where it meets the domain. Its vertices' mean and second moments give the best plane
  // (the smallest principal variance is the squared rms distance from it, its eigenvector the
  // normal); their bounding box is the box a shell wraps.
  struct PieceShape {
    std::array<double, 10> moments{};
    Vec3 area_normal{}; // the sum of its interface faces' area vectors, out of the domain
    double area = 0;
    Vec3 low{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
             std::numeric_limits<double>::infinity()};
    Vec3 high{-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
              -std::numeric_limits<double>::infinity()};
    Vec3 layer_centre{};
    double layer_tets = 0;
    bool flat = true;
    Vec3 normal{};
    int order = 0;
    double alpha_max = 0;
  };
  std::vector<PieceShape> shapes(pieces);
  for (Index f = 0; f < topology.num_faces(); ++f) {
    auto const& tets = topology.face_tets[f];
    if (tets[1] < 0 || (in_layer[tets[0]] != 0) == (in_layer[tets[1]] != 0)) continue;
    auto& shape = shapes[piece[in_layer[tets[0]] ? tets[0] : tets[1]]];
    auto& m = shape.moments;
    {
      auto const& p = topology.face_vertices[f];
      Vec3 normal =
          scaled(cross(sub(mesh.points[p[1]], mesh.points[p[0]]), sub(mesh.points[p[2]], mesh.points[p[0]])), 0.5);
      Index const layer_tet = in_layer[tets[0]] ? tets[0] : tets[1];
      if (dot(normal, sub(geometry.tet_barycentre[layer_tet], mesh.points[p[0]])) < 0) normal = scaled(normal, -1.0);
      shape.area_normal = add(shape.area_normal, normal);
      shape.area += norm(normal);
    }
    for (Index v : topology.face_vertices[f]) {
      Vec3 const& x = mesh.points[v];
      m[0] += 1;
      for (int i = 0; i < 3; ++i) {
        m[1 + i] += x[i];
        shape.low[i] = std::min(shape.low[i], x[i]);
        shape.high[i] = std::max(shape.high[i], x[i]);
      }
      m[4] += x[0] * x[0], m[5] += x[1] * x[1], m[6] += x[2] * x[2];
      m[7] += x[0] * x[1], m[8] += x[0] * x[2], m[9] += x[1] * x[2];
    }
  }
  for (Index t = 0; t < num_tets; ++t)
    if (in_layer[t]) {
      shapes[piece[t]].layer_centre = add(shapes[piece[t]].layer_centre, geometry.tet_barycentre[t]);
      shapes[piece[t]].layer_tets += 1;
    }
  for (auto& shape : shapes) {
    auto const& m = shape.moments;
    if (m[0] == 0) continue;
    Vec3 const c{m[1] / m[0], m[2] / m[0], m[3] / m[0]};
    double const xx = m[4] / m[0] - c[0] * c[0], yy = m[5] / m[0] - c[1] * c[1], zz = m[6] / m[0] - c[2] * c[2];
    double const xy = m[7] / m[0] - c[0] * c[1], xz = m[8] / m[0] - c[0] * c[2], yz = m[9] / m[0] - c[1] * c[2];
    // The smallest eigenvalue of the symmetric 3 x 3 covariance, by the trigonometric formula.
    double const mean = (xx + yy + zz) / 3;
    double const off = xy * xy + xz * xz + yz * yz;
    double const spread =
        std::sqrt(((xx - mean) * (xx - mean) + (yy - mean) * (yy - mean) + (zz - mean) * (zz - mean) + 2 * off) / 6);
    double smallest = mean;
    if (spread > 0) {
      double const a = (xx - mean) / spread, b = (yy - mean) / spread, d = (zz - mean) / spread;
      double const e = xy / spread, f = xz / spread, g = yz / spread;
      double const half_det = 0.5 * (a * (b * d - g * g) - e * (e * d - g * f) + f * (e * g - b * f));
      double const angle = std::acos(std::clamp(half_det, -1.0, 1.0)) / 3;
      smallest = mean + 2 * spread * std::cos(angle + 2 * M_PI / 3);
    }
    // A flat layer meets the domain in a plane, rough by about a cell where the region follows tet
    // faces (0.5 mean edges rms on the jittered guide of the tests), and its faces point one way;
    // a shell meets it in a closed surface (0.37 of a cube's side off any plane), whose faces' area
    // vectors sum to nothing, however few cells the box has.
    shape.flat =
        std::sqrt(std::max(smallest, 0.0)) <= 2 * layer.element_size && norm(shape.area_normal) > 0.5 * shape.area;
    if (shape.flat) {
      // The normal: the row of (covariance - smallest I)'s adjugate with the largest norm.
      Vec3 const r0{xx - smallest, xy, xz}, r1{xy, yy - smallest, yz}, r2{xz, yz, zz - smallest};
      Vec3 candidates[3] = {cross(r0, r1), cross(r0, r2), cross(r1, r2)};
      Vec3 normal = candidates[0];
      for (auto const& candidate : candidates)
        if (norm(candidate) > norm(normal)) normal = candidate;
      normal = scaled(normal, 1.0 / norm(normal));
      Vec3 const inward = sub(scaled(shape.layer_centre, 1.0 / shape.layer_tets), c);
      shape.normal = dot(normal, inward) < 0 ? scaled(normal, -1.0) : normal;
    }
    shape.order = profile.order > 0 ? profile.order : (shape.flat ? 3 : 1);
    if (!shape.flat && shape.order > 1)
      throw Error(where,
                  "[[pml]] region '" + name + "' bends around the domain (a shell), where a profile of order " +
                      std::to_string(shape.order) + " is unstable",
                  "use order = 1 (the default for a shell), or flat layers");
    // A wave crossing the layer at normal incidence decays as exp(-int alpha / c dz) each way.
    shape.alpha_max = (shape.order + 1) * fastest * -std::log(profile.reflection) / (2 * layer.thickness);
    layer.alpha_max = std::max(layer.alpha_max, shape.alpha_max);
  }
  double const L = layer.thickness;
  // F(d), the integral of alpha(d) = alpha_max min(d / L, 1)^order over the depth.
  auto integral = [&](PieceShape const& shape, double d) {
    double const m = shape.order, a = shape.alpha_max;
    return d <= L ? a * L / (m + 1) * std::pow(d / L, m + 1) : a * (L / (m + 1) + d - L);
  };
  auto stretch_at = [&](PieceShape const& shape, Index v) {
    if (shape.flat) return scaled(shape.normal, integral(shape, vertex_depth[v].d));
    Vec3 stretch{};
    Vec3 const& x = mesh.points[v];
    for (int k = 0; k < 3; ++k) {
      if (x[k] > shape.high[k]) stretch[k] = integral(shape, x[k] - shape.high[k]);
      if (x[k] < shape.low[k]) stretch[k] = -integral(shape, shape.low[k] - x[k]);
    }
    return stretch;
  };
  // G = grad F in each tet of the layer: G e_i = F_i - F_0 for its edges e_i from vertex 0, so
  // G = [F_i - F_0] E^-1, E^-1's rows (e_j x e_k) / (e_i . e_j x e_k), (i, j, k) cyclic.
  stretching.tet_jacobian.resize(num_tets, std::array<double, 9>{});
  host_parallel_for("dgatd::pml::jacobian", num_tets, [&](std::int64_t t) {
    if (!in_layer[t]) return;
    auto const& shape = shapes[piece[t]];
    auto const& v = mesh.tets[t];
    Vec3 const& p0 = mesh.points[v[0]];
    Vec3 const e[3] = {sub(mesh.points[v[1]], p0), sub(mesh.points[v[2]], p0), sub(mesh.points[v[3]], p0)};
    double const volume6 = dot(e[0], cross(e[1], e[2]));
    Vec3 const f0 = stretch_at(shape, v[0]);
    std::array<double, 9> g{};
    for (int i = 0; i < 3; ++i) {
      Vec3 const rise = sub(stretch_at(shape, v[1 + i]), f0);
      Vec3 const dual = scaled(cross(e[(i + 1) % 3], e[(i + 2) % 3]), 1.0 / volume6);
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) g[3 * r + c] += rise[r] * dual[c];
    }
    stretching.tet_jacobian[t] = g;
  });
  return layer;
}

} // namespace dgatd::dga
