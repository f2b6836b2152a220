#pragma once
// Domain decomposition for runs over several ranks (issue 21, first part): the tets into parts, and
// what each part would receive from the others every step. Not in the installed package yet: the
// command line (`dgatd partition`) and the tests use it until a run spans several ranks.
//
// A part owns its tets (Faraday's work) and the dual blocks of the vertices it owns (Ampere's): a
// vertex goes to the part that holds most of the tets around it, the lowest such part on a tie.
// Faraday on tet t reads u at its twelve half-edges, three in the block of each of its vertices;
// Ampere on block v reads the edge pieces that the tets around v wrote for their three edges at v.

#include "dgatd/mesh/mesh.hpp"
#include "dgatd/mesh/ordering.hpp"
#include "dgatd/mesh/topology.hpp"

#include <string>
#include <vector>

namespace dgatd::partition {

// The part of each tet: METIS's k-way partition of the tets' face graph (tets that share a face are
// neighbours), with a fixed seed, so that a mesh gives the same parts on every machine. Each tet
// weighs constraints values, weight[t * constraints + c] (its work; 1 for every tet when weight is
// empty), and every part takes its share of each constraint's total (local time steps: one
// constraint per level, since each level's steps end in an exchange every rank waits for). Throws
// dgatd::Error when parts is below 1 or above the number of tets.
std::vector<int> partition_tets(mesh::Mesh const& mesh, mesh::Topology const& topology, int parts,
                                std::vector<int> const& weight = {}, int constraints = 1);

// What one part owns and receives per step, in values (unknowns or pieces).
struct PartHalo {
  Index tets = 0;
  Index blocks = 0;
  int neighbours = 0; // parts it receives from, in either exchange below
  // Two exchanges per step: u before Faraday (half-edges of its tets in blocks owned elsewhere),
  // edge pieces before Ampere (of tets owned elsewhere, at its vertices).
  Index halo_unknowns = 0;
  Index halo_pieces = 0;
  // One exchange per step: the tets owned elsewhere around its vertices (ghost tets) run Faraday
  // here too, so that Ampere finds every piece at home; then only u crosses, for the half-edges of
  // its own and its ghost tets in blocks owned elsewhere.
  Index ghost_tets = 0;
  Index ghost_halo_unknowns = 0;
};

// The vertex owners and each part's halo, for tet_part as partition_tets gives it.
std::vector<PartHalo> part_halos(mesh::Topology const& topology, std::vector<int> const& tet_part, int parts);

// Writes into directory the parts (simulation/part_files.hpp) of the mesh read from mesh_file with
// scale and ordered by ordering (mesh, with its topology), its tets split by tet_part over parts
// ranks, with the manifest that ties them to the file's bytes. Throws dgatd::Error naming the file or
// folder that failed.
void write_mesh_parts(std::string const& mesh_file, double scale, mesh::Ordering ordering, mesh::Mesh const& mesh,
                      mesh::Topology const& topology, std::vector<int> const& tet_part, int parts,
                      std::string const& directory);

} // namespace dgatd::partition
