#pragma once
// What a mesh holds before any physics is run on it (dgatd info): entity and dof counts, the vertex
// degrees d_v (the sizes of the d_v x d_v dual blocks), element quality and sizes, and the elements
// of each physical group. Host code, computed from the mesh, its topology and its geometry.

#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/mesh.hpp"
#include "dgatd/mesh/topology.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <map>
#include <vector>

namespace dgatd::mesh {

// Smallest, largest and mean of a set of values; min = +inf and max = -inf while it is empty.
struct Summary {
  double min = HUGE_VAL;
  double max = -HUGE_VAL;
  double sum = 0;
  std::size_t count = 0;

  void add(double x);
  double mean() const; // 0 while empty
};

// Shape measures of one tetrahedron: 1 for the regular tet, tending to 0 as it flattens.
struct TetQuality {
  double radius_ratio = 0; // 3 r_in / R_circ (inradius over circumradius, scaled)
  double volume_ratio = 0; // 6 sqrt(2) |t| / l_max^3 (volume over that of the regular tet on the longest edge)
  double inradius = 0;     // r_in = 3 |t| / (area of the four faces), metres
};

// The quality of the tet with vertices p and volume |t| > 0 (Geometry::tet_volume).
TetQuality tet_quality(std::array<Vec3, 4> const& p, double volume);

struct MeshStatistics {
  Index vertices = 0; // V
  Index edges = 0;    // E
  Index faces = 0;    // F
  Index tets = 0;     // T
  std::size_t boundary_faces = 0;
  std::size_t tagged_faces = 0;       // faces in some physical surface (Topology::face_tag != 0)
  long long euler_characteristic = 0; // V - E + F - T: 1 for a mesh of a ball
  Index reoriented_tets = 0;          // Mesh::reoriented_tets
  long long half_edge_dofs = 0;       // 2E
  long long dual_half_edge_dofs = 0;  // 4T

  std::map<Index, Index> vertices_of_degree; // d_v -> how many vertices have it
  Summary degree;                            // of d_v over the vertices

  Summary radius_ratio; // TetQuality over the tets
  Summary volume_ratio;
  Summary edge_length; // metres
  Summary tet_volume;  // m^3; sum: the mesh's volume

  // The elements of each of Mesh::groups, in its order: the tets of the region for a volume group
  // (dim 3), else the boundary triangles carrying its tag.
  std::vector<long long> group_elements;
  long long tets_without_region = 0; // tets in no physical volume (region 0)
};

MeshStatistics mesh_statistics(Mesh const& mesh, Topology const& topology, Geometry const& geometry);

// The tets that set the explicit step's pace. A tet's own bound on dt, up to a factor common to the
// mesh, is its inradius times the slowness of light in it, r_in sqrt(eps_r mu_r). The outliers are
// the tets whose bound lies below half the bound of the tet at the 0.1 % quantile (the tenth
// smallest at least): a few slivers that hold dt down, where a fine feature of the geometry (a thin
// substrate) spans more tets than that and is no outlier.
struct PaceSetters {
  std::vector<Index> shortest; // the tets of smallest bound, smallest first (up to the count asked)
  std::vector<double> bound;   // their bounds, metres
  Index outliers = 0;          // how many tets are outliers (the first ones of shortest, if any)
  double quantile_bound = 0;   // the bound at the 0.1 % quantile, metres
};

// relative_slowness: sqrt(eps_r mu_r) per tet, or empty for vacuum everywhere. count: how many of
// the shortest to name.
PaceSetters pace_setting_tets(Mesh const& mesh, std::vector<double> const& relative_slowness, std::size_t count);

} // namespace dgatd::mesh
