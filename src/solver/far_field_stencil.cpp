#include "dgatd/solver/far_field_stencil.hpp"

#include "dgatd/error.hpp"
#include "dgatd/solver/stencils.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace dgatd::solver {
namespace {

// The regions the surface splits the tets into: tets joined through faces off the surface share a
// region.
std::vector<Index> regions_apart(mesh::Topology const& topology, std::vector<char> const& on_surface)
{
  std::vector<Index> region(topology.num_tets(), -1);
  Index regions = 0;
  std::vector<Index> stack;
  for (Index seed = 0; seed < topology.num_tets(); ++seed) {
    if (region[seed] >= 0) continue;
    region[seed] = regions;
    stack.push_back(seed);
    while (!stack.empty()) {
      Index const t = stack.back();
      stack.pop_back();
      for (Index f : topology.tet_faces[t]) {
        if (on_surface[f]) continue;
        for (Index other : topology.face_tets[f])
          if (other >= 0 && region[other] < 0) {
            region[other] = regions;
            stack.push_back(other);
          }
      }
    }
    ++regions;
  }
  return region;
}

Index edge_between(mesh::Topology const& topology, Index t, Index a, Index b)
{
  for (Index e : topology.tet_edges[t]) {
    auto const& ends = topology.edge_vertices[e];
    if ((ends[0] == a && ends[1] == b) || (ends[0] == b && ends[1] == a)) return e;
  }
  return -1;
}

} // namespace

std::optional<std::pair<std::string, std::string>> far_field_tet_problem(dga::Materials const& materials, Index t,
                                                                         double eps, double mu)
{
  if (std::abs(materials.eps[t] - eps) > 1e-12 * eps || std::abs(materials.mu[t] - mu) > 1e-12 * mu)
    return std::pair{"crosses materials (eps_r " + format_number(eps / dga::eps0) + " and " +
                         format_number(materials.eps[t] / dga::eps0) + ")",
                     std::string("put the surface in one material, around everything that scatters or radiates")};
  if ((!materials.sigma.empty() && materials.sigma[t] > 0) || materials.stretching.stretches(t) ||
      materials.disperses(t))
    return std::pair{std::string("touches a lossy or dispersive material or a matched layer"),
                     std::string("keep the surface a cell away from them")};
  return std::nullopt;
}

FarFieldSides far_field_sides(mesh::MeshView const& m, dga::Materials const& materials, int surface_tag,
                              std::string const& name)
{
  auto const& topology = m.topology;
  auto const& points = m.mesh.points;
  auto fail = [&](std::string const& problem, std::string const& remedy) {
    throw ModelError(ModelSubject::far_field, name, problem, remedy);
  };
  std::vector<char> on_surface(topology.num_faces(), 0);
  std::vector<Index> faces;
  for (Index f = 0; f < topology.num_faces(); ++f)
    if (topology.face_tag[f] == surface_tag) {
      on_surface[f] = 1;
      faces.push_back(f);
    }
  if (faces.empty()) fail("has no faces in " + m.mesh.source, "name a physical surface meshed with the volume");
  for (Index f : faces)
    if (topology.face_tets[f][1] < 0)
      fail("lies on the boundary of " + m.mesh.source,
           "use a closed surface inside the mesh, around what radiates and in one medium");
  // The outside is the region with tets beyond the surface's bounding box (the inside may have
  // boundaries of its own: a PEC scatterer's hole).
  auto const region = regions_apart(topology, on_surface);
  Vec3 low = points[topology.face_vertices[faces[0]][0]], high = low;
  for (Index f : faces)
    for (Index v : topology.face_vertices[f])
      for (int c = 0; c < 3; ++c) {
        low[c] = std::min(low[c], points[v][c]);
        high[c] = std::max(high[c], points[v][c]);
      }
  std::vector<char> beyond(topology.num_tets(), 0);
  for (Index t = 0; t < topology.num_tets(); ++t) {
    auto const& b = m.geometry.tet_barycentre[t];
    for (int c = 0; c < 3; ++c)
      if (b[c] < low[c] || b[c] > high[c]) beyond[region[t]] = 1;
  }

  FarFieldSides sides;
  sides.eps = materials.eps[topology.face_tets[faces[0]][0]];
  sides.mu = materials.mu[topology.face_tets[faces[0]][0]];
  for (Index f : faces) {
    auto const [t0, t1] = topology.face_tets[f];
    bool const outside0 = beyond[region[t0]], outside1 = beyond[region[t1]];
    if (region[t0] == region[t1] || outside0 == outside1)
      fail("does not enclose a region of " + m.mesh.source + " (a face has the same region on both sides)",
           "use a closed surface inside the mesh");
    for (Index t : {t0, t1})
      if (auto const problem = far_field_tet_problem(materials, t, sides.eps, sides.mu))
        fail(problem->first, problem->second);
    sides.places.push_back(static_cast<Index>(sides.faces.size()));
    sides.faces.push_back(f);
    sides.inside.push_back(outside0 ? t1 : t0);
  }
  sides.whole_faces = static_cast<Index>(sides.faces.size());
  return sides;
}

FarFieldStencil far_field_stencil(mesh::MeshView const& m, dga::HostOperators const& ops, FarFieldSides const& sides,
                                  std::string const& name, std::vector<double> const& frequencies)
{
  auto const& topology = m.topology;
  auto const& points = m.mesh.points;
  FarFieldStencil stencil;
  stencil.name = name;
  stencil.frequencies = frequencies;
  stencil.eps = sides.eps;
  stencil.mu = sides.mu;
  stencil.places = sides.places;
  stencil.whole_faces = sides.whole_faces;
  for (std::size_t k = 0; k < sides.faces.size(); ++k) {
    Index const f = sides.faces[k];
    auto const [t0, t1] = topology.face_tets[f];
    Index const inside = sides.inside[k], outside = inside == t0 ? t1 : t0;
    auto const& v = topology.face_vertices[f];
    Vec3 const& pa = points[v[0]];
    Vec3 const& pb = points[v[1]];
    Vec3 const& pc = points[v[2]];
    Vec3 const area_vector = scaled(cross(sub(pb, pa), sub(pc, pa)), 0.5);
    double const area = norm(area_vector);
    Vec3 const unit = scaled(area_vector, 1 / area);
    // Barycentric gradients in the face's plane; Whitney's form of edge (p, q) at the centroid is
    // (grad lambda_q - grad lambda_p) / 3, which gives back any uniform field's tangential part.
    std::array<Vec3, 3> gradient{scaled(cross(unit, sub(pc, pb)), 0.5 / area),
                                 scaled(cross(unit, sub(pa, pc)), 0.5 / area),
                                 scaled(cross(unit, sub(pb, pa)), 0.5 / area)};
    constexpr int edge_ends[3][2] = {{0, 1}, {1, 2}, {0, 2}}; // a < b < c: each runs low to high
    std::array<Index, 6> unknowns{};
    std::array<Vec3, 3> weights{};
    for (int k = 0; k < 3; ++k) {
      Index const e = edge_between(topology, t0, v[edge_ends[k][0]], v[edge_ends[k][1]]);
      for (int half = 0; half < 2; ++half)
        unknowns[2 * k + half] = ops.layout.dof_of_half_edge[topology.edge_half_edges[e][half]];
      weights[k] = scaled(sub(gradient[edge_ends[k][1]], gradient[edge_ends[k][0]]), 1.0 / 3.0);
    }
    stencil.edge_unknowns.push_back(unknowns);
    stencil.edge_weights.push_back(weights);

    // h on the face: each tet's mean h, which stands at its barycentre, interpolated linearly along the
    // normal to the face's plane (the plain mean of the two is first order wherever the two tets reach
    // unequally far across the face).
    std::array<std::array<double, 12>, 2> sides{};
    for (int side = 0; side < 2; ++side) {
      auto const mean = tet_mean_stencil(m, ops.layout, side == 0 ? t0 : t1);
      for (int j = 0; j < 4; ++j)
        for (int c = 0; c < 3; ++c) sides[side][4 * c + j] = mean.h[j][c];
    }
    Vec3 const& centroid = m.geometry.face_barycentre[f];
    double const reach0 = std::abs(dot(unit, sub(m.geometry.tet_barycentre[t0], centroid)));
    double const reach1 = std::abs(dot(unit, sub(m.geometry.tet_barycentre[t1], centroid)));
    for (double& w : sides[0]) w *= reach1 / (reach0 + reach1);
    for (double& w : sides[1]) w *= reach0 / (reach0 + reach1);
    stencil.tets.push_back({t0, t1});
    stencil.tet_weights.push_back(sides);

    Vec3 const across = sub(m.geometry.tet_barycentre[outside], m.geometry.tet_barycentre[inside]);
    stencil.normals.push_back(dot(unit, across) > 0 ? unit : scaled(unit, -1.0));
    stencil.centroids.push_back(m.geometry.face_barycentre[f]);
    stencil.areas.push_back(area);
  }
  return stencil;
}

} // namespace dgatd::solver
