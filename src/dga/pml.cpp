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

  // A wave crossing the layer at normal incidence decays as exp(-int alpha / c dz) each way.
  layer.alpha_max = (profile.order + 1) * fastest * -std::log(profile.reflection) / (2 * layer.thickness);
  // The direction at the barycentres.
  std::vector<Depth> tet_depth(num_tets);
  host_parallel_for("dgatd::pml::tet_depth", num_tets, [&](std::int64_t t) {
    if (in_layer[t]) tet_depth[t] = depth_of(geometry.tet_barycentre[t], interface);
  });
  // F(d), the integral of alpha(d) = alpha_max min(d / L, 1)^order over the depth, at the vertices;
  // its gradient in each tet of the layer, linear there.
  double const m = profile.order, L = layer.thickness, a = layer.alpha_max;
  auto integral = [&](double d) {
    return d <= L ? a * L / (m + 1) * std::pow(d / L, m + 1) : a * (L / (m + 1) + d - L);
  };
  // The stretch is one direction per tet, an exact change of coordinates only where the direction
  // is one and the same: behind a flat interface. Where the layer bends around a shell's edges and
  // corners the tets' maps tear apart and the layer is active: box shells 2 to 4 mean edges thick
  // blew up within 2200 to 8400 steps (docs/open_regions.md section 4). The tell is the interface
  // itself: a flat layer meets the domain in a plane (rough by about a cell where the region follows
  // tet faces: 0.5 mean edges rms on the jittered guide of the tests), a shell in a closed surface
  // (0.38 of a cube's side). Each connected piece of the layer is checked on its own,
  // so a guide's two end layers pass. Corners need a stretch along several axes at once; until
  // then such a layer is refused unless allowed.
  if (!profile.allow_bends) {
    std::vector<Index> piece(num_tets, -1);
    std::vector<Index> stack;
    Index pieces = 0;
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
    // Per piece: the interface's vertices' mean and second moments; the smallest principal variance
    // is the squared rms distance from the best plane.
    std::vector<std::array<double, 10>> moments(pieces, std::array<double, 10>{});
    for (Index f = 0; f < topology.num_faces(); ++f) {
      auto const& tets = topology.face_tets[f];
      if (tets[1] < 0 || (in_layer[tets[0]] != 0) == (in_layer[tets[1]] != 0)) continue;
      auto& m = moments[piece[in_layer[tets[0]] ? tets[0] : tets[1]]];
      for (Index v : topology.face_vertices[f]) {
        Vec3 const& x = mesh.points[v];
        m[0] += 1;
        for (int i = 0; i < 3; ++i) m[1 + i] += x[i];
        m[4] += x[0] * x[0], m[5] += x[1] * x[1], m[6] += x[2] * x[2];
        m[7] += x[0] * x[1], m[8] += x[0] * x[2], m[9] += x[1] * x[2];
      }
    }
    double worst = 0;
    for (auto const& m : moments) {
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
      worst = std::max(worst, std::sqrt(std::max(smallest, 0.0)));
    }
    if (worst > 2 * layer.element_size) {
      throw Error(where,
                  "[[pml]] region '" + name + "' bends: it meets the domain on a surface " + metres(worst) +
                      " (rms) off its best plane, more than two mean edges (" + metres(layer.element_size) +
                      " each; the edges and corners of a shell), where this layer's one-direction stretch is "
                      "unstable",
                  "use flat layers, one direction each (dgatd mesh waveguide --pml), or [boundary] absorbing "
                  "around a box; allow_bends = true runs it for a short run (docs/open_regions.md, section 4)");
    }
  }
  stretching.tet_direction.resize(num_tets, Vec3{});
  stretching.tet_gradient.resize(num_tets, Vec3{});
  for (Index t = 0; t < num_tets; ++t) {
    if (!in_layer[t]) continue;
    auto const& v = mesh.tets[t];
    Vec3 const& p0 = mesh.points[v[0]];
    Vec3 const e[3] = {sub(mesh.points[v[1]], p0), sub(mesh.points[v[2]], p0), sub(mesh.points[v[3]], p0)};
    double const rise[3] = {integral(vertex_depth[v[1]].d) - integral(vertex_depth[v[0]].d),
                            integral(vertex_depth[v[2]].d) - integral(vertex_depth[v[0]].d),
                            integral(vertex_depth[v[3]].d) - integral(vertex_depth[v[0]].d)};
    // g . e_i = rise_i: g = sum_i rise_i (e_j x e_k) / (e_i . e_j x e_k), (i, j, k) cyclic.
    double const volume6 = dot(e[0], cross(e[1], e[2]));
    Vec3 g{};
    for (int i = 0; i < 3; ++i) g = add(g, scaled(cross(e[(i + 1) % 3], e[(i + 2) % 3]), rise[i] / volume6));
    if (dot(g, tet_depth[t].n) > stretching.alpha(t)) {
      stretching.tet_direction[t] = tet_depth[t].n;
      stretching.tet_gradient[t] = g;
    }
  }
  return layer;
}

} // namespace dgatd::dga
