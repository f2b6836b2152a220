#pragma once
// A mesh split for N ranks on disk (docs/method/parallel.md, "Meshes larger than one node"):
// `dgatd partition MESH -n N -o DIR` writes DIR/manifest.h5 and one DIR/part_R.h5 per rank, and a
// run with [mesh] parts = "DIR" reads the manifest and, on each rank, its own part only; no rank
// holds the whole mesh, its complex or its operators.
//
// A part holds the tets around the vertices its rank owns (the rank steps them, as a part cut from
// the whole mesh in memory does) and, in reserve, the tets across the faces of the tets it owns:
// the neighbours a probe in one of its tets reads, taken into the part only where a probe is. Ids
// are global (the ordered mesh's) in the file and ascend, so a part's local ids keep their order.

#include "dgatd/mesh/mesh.hpp"
#include "dgatd/mesh/topology.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace dgatd::simulation {

// What the manifest says of the whole mesh and of the split.
struct PartsManifest {
  std::string directory;
  int ranks = 0;
  std::string mesh_file;            // as given to dgatd partition
  std::uint64_t mesh_file_hash = 0; // of the file's bytes (mesh_file_hash)
  std::int64_t mesh_file_size = 0;
  double scale = 1.0;
  std::string ordering;               // mesh::ordering_name
  std::uint64_t mesh_fingerprint = 0; // io::mesh_fingerprint of the ordered mesh
  Index vertices = 0, edges = 0, faces = 0, tets = 0;
  std::vector<mesh::PhysicalGroup> groups;
  std::vector<int> regions; // the volume tags that have tets, ascending
  std::string source;       // the mesh's name in messages
};

// One rank's part as stored: a mesh of its tets and their vertices in ascending global ids.
struct StoredPart {
  mesh::Mesh mesh; // also the surface triangles among the faces of its tets
  std::vector<Index> global_vertex, global_tet, global_triangle;
  std::vector<int> vertex_owner;                  // per vertex, the rank that owns its dual block
  std::vector<char> reserve;                      // per tet: across a face of an owned tet, not stepped
  std::vector<std::array<Index, 6>> tet_edges;    // per tet, the global ids of its edges (topology order)
  std::vector<std::array<Index, 4>> tet_faces;    // and of its faces
  std::vector<std::array<char, 4>> face_interior; // per tet and face: two tets share it in the whole mesh
};

// A 64-bit hash of a file's bytes (FNV-1a), read in blocks; throws dgatd::Error when unreadable.
std::uint64_t mesh_file_hash(std::string const& path, std::int64_t& size);

// Writes the parts of mesh (ordered as the run orders it, with its topology) for the vertex owners
// and the manifest (its mesh_file..., ordering set by the caller; counts, groups and regions filled
// here). Each file is written beside its name and renamed into place; the manifest last, so a
// folder whose writing stopped has none. Throws dgatd::Error naming the file that failed.
void write_parts(PartsManifest manifest, mesh::Mesh const& mesh, mesh::Topology const& topology,
                 std::vector<int> const& vertex_owner);

// Reads DIR/manifest.h5; throws dgatd::Error naming DIR when it is missing or not a manifest.
PartsManifest read_manifest(std::string const& directory);

// Reads rank's part; throws dgatd::Error naming the file when it is missing or damaged.
StoredPart read_part(PartsManifest const& manifest, int rank);

} // namespace dgatd::simulation
