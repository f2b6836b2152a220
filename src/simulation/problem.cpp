#include "dgatd/simulation/problem.hpp"

#include "dgatd/error.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/mesh/generators.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/mesh/surfaces.hpp"
#include "dgatd/simulation/config_errors.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <utility>

namespace dgatd::simulation {
namespace {

std::string known_groups(mesh::Mesh const& m, int dim)
{
  std::string names;
  for (auto const& g : m.groups)
    if (g.dim == dim) names += (names.empty() ? "" : ", ") + g.name;
  return names.empty() ? "none" : names;
}

} // namespace

int volume_tag(mesh::Mesh const& mesh, std::string const& name, int tag, std::string const& table,
               std::string const& where, std::vector<int> const* regions_with_tets)
{
  if (!name.empty()) {
    tag = -1;
    for (auto const& g : mesh.groups)
      if (g.dim == 3 && g.name == name) tag = g.tag;
    if (tag < 0)
      throw Error(where, table + " region '" + name + "' is not a physical volume of " + mesh.source,
                  "use one of: " + known_groups(mesh, 3));
  }
  bool const has_tets =
      regions_with_tets
          ? std::find(regions_with_tets->begin(), regions_with_tets->end(), tag) != regions_with_tets->end()
          : std::find(mesh.tet_region.begin(), mesh.tet_region.end(), tag) != mesh.tet_region.end();
  if (!has_tets)
    throw Error(where,
                table + " region " + (name.empty() ? std::to_string(tag) : "'" + name + "'") +
                    " has no tetrahedra in " + mesh.source,
                "use one of: " + known_groups(mesh, 3));
  return tag;
}

int surface_tag(mesh::Mesh const& mesh, std::string const& name, std::string const& where)
{
  for (auto const& g : mesh.groups)
    if (g.dim == 2 && g.name == name) return g.tag;
  throw Error(where, "'" + name + "' is not a physical surface of " + mesh.source,
              "use one of: " + known_groups(mesh, 2));
}

dga::Materials materials_of(io::Config const& config, mesh::Mesh const& mesh, std::vector<int> const* regions_with_tets)
{
  std::size_t const num_tets = mesh.tets.size();
  dga::Materials materials{std::vector<double>(num_tets, dga::eps0), std::vector<double>(num_tets, dga::mu0), {}};
  for (auto const& material : config.materials) {
    int const tag = volume_tag(mesh, material.region_name, material.region_tag, "[[material]]",
                               config.where(material.line), regions_with_tets);
    int const model = static_cast<int>(materials.dispersions.size());
    if (!material.poles.empty()) {
      dga::Dispersion relative;
      for (auto const& pole : material.poles) relative.poles.push_back(dga::scaled_pole(pole, 1 / material.eps_r));
      materials.dispersions.push_back(relative);
    }
    for (std::size_t t = 0; t < num_tets; ++t)
      if (mesh.tet_region[t] == tag) {
        materials.eps[t] = dga::eps0 * material.eps_r;
        materials.mu[t] = dga::mu0 * material.mu_r;
        if (material.sigma > 0) {
          materials.sigma.resize(num_tets, 0.0);
          materials.sigma[t] = material.sigma;
        }
        if (!material.poles.empty()) {
          materials.dispersion.resize(num_tets, -1);
          materials.dispersion[t] = model;
        }
      }
  }
  return materials;
}

std::vector<char> rim_faces(mesh::Topology const& topology, std::vector<std::array<char, 4>> const* face_interior)
{
  std::vector<char> rim(static_cast<std::size_t>(topology.num_faces()), 0);
  if (!face_interior) return rim;
  for (Index t = 0; t < topology.num_tets(); ++t)
    for (int j = 0; j < 4; ++j) {
      Index const f = topology.tet_faces[t][j];
      if ((*face_interior)[t][j] && topology.face_tets[f][1] < 0) rim[f] = 1;
    }
  return rim;
}

namespace {

// A face's edges (its vertices ascending) as ascending pairs of vertices.
std::array<std::array<Index, 2>, 3> sheet_edges(std::array<Index, 3> const& v)
{
  return {{{v[0], v[1]}, {v[1], v[2]}, {v[0], v[2]}}};
}

// The edges lying in PEC faces or PEC wires.
std::vector<char> pec_edges(mesh::Topology const& topology, std::vector<dga::FaceKind> const& face_kinds,
                            std::vector<Index> const& wire_edges)
{
  std::vector<char> pec(static_cast<std::size_t>(topology.num_edges()), 0);
  for (Index e : wire_edges) pec[static_cast<std::size_t>(e)] = 1;
  for (Index f = 0; f < topology.num_faces(); ++f) {
    if (face_kinds[f] != dga::FaceKind::pec) continue;
    auto const& v = topology.face_vertices[f];
    for (int i = 0; i < 3; ++i) pec[static_cast<std::size_t>(mesh::edge_joining(topology, v[i], v[(i + 1) % 3]))] = 1;
  }
  return pec;
}

// A sheet's faces as its shape needs them: each face's vertices (ascending ids in the whole mesh's
// order), the faces in the whole mesh's order, the vertices' points, and whether the edge joining two
// vertices is PEC.
struct SheetFaces {
  std::vector<std::array<Index, 3>> faces;
  std::function<Vec3(Index)> point;
  std::function<bool(Index, Index)> pec;
};

// A lumped sheet as the circuit model needs it (dga::LumpedSheet, its faces left to the caller): a
// planar surface, its direction in its plane, its length along it and width, joining PEC conductors
// at both of its ends. mesh_source names the mesh in messages.
dga::LumpedSheet sheet_shape(BoundaryKinds::Sheet const& spec, SheetFaces const& sheet_faces,
                             std::string const& mesh_source)
{
  std::string const what = (spec.port ? "lumped port surface '" : "lumped element surface '") + spec.name + "'";
  dga::LumpedSheet sheet;
  sheet.name = spec.name;
  sheet.circuit = spec.circuit;
  sheet.port = spec.port;
  auto const& faces = sheet_faces.faces;
  if (faces.empty())
    throw Error(spec.where, what + " has no faces in " + mesh_source, "name a physical surface with triangles");
  auto const& point = sheet_faces.point;
  auto face_normal = [&](std::array<Index, 3> const& v) {
    return cross(sub(point(v[1]), point(v[0])), sub(point(v[2]), point(v[0])));
  };
  Vec3 normal = face_normal(faces.front());
  normal = scaled(normal, 1 / norm(normal));
  double area = 0;
  std::vector<Index> vertices;
  for (auto const& face : faces) {
    area += norm(face_normal(face)) / 2;
    vertices.insert(vertices.end(), face.begin(), face.end());
  }
  std::sort(vertices.begin(), vertices.end());
  vertices.erase(std::unique(vertices.begin(), vertices.end()), vertices.end());
  double const size = std::sqrt(area);
  Vec3 const origin = point(vertices.front());
  double off_plane = 0;
  for (Index v : vertices) off_plane = std::max(off_plane, std::abs(dot(sub(point(v), origin), normal)));
  if (off_plane > 1e-6 * size)
    throw Error(spec.where,
                what + " is not planar: its points lie up to " + format_number(off_plane) + " m off its plane",
                "give a flat sheet (a rectangle spanning the gap)");
  double const normal_part = dot(spec.direction, normal);
  if (std::abs(normal_part) > 1e-6)
    throw Error(spec.where,
                "direction is not in the plane of " + what + " (it leaves the plane at " +
                    format_number(std::asin(std::min(1.0, std::abs(normal_part))) * 180 / M_PI) + " degrees)",
                "give a direction along the sheet, from one conductor to the other");
  sheet.direction = sub(spec.direction, scaled(normal, normal_part));
  sheet.direction = scaled(sheet.direction, 1 / norm(sheet.direction));
  double low = dot(point(vertices.front()), sheet.direction), high = low;
  for (Index v : vertices) {
    low = std::min(low, dot(point(v), sheet.direction));
    high = std::max(high, dot(point(v), sheet.direction));
  }
  sheet.length = high - low;
  sheet.width = area / sheet.length;
  // The sheet's rim (edges of one of its faces) at either end along the direction must be PEC.
  std::vector<std::array<Index, 2>> rim;
  for (auto const& v : faces)
    for (auto const& edge : sheet_edges(v)) rim.push_back(edge);
  std::sort(rim.begin(), rim.end());
  double const tolerance = 1e-6 * sheet.length;
  int ends[2] = {0, 0};
  for (std::size_t i = 0; i < rim.size(); ++i) {
    bool const once = (i == 0 || rim[i - 1] != rim[i]) && (i + 1 == rim.size() || rim[i + 1] != rim[i]);
    if (!once) continue;
    double const s0 = dot(point(rim[i][0]), sheet.direction), s1 = dot(point(rim[i][1]), sheet.direction);
    for (int end = 0; end < 2; ++end) {
      double const at = end == 0 ? low : high;
      if (std::abs(s0 - at) > tolerance || std::abs(s1 - at) > tolerance) continue;
      if (!sheet_faces.pec(rim[i][0], rim[i][1]))
        throw Error(spec.where,
                    what + " does not end on a conductor: its edge at " + (end == 0 ? "the start" : "the end") +
                        " along direction is not PEC",
                    "make the sheet span the gap between two PEC surfaces, and list them in [boundary] pec");
      ++ends[end];
    }
  }
  if (ends[0] == 0 || ends[1] == 0)
    throw Error(spec.where, what + " has no edge across direction at " + (ends[0] == 0 ? "its start" : "its end"),
                "give a rectangle whose two sides across direction lie on PEC conductors");
  return sheet;
}

// The shape of a sheet of p's mesh, with its faces (pec_edge: per edge, whether it is PEC).
dga::LumpedSheet lumped_sheet(Problem const& p, BoundaryKinds::Sheet const& spec, std::vector<char> const& pec_edge)
{
  SheetFaces sheet_faces;
  auto const faces = mesh::surface_faces(p.topology, spec.surface_tag);
  for (Index f : faces) sheet_faces.faces.push_back(p.topology.face_vertices[f]);
  sheet_faces.point = [&](Index v) { return p.mesh.points[v]; };
  sheet_faces.pec = [&](Index a, Index b) {
    return pec_edge[static_cast<std::size_t>(mesh::edge_joining(p.topology, a, b))] != 0;
  };
  auto sheet = sheet_shape(spec, sheet_faces, p.mesh.source);
  sheet.faces = faces;
  return sheet;
}

// A layer with a complex frequency shift carries the shift's explicit part through its dual
// blocks' L = K S' / 2 (solver/losses.hpp), which holds only while S' is the layer's alone: no vertex
// of a shifted layer may also be a vertex of a conducting tet, an absorbing face or a lumped sheet.
void refuse_other_losses_at_shifted_layers(Problem const& p, std::vector<PmlLayerSpec> const& layers,
                                           BoundaryKinds const& boundary)
{
  std::vector<char> other(p.mesh.num_vertices(), 0);
  auto mark_face = [&](Index f) {
    for (Index v : p.topology.face_vertices[f]) other[v] = 1;
  };
  for (std::size_t t = 0; t < p.mesh.tets.size(); ++t)
    if (!p.materials.sigma.empty() && p.materials.sigma[t] > 0)
      for (Index v : p.mesh.tets[t]) other[v] = 1;
  for (Index f = 0; f < p.topology.num_faces(); ++f)
    if (p.face_kinds[f] == dga::FaceKind::absorbing) mark_face(f);
  for (auto const& sheet : boundary.sheets)
    for (Index f : mesh::surface_faces(p.topology, sheet.surface_tag)) mark_face(f);
  for (auto const& layer : layers)
    for (std::size_t t = 0; t < p.mesh.tets.size(); ++t) {
      if (p.mesh.tet_region[t] != layer.region_tag) continue;
      for (Index v : p.mesh.tets[t])
        if (other[v])
          throw ModelError(ModelSubject::matched_layer, layer.name,
                           "has cfs_frequency and touches conductivity, an absorbing surface or a lumped sheet "
                           "(they share a vertex)",
                           "keep those at least one element away from the layer, or remove cfs_frequency");
    }
}

// The layers on a mesh (the whole, or with part one rank's part of it), their stretch into stretching.
std::vector<dga::PmlLayer> stretch_layers(dga::Stretching& stretching, mesh::MeshView const& m,
                                          dga::Materials const& materials, std::vector<PmlLayerSpec> const& layers,
                                          dga::PartOfTheMesh const* part = nullptr)
{
  std::vector<dga::PmlLayer> stretched;
  for (auto const& layer : layers) {
    std::vector<char> in_layer(m.mesh.tets.size(), 0);
    for (std::size_t t = 0; t < in_layer.size(); ++t) in_layer[t] = m.mesh.tet_region[t] == layer.region_tag;
    stretched.push_back(dga::add_pml_layer(stretching, m.mesh, m.topology, m.geometry, materials, in_layer,
                                           layer.profile, layer.name, part));
  }
  return stretched;
}

// Everything of make_problem but the operators; with whole (a part read from disk), its faces at the
// part's rim stay interior and its layers are the ones found over the ranks.
// The matched layers' auxiliaries assume the medium they stretch has a constant eps; a dispersive
// tet in a layer, or one sharing a vertex with it (a dual block holding both), is refused.
void refuse_dispersion_at_layers(Problem const& p, std::vector<PmlLayerSpec> const& layers)
{
  std::vector<char> dispersive(p.mesh.num_vertices(), 0);
  for (std::size_t t = 0; t < p.mesh.tets.size(); ++t)
    if (p.materials.disperses(t))
      for (Index v : p.mesh.tets[t]) dispersive[v] = 1;
  for (auto const& layer : layers)
    for (std::size_t t = 0; t < p.mesh.tets.size(); ++t) {
      if (p.mesh.tet_region[t] != layer.region_tag) continue;
      for (Index v : p.mesh.tets[t])
        if (dispersive[v])
          throw ModelError(ModelSubject::matched_layer, layer.name,
                           "touches a dispersive material (a [[material]] with poles shares a vertex with it)",
                           "keep dispersive volumes at least one element away from the layer; a matched layer in a "
                           "dispersive medium is not supported");
    }
}

Problem describe_problem(mesh::Mesh mesh, dga::Materials materials, BoundaryKinds const& boundary,
                         std::vector<PmlLayerSpec> const& layers, WholeMeshFacts const* whole = nullptr)
{
  Problem p;
  p.mesh = std::move(mesh);
  p.materials = std::move(materials);
  p.topology = mesh::build_topology(p.mesh);
  p.geometry = mesh::build_geometry(p.mesh, p.topology);
  if (whole) {
    p.layers = whole->layers;
    p.materials.stretching = whole->stretching;
  } else {
    p.layers = stretch_layers(p.materials.stretching, {p.mesh, p.topology, p.geometry}, p.materials, layers);
  }
  p.face_kinds.assign(p.topology.num_faces(), dga::FaceKind::interior_or_pmc);
  auto const* face_interior = whole ? &whole->face_interior : nullptr;
  auto const rim = rim_faces(p.topology, face_interior);
  if (boundary.pec_everywhere)
    for (auto f : p.topology.boundary_faces)
      if (!rim[f]) p.face_kinds[f] = dga::FaceKind::pec;
  auto has = [](std::vector<int> const& tags, int tag) {
    return std::find(tags.begin(), tags.end(), tag) != tags.end();
  };
  for (mesh::Index f = 0; f < p.topology.num_faces(); ++f) {
    if (has(boundary.pec_tags, p.topology.face_tag[f])) p.face_kinds[f] = dga::FaceKind::pec;
    if (has(boundary.absorbing_tags, p.topology.face_tag[f])) p.face_kinds[f] = dga::FaceKind::absorbing;
    if (has(boundary.port_tags, p.topology.face_tag[f])) p.face_kinds[f] = dga::FaceKind::port;
    if (has(boundary.matched_port_tags, p.topology.face_tag[f])) p.face_kinds[f] = dga::FaceKind::interior_or_pmc;
  }
  for (auto const& sheet : boundary.sheets)
    for (Index f : mesh::surface_faces(p.topology, sheet.surface_tag)) p.face_kinds[f] = dga::FaceKind::interior_or_pmc;
  for (std::size_t i = 0; i < p.mesh.curve_segments.size(); ++i) {
    if (!has(boundary.pec_curve_tags, p.mesh.curve_segment_tag[i])) continue;
    auto const& segment = p.mesh.curve_segments[i];
    Index const e = mesh::edge_joining(p.topology, segment[0], segment[1]);
    if (e < 0) {
      auto const& a = p.mesh.points[segment[0]];
      auto const& b = p.mesh.points[segment[1]];
      throw Error(p.mesh.source,
                  "a segment of physical curve " + std::to_string(p.mesh.curve_segment_tag[i]) + ", from (" +
                      format_number(a[0]) + ", " + format_number(a[1]) + ", " + format_number(a[2]) + ") to (" +
                      format_number(b[0]) + ", " + format_number(b[1]) + ", " + format_number(b[2]) +
                      "), is not an edge of the tetrahedra",
                  "embed the curve in the volume mesh (Curve{...} In Volume{...}, or BooleanFragments)");
    }
    p.materials.pec_edges.push_back(e);
  }
  if (whole && whole->sheets.size() == boundary.sheets.size()) {
    // From parts: each sheet's shape over the whole mesh, with the faces the part holds.
    for (std::size_t s = 0; s < boundary.sheets.size(); ++s) {
      p.materials.sheets.push_back(whole->sheets[s]);
      p.materials.sheets.back().faces = mesh::surface_faces(p.topology, boundary.sheets[s].surface_tag);
    }
  } else if (!whole && !boundary.sheets.empty()) {
    auto const pec = pec_edges(p.topology, p.face_kinds, p.materials.pec_edges);
    for (auto const& sheet : boundary.sheets) p.materials.sheets.push_back(lumped_sheet(p, sheet, pec));
  }
  if (p.materials.stretching.shift > 0) refuse_other_losses_at_shifted_layers(p, layers, boundary);
  if (!p.materials.dispersion.empty()) refuse_dispersion_at_layers(p, layers);
  return p;
}

} // namespace

Problem make_problem(mesh::Mesh mesh, dga::Materials materials, BoundaryKinds const& boundary,
                     dga::AssemblyOptions const& options, std::vector<PmlLayerSpec> const& layers)
{
  Problem p = describe_problem(std::move(mesh), std::move(materials), boundary, layers);
  p.operators = dga::assemble(p.mesh, p.topology, p.geometry, p.materials, p.face_kinds, options);
  return p;
}

Problem make_part_problem(Problem const& global, parallel::MeshPart const& part, dga::AssemblyOptions const& options)
{
  Problem p;
  p.mesh = part.mesh;
  p.topology = mesh::build_topology(p.mesh);
  p.geometry = mesh::build_geometry(p.mesh, p.topology);
  auto const& from = global.materials;
  for (Index t : part.global_tet) {
    p.materials.eps.push_back(from.eps[t]);
    p.materials.mu.push_back(from.mu[t]);
    if (!from.sigma.empty()) p.materials.sigma.push_back(from.sigma[t]);
    if (!from.stretching.empty()) p.materials.stretching.tet_jacobian.push_back(from.stretching.tet_jacobian[t]);
    if (!from.dispersion.empty()) p.materials.dispersion.push_back(from.dispersion[t]);
  }
  p.materials.dispersions = from.dispersions;
  p.materials.stretching.shift = from.stretching.shift;
  // A face on the part's rim has one tet here but is what it is in the whole mesh: interior faces stay
  // interior, so no half-edge of a halo block is taken for PEC that is not.
  auto const face_global = parallel::global_faces(p.topology, part.global_tet, global.topology.tet_faces);
  p.face_kinds.resize(face_global.size());
  for (std::size_t f = 0; f < face_global.size(); ++f) p.face_kinds[f] = global.face_kinds[face_global[f]];
  p.layers = global.layers;
  // A wire's edges and a sheet's faces are those of the whole mesh that the part holds; a sheet keeps
  // the whole sheet's direction, length and width.
  auto const local_vertex = [&](Index v) {
    auto const it = std::lower_bound(part.global_vertex.begin(), part.global_vertex.end(), v);
    return it != part.global_vertex.end() && *it == v ? static_cast<Index>(it - part.global_vertex.begin()) : -1;
  };
  for (Index e : from.pec_edges) {
    auto const& ab = global.topology.edge_vertices[e];
    Index const a = local_vertex(ab[0]), b = local_vertex(ab[1]);
    Index const local = a < 0 || b < 0 ? -1 : mesh::edge_joining(p.topology, a, b);
    if (local >= 0) p.materials.pec_edges.push_back(local);
  }
  std::vector<Index> sheet_of_face(global.topology.face_vertices.size(), -1);
  for (std::size_t s = 0; s < from.sheets.size(); ++s)
    for (Index f : from.sheets[s].faces) sheet_of_face[f] = static_cast<Index>(s);
  for (auto sheet : from.sheets) {
    sheet.faces.clear();
    p.materials.sheets.push_back(std::move(sheet));
  }
  for (std::size_t f = 0; f < face_global.size(); ++f)
    if (Index const s = sheet_of_face[face_global[f]]; s >= 0)
      p.materials.sheets[s].faces.push_back(static_cast<Index>(f));
  p.operators = dga::assemble(p.mesh, p.topology, p.geometry, p.materials, p.face_kinds, options);
  return p;
}

namespace {

// The [[pml]] tables of a configuration on mesh; regions as volume_tag takes it.
std::vector<PmlLayerSpec> layer_specs(io::Config const& config, mesh::Mesh const& mesh, std::vector<int> const* regions)
{
  std::vector<PmlLayerSpec> layers;
  for (auto const& pml : config.pml)
    layers.push_back({volume_tag(mesh, pml.region_name, pml.region_tag, "[[pml]]", config.where(pml.line), regions),
                      layer_name(pml),
                      {pml.order, pml.reflection, 2 * M_PI * pml.cfs_frequency}});
  return layers;
}

// The boundary kinds a configuration gives mesh's surfaces and curves, with its lumped sheets.
BoundaryKinds boundary_of(io::Config const& config, mesh::Mesh const& mesh)
{
  BoundaryKinds boundary;
  boundary.pec_everywhere = config.boundary.pec_everywhere;
  std::string const boundary_table = config.where(config.boundary.line);
  // A name in [boundary] pec is a physical surface (a sheet or part of the boundary) or a curve (a wire).
  for (auto const& name : config.boundary.pec_surfaces) {
    auto const curve = std::find_if(mesh.groups.begin(), mesh.groups.end(),
                                    [&](mesh::PhysicalGroup const& g) { return g.dim == 1 && g.name == name; });
    bool const surface = std::any_of(mesh.groups.begin(), mesh.groups.end(),
                                     [&](mesh::PhysicalGroup const& g) { return g.dim == 2 && g.name == name; });
    if (curve != mesh.groups.end() && !surface)
      boundary.pec_curve_tags.push_back(curve->tag);
    else
      boundary.pec_tags.push_back(surface_tag(mesh, name, boundary_table));
  }
  for (auto const& name : config.boundary.absorbing_surfaces)
    boundary.absorbing_tags.push_back(surface_tag(mesh, name, boundary_table));
  for (auto const& source : config.sources)
    if (source.kind == io::SourceKind::port_te10 || source.kind == io::SourceKind::mode_port)
      (source.matched || source.kind == io::SourceKind::mode_port ? boundary.matched_port_tags : boundary.port_tags)
          .push_back(surface_tag(mesh, source.surface, config.where(source.line)));
  auto add_sheet = [&](std::string const& surface, Vec3 const& direction, dga::LumpedCircuit const& circuit, bool port,
                       int line) {
    std::string const where = config.where(line);
    int const tag = surface_tag(mesh, surface, where);
    for (auto const& other : boundary.sheets)
      if (other.surface_tag == tag)
        throw Error(where, "surface '" + surface + "' already carries a lumped port or element (" + other.where + ")",
                    "give each sheet one port or element (kind = \"rlc\" combines R, L and C)");
    auto const& pec = config.boundary.pec_surfaces;
    if (std::find(pec.begin(), pec.end(), surface) != pec.end())
      throw Error(where, "surface '" + surface + "' is PEC in [boundary] and cannot carry a lumped port or element",
                  "remove it from [boundary] pec");
    boundary.sheets.push_back({tag, surface, direction, circuit, port, where});
  };
  for (auto const& source : config.sources)
    if (source.kind == io::SourceKind::lumped_port) {
      dga::LumpedCircuit resistor;
      resistor.resistance = source.resistance;
      add_sheet(source.surface, source.direction, resistor, true, source.line);
    }
  for (auto const& lumped : config.lumped)
    add_sheet(lumped.surface, lumped.direction, lumped.circuit, false, lumped.line);
  return boundary;
}

// make_problem of a configuration, on the whole mesh (whole null) or on one rank's part of it.
Problem problem_of_config(io::Config const& config, mesh::Mesh mesh, bool assemble_operators,
                          WholeMeshFacts const* whole)
{
  auto const* regions = whole ? &whole->regions : nullptr;
  auto materials = materials_of(config, mesh, regions);
  auto const layers = layer_specs(config, mesh, regions);

  auto const boundary = boundary_of(config, mesh);
  std::string const boundary_table = config.where(config.boundary.line);
  auto const* face_interior = whole ? &whole->face_interior : nullptr;
  auto problem = [&] {
    try {
      auto p = describe_problem(std::move(mesh), std::move(materials), boundary, layers, whole);
      if (assemble_operators)
        p.operators = dga::assemble(p.mesh, p.topology, p.geometry, p.materials, p.face_kinds, {});
      return p;
    } catch (ModelError const& e) {
      throw config_error(config, e);
    }
  }();
  // A physical surface inside the domain has faces with two tets; absorbing there means nothing.
  auto const rim = rim_faces(problem.topology, face_interior);
  for (std::size_t k = 0; k < boundary.absorbing_tags.size(); ++k)
    for (mesh::Index f : mesh::surface_faces(problem.topology, boundary.absorbing_tags[k]))
      if (problem.topology.face_tets[f][1] >= 0 || rim[f])
        throw Error(boundary_table,
                    "absorbing surface '" + config.boundary.absorbing_surfaces[k] + "' lies inside " +
                        problem.mesh.source + " (its faces have tets on both sides)",
                    "name exterior surfaces only");
  return problem;
}

} // namespace

Problem make_problem(io::Config const& config, mesh::Mesh mesh, bool assemble_operators)
{
  return problem_of_config(config, std::move(mesh), assemble_operators, nullptr);
}

Problem make_part_problem(io::Config const& config, mesh::Mesh mesh, WholeMeshFacts const& whole)
{
  return problem_of_config(config, std::move(mesh), true, &whole);
}

SheetPieces lumped_sheet_pieces(io::Config const& config, parallel::MeshPart const& part, WholeMeshFacts const& whole)
{
  SheetPieces pieces;
  pieces.specs = boundary_of(config, part.mesh).sheets;
  pieces.mesh_source = part.mesh.source;
  if (pieces.specs.empty()) return pieces;
  auto const p = problem_of_config(config, part.mesh, false, &whole);
  auto const pec = pec_edges(p.topology, p.face_kinds, p.materials.pec_edges);
  auto const global = [&](Index v) { return static_cast<std::int64_t>(part.global_vertex[v]); };
  for (auto const& spec : pieces.specs) {
    auto& faces = pieces.faces.emplace_back();
    auto& edges = pieces.edges.emplace_back();
    std::vector<std::array<Index, 2>> owned_edges;
    for (Index f : mesh::surface_faces(p.topology, spec.surface_tag)) {
      auto const& v = p.topology.face_vertices[f];
      if (part.owns_vertex[v[0]])
        for (Index k : v) {
          faces.push_back(global(k));
          parallel::append_point(faces, p.mesh.points[k]);
        }
      for (auto const& edge : sheet_edges(v))
        if (part.owns_vertex[edge[0]]) owned_edges.push_back(edge);
    }
    std::sort(owned_edges.begin(), owned_edges.end());
    owned_edges.erase(std::unique(owned_edges.begin(), owned_edges.end()), owned_edges.end());
    for (auto const& [a, b] : owned_edges)
      edges.insert(edges.end(),
                   {global(a), global(b), pec[static_cast<std::size_t>(mesh::edge_joining(p.topology, a, b))]});
  }
  return pieces;
}

std::vector<dga::LumpedSheet> lumped_sheets_over_ranks(SheetPieces const& pieces,
                                                       parallel::Communicator const& communicator)
{
  std::vector<dga::LumpedSheet> sheets;
  for (std::size_t s = 0; s < pieces.specs.size(); ++s) {
    auto const faces = parallel::all_gathered(communicator, pieces.faces[s]);
    auto const edges = parallel::all_gathered(communicator, pieces.edges[s]);
    SheetFaces sheet_faces;
    std::map<Index, Vec3> points;
    for (std::size_t k = 0; k + 12 <= faces.size(); k += 12) {
      std::array<Index, 3> face{};
      for (std::size_t i = 0; i < 3; ++i) {
        face[i] = static_cast<Index>(faces[k + 4 * i]);
        points[face[i]] = parallel::point_at(&faces[k + 4 * i + 1]);
      }
      sheet_faces.faces.push_back(face);
    }
    std::sort(sheet_faces.faces.begin(), sheet_faces.faces.end());
    std::map<std::array<Index, 2>, bool> pec;
    for (std::size_t k = 0; k + 3 <= edges.size(); k += 3)
      pec[{static_cast<Index>(edges[k]), static_cast<Index>(edges[k + 1])}] = edges[k + 2] != 0;
    sheet_faces.point = [&](Index v) { return points.at(v); };
    sheet_faces.pec = [&](Index a, Index b) { return pec.at({a, b}); };
    sheets.push_back(sheet_shape(pieces.specs[s], sheet_faces, pieces.mesh_source));
  }
  return sheets;
}

LayersOverRanks layers_over_ranks(io::Config const& config, mesh::MeshView const& m, std::vector<int> const& regions,
                                  dga::PartOfTheMesh const& part)
{
  LayersOverRanks found;
  try {
    found.layers = stretch_layers(found.stretching, m, materials_of(config, m.mesh, &regions),
                                  layer_specs(config, m.mesh, &regions), &part);
  } catch (ModelError const& e) {
    throw config_error(config, e);
  }
  return found;
}

mesh::Mesh load_mesh(io::Config const& config)
{
  return config.mesh.file.empty() ? mesh::generate_mesh(config.mesh.generate, config.mesh.output)
                                  : mesh::read_mesh(config.mesh.file, config.mesh.scale);
}

bool mesh_made_on_load(io::Config const& config)
{
  return config.mesh.file.empty() || std::filesystem::path(config.mesh.file).extension() == ".geo";
}

Problem pec_box(mesh::StructuredBox const& box, double eps, double mu, dga::AssemblyOptions const& options)
{
  auto m = mesh::structured_box(box);
  std::size_t const num_tets = m.tets.size();
  return make_problem(std::move(m),
                      dga::Materials{std::vector<double>(num_tets, eps), std::vector<double>(num_tets, mu), {}},
                      BoundaryKinds{}, options);
}

} // namespace dgatd::simulation
