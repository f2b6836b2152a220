#pragma once
// Geometric factors of the primal mesh and its barycentric dual, computed once (MFEM's geometric
// factors habit): tet volumes and barycentres, and on demand the subregion frames of METHOD.md.

#include "dgatd/mesh/mesh.hpp"
#include "dgatd/mesh/topology.hpp"

#include <array>
#include <vector>

namespace dgatd::mesh {

using Vec3 = std::array<double, 3>;

// Local edges containing local vertex lv (increasing), and local faces containing it (j != lv).
inline constexpr int kVertexEdges[4][3] = {{0, 1, 2}, {0, 3, 4}, {1, 3, 5}, {2, 4, 5}};
inline constexpr int kVertexFaces[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};

// The subregion Omega_(t,v) of tet t nearest its local vertex lv.
struct Subregion {
  std::array<Vec3, 3> a;      // primal half-edge vectors a^i = sigma_i (m_{e_i} - p_v), i over kVertexEdges[lv]
  std::array<Vec3, 3> a_dual; // dual half-edge vectors ~a^j = o_j (g_{f_j} - b_t), j over kVertexFaces[lv]
  std::array<Vec3, 3> w;      // reciprocal basis of a: w^i . a^j = delta_ij
  std::array<Vec3, 3> w_dual; // reciprocal basis of a_dual
  double volume = 0;          // |t| / 4
};

struct Geometry {
  std::vector<double> tet_volume;
  std::vector<Vec3> tet_barycentre;
  std::vector<Vec3> face_barycentre;
  std::vector<Vec3> edge_midpoint;
};

Geometry build_geometry(Mesh const& mesh, Topology const& topology);

Subregion subregion(Mesh const& mesh, Topology const& topology, Geometry const& geometry, Index tet, int local_vertex);

// Barycentric coordinates of x with respect to tet t (they sum to one; all >= 0 inside).
std::array<double, 4> barycentric(Mesh const& mesh, Index tet, Vec3 const& x);

} // namespace dgatd::mesh
