#pragma once
// Locality ordering: renumbers a mesh's vertices so that neighbours in space get near ids, and its
// tets so that each follows its vertices. The topology numbers edges and faces by their sorted
// vertex ids and the dual blocks by vertex, so all of them, and every unknown, follow too: the
// gathers of Faraday (the unknowns at a tet's edges) and Ampere (the pieces of the tets around an
// edge) then read memory that the previous items have just brought into cache.
//
// Deterministic: the numbering is a function of the mesh alone (coordinates, connectivity and the
// given order for ties), the same on every machine and thread count, which checkpoints rely on.
// To order the parts of a partitioned mesh, renumber each part's own Mesh.

#include "dgatd/mesh/mesh.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace dgatd::mesh {

enum class Ordering {
  none,    // the order of the file or generator
  hilbert, // vertices along a Hilbert curve through their positions
  rcm,     // reverse Cuthill-McKee on the vertex graph (breadth first from a peripheral vertex)
};

std::string ordering_name(Ordering ordering);
// Every ordering's name: hilbert, rcm, none.
std::vector<std::string> ordering_names();
// The ordering of that name; none when no ordering has it.
std::optional<Ordering> ordering_named(std::string const& name);

// new_vertex[v]: the new id of vertex v; new_tet[t]: the new position of tet t.
struct Renumbering {
  std::vector<Index> new_vertex;
  std::vector<Index> new_tet;
};

// The place of each item when sorted by its key, ties kept in the given order: new_id[item].
template <class Key>
std::vector<Index> stable_ranks(std::vector<Key> const& keys)
{
  std::vector<Index> order(keys.size());
  std::iota(order.begin(), order.end(), Index{0});
  std::stable_sort(order.begin(), order.end(), [&keys](Index a, Index b) { return keys[a] < keys[b]; });
  std::vector<Index> rank(keys.size());
  for (std::size_t k = 0; k < order.size(); ++k) rank[order[k]] = static_cast<Index>(k);
  return rank;
}

// The renumbering an ordering gives; the identity for Ordering::none. Tets are sorted by their
// vertices' new ids, smallest first (lexicographically), so the tets around a vertex are adjacent.
Renumbering locality_renumbering(Mesh const& mesh, Ordering ordering);

// Applies a renumbering to the points, tets (keeping each tet's local vertex order, so its
// orientation), regions and boundary triangles.
void renumber(Mesh& mesh, Renumbering const& renumbering);

// locality_renumbering then renumber.
void order_for_locality(Mesh& mesh, Ordering ordering);

} // namespace dgatd::mesh
