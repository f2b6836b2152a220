#include "dgatd/simulation/part_files.hpp"

#include "dgatd/error.hpp"
#include "dgatd/io/output/checkpoint.hpp"
#include "dgatd/parallel/decomposition.hpp"
#include "io/hdf5_handle.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace dgatd::simulation {
namespace {

namespace fs = std::filesystem;
using io::hdf5::Handle;

constexpr char const* manifest_kind = "dgatd parts manifest";
constexpr char const* part_kind = "dgatd part";

std::string part_path(std::string const& directory, int rank)
{
  return (fs::path(directory) / ("part_" + std::to_string(rank) + ".h5")).string();
}

std::string manifest_path(std::string const& directory) { return (fs::path(directory) / "manifest.h5").string(); }

template <class T>
std::vector<std::int32_t> ints(std::vector<T> const& values)
{
  return {values.begin(), values.end()};
}

void write_ints(io::hdf5::Writer const& writer, hid_t parent, char const* name, std::vector<std::int32_t> const& values,
                hsize_t cols = 0)
{
  writer.dataset(parent, name, H5T_STD_I32LE, H5T_NATIVE_INT32, values.size() / (cols ? cols : 1), cols, values.data());
}

Handle open_file(std::string const& path, std::string const& kind, std::string const& fix)
{
  std::error_code error;
  if (!fs::is_regular_file(path, error)) throw Error(path, "no such file", fix);
  if (H5Fis_hdf5(path.c_str()) <= 0) throw Error(path, "not an HDF5 file", fix);
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) throw Error(path, "HDF5 cannot open it", "check that it is readable and not truncated");
  std::string found;
  if (!io::hdf5::read_attribute(file.get(), "kind", found) || found != kind)
    throw Error(path, "not a " + kind + " (its kind attribute says '" + found + "')", fix);
  return file;
}

std::int64_t integer_attribute(hid_t object, char const* name, std::string const& path)
{
  std::int64_t value = 0;
  if (!io::hdf5::read_attribute(object, name, H5T_NATIVE_INT64, &value))
    throw Error(path, std::string("lacks its attribute ") + name, "it is damaged; run dgatd partition again");
  return value;
}

std::string string_attribute(hid_t object, char const* name, std::string const& path)
{
  std::string value;
  if (!io::hdf5::read_attribute(object, name, value))
    throw Error(path, std::string("lacks its attribute ") + name, "it is damaged; run dgatd partition again");
  return value;
}

// The tets of each part: those around its vertices, and in reserve those across the faces of the
// tets it owns (the owner of a tet's lowest vertex steps and counts it).
struct PartTets {
  std::vector<Index> tets;
  std::vector<char> reserve;
};

std::vector<PartTets> tets_of_parts(mesh::Mesh const& mesh, mesh::Topology const& topology,
                                    std::vector<int> const& vertex_owner, int ranks)
{
  std::vector<std::vector<std::pair<Index, char>>> listed(ranks);
  for (Index t = 0; t < mesh.num_tets(); ++t) {
    auto const& v = mesh.tets[t];
    int core[4];
    for (int i = 0; i < 4; ++i) core[i] = vertex_owner[v[i]];
    for (int i = 0; i < 4; ++i)
      if (std::find(core, core + i, core[i]) == core + i) listed[core[i]].push_back({t, 0});
    int const owner = parallel::tet_owner(mesh, vertex_owner, t);
    for (Index f : topology.tet_faces[t])
      for (Index across : topology.face_tets[f])
        if (across >= 0 && across != t) listed[owner].push_back({across, 1});
  }
  std::vector<PartTets> parts(ranks);
  for (int r = 0; r < ranks; ++r) {
    auto& list = listed[r];
    // A tet of the core may also be listed in reserve: the core wins (0 sorts first).
    std::sort(list.begin(), list.end());
    for (std::size_t k = 0; k < list.size(); ++k)
      if (k == 0 || list[k].first != list[k - 1].first) {
        parts[r].tets.push_back(list[k].first);
        parts[r].reserve.push_back(list[k].second);
      }
    list = {};
  }
  return parts;
}

void write_part(PartsManifest const& manifest, int rank, PartTets const& part, mesh::Mesh const& mesh,
                mesh::Topology const& topology, std::vector<int> const& vertex_owner,
                std::vector<std::vector<Index>> const& triangles_of_vertex)
{
  std::vector<Index> vertices;
  for (Index t : part.tets) vertices.insert(vertices.end(), mesh.tets[t].begin(), mesh.tets[t].end());
  std::sort(vertices.begin(), vertices.end());
  vertices.erase(std::unique(vertices.begin(), vertices.end()), vertices.end());
  auto local = [&](Index v) {
    return static_cast<std::int32_t>(std::lower_bound(vertices.begin(), vertices.end(), v) - vertices.begin());
  };
  std::vector<double> points;
  std::vector<std::int32_t> owner;
  for (Index v : vertices) {
    points.insert(points.end(), mesh.points[v].begin(), mesh.points[v].end());
    owner.push_back(vertex_owner[v]);
  }
  std::vector<std::int32_t> tets, regions, edges, faces, interior;
  for (Index t : part.tets) {
    for (Index v : mesh.tets[t]) tets.push_back(local(v));
    regions.push_back(mesh.tet_region[t]);
    edges.insert(edges.end(), topology.tet_edges[t].begin(), topology.tet_edges[t].end());
    faces.insert(faces.end(), topology.tet_faces[t].begin(), topology.tet_faces[t].end());
    for (Index f : topology.tet_faces[t]) interior.push_back(topology.face_tets[f][1] >= 0);
  }
  // The surface triangles among the faces of the part's tets.
  std::vector<std::array<Index, 3>> part_faces;
  for (Index t : part.tets)
    for (Index f : topology.tet_faces[t]) part_faces.push_back(topology.face_vertices[f]);
  std::sort(part_faces.begin(), part_faces.end());
  std::vector<Index> triangle_ids;
  for (Index v : vertices)
    for (Index i : triangles_of_vertex[v]) {
      auto key = mesh.boundary_triangles[i];
      std::sort(key.begin(), key.end());
      if (std::binary_search(part_faces.begin(), part_faces.end(), key)) triangle_ids.push_back(i);
    }
  std::sort(triangle_ids.begin(), triangle_ids.end());
  std::vector<std::int32_t> triangles, triangle_tags;
  for (Index i : triangle_ids) {
    for (Index v : mesh.boundary_triangles[i]) triangles.push_back(local(v));
    triangle_tags.push_back(mesh.boundary_triangle_tag[i]);
  }
  // The wires' segments that the part keeps (parallel::keeps_segment).
  auto const local_or_none = [&](Index v) {
    return std::binary_search(vertices.begin(), vertices.end(), v) ? static_cast<Index>(local(v)) : Index{-1};
  };
  auto const part_edges = parallel::edge_pairs(io::hdf5::rows_of<Index, 4>(tets));
  std::vector<std::int32_t> segments, segment_tags;
  for (std::size_t i = 0; i < mesh.curve_segments.size(); ++i) {
    auto const& g = mesh.curve_segments[i];
    Index const a = local_or_none(g[0]), b = local_or_none(g[1]);
    if (!parallel::keeps_segment(part_edges, a, b, vertex_owner[g[0]] == rank)) continue;
    segments.insert(segments.end(), {a, b});
    segment_tags.push_back(mesh.curve_segment_tag[i]);
  }

  io::hdf5::write_atomically(
      part_path(manifest.directory, rank), "a part file", [&](io::hdf5::Writer const& writer, hid_t root) {
        writer.attribute(root, "kind", std::string(part_kind));
        writer.attribute(root, "rank", static_cast<std::int64_t>(rank));
        writer.attribute(root, "ranks", static_cast<std::int64_t>(manifest.ranks));
        writer.attribute(root, "mesh_fingerprint", static_cast<std::int64_t>(manifest.mesh_fingerprint));
        writer.dataset(root, "vertex_position", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, vertices.size(), 3, points.data());
        write_ints(writer, root, "vertex_global", ints(vertices));
        write_ints(writer, root, "vertex_owner", owner);
        write_ints(writer, root, "tet_global", ints(part.tets));
        write_ints(writer, root, "tet_reserve", ints(part.reserve));
        write_ints(writer, root, "tet_vertices", tets, 4);
        write_ints(writer, root, "tet_region", regions);
        write_ints(writer, root, "tet_edges", edges, 6);
        write_ints(writer, root, "tet_faces", faces, 4);
        write_ints(writer, root, "tet_face_interior", interior, 4);
        write_ints(writer, root, "triangle_global", ints(triangle_ids));
        write_ints(writer, root, "triangle_vertices", triangles, 3);
        write_ints(writer, root, "triangle_tag", triangle_tags);
        write_ints(writer, root, "segment_vertices", segments, 2);
        write_ints(writer, root, "segment_tag", segment_tags);
      });
}

} // namespace

std::uint64_t mesh_file_hash(std::string const& path, std::int64_t& size)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, "cannot be read", "check the path of the mesh file");
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  std::vector<char> block(1 << 20);
  size = 0;
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    auto const n = in.gcount();
    for (std::streamsize i = 0; i < n; ++i) {
      hash ^= static_cast<unsigned char>(block[i]);
      hash *= 0x100000001b3ULL;
    }
    size += n;
  }
  if (in.bad()) throw Error(path, "could not be read to its end", "check the file and the disk");
  return hash;
}

void write_parts(PartsManifest manifest, mesh::Mesh const& mesh, mesh::Topology const& topology,
                 std::vector<int> const& vertex_owner)
{
  std::error_code error;
  fs::create_directories(manifest.directory, error);
  if (error || !fs::is_directory(manifest.directory, error))
    throw Error(manifest.directory, "cannot create the folder", "give a writable folder for -o");
  // A manifest left from an earlier split would vouch for parts being replaced: it goes first, and
  // the parts of an earlier split into more ranks after it.
  fs::remove(manifest_path(manifest.directory), error);
  for (int r = manifest.ranks; fs::remove(part_path(manifest.directory, r), error); ++r) {
  }

  manifest.mesh_fingerprint = io::mesh_fingerprint(mesh);
  manifest.vertices = mesh.num_vertices();
  manifest.edges = topology.num_edges();
  manifest.faces = topology.num_faces();
  manifest.tets = mesh.num_tets();
  manifest.groups = mesh.groups;
  manifest.regions.assign(mesh.tet_region.begin(), mesh.tet_region.end());
  std::sort(manifest.regions.begin(), manifest.regions.end());
  manifest.regions.erase(std::unique(manifest.regions.begin(), manifest.regions.end()), manifest.regions.end());
  manifest.source = mesh.source;

  std::vector<std::vector<Index>> triangles_of_vertex(mesh.num_vertices());
  for (std::size_t i = 0; i < mesh.boundary_triangles.size(); ++i) {
    auto const& tri = mesh.boundary_triangles[i];
    triangles_of_vertex[*std::min_element(tri.begin(), tri.end())].push_back(static_cast<Index>(i));
  }
  auto const parts = tets_of_parts(mesh, topology, vertex_owner, manifest.ranks);
  for (int r = 0; r < manifest.ranks; ++r)
    write_part(manifest, r, parts[r], mesh, topology, vertex_owner, triangles_of_vertex);

  io::hdf5::write_atomically(
      manifest_path(manifest.directory), "the manifest", [&](io::hdf5::Writer const& writer, hid_t root) {
        writer.attribute(root, "kind", std::string(manifest_kind));
        writer.attribute(root, "ranks", static_cast<std::int64_t>(manifest.ranks));
        writer.attribute(root, "mesh_file", manifest.mesh_file);
        writer.attribute(root, "mesh_file_hash", static_cast<std::int64_t>(manifest.mesh_file_hash));
        writer.attribute(root, "mesh_file_size", manifest.mesh_file_size);
        writer.attribute(root, "scale", manifest.scale);
        writer.attribute(root, "ordering", manifest.ordering);
        writer.attribute(root, "mesh_fingerprint", static_cast<std::int64_t>(manifest.mesh_fingerprint));
        writer.attribute(root, "source", manifest.source);
        writer.attribute(root, "vertices", static_cast<std::int64_t>(manifest.vertices));
        writer.attribute(root, "edges", static_cast<std::int64_t>(manifest.edges));
        writer.attribute(root, "faces", static_cast<std::int64_t>(manifest.faces));
        writer.attribute(root, "tets", static_cast<std::int64_t>(manifest.tets));
        io::hdf5::write_groups(writer, root, manifest.groups);
        write_ints(writer, root, "regions", ints(manifest.regions));
      });
}

PartsManifest read_manifest(std::string const& directory)
{
  std::string const path = manifest_path(directory);
  std::string const fix = "give a folder that dgatd partition wrote (dgatd partition MESH -n N -o " + directory + ")";
  io::hdf5::QuietErrors const quiet;
  auto const file = open_file(path, manifest_kind, fix);
  hid_t const root = file.get();
  PartsManifest m;
  m.directory = directory;
  m.ranks = static_cast<int>(integer_attribute(root, "ranks", path));
  m.mesh_file = string_attribute(root, "mesh_file", path);
  m.mesh_file_hash = static_cast<std::uint64_t>(integer_attribute(root, "mesh_file_hash", path));
  m.mesh_file_size = integer_attribute(root, "mesh_file_size", path);
  if (!io::hdf5::read_attribute(root, "scale", H5T_NATIVE_DOUBLE, &m.scale))
    throw Error(path, "lacks its attribute scale", "it is damaged; run dgatd partition again");
  m.ordering = string_attribute(root, "ordering", path);
  m.mesh_fingerprint = static_cast<std::uint64_t>(integer_attribute(root, "mesh_fingerprint", path));
  m.source = string_attribute(root, "source", path);
  m.vertices = static_cast<Index>(integer_attribute(root, "vertices", path));
  m.edges = static_cast<Index>(integer_attribute(root, "edges", path));
  m.faces = static_cast<Index>(integer_attribute(root, "faces", path));
  m.tets = static_cast<Index>(integer_attribute(root, "tets", path));
  m.groups = io::hdf5::read_groups(root, path);
  hsize_t rows = 0;
  auto const regions = io::hdf5::read_rows<std::int32_t>(root, "regions", 0, path, rows);
  m.regions.assign(regions.begin(), regions.end());
  if (m.ranks < 1 || m.tets < 1) throw Error(path, "names no parts or no tets", "run dgatd partition again");
  return m;
}

StoredPart read_part(PartsManifest const& manifest, int rank)
{
  std::string const path = part_path(manifest.directory, rank);
  std::string const fix = "run dgatd partition again into " + manifest.directory;
  io::hdf5::QuietErrors const quiet;
  auto const file = open_file(path, part_kind, fix);
  hid_t const root = file.get();
  if (integer_attribute(root, "rank", path) != rank || integer_attribute(root, "ranks", path) != manifest.ranks ||
      static_cast<std::uint64_t>(integer_attribute(root, "mesh_fingerprint", path)) != manifest.mesh_fingerprint)
    throw Error(path, "belongs to another split than " + manifest_path(manifest.directory), fix);

  StoredPart p;
  hsize_t rows = 0, tets = 0;
  auto const points = io::hdf5::read_rows<double>(root, "vertex_position", 3, path, rows);
  p.mesh.points.resize(rows);
  for (hsize_t i = 0; i < rows; ++i) p.mesh.points[i] = {points[3 * i], points[3 * i + 1], points[3 * i + 2]};
  auto read = [&](char const* name, hsize_t cols, hsize_t expected) {
    auto values = io::hdf5::read_rows<std::int32_t>(root, name, cols, path, rows);
    if (expected != rows) throw Error(path, std::string("dataset ") + name + " has an unexpected length", fix);
    return values;
  };
  auto const vertex_global = read("vertex_global", 0, p.mesh.points.size());
  p.global_vertex.assign(vertex_global.begin(), vertex_global.end());
  auto const owner = read("vertex_owner", 0, p.mesh.points.size());
  p.vertex_owner.assign(owner.begin(), owner.end());
  auto const tet_global = io::hdf5::read_rows<std::int32_t>(root, "tet_global", 0, path, tets);
  p.global_tet.assign(tet_global.begin(), tet_global.end());
  auto const reserve = read("tet_reserve", 0, tets);
  p.reserve.assign(reserve.begin(), reserve.end());
  p.mesh.tets = io::hdf5::rows_of<Index, 4>(read("tet_vertices", 4, tets));
  auto const regions = read("tet_region", 0, tets);
  p.mesh.tet_region.assign(regions.begin(), regions.end());
  p.tet_edges = io::hdf5::rows_of<Index, 6>(read("tet_edges", 6, tets));
  p.tet_faces = io::hdf5::rows_of<Index, 4>(read("tet_faces", 4, tets));
  p.face_interior = io::hdf5::rows_of<char, 4>(read("tet_face_interior", 4, tets));
  auto const triangle_global = io::hdf5::read_rows<std::int32_t>(root, "triangle_global", 0, path, rows);
  p.global_triangle.assign(triangle_global.begin(), triangle_global.end());
  p.mesh.boundary_triangles = io::hdf5::rows_of<Index, 3>(read("triangle_vertices", 3, p.global_triangle.size()));
  auto const triangle_tags = read("triangle_tag", 0, p.global_triangle.size());
  p.mesh.boundary_triangle_tag.assign(triangle_tags.begin(), triangle_tags.end());
  if (H5Lexists(root, "segment_vertices", H5P_DEFAULT) > 0) {
    auto const segment_tags = io::hdf5::read_rows<std::int32_t>(root, "segment_tag", 0, path, rows);
    p.mesh.curve_segment_tag.assign(segment_tags.begin(), segment_tags.end());
    p.mesh.curve_segments = io::hdf5::rows_of<Index, 2>(read("segment_vertices", 2, segment_tags.size()));
  } else if (std::any_of(manifest.groups.begin(), manifest.groups.end(),
                         [](mesh::PhysicalGroup const& g) { return g.dim == 1; })) {
    throw Error(path, "was written before parts kept the mesh's physical curves (wires)", fix);
  }

  Index const num_vertices = p.mesh.num_vertices();
  auto const in_range = [&](auto const& rows_of_ids) {
    for (auto const& row : rows_of_ids)
      for (Index v : row)
        if (v < 0 || v >= num_vertices) return false;
    return true;
  };
  bool const ascending = std::is_sorted(p.global_vertex.begin(), p.global_vertex.end()) &&
                         std::is_sorted(p.global_tet.begin(), p.global_tet.end());
  if (!ascending || !in_range(p.mesh.tets) || !in_range(p.mesh.boundary_triangles) || !in_range(p.mesh.curve_segments))
    throw Error(path, "holds vertex ids out of range or out of order", fix);
  p.mesh.groups = manifest.groups;
  p.mesh.source = manifest.source;
  return p;
}

} // namespace dgatd::simulation
