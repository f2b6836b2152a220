#include "dgatd/dga/cross_section.hpp"

#include "dgatd/dga/laplacian.hpp"
#include "dgatd/error.hpp"
#include "dgatd/mesh/surfaces.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <utility>

namespace dgatd::dga {

namespace {

// Union-find over the section's vertices, for its connected pieces and its conductors.
class DisjointSets {
public:
  explicit DisjointSets(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), Index{0}); }
  Index find(Index i)
  {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  void join(Index a, Index b)
  {
    a = find(a), b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

private:
  std::vector<Index> parent_;
};

std::array<Index, 2> edge_key(Index a, Index b) { return {std::min(a, b), std::max(a, b)}; }

std::string surface_name(mesh::Mesh const& mesh, int tag)
{
  for (auto const& g : mesh.groups)
    if (g.dim == 2 && g.tag == tag) return "physical surface '" + g.name + "' (" + std::to_string(tag) + ")";
  return "physical surface " + std::to_string(tag);
}

// The triangles of physical surface tag, as sorted vertex triples.
std::vector<std::array<Index, 3>> surface_triangles(mesh::Mesh const& mesh, int tag)
{
  std::vector<std::array<Index, 3>> result;
  for (std::size_t k = 0; k < mesh.boundary_triangles.size(); ++k)
    if (mesh.boundary_triangle_tag[k] == tag) {
      auto f = mesh.boundary_triangles[k];
      std::sort(f.begin(), f.end());
      result.push_back(f);
    }
  return result;
}

HostCsr assemble(CrossSection const& s, std::vector<double> const& weight, bool mass)
{
  if (weight.size() != s.triangles.size())
    throw Error(s.name,
                "the weights are for " + std::to_string(weight.size()) + " triangles, the section has " +
                    std::to_string(s.triangles.size()),
                "give one weight per triangle");
  std::vector<std::tuple<Index, Index, double>> entries;
  entries.reserve(s.triangles.size() * 9);
  for (Index t = 0; t < s.num_triangles(); ++t) {
    auto const& v = s.triangles[t];
    double const area = s.area(t);
    // grad(lambda_i) is the opposite edge turned by -90 degrees over twice the area.
    std::array<Vec2, 3> grad;
    for (int i = 0; i < 3; ++i) {
      Vec2 const& p = s.points[v[(i + 1) % 3]];
      Vec2 const& q = s.points[v[(i + 2) % 3]];
      grad[i] = {(p[1] - q[1]) / (2 * area), (q[0] - p[0]) / (2 * area)};
    }
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double const value = mass ? weight[t] * area * (i == j ? 2.0 : 1.0) / 12
                                  : weight[t] * area * (grad[i][0] * grad[j][0] + grad[i][1] * grad[j][1]);
        entries.emplace_back(v[i], v[j], value);
      }
  }
  return summed_csr(s.num_vertices(), std::move(entries));
}

} // namespace

double CrossSection::area(Index t) const
{
  auto const& v = triangles[t];
  Vec2 const& a = points[v[0]];
  Vec2 const& b = points[v[1]];
  Vec2 const& c = points[v[2]];
  return 0.5 * ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
}

std::vector<std::vector<Index>> CrossSection::conductor_vertices() const
{
  std::vector<std::vector<Index>> result(static_cast<std::size_t>(conductor_count));
  for (Index i = 0; i < num_vertices(); ++i)
    if (conductor[i] >= 0) result[conductor[i]].push_back(i);
  return result;
}

Vec3 CrossSection::in_space(Vec2 const& w) const { return add(scaled(u, w[0]), scaled(v, w[1])); }

CrossSection cross_section(mesh::Mesh const& mesh, int surface_tag, std::vector<double> const& eps_r_per_tet,
                           std::vector<double> const& mu_r_per_tet, std::vector<int> const& pec_sheet_tags)
{
  CrossSection s;
  s.name = mesh.source + ": " + surface_name(mesh, surface_tag);
  if (eps_r_per_tet.size() != mesh.tets.size() || mu_r_per_tet.size() != mesh.tets.size())
    throw Error(s.name,
                "the materials are for " + std::to_string(eps_r_per_tet.size()) + " and " +
                    std::to_string(mu_r_per_tet.size()) + " tets, the mesh has " + std::to_string(mesh.tets.size()),
                "give one relative permittivity and permeability per tet");
  auto const faces = surface_triangles(mesh, surface_tag);
  if (faces.empty()) throw Error(s.name, "has no triangles", "give the port a physical surface of the mesh's faces");

  // Section vertices in increasing mesh vertex id.
  for (auto const& f : faces) s.mesh_vertex.insert(s.mesh_vertex.end(), f.begin(), f.end());
  std::sort(s.mesh_vertex.begin(), s.mesh_vertex.end());
  s.mesh_vertex.erase(std::unique(s.mesh_vertex.begin(), s.mesh_vertex.end()), s.mesh_vertex.end());
  std::map<Index, Index> local;
  for (std::size_t i = 0; i < s.mesh_vertex.size(); ++i) local[s.mesh_vertex[i]] = static_cast<Index>(i);

  // Planar within 1e-6 of the diagonal of its box, every vertex (not only on average).
  mesh::PlaneFit fit;
  Vec3 low = mesh.points[s.mesh_vertex[0]], high = low;
  for (Index const m : s.mesh_vertex) {
    fit.add(mesh.points[m]);
    for (int d = 0; d < 3; ++d)
      low[d] = std::min(low[d], mesh.points[m][d]), high[d] = std::max(high[d], mesh.points[m][d]);
  }
  double const size = norm(sub(high, low));
  s.origin = fit.centre();
  s.normal = fit.normal();
  double furthest = 0;
  for (Index const m : s.mesh_vertex)
    furthest = std::max(furthest, std::abs(dot(sub(mesh.points[m], s.origin), s.normal)));
  if (furthest > 1e-6 * size)
    throw Error(s.name,
                "is not planar: a vertex lies " + format_number(furthest) + " m from its plane, " +
                    format_number(furthest / size) + " of its size",
                "make the port surface flat (a cross-section of the guide)");

  // The tets behind the faces: their materials, and the side the normal points to.
  std::map<std::array<Index, 3>, Index> face_index;
  for (std::size_t k = 0; k < faces.size(); ++k) face_index[faces[k]] = static_cast<Index>(k);
  std::vector<Index> behind(faces.size(), -1);
  Index inner_vertex = -1;
  // Only a tet with three vertices on the section can have a face in it: the rest are skipped
  // without a lookup (a section of 1e4 triangles in a mesh of 1e6 tets).
  std::vector<char> on_section(mesh.points.size(), 0);
  for (Index const m : s.mesh_vertex) on_section[m] = 1;
  for (Index t = 0; t < mesh.num_tets(); ++t) {
    auto const& tet = mesh.tets[t];
    if (on_section[tet[0]] + on_section[tet[1]] + on_section[tet[2]] + on_section[tet[3]] < 3) continue;
    for (int skip = 0; skip < 4; ++skip) {
      std::array<Index, 3> f{};
      for (int i = 0, j = 0; i < 4; ++i)
        if (i != skip) f[j++] = tet[i];
      std::sort(f.begin(), f.end());
      auto const found = face_index.find(f);
      if (found == face_index.end()) continue;
      Index& b = behind[found->second];
      if (b >= 0 && (eps_r_per_tet[b] != eps_r_per_tet[t] || mu_r_per_tet[b] != mu_r_per_tet[t]))
        throw Error(s.name,
                    "lies between two tets of different materials (" + std::to_string(b) + " and " + std::to_string(t) +
                        ")",
                    "put the port on the mesh's boundary or inside one material");
      if (b < 0) b = t;
      if (inner_vertex < 0) inner_vertex = tet[skip];
    }
  }
  for (std::size_t k = 0; k < faces.size(); ++k)
    if (behind[k] < 0)
      throw Error(s.name, "has a triangle that is no tet's face", "mesh the port surface as part of the volume");
  if (dot(sub(mesh.points[inner_vertex], s.origin), s.normal) < 0) s.normal = scaled(s.normal, -1);

  // In-plane axes: u from the coordinate axis least aligned with the normal, so a section of the
  // z = const plane has u = x.
  int axis = 0;
  for (int d = 1; d < 3; ++d)
    if (std::abs(s.normal[d]) < std::abs(s.normal[axis])) axis = d;
  Vec3 e{};
  e[axis] = 1;
  s.u = sub(e, scaled(s.normal, dot(e, s.normal)));
  s.u = scaled(s.u, 1 / norm(s.u));
  s.v = cross(s.normal, s.u);
  for (Index const m : s.mesh_vertex) {
    Vec3 const x = sub(mesh.points[m], s.origin);
    s.points.push_back({dot(x, s.u), dot(x, s.v)});
  }
  for (std::size_t k = 0; k < faces.size(); ++k) {
    std::array<Index, 3> t{local[faces[k][0]], local[faces[k][1]], local[faces[k][2]]};
    s.triangles.push_back(t);
    if (s.area(static_cast<Index>(k)) < 0) std::swap(s.triangles.back()[1], s.triangles.back()[2]);
    s.eps_r.push_back(eps_r_per_tet[behind[k]]);
    s.mu_r.push_back(mu_r_per_tet[behind[k]]);
  }

  // One connected piece.
  auto const n = s.mesh_vertex.size();
  DisjointSets pieces(n);
  for (auto const& t : s.triangles) pieces.join(t[0], t[1]), pieces.join(t[0], t[2]);
  for (Index i = 0; i < static_cast<Index>(n); ++i)
    if (pieces.find(i) != 0)
      throw Error(s.name, "is not one connected piece", "give each port its own physical surface");

  // Conductor edges: boundary edges, and edges on a PEC sheet.
  std::map<std::array<Index, 2>, int> uses;
  for (auto const& t : s.triangles)
    for (int i = 0; i < 3; ++i) ++uses[edge_key(t[i], t[(i + 1) % 3])];
  std::set<std::array<Index, 2>> sheet;
  for (int const tag : pec_sheet_tags) {
    auto const sheet_faces = surface_triangles(mesh, tag);
    if (sheet_faces.empty())
      throw Error(s.name, "its PEC sheet, " + surface_name(mesh, tag) + ", has no triangles",
                  "name a physical surface of the mesh as the sheet");
    for (auto const& f : sheet_faces)
      for (int i = 0; i < 3; ++i) sheet.insert(edge_key(f[i], f[(i + 1) % 3]));
  }
  DisjointSets conductors(n);
  std::vector<char> on_conductor(n, 0);
  for (auto const& [edge, count] : uses) {
    bool const on_sheet = sheet.count(edge_key(s.mesh_vertex[edge[0]], s.mesh_vertex[edge[1]])) > 0;
    if (on_sheet) s.sheet_edges.push_back(edge);
    if (count == 1 || on_sheet) {
      conductors.join(edge[0], edge[1]);
      on_conductor[edge[0]] = on_conductor[edge[1]] = 1;
    }
  }
  // The vertex of least (u, v) lies on the outer boundary loop: its conductor is the ground.
  Index const outer = static_cast<Index>(std::min_element(s.points.begin(), s.points.end()) - s.points.begin());
  std::map<Index, int> number{{conductors.find(outer), 0}};
  s.conductor.assign(n, -1);
  for (Index i = 0; i < static_cast<Index>(n); ++i) {
    if (!on_conductor[i]) continue;
    auto const root = conductors.find(i);
    if (number.count(root) == 0) {
      int const next = static_cast<int>(number.size());
      number[root] = next;
    }
    s.conductor[i] = number[root];
  }
  s.conductor_count = static_cast<int>(number.size());
  return s;
}

HostCsr cross_section_stiffness(CrossSection const& section, std::vector<double> const& weight_per_triangle)
{
  return assemble(section, weight_per_triangle, false);
}

HostCsr cross_section_mass(CrossSection const& section, std::vector<double> const& weight_per_triangle)
{
  return assemble(section, weight_per_triangle, true);
}

std::vector<Vec3> triangle_gradients(CrossSection const& section, std::vector<double> const& nodal)
{
  std::vector<Vec3> result;
  result.reserve(section.triangles.size());
  for (Index t = 0; t < section.num_triangles(); ++t) {
    auto const& v = section.triangles[t];
    double const twice_area = 2 * section.area(t);
    Vec2 g{0, 0};
    for (int i = 0; i < 3; ++i) {
      Vec2 const& p = section.points[v[(i + 1) % 3]];
      Vec2 const& q = section.points[v[(i + 2) % 3]];
      g[0] += nodal[v[i]] * (p[1] - q[1]) / twice_area;
      g[1] += nodal[v[i]] * (q[0] - p[0]) / twice_area;
    }
    result.push_back(section.in_space(g));
  }
  return result;
}

} // namespace dgatd::dga
