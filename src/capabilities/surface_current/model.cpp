// [[surface_current]] in a run: what it runs with, the faces and their stencil, and its term.

#include "surface_current.hpp"
#include "term.hpp"

#include "dgatd/error.hpp"
#include "dgatd/solver/stencils.hpp"
#include "dgatd/solver/term_recipe.hpp"
#include "simulation/capability_models.hpp"

#include <algorithm>
#include <any>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <type_traits>

namespace dgatd::simulation {
namespace {

using capabilities::SurfaceCurrentStencil;

// The tets around vertex v on tet t's side of the surface and in its medium: those reached from t
// through faces at v that lie on no named surface and are not PEC, ascending.
std::vector<Index> side_tets(Problem const& problem, Index v, Index t, std::function<bool(int)> const& named)
{
  auto const& topology = problem.topology;
  auto const& materials = problem.materials;
  std::vector<Index> side{t}, stack{t};
  while (!stack.empty()) {
    Index const here = stack.back();
    stack.pop_back();
    for (Index f : topology.tet_faces[here]) {
      auto const& corners = topology.face_vertices[f];
      if (std::find(corners.begin(), corners.end(), v) == corners.end() || named(topology.face_tag[f]) ||
          problem.face_kinds[f] == dga::FaceKind::pec)
        continue;
      for (Index other : topology.face_tets[f])
        if (other >= 0 && std::find(side.begin(), side.end(), other) == side.end() &&
            materials.eps[other] == materials.eps[t] && materials.mu[other] == materials.mu[t]) {
          side.push_back(other);
          stack.push_back(other);
        }
    }
  }
  std::sort(side.begin(), side.end());
  return side;
}

// The weights, over values standing at points at, of the value at x of their least-squares linear
// fit; empty where they fix no linear fit (fewer than four, or about a plane).
std::vector<double> fit_weights(std::vector<Vec3> const& at, Vec3 const& x)
{
  if (at.size() < 4) return {};
  double reach = 0;
  for (auto const& p : at) reach = std::max(reach, norm(sub(p, x)));
  std::vector<std::array<double, 4>> rows;
  for (auto const& p : at) {
    Vec3 const d = scaled(sub(p, x), 1 / reach);
    rows.push_back({1.0, d[0], d[1], d[2]});
  }
  // The fit's value at x is y . row summed over the values, y solving (A^T A) y = (1, 0, 0, 0).
  std::array<std::array<double, 5>, 4> system{};
  for (auto const& row : rows)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) system[i][j] += row[i] * row[j];
  system[0][4] = 1;
  for (int i = 0; i < 4; ++i) {
    int pivot = i;
    for (int r = i + 1; r < 4; ++r)
      if (std::abs(system[r][i]) > std::abs(system[pivot][i])) pivot = r;
    // The points' spread over reach, squared and summed, along the direction they spread least.
    if (std::abs(system[pivot][i]) < 1e-3 * static_cast<double>(at.size())) return {};
    std::swap(system[i], system[pivot]);
    for (int r = 0; r < 4; ++r) {
      if (r == i) continue;
      double const factor = system[r][i] / system[i][i];
      for (int c = i; c < 5; ++c) system[r][c] -= factor * system[i][c];
    }
  }
  std::vector<double> weights;
  for (auto const& row : rows) {
    double w = 0;
    for (int i = 0; i < 4; ++i) w += system[i][4] / system[i][i] * row[i];
    weights.push_back(w);
  }
  return weights;
}

// The reading of a side (tet t, n its unit normal out of the conductor, value the first of its
// values) at the face's centroid: the linear least-squares fit of the mean fields of the tets around
// the face's lowest vertex on that side, J_s = n x h and rho_s = eps n . e folded into the weights.
// A fit extrapolates to the face the normal derivatives that a single tet's reading, a quarter of its
// height away, misses (on a curved conductor, d(h_t)/dn ~ h_t / radius); where the tets fix no fit,
// the side's tet alone.
void add_side(Problem const& problem, Index face, Index t, Vec3 const& n, Index value,
              std::function<bool(int)> const& named, SurfaceCurrentStencil& stencil)
{
  auto const& topology = problem.topology;
  Vec3 const& centroid = problem.geometry.face_barycentre[face];
  auto tets = side_tets(problem, topology.face_vertices[face][0], t, named);
  std::vector<Vec3> at;
  for (Index u : tets) at.push_back(problem.geometry.tet_barycentre[u]);
  auto weights = fit_weights(at, centroid);
  if (weights.empty()) {
    tets = {t};
    weights = {1.0};
  }
  double const eps = problem.materials.eps[t];
  for (std::size_t k = 0; k < tets.size(); ++k) {
    auto const r = solver::tet_mean_stencil(problem.view(), problem.operators.layout, tets[k]);
    for (int j = 0; j < 4; ++j) {
      Vec3 const current = scaled(cross(n, r.h[j]), weights[k]);
      stencil.current_tets.push_back(tets[k]);
      stencil.current_faces.push_back(j);
      stencil.current_values.push_back(value);
      stencil.current_weights.push_back({current[0], current[1], current[2]});
    }
    for (int i = 0; i < 12; ++i) {
      if (r.dofs[i] == problem.operators.layout.zero_slot) continue;
      stencil.charge_dofs.push_back(r.dofs[i]);
      stencil.charge_values.push_back(value + 3);
      stencil.charge_weights.push_back(weights[k] * eps * dot(n, r.e[i]));
    }
  }
}

// Why tet t beside a surface gives no surface current, or nothing when it does.
bool gives_no_reading(dga::Materials const& materials, Index t)
{
  return materials.stretching.stretches(t) || materials.disperses(t);
}

// The faces of the surfaces tags that this process reads (over ranks: those whose lowest vertex its
// rank owns, which steps both their tets), with their stencil; refuses, alike on every rank, a
// surface that is not PEC or touches a matched layer or a dispersive medium.
SurfaceCurrentStencil surface_current_stencil(Placement const& placement, capabilities::SurfaceCurrent const& item,
                                              std::string const& where)
{
  auto const& problem = placement.problem();
  auto const& topology = problem.topology;
  auto const& points = problem.mesh.points;
  auto const* part = placement.part();
  std::vector<int> tags;
  for (auto const& surface : item.surfaces) tags.push_back(placement.surface_tag(surface, where));
  std::function<bool(int)> const named = [&tags](int tag) {
    return std::find(tags.begin(), tags.end(), tag) != tags.end();
  };

  for (std::size_t s = 0; s < tags.size(); ++s) {
    double not_pec = 0, unread = 0;
    for (Index f = 0; f < topology.num_faces(); ++f) {
      if (topology.face_tag[f] != tags[s]) continue;
      not_pec += problem.face_kinds[f] != dga::FaceKind::pec;
      for (Index t : topology.face_tets[f]) unread += t >= 0 && gives_no_reading(problem.materials, t);
    }
    if (placement.largest(not_pec) > 0)
      throw Error(where, "[[surface_current]] surface '" + item.surfaces[s] + "' is not PEC",
                  "list it in [boundary] pec, or name the PEC surfaces only");
    if (placement.largest(unread) > 0)
      throw Error(where,
                  "[[surface_current]] surface '" + item.surfaces[s] +
                      "' touches a matched layer or a dispersive medium, where n x h and n . d are not the "
                      "surface's current and charge",
                  "keep the surface out of [[pml]] regions and dispersive materials");
  }

  // The front of a face inside the mesh faces where its triangle's normal points (the mesh file's
  // vertex order).
  std::map<std::array<Index, 3>, Vec3> triangle_normals;
  for (std::size_t k = 0; k < problem.mesh.boundary_triangles.size(); ++k) {
    if (!named(problem.mesh.boundary_triangle_tag[k])) continue;
    auto const& v = problem.mesh.boundary_triangles[k];
    auto key = v;
    std::sort(key.begin(), key.end());
    triangle_normals[key] = cross(sub(points[v[1]], points[v[0]]), sub(points[v[2]], points[v[0]]));
  }

  SurfaceCurrentStencil stencil;
  stencil.name = item.name;
  stencil.frequencies = item.frequencies;
  std::vector<Index> global_faces;
  auto& geometry = stencil.geometry;
  for (Index f = 0; f < topology.num_faces(); ++f) {
    if (!named(topology.face_tag[f])) continue;
    auto const& v = topology.face_vertices[f];
    if (part && !part->owns_vertex[v[0]]) continue;
    Vec3 const& centroid = problem.geometry.face_barycentre[f];
    auto const [t0, t1] = topology.face_tets[f];
    Vec3 const drawn = cross(sub(points[v[1]], points[v[0]]), sub(points[v[2]], points[v[0]]));
    double const area = norm(drawn) / 2;
    Vec3 normal = drawn;
    auto const into = [&](Index t) { return dot(normal, sub(problem.geometry.tet_barycentre[t], centroid)) > 0; };
    if (t1 < 0) {
      if (!into(t0)) normal = scaled(normal, -1.0);
    } else if (auto const it = triangle_normals.find(v); it != triangle_normals.end()) {
      normal = it->second;
    }
    normal = scaled(normal, 1 / norm(normal));
    for (Index t : {t0, t1})
      if (t >= 0) {
        bool const front = into(t);
        add_side(problem, f, t, front ? normal : scaled(normal, -1.0), front ? 0 : 4, named, stencil);
      }
    stencil.current_offsets.push_back(static_cast<Index>(stencil.current_tets.size()));
    stencil.charge_offsets.push_back(static_cast<Index>(stencil.charge_dofs.size()));
    // The triangle drawn with the front's normal.
    bool const turned = dot(drawn, normal) < 0;
    geometry.corners.push_back({points[v[0]], points[turned ? v[2] : v[1]], points[turned ? v[1] : v[2]]});
    geometry.normals.push_back(normal);
    geometry.areas.push_back(area);
    geometry.sides.push_back(t1 < 0 ? 1 : 2);
    geometry.two_sided = geometry.two_sided || t1 >= 0;
    global_faces.push_back(part ? placement.face_global()[f] : f);
  }
  stencil.places = placement.places_among_ranks(global_faces, stencil.whole_faces);
  geometry.two_sided = placement.largest(geometry.two_sided ? 1 : 0) > 0;
  return stencil;
}

void add_surface_currents(io::Config const& config, std::vector<io::CapabilityItem> const& items,
                          Placement const& placement, solver::Formulation& formulation)
{
  std::map<std::string, int> names;
  for (auto const& item : items) {
    auto const& surface_current = std::any_cast<capabilities::SurfaceCurrent const&>(item.value);
    std::string const where = config.where(item.line);
    if (!names.emplace(surface_current.name, item.line).second)
      throw Error(where,
                  "[[surface_current]] name = \"" + surface_current.name + "\" is already used at line " +
                      std::to_string(names[surface_current.name]),
                  "give each [[surface_current]] its own name");
    auto const stencil = surface_current_stencil(placement, surface_current, where);
    if (stencil.whole_faces == 0)
      throw Error(where, "[[surface_current]] surfaces have no faces in " + placement.problem().mesh.source,
                  "name physical surfaces meshed with the volume");
    formulation.add_term(solver::TermRecipe("surface currents", [stencil](auto const& space) {
      return std::make_unique<capabilities::SurfaceCurrentTerm<std::decay_t<decltype(space)>>>(stencil);
    }));
  }
}

} // namespace

CapabilityModel surface_current_model()
{
  return {{},
          {"[[surface_current]]",
           "[[surface_current]]",
           "J_s = n x h, rho_s = n . d on PEC",
           runs_except({{RunMode::single_precision, ""}, {RunMode::assembled, baseline_lacks("surface currents")}}),
           {}},
          add_surface_currents,
          {}};
}

} // namespace dgatd::simulation
