#pragma once
// The local numbering of a tetrahedron's vertices, edges and faces, shared by the mesh, the operator
// assembly, the stencils and the kernels:
//
//   local vertex v  0..3, the tet's vertices in its stored (positively oriented) order;
//   local edge k    joins local vertices tet_edge_vertex(k, 0) < tet_edge_vertex(k, 1):
//                     k = 0: (0,1)  1: (0,2)  2: (0,3)  3: (1,2)  4: (1,3)  5: (2,3)
//                   so edge 5 - k is the edge opposite edge k (the one sharing no vertex with it);
//   local face j    the face opposite local vertex j, its vertices in increasing order:
//                     j = 0: (1,2,3)  1: (0,2,3)  2: (0,1,3)  3: (0,1,2)
//                   and its edges, increasing: 0: (3,4,5)  1: (1,2,5)  2: (0,2,4)  3: (0,1,3).
//
// Functions rather than arrays so device code can call them too: nvcc does not let a device function
// read a namespace-scope constexpr array (short of --expt-relaxed-constexpr). Each holds its table
// locally and folds to a constant where its arguments are known.

#include <Kokkos_Macros.hpp>

namespace dgatd::mesh {

// Local vertex i (0, 1) of local edge k, increasing in i.
KOKKOS_INLINE_FUNCTION constexpr int tet_edge_vertex(int k, int i)
{
  constexpr int table[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  return table[k][i];
}

// Local vertex i (0..2) of local face j, increasing in i. Face j is opposite vertex j, so these are
// the vertices other than j.
KOKKOS_INLINE_FUNCTION constexpr int tet_face_vertex(int j, int i)
{
  constexpr int table[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
  return table[j][i];
}

// Local edge i (0..2) of local face j, increasing in i: the edges not touching vertex j.
KOKKOS_INLINE_FUNCTION constexpr int tet_face_edge(int j, int i)
{
  constexpr int table[4][3] = {{3, 4, 5}, {1, 2, 5}, {0, 2, 4}, {0, 1, 3}};
  return table[j][i];
}

// Local edge i (0..2) at local vertex v, increasing in i.
KOKKOS_INLINE_FUNCTION constexpr int tet_vertex_edge(int v, int i)
{
  constexpr int table[4][3] = {{0, 1, 2}, {0, 3, 4}, {1, 3, 5}, {2, 4, 5}};
  return table[v][i];
}

// Local face i (0..2) at local vertex v, increasing in i: the faces j != v, the same numbers as the
// vertices of face v.
KOKKOS_INLINE_FUNCTION constexpr int tet_vertex_face(int v, int i) { return tet_face_vertex(v, i); }

// Local face i (0, 1) holding local edge k, increasing in i: the faces opposite the two vertices off
// the edge, which are the vertices of the opposite edge 5 - k.
KOKKOS_INLINE_FUNCTION constexpr int tet_edge_face(int k, int i) { return tet_edge_vertex(5 - k, i); }

} // namespace dgatd::mesh
