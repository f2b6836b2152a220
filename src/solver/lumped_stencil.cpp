#include "dgatd/solver/lumped_stencil.hpp"

#include <map>
#include <utility>

namespace dgatd::solver {

LumpedStencil lumped_stencil(dga::HostOperators const& host, std::vector<dga::LumpedSheet> const& sheets,
                             std::vector<Waveform> const& sources, KitesOverRanks const* over_ranks)
{
  LumpedStencil stencil;
  for (std::size_t s = 0; s < sheets.size(); ++s) {
    auto const& sheet = sheets[s];
    LumpedStencil::Sheet added;
    added.name = sheet.name;
    added.port = sheet.port;
    if (sheet.port) added.source = sources[s];
    added.length = sheet.length;
    added.width = sheet.width;
    added.resistance = sheet.port ? sheet.circuit.resistance : 0;
    added.circuit = sheet.per_square();
    stencil.sheets.push_back(added);
  }
  auto const& layout = host.layout;
  for (auto const& kite : host.lumped_kites) {
    Index face = kite.face, vertex = layout.block_vertex[kite.block];
    if (over_ranks) {
      if (!over_ranks->owned_blocks[static_cast<std::size_t>(kite.block)]) continue;
      face = over_ranks->face_global[static_cast<std::size_t>(face)];
      vertex = over_ranks->vertex_global[static_cast<std::size_t>(vertex)];
    }
    stencil.kites.push_back(kite);
    stencil.kite_keys.push_back({kite.sheet, face, vertex});
  }
  // Per row of a kite's block, the kites hitting it with their weights, rows in ascending order.
  std::map<Index, std::vector<std::pair<Index, double>>> by_row;
  for (std::size_t k = 0; k < stencil.kites.size(); ++k) {
    auto const& kite = stencil.kites[k];
    Index const b = kite.block;
    Index const first = layout.block_offset[b];
    Index const d = layout.block_size(b);
    double const* inverse = host.eps_inverse.data() + layout.block_matrix_offset[b];
    for (Index r = 0; r < d; ++r) {
      double weight = 0;
      for (int i = 0; i < 2; ++i)
        if (kite.unknowns[i] < layout.num_free)
          weight += inverse[r * d + (kite.unknowns[i] - first)] * kite.area * kite.along[i];
      by_row[first + r].emplace_back(static_cast<Index>(k), weight);
    }
  }
  stencil.row_offsets.push_back(0);
  for (auto const& [row, entries] : by_row) {
    stencil.rows.push_back(row);
    for (auto const& [kite, weight] : entries) {
      stencil.entry_kite.push_back(kite);
      stencil.entry_weight.push_back(weight);
    }
    stencil.row_offsets.push_back(static_cast<Index>(stencil.entry_kite.size()));
  }
  return stencil;
}

} // namespace dgatd::solver
