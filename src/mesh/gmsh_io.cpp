#include "dgatd/mesh/gmsh_io.hpp"

#include "dgatd/error.hpp"
#include "dgatd/host_parallel.hpp"
#include "gmsh_session.hpp"
#include "msh_check.hpp"
#include "tag_index.hpp"

#include <gmsh.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

namespace dgatd::mesh {
namespace {

constexpr int kGmshTriangle = 2;
constexpr int kGmshTetrahedron = 4;
constexpr int kGmshLine = 1;

} // namespace

namespace detail {
namespace {

int session_depth = 0;
int model_counter = 0;

// A tet whose volume is below this multiple of its longest edge cubed is flat to rounding: a
// regular tet has 1/(6 sqrt 2) ~ 0.118, and its reciprocal bases would be meaningless.
constexpr double kDegenerateVolumeRatio = 1e-12;
constexpr std::size_t kListedElements = 5;

// Gmsh 4.8's initialize appends the running executable's directory to PATH and PYTHONPATH, every
// time: each session would lengthen them (and glibc keeps every value a variable has had, so
// memory grows with every mesh read), and child processes would see them changed. Its "-noenv"
// option, meant to stop this, makes initialize exit the process as an unknown option, so the
// sessions put the two back as they were.
struct SavedVariable {
  char const* name;
  bool set;
  std::string value;
};

std::vector<SavedVariable> variables_gmsh_changes()
{
  std::vector<SavedVariable> saved;
  for (char const* name : {"PATH", "PYTHONPATH"}) {
    char const* value = std::getenv(name);
    saved.push_back({name, value != nullptr, value ? value : ""});
  }
  return saved;
}

void restore(std::vector<SavedVariable> const& saved)
{
  for (auto const& variable : saved) {
    if (variable.set)
      setenv(variable.name, variable.value.c_str(), 1);
    else
      unsetenv(variable.name);
  }
}

std::string one_line(std::string text)
{
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

// Several physical groups may share an entity; the smallest tag decides, so the choice does not
// depend on the order Gmsh lists them in.
int physical_tag_of_entity(int dim, int tag)
{
  std::vector<int> physicals;
  gmsh::model::getPhysicalGroupsForEntity(dim, tag, physicals);
  return physicals.empty() ? 0 : *std::min_element(physicals.begin(), physicals.end());
}

struct ElementRecord {
  int physical;
  int entity;
  std::size_t tag;
  std::array<std::size_t, 4> nodes;
};

// Canonical order: by physical tag, then entity, then element tag, so a mesh written by write_mesh
// (one entity per physical tag, elements numbered in order) reads back in the same order.
// Gmsh's own files are mostly in that order already, which a check finds in one pass.
void sort_records(std::vector<ElementRecord>& records)
{
  auto const before = [](ElementRecord const& x, ElementRecord const& y) {
    return std::tie(x.physical, x.entity, x.tag) < std::tie(y.physical, y.entity, y.tag);
  };
  if (!std::is_sorted(records.begin(), records.end(), before)) std::sort(records.begin(), records.end(), before);
}

template <std::size_t N>
void collect_elements(int dim, int type, bool physical_only, std::vector<ElementRecord>& records)
{
  gmsh::vectorpair entities;
  gmsh::model::getEntities(entities, dim);
  std::vector<std::size_t> element_tags, node_tags;
  for (auto const& [entity_dim, entity] : entities) {
    int const physical = physical_tag_of_entity(entity_dim, entity);
    if (physical_only && physical == 0) continue;
    // Gmsh takes non-empty output vectors as preallocated for a threaded query: start empty.
    element_tags.clear();
    node_tags.clear();
    gmsh::model::mesh::getElementsByType(type, element_tags, node_tags, entity);
    for (std::size_t i = 0; i < element_tags.size(); ++i) {
      ElementRecord r{physical, entity, element_tags[i], {}};
      for (std::size_t k = 0; k < N; ++k) r.nodes[k] = node_tags[N * i + k];
      records.push_back(r);
    }
  }
  sort_records(records);
}

void refuse_non_tetrahedra(std::string const& source)
{
  std::vector<int> types;
  gmsh::model::mesh::getElementTypes(types, 3);
  bool has_tets = false;
  for (int type : types) {
    if (type == kGmshTetrahedron) {
      has_tets = true;
      continue;
    }
    std::vector<std::size_t> element_tags, node_tags;
    gmsh::model::mesh::getElementsByType(type, element_tags, node_tags);
    std::string name;
    int dim = 0, order = 0, num_nodes = 0, num_primary = 0;
    std::vector<double> local_coords;
    gmsh::model::mesh::getElementProperties(type, name, dim, order, num_nodes, local_coords, num_primary);
    throw Error(source,
                "element " + std::to_string(element_tags.empty() ? 0 : element_tags.front()) + " is a " + name +
                    " (Gmsh type " + std::to_string(type) + ", " + std::to_string(element_tags.size()) +
                    " such elements); dgatd needs first-order tetrahedra",
                "remesh with first-order tetrahedra, e.g. gmsh -3 -order 1");
  }
  if (!has_tets)
    throw Error(source, "no tetrahedra: the file holds no 3D volume mesh",
                "mesh the volume with first-order tetrahedra, e.g. gmsh -3 -order 1");
}

} // namespace

GmshSession::GmshSession()
{
  if (session_depth++ > 0) return;
  try {
    auto const saved = variables_gmsh_changes();
    gmsh::initialize(0, nullptr, false);
    restore(saved);
    gmsh::option::setNumber("General.Terminal", 0);
    // Errors and warnings only: info lines would pile up in the logger on large meshes.
    gmsh::option::setNumber("General.Verbosity", 2);
    gmsh::logger::start();
  } catch (...) {
    --session_depth;
    throw Error("Gmsh", "the Gmsh library failed to initialise", "check the libgmsh installation");
  }
}

GmshSession::~GmshSession()
{
  if (--session_depth > 0) return;
  try {
    gmsh::logger::stop();
    gmsh::finalize();
  } catch (...) {
    // Nothing sensible is left to do with a Gmsh that fails to shut down.
  }
}

GmshModel::GmshModel(std::string const& purpose)
{
  try {
    gmsh::model::getCurrent(previous_);
    gmsh::model::add("dgatd_" + purpose + "_" + std::to_string(++model_counter));
  } catch (...) {
    throw Error("Gmsh", "cannot create a model to " + purpose + " a mesh", "check the libgmsh installation");
  }
}

GmshModel::~GmshModel()
{
  try {
    gmsh::model::remove();
    if (!previous_.empty()) gmsh::model::setCurrent(previous_);
  } catch (...) {
    // A model that cannot be removed only costs memory until the session ends.
  }
}

void call_gmsh(std::string const& where, std::string const& what, std::string const& fix,
               std::function<void()> const& call)
{
  try {
    call();
  } catch (Error const&) {
    throw;
  } catch (std::string const& message) {
    throw Error(where, what + ": " + one_line(message), fix);
  } catch (std::exception const& e) {
    throw Error(where, what + ": " + one_line(e.what()), fix);
  }
}

Mesh mesh_from_current_model(std::string const& source, double scale, std::vector<std::size_t>& element_tags)
{
  Mesh mesh;
  mesh.source = source;
  refuse_non_tetrahedra(source);

  std::vector<ElementRecord> tets;
  collect_elements<4>(3, kGmshTetrahedron, false, tets);
  std::vector<ElementRecord> triangles;
  collect_elements<3>(2, kGmshTriangle, true, triangles);
  std::vector<ElementRecord> segments;
  collect_elements<2>(1, kGmshLine, true, segments);

  // Dense vertex ids in increasing node tag, over the nodes of tets only.
  std::vector<std::uint64_t> tet_nodes;
  tet_nodes.reserve(4 * tets.size());
  for (auto const& r : tets) tet_nodes.insert(tet_nodes.end(), r.nodes.begin(), r.nodes.end());
  TagIndex const vertex_of(std::move(tet_nodes), tets.size());
  std::vector<std::size_t> node_tags;
  std::vector<double> coords, parametric;
  gmsh::model::mesh::getNodes(node_tags, coords, parametric, -1, -1, false, false);
  mesh.points.resize(vertex_of.tags().size());
  std::vector<char> defined(mesh.points.size(), 0);
  for (std::size_t i = 0; i < node_tags.size(); ++i) {
    Index const v = vertex_of(node_tags[i]);
    if (v < 0) continue;
    for (int c = 0; c < 3; ++c) mesh.points[v][c] = scale * coords[3 * i + c];
    defined[v] = 1;
  }
  auto const undefined = std::find(defined.begin(), defined.end(), 0);
  if (undefined != defined.end())
    throw Error(source,
                "a tetrahedron uses node " + std::to_string(vertex_of.tags()[undefined - defined.begin()]) +
                    ", which the file does not define",
                "re-export the mesh from Gmsh");

  mesh.tets.resize(tets.size());
  mesh.tet_region.resize(tets.size());
  element_tags.resize(tets.size());
  host_parallel_for("dgatd::mesh::tet_vertices", static_cast<std::int64_t>(tets.size()), [&](std::int64_t t) {
    for (int k = 0; k < 4; ++k) mesh.tets[t][k] = vertex_of(tets[t].nodes[k]);
    mesh.tet_region[t] = tets[t].physical;
    element_tags[t] = tets[t].tag;
  });
  // The vertices of a physical element's N nodes, each of which must be a tet's.
  auto element_vertices = [&](auto& vertices, ElementRecord const& r, std::string const& element,
                              std::string const& fix) {
    for (std::size_t k = 0; k < vertices.size(); ++k) {
      vertices[k] = vertex_of(r.nodes[k]);
      if (vertices[k] < 0)
        throw Error(source,
                    element + " " + std::to_string(r.tag) + " of physical " +
                        (vertices.size() == 3 ? "surface " : "curve ") + std::to_string(r.physical) + " has node " +
                        std::to_string(r.nodes[k]) + ", which belongs to no tetrahedron",
                    fix);
    }
  };
  for (auto const& r : triangles) {
    std::array<Index, 3> tri;
    element_vertices(tri, r, "triangle",
                     "physical surfaces must lie on the volume mesh; mesh the model as one geometry");
    mesh.boundary_triangles.push_back(tri);
    mesh.boundary_triangle_tag.push_back(r.physical);
  }
  for (auto const& r : segments) {
    std::array<Index, 2> segment;
    element_vertices(segment, r, "segment",
                     "a curve must lie on the volume mesh's edges: embed it (Curve{...} In Volume{...}, or "
                     "BooleanFragments)");
    mesh.curve_segments.push_back(segment);
    mesh.curve_segment_tag.push_back(r.physical);
  }

  gmsh::vectorpair groups;
  gmsh::model::getPhysicalGroups(groups);
  for (auto const& [dim, tag] : groups) {
    if (dim < 1) continue;
    PhysicalGroup group{dim, tag, ""};
    gmsh::model::getPhysicalName(dim, tag, group.name);
    mesh.groups.push_back(group);
  }
  return mesh;
}

void validate_and_orient(Mesh& mesh, std::vector<std::size_t> const* element_tags)
{
  std::vector<std::size_t> degenerate;
  Index reoriented = 0;
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    auto& v = mesh.tets[t];
    std::array<Vec3, 4> p;
    for (int i = 0; i < 4; ++i) p[i] = mesh.points[v[i]];
    double longest_squared = 0;
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) {
        double const dx = p[j][0] - p[i][0], dy = p[j][1] - p[i][1], dz = p[j][2] - p[i][2];
        longest_squared = std::max(longest_squared, dx * dx + dy * dy + dz * dz);
      }
    double a[3], b[3], c[3];
    for (int k = 0; k < 3; ++k) {
      a[k] = p[1][k] - p[0][k];
      b[k] = p[2][k] - p[0][k];
      c[k] = p[3][k] - p[0][k];
    }
    double const volume =
        (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])) /
        6.0;
    double const longest_cubed = longest_squared * std::sqrt(longest_squared);
    // Written so that NaN coordinates and coincident vertices count as degenerate too.
    if (!(std::abs(volume) > kDegenerateVolumeRatio * longest_cubed)) {
      degenerate.push_back(t);
    } else if (volume < 0) {
      std::swap(v[2], v[3]);
      ++reoriented;
    }
  }
  if (!degenerate.empty()) {
    std::string list;
    for (std::size_t i = 0; i < std::min(degenerate.size(), kListedElements); ++i)
      list += (i ? ", " : "") + std::to_string(element_tags ? (*element_tags)[degenerate[i]] : degenerate[i]);
    if (degenerate.size() > kListedElements) list += ", ...";
    throw Error(mesh.source,
                std::to_string(degenerate.size()) + " degenerate tetrahedra (volume below 1e-12 x longest edge^3): " +
                    (element_tags ? "elements " : "tets ") + list,
                "remove the flat or collapsed tetrahedra (duplicate or coplanar nodes) and remesh, e.g. gmsh -3 "
                "-order 1 -optimize");
  }
  mesh.reoriented_tets += reoriented;
}

} // namespace detail

Mesh read_mesh(std::string const& path, double scale)
{
  namespace fs = std::filesystem;
  if (!(scale > 0 && std::isfinite(scale)))
    throw Error(path, "the length scale " + std::to_string(scale) + " is not a positive number",
                "give the metres per mesh unit, e.g. --scale 1e-3 for millimetres");
  std::error_code ec;
  if (!fs::exists(path, ec)) throw Error(path, "no such file", "check the path, or generate a mesh with 'dgatd mesh'");
  if (!fs::is_regular_file(path, ec)) throw Error(path, "not a regular file", "give the path of a .msh file");
  // A geometry script is meshed here, with the options it sets (its own mesh sizes and algorithms).
  bool const geometry = fs::path(path).extension() == ".geo";
  if (!geometry) detail::check_msh_file(path);

  detail::GmshSession session;
  detail::GmshModel model("read");
  std::vector<std::size_t> element_tags;
  Mesh mesh;
  if (geometry)
    detail::call_gmsh(path, "cannot mesh the geometry", "check the .geo file, e.g. open it in Gmsh", [&] {
      gmsh::merge(path);
      std::vector<std::size_t> tets, nodes;
      gmsh::model::mesh::getElementsByType(kGmshTetrahedron, tets, nodes);
      if (tets.empty()) gmsh::model::mesh::generate(3);
    });
  detail::call_gmsh(path, "cannot read the mesh",
                    "check that the file is a complete .msh 2.2 or 4.1 file, e.g. re-export it from Gmsh", [&] {
                      if (!geometry) gmsh::merge(path);
                      mesh = detail::mesh_from_current_model(path, scale, element_tags);
                    });
  detail::validate_and_orient(mesh, &element_tags);
  return mesh;
}

void write_mesh(Mesh const& mesh, std::string const& path, std::string const& version, bool binary)
{
  if (version != "2.2" && version != "4.1")
    throw Error(path, "unknown .msh version '" + version + "'", "write version 2.2 or 4.1");
  if (std::filesystem::path(path).extension() != ".msh")
    throw Error(path, "the output file name does not end in .msh", "name the output file *.msh");
  if (mesh.tet_region.size() != mesh.tets.size() || mesh.boundary_triangle_tag.size() != mesh.boundary_triangles.size())
    throw Error(mesh.source, "inconsistent mesh: every tet needs a region and every boundary triangle a tag",
                "this is a bug in whatever built the mesh; please report it");
  for (int tag : mesh.boundary_triangle_tag)
    if (tag <= 0)
      throw Error(mesh.source, "boundary triangle tag " + std::to_string(tag) + " is not a positive physical tag",
                  "tag boundary triangles with their physical surface");

  // One discrete volume per physical tag (tag = entity tag); tets outside any physical volume
  // (region 0) go to an extra entity after the largest tag, with no physical group.
  std::vector<int> regions;
  for (int region : mesh.tet_region) regions.push_back(std::max(region, 0));
  std::sort(regions.begin(), regions.end());
  regions.erase(std::unique(regions.begin(), regions.end()), regions.end());
  std::vector<int> surfaces(mesh.boundary_triangle_tag.begin(), mesh.boundary_triangle_tag.end());
  std::sort(surfaces.begin(), surfaces.end());
  surfaces.erase(std::unique(surfaces.begin(), surfaces.end()), surfaces.end());
  bool const has_unassigned_tets = !regions.empty() && regions.front() == 0;
  int const unassigned_entity = regions.empty() ? 1 : regions.back() + 1;
  auto entity_of_region = [&](int region) { return region > 0 ? region : unassigned_entity; };
  // MSH 2.2 keeps the physical tag on each element, and Gmsh only writes untagged elements by
  // dropping every element's tag.
  if (version == "2.2" && has_unassigned_tets && (regions.size() > 1 || !surfaces.empty()))
    throw Error(path, "MSH 2.2 cannot hold tets outside every physical volume next to tagged elements",
                "write version 4.1, or put every tet in a physical volume");
  auto name_of = [&](int dim, int tag) {
    for (auto const& g : mesh.groups)
      if (g.dim == dim && g.tag == tag) return g.name;
    return std::string();
  };

  detail::GmshSession session;
  detail::GmshModel model("write");
  detail::call_gmsh(path, "cannot write the mesh", "check that the directory exists and is writable", [&] {
    for (int region : regions) gmsh::model::addDiscreteEntity(3, entity_of_region(region));
    // All nodes on one entity, tagged in vertex order: Gmsh's writers then keep vertex order.
    std::vector<std::size_t> node_tags(mesh.points.size());
    std::iota(node_tags.begin(), node_tags.end(), std::size_t{1});
    std::vector<double> coords;
    coords.reserve(3 * mesh.points.size());
    for (auto const& p : mesh.points) coords.insert(coords.end(), p.begin(), p.end());
    if (!regions.empty()) gmsh::model::mesh::addNodes(3, entity_of_region(regions.front()), node_tags, coords);

    std::vector<std::size_t> element_tags, element_nodes;
    for (int region : regions) {
      element_tags.clear();
      element_nodes.clear();
      for (std::size_t t = 0; t < mesh.tets.size(); ++t)
        if (std::max(mesh.tet_region[t], 0) == region) {
          element_tags.push_back(t + 1);
          for (Index v : mesh.tets[t]) element_nodes.push_back(static_cast<std::size_t>(v) + 1);
        }
      gmsh::model::mesh::addElementsByType(entity_of_region(region), kGmshTetrahedron, element_tags, element_nodes);
      if (region > 0) {
        gmsh::model::addPhysicalGroup(3, {region}, region);
        gmsh::model::setPhysicalName(3, region, name_of(3, region));
      }
    }
    for (int surface : surfaces) {
      gmsh::model::addDiscreteEntity(2, surface);
      element_tags.clear();
      element_nodes.clear();
      for (std::size_t i = 0; i < mesh.boundary_triangles.size(); ++i)
        if (mesh.boundary_triangle_tag[i] == surface) {
          element_tags.push_back(mesh.tets.size() + i + 1);
          for (Index v : mesh.boundary_triangles[i]) element_nodes.push_back(static_cast<std::size_t>(v) + 1);
        }
      gmsh::model::mesh::addElementsByType(surface, kGmshTriangle, element_tags, element_nodes);
      gmsh::model::addPhysicalGroup(2, {surface}, surface);
      gmsh::model::setPhysicalName(2, surface, name_of(2, surface));
    }
    std::vector<int> curves(mesh.curve_segment_tag.begin(), mesh.curve_segment_tag.end());
    std::sort(curves.begin(), curves.end());
    curves.erase(std::unique(curves.begin(), curves.end()), curves.end());
    for (int curve : curves) {
      gmsh::model::addDiscreteEntity(1, curve);
      element_tags.clear();
      element_nodes.clear();
      for (std::size_t i = 0; i < mesh.curve_segments.size(); ++i)
        if (mesh.curve_segment_tag[i] == curve) {
          element_tags.push_back(mesh.tets.size() + mesh.boundary_triangles.size() + i + 1);
          for (Index v : mesh.curve_segments[i]) element_nodes.push_back(static_cast<std::size_t>(v) + 1);
        }
      gmsh::model::mesh::addElementsByType(curve, kGmshLine, element_tags, element_nodes);
      gmsh::model::addPhysicalGroup(1, {curve}, curve);
      gmsh::model::setPhysicalName(1, curve, name_of(1, curve));
    }
    gmsh::option::setNumber("Mesh.MshFileVersion", version == "2.2" ? 2.2 : 4.1);
    gmsh::option::setNumber("Mesh.Binary", binary ? 1 : 0);
    gmsh::option::setNumber("Mesh.SaveAll", has_unassigned_tets ? 1 : 0);
    gmsh::write(path);
  });
}

void validate_and_orient(Mesh& mesh) { detail::validate_and_orient(mesh, nullptr); }

} // namespace dgatd::mesh
