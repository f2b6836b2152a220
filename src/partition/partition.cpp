#include "partition/partition.hpp"

#include "dgatd/error.hpp"
#include "dgatd/parallel/decomposition.hpp"
#include "dgatd/simulation/part_files.hpp"

#include <metis.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>

namespace dgatd::partition {

std::vector<int> partition_tets(mesh::Mesh const& mesh, mesh::Topology const& topology, int parts,
                                std::vector<int> const& weight, int constraints)
{
  Index const tets = topology.num_tets();
  if (parts < 1 || parts > tets)
    throw Error(mesh.source, std::to_string(parts) + " parts for " + std::to_string(tets) + " tets",
                "ask for 1 to " + std::to_string(tets) + " parts");
  if (constraints < 1 ||
      (!weight.empty() && weight.size() != static_cast<std::size_t>(tets) * static_cast<std::size_t>(constraints)))
    throw Error(mesh.source,
                std::to_string(weight.size()) + " tet weights in " + std::to_string(constraints) + " constraints for " +
                    std::to_string(tets) + " tets",
                "give each tet one weight per constraint");
  if (parts == 1) return std::vector<int>(tets, 0);

  // The face graph in METIS's CSR: interior faces join their two tets.
  std::vector<idx_t> offsets(tets + 1, 0);
  for (auto const& pair : topology.face_tets)
    if (pair[1] >= 0) {
      ++offsets[pair[0] + 1];
      ++offsets[pair[1] + 1];
    }
  for (Index t = 0; t < tets; ++t) offsets[t + 1] += offsets[t];
  std::vector<idx_t> neighbours(offsets[tets]);
  std::vector<idx_t> next(offsets.begin(), offsets.end() - 1);
  for (auto const& pair : topology.face_tets)
    if (pair[1] >= 0) {
      neighbours[next[pair[0]]++] = pair[1];
      neighbours[next[pair[1]]++] = pair[0];
    }
  std::vector<idx_t> weights(weight.begin(), weight.end());

  idx_t vertices = tets, balanced = weight.empty() ? 1 : constraints, wanted = parts, cut = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 0;
  std::vector<idx_t> part(tets);
  int const status = METIS_PartGraphKway(&vertices, &balanced, offsets.data(), neighbours.data(),
                                         weights.empty() ? nullptr : weights.data(), nullptr, nullptr, &wanted, nullptr,
                                         nullptr, options, &cut, part.data());
  if (status != METIS_OK)
    throw Error(mesh.source,
                "METIS could not partition the mesh into " + std::to_string(parts) + " parts (status " +
                    std::to_string(status) + ")",
                status == METIS_ERROR_MEMORY ? "run on a machine with more memory" : "ask for fewer parts");
  return std::vector<int>(part.begin(), part.end());
}

std::vector<PartHalo> part_halos(mesh::Topology const& topology, std::vector<int> const& tet_part, int parts)
{
  Index const tets = topology.num_tets();
  std::vector<PartHalo> halos(parts);
  for (Index t = 0; t < tets; ++t) ++halos[tet_part[t]].tets;

  auto const owner = parallel::vertex_owners(topology, tet_part, parts);
  for (int o : owner) ++halos[o].blocks;

  // The half-edges of tet t's edges at its vertices: three per vertex, twelve in all.
  auto for_half_edges = [&](Index t, auto&& visit) {
    for (int k = 0; k < 6; ++k) {
      Index const e = topology.tet_edges[t][k];
      for (int end = 0; end < 2; ++end) visit(topology.edge_vertices[e][end], topology.edge_half_edges[e][end]);
    }
  };

  // Per part, the values it receives (a half-edge or a piece counts once however many of its tets or
  // blocks read it: collected, then sorted and made distinct), and the parts they come from.
  std::vector<std::vector<Index>> unknowns(parts), ghost_unknowns(parts), ghosts(parts);
  std::vector<std::vector<std::pair<Index, int>>> pieces(parts);
  std::vector<std::vector<int>> sources(parts);
  for (Index t = 0; t < tets; ++t) {
    int const p = tet_part[t];
    for_half_edges(t, [&](Index v, Index half_edge) {
      if (owner[v] == p) return;
      unknowns[p].push_back(half_edge);
      sources[p].push_back(owner[v]);
    });
    // Ampere on a block of another part reads this tet's pieces of the edges at that block's vertex.
    for (int k = 0; k < 6; ++k) {
      Index const e = topology.tet_edges[t][k];
      for (int end = 0; end < 2; ++end) {
        int const q = owner[topology.edge_vertices[e][end]];
        if (q == p) continue;
        pieces[q].push_back({t, k});
        sources[q].push_back(p);
        ghosts[q].push_back(t);
      }
    }
  }
  auto distinct = [](auto& values) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return static_cast<Index>(values.size());
  };
  for (int q = 0; q < parts; ++q) {
    auto& h = halos[q];
    h.halo_unknowns = distinct(unknowns[q]);
    h.halo_pieces = distinct(pieces[q]);
    h.neighbours = static_cast<int>(distinct(sources[q]));
    h.ghost_tets = distinct(ghosts[q]);
    ghost_unknowns[q] = std::move(unknowns[q]);
    for (Index t : ghosts[q])
      for_half_edges(t, [&](Index v, Index half_edge) {
        if (owner[v] != q) ghost_unknowns[q].push_back(half_edge);
      });
    h.ghost_halo_unknowns = distinct(ghost_unknowns[q]);
  }
  return halos;
}

void write_mesh_parts(std::string const& mesh_file, double scale, mesh::Ordering ordering, mesh::Mesh const& mesh,
                      mesh::Topology const& topology, std::vector<int> const& tet_part, int parts,
                      std::string const& directory)
{
  simulation::PartsManifest manifest;
  manifest.directory = directory;
  manifest.ranks = parts;
  manifest.mesh_file = mesh_file;
  manifest.mesh_file_hash = simulation::mesh_file_hash(mesh_file, manifest.mesh_file_size);
  manifest.scale = scale;
  manifest.ordering = mesh::ordering_name(ordering);
  simulation::write_parts(manifest, mesh, topology, parallel::vertex_owners(topology, tet_part, parts));
}

} // namespace dgatd::partition
