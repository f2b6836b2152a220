#pragma once
// What the lumped ports and elements (solver/lumped_elements.hpp) need of the operators, built on
// the host once: the sheets' kites (dga::LumpedKite) and, for the explicit history current of each
// kite, its column of Meps_v^-1 times the kite's Galerkin weights, gathered row by row.

#include "dgatd/dga/operators.hpp"
#include "dgatd/solver/waveform.hpp"

#include <array>
#include <string>
#include <vector>

namespace dgatd::solver {

struct LumpedStencil {
  struct Sheet {
    std::string name;
    bool port = false;
    Waveform source{};     // a port's open-circuit voltage (amplitude in volts); unused otherwise
    double length = 0;     // along the direction, metres
    double width = 0;      // area / length, metres
    double resistance = 0; // a port's reference resistance, ohms
    dga::SheetCircuit circuit;
  };
  std::vector<Sheet> sheets;
  std::vector<dga::LumpedKite> kites;
  // Per kite its sheet, face and vertex in the whole mesh's numbering: over ranks they place it among
  // the whole problem's kites, in the order one process has them.
  std::vector<std::array<Index, 3>> kite_keys;
  // The rows of the kites' blocks; row r takes entries [row_offsets[r], row_offsets[r + 1]), each a
  // kite and the weight (Meps_v^-1 a_k)_row, a_k = area along at the kite's two rows.
  std::vector<Index> rows;
  std::vector<Index> row_offsets;
  std::vector<Index> entry_kite;
  std::vector<double> entry_weight;
};

// Over ranks, the kites a rank computes, those of the blocks it owns (a halo block's kites would only
// write unknowns that the halo exchange overwrites), and the whole mesh's id of each face and vertex
// of the rank's part.
struct KitesOverRanks {
  std::vector<char> owned_blocks;
  std::vector<Index> face_global, vertex_global;
};

// sheets: the problem's (dga::Materials::sheets), in its order; sources: a port's waveform per sheet
// (ignored for elements); over_ranks: null in one process.
LumpedStencil lumped_stencil(dga::HostOperators const& host, std::vector<dga::LumpedSheet> const& sheets,
                             std::vector<Waveform> const& sources, KitesOverRanks const* over_ranks = nullptr);

} // namespace dgatd::solver
