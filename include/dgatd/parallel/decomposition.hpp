#pragma once
// A problem over several ranks (docs/method/parallel.md): which rank owns which vertex (its dual block,
// Ampere's work) and which tets each rank steps, the mesh of one rank's part, and the halo exchange
// that keeps the unknowns of the blocks it does not own equal to their owners'.
//
// A rank steps Faraday on every tet around its own vertices (its own tets and one layer of ghost
// tets), so Ampere finds every edge piece its blocks sum at home, and Ampere on the blocks of all
// vertices of those tets; the blocks it does not own (halo blocks) then take their owners' values,
// once per step. Local ids keep the order of the global ones (vertices and tets ascending), so each
// owned block sums in the order of the one-process run and the fields agree with it bit for bit.

#include "dgatd/mesh/mesh.hpp"
#include "dgatd/mesh/topology.hpp"
#include "dgatd/mesh/view.hpp"
#include "dgatd/parallel/communicator.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace dgatd::parallel {

// The owner of each vertex for a partition of the tets: the part of most of the tets around it, the
// lowest such part on a tie.
std::vector<int> vertex_owners(mesh::Topology const& topology, std::vector<int> const& tet_part, int parts);

// The rank that owns a tet (counts it in energies and sums): the owner of its lowest vertex, which
// steps it.
inline int tet_owner(mesh::Mesh const& mesh, std::vector<int> const& vertex_owner, Index t)
{
  auto const& v = mesh.tets[t];
  Index lowest = v[0];
  for (int i = 1; i < 4; ++i) lowest = v[i] < lowest ? v[i] : lowest;
  return vertex_owner[lowest];
}

// The mesh one rank steps, in local ids, with its maps to the global ones.
struct MeshPart {
  int rank = 0;
  int ranks = 1;
  mesh::Mesh mesh;
  std::vector<Index> global_vertex;   // ascending
  std::vector<Index> global_tet;      // ascending
  std::vector<char> owns_vertex;      // per local vertex
  std::vector<int> vertex_owner;      // per local vertex, the rank that owns it
  std::vector<char> owns_tet;         // per local tet (tet_owner)
  std::vector<Index> global_triangle; // per surface triangle of mesh, its index among the whole's
  Index global_vertices = 0;          // of the whole mesh
  Index local_tet(Index global) const;
};

// Rank's part: the tets around the vertices it owns plus extra_tets (global ids: what a probe on
// this rank reads beyond them), the surface triangles among their faces and the curve segments
// (keeps_segment). Throws dgatd::Error
// when the rank owns no vertex (more ranks than the mesh can share).
MeshPart make_mesh_part(mesh::Mesh const& global, std::vector<int> const& vertex_owner, int rank, int ranks,
                        std::vector<Index> const& extra_tets = {});

// The edges of tets, each as the ascending pair of its vertices, sorted, each once.
std::vector<std::array<Index, 2>> edge_pairs(std::vector<std::array<Index, 4>> const& tets);

// Whether a part keeps the curve segment from its vertex a to b (its ids, -1 where it lacks one):
// where the segment is an edge of its tets (edges: edge_pairs of them), so that a
// wire's edges are PEC wherever a part holds them, and where it owns a, which holds every tet around
// a, so that a segment that is no edge of the mesh is still refused as one process refuses it.
bool keeps_segment(std::vector<std::array<Index, 2>> const& edges, Index a, Index b, bool owns_a);

// Global id of each local edge and face of a mesh whose local tet t is tet tet_of[t] of tables of each
// tet's global edges and faces (the whole topology's tet_edges and tet_faces, or a stored part's):
// through the tets, which keep their vertex order.
std::vector<Index> global_edges(mesh::Topology const& local, std::vector<Index> const& tet_of,
                                std::vector<std::array<Index, 6>> const& global_tet_edges);
std::vector<Index> global_faces(mesh::Topology const& local, std::vector<Index> const& tet_of,
                                std::vector<std::array<Index, 4>> const& global_tet_faces);

// Per halo block unknown, the owner's unknown that it copies, and what each neighbour copies from
// here: send_dofs[neighbours[n].send_offset ...] are packed for neighbour n, and the values received
// from it go to receive_dofs[neighbours[n].receive_offset ...]. Built collectively.
struct HaloPlan {
  std::vector<NeighbourExchange> neighbours;
  std::vector<Index> send_dofs;
  std::vector<Index> receive_dofs;
  // The part's tets that read a halo unknown (a vertex owned elsewhere), ascending: Faraday steps
  // the others while the messages fly.
  std::vector<Index> rim_tets;
};
// dof_of_half_edge, num_free: the unknowns of the part's half-edges (dga::DofLayout), the free ones
// first; the halo carries the free ones.
HaloPlan make_halo_plan(Communicator const& communicator, MeshPart const& part, mesh::Topology const& local,
                        std::vector<Index> const& dof_of_half_edge, Index num_free);

// Where a point lies over the ranks, answered alike on every rank: the tet that mesh::locate_tet
// would pick in the whole mesh (its global id), from each rank's search of the tets it owns in its
// part (view, with global_tet and owns_tet per local tet); -1 when no rank holds the point. Collective.
Index containing_tet_over_ranks(Communicator const& communicator, mesh::MeshView const& view,
                                std::vector<Index> const& global_tet, std::vector<char> const& owns_tet, Vec3 const& x);

// The edge that mesh::nearest_edge would pick in the whole mesh (its global id), from each rank's
// nearest edge in its part (view, with the global id of each local edge). Collective.
Index nearest_edge_over_ranks(Communicator const& communicator, mesh::MeshView const& view,
                              std::vector<Index> const& global_edge, Vec3 const& x);

// The whole mesh on rank root, from what each rank owns of it: its vertices, its tets, the surface
// triangles at its vertices (the lowest of theirs) and the curve segments from them; empty on the
// other ranks. groups and
// source are the caller's to set. Collective; root holds the mesh's points, tets and triangles
// once, nothing of its complex.
mesh::Mesh gather_mesh(Communicator const& communicator, MeshPart const& part, int root);

// A physical surface (tag) of the whole mesh with the tets on either side of it, on every rank: its
// triangles, those tets and their vertices, each in ascending global id (so a search over them meets
// them in the whole mesh's order). local: part.mesh's topology. Collective; groups and source are
// the caller's to set.
mesh::Mesh gather_surface(Communicator const& communicator, MeshPart const& part, mesh::Topology const& local, int tag);

// An array over the whole problem's items (whole of them, width values each) from the ranks' local
// ones: local item i's values go to item global[i] where this rank owns it (owned[i]; where owned
// is empty, wherever global[i] >= 0), zero elsewhere, summed over the ranks. Collective.
std::vector<double> sum_owned(Communicator const& communicator, std::vector<double> const& local,
                              std::vector<Index> const& global, std::vector<char> const& owned, std::size_t whole,
                              std::size_t width = 1);

// The same array on rank root alone, each item sent there by the rank that holds it, with nothing
// over the whole problem on the others: what a snapshot or a checkpoint that rank root writes needs.
// Empty on the other ranks. Collective.
std::vector<double> gather_owned(Communicator const& communicator, std::vector<double> const& local,
                                 std::vector<Index> const& global, std::vector<char> const& owned, std::size_t whole,
                                 int root, std::size_t width = 1);

// gather_owned's converse: per local item i, the width values of item global[i] in whole, an array
// over the whole problem's items that rank root alone holds (zeros where global[i] < 0). Collective.
std::vector<double> from_root(Communicator const& communicator, std::vector<double> const& whole,
                              std::vector<Index> const& global, int root, std::size_t width = 1);

// Per vertex of part: its value in mine where this rank owns it, else its owner's. Collective.
std::vector<char> from_owners(Communicator const& communicator, MeshPart const& part, std::vector<char> const& mine);

// A mesh as bytes and back, for rank 0 to hand the mesh it read or generated to the others.
std::vector<char> pack_mesh(mesh::Mesh const& mesh);
mesh::Mesh unpack_mesh(std::vector<char> const& bytes);

} // namespace dgatd::parallel
