#pragma once
// The DGA complex of a tetrahedral mesh with the global orientation conventions of METHOD.md:
// edges (a,b) with a < b, faces (a,b,c) with a < b < c oriented by (p_b-p_a) x (p_c-p_a),
// tet -> edge / face maps with incidence signs (local numbering: reference_tet.hpp), and the CSR
// adjacencies the kernels gather through.
// Deterministic: the numbering depends only on the input mesh.

#include "dgatd/mesh/mesh.hpp"

#include <array>
#include <vector>

namespace dgatd::mesh {

struct Topology {
  Index num_vertices = 0;
  std::vector<std::array<Index, 2>> edge_vertices; // (a, b), a < b
  std::vector<std::array<Index, 3>> face_vertices; // (a, b, c), a < b < c

  std::vector<std::array<Index, 6>> tet_edges; // global edge of local edge k
  // +1 if the global orientation of local edge k (lower to higher global id) runs from its first
  // to its second local vertex, -1 otherwise.
  std::vector<std::array<signed char, 6>> tet_edge_sign;
  std::vector<std::array<Index, 4>> tet_faces; // global face of local face j
  // o_j of METHOD.md: +1 if the face normal n_f points out of the tet, -1 if into it.
  std::vector<std::array<signed char, 4>> tet_face_sign;
  // C_t: inc(f_j, e_k) for local face j and local edge k (+1, -1 or 0), from the global orientations.
  std::vector<std::array<std::array<signed char, 6>, 4>> tet_curl;

  std::vector<std::array<Index, 2>> face_tets; // the one or two tets of a face, -1 for none

  // Vertex -> edge CSR: the edges at v, in increasing global edge id. The half-edge dofs û(v,e)
  // are numbered in this order: half-edge h = v2e_offsets[v] + k is û(v, v2e[h]).
  std::vector<Index> v2e_offsets;
  std::vector<Index> v2e;
  // Half-edge ids of each edge: [0] the one at its tail a, [1] the one at its head b.
  std::vector<std::array<Index, 2>> edge_half_edges;
  // Vertex -> tet CSR.
  std::vector<Index> v2t_offsets;
  std::vector<Index> v2t;

  std::vector<Index> boundary_faces;  // faces with a single tet, increasing
  std::vector<int> face_tag;          // physical surface tag of a face, 0 where none
  std::vector<char> edge_on_boundary; // 1 if the edge lies in some boundary face

  Index num_edges() const { return static_cast<Index>(edge_vertices.size()); }
  Index num_faces() const { return static_cast<Index>(face_vertices.size()); }
  Index num_tets() const { return static_cast<Index>(tet_edges.size()); }
  Index num_half_edges() const { return 2 * num_edges(); }
  Index degree(Index v) const { return v2e_offsets[v + 1] - v2e_offsets[v]; }
};

// The half-edge of edge e at its endpoint v.
inline Index half_edge_of(Topology const& topology, Index e, Index v)
{
  return topology.edge_half_edges[e][topology.edge_vertices[e][0] == v ? 0 : 1];
}

// The edge joining vertices a and b, -1 if they share none.
inline Index edge_joining(Topology const& topology, Index a, Index b)
{
  for (Index h = topology.v2e_offsets[a]; h < topology.v2e_offsets[a + 1]; ++h) {
    auto const& ends = topology.edge_vertices[topology.v2e[h]];
    if (ends[0] == b || ends[1] == b) return topology.v2e[h];
  }
  return -1;
}

// Builds the complex; the mesh's tets must already be positively oriented.
Topology build_topology(Mesh const& mesh);

} // namespace dgatd::mesh
