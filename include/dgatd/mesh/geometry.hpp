#pragma once
// Geometric factors of the primal mesh and its barycentric dual, computed once (MFEM's geometric
// factors habit): tet volumes and barycentres, the tets' spatial index, and on demand the subregion
// frames of METHOD.md.

#include "dgatd/mesh/mesh.hpp"
#include "dgatd/mesh/tet_bins.hpp"
#include "dgatd/mesh/topology.hpp"

#include <array>
#include <vector>

namespace dgatd::mesh {

// The subregion Omega_(t,v) of tet t nearest its local vertex lv.
struct Subregion {
  std::array<Vec3, 3> a;      // primal half-edge vectors a^i = sigma_i (m_{e_i} - p_v), i over tet_vertex_edge(lv, .)
  std::array<Vec3, 3> a_dual; // dual half-edge vectors ~a^j = o_j (g_{f_j} - b_t), j over tet_vertex_face(lv, .)
  std::array<Vec3, 3> w;      // reciprocal basis of a: w^i . a^j = delta_ij
  std::array<Vec3, 3> w_dual; // reciprocal basis of a_dual
  double volume = 0;          // |t| / 4
};

struct Geometry {
  std::vector<double> tet_volume;
  std::vector<Vec3> tet_barycentre;
  std::vector<Vec3> face_barycentre;
  std::vector<Vec3> edge_midpoint;
  TetBins tet_bins; // where points are (mesh/point_location.hpp)
};

Geometry build_geometry(Mesh const& mesh, Topology const& topology);

Subregion subregion(Mesh const& mesh, Topology const& topology, Geometry const& geometry, Index tet, int local_vertex);

// Barycentric coordinates of x with respect to tet t (they sum to one; all >= 0 inside).
std::array<double, 4> barycentric(Mesh const& mesh, Index tet, Vec3 const& x);

} // namespace dgatd::mesh
