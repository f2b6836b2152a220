#pragma once
// The primal tetrahedral mesh as it enters dgatd: points, first-order tetrahedra with their region,
// the tagged boundary triangles and the tagged segments of curves. Knows nothing about physics.

#include "dgatd/index.hpp"
#include "dgatd/vec3.hpp"

#include <array>
#include <string>
#include <vector>

namespace dgatd::mesh {

// Spelled mesh::Index and mesh::Vec3 by callers outside the namespace.
using dgatd::Index;
using dgatd::Vec3;

struct PhysicalGroup {
  int dim = 0; // 1: curve (a wire), 2: surface (boundary tag), 3: volume (material region)
  int tag = 0;
  std::string name;
};

struct Mesh {
  std::string source;       // file name (or generator description) for messages
  std::vector<Vec3> points; // metres (the length scale is already applied)
  // Vertex ids (0-based), ordered so the signed volume is positive.
  std::vector<std::array<Index, 4>> tets;
  std::vector<int> tet_region;                          // physical volume tag of each tet, 0 where it has none
  std::vector<std::array<Index, 3>> boundary_triangles; // triangles of physical surface groups
  std::vector<int> boundary_triangle_tag;               // their physical surface tag
  std::vector<std::array<Index, 2>> curve_segments;     // segments of physical curve groups (wires)
  std::vector<int> curve_segment_tag;                   // their physical curve tag
  std::vector<PhysicalGroup> groups;
  Index reoriented_tets = 0; // tets whose vertex order was flipped to make their volume positive

  Index num_vertices() const { return static_cast<Index>(points.size()); }
  Index num_tets() const { return static_cast<Index>(tets.size()); }
  // Tag of the physical group of dimension dim called name; throws dgatd::Error naming the mesh and
  // the known groups when there is none.
  int group_tag(int dim, std::string const& name) const;
};

} // namespace dgatd::mesh
