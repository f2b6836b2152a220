#pragma once
// What the lumped ports and elements (solver/lumped_elements.hpp) need of the operators, built on
// the host once: the sheets' kites (dga::LumpedKite) and, for the explicit history current of each
// kite, its column of Meps_v^-1 times the kite's Galerkin weights, gathered row by row.

#include "dgatd/dga/operators.hpp"
#include "dgatd/solver/waveform.hpp"

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
  // The rows of the kites' blocks; row r takes entries [row_offsets[r], row_offsets[r + 1]), each a
  // kite and the weight (Meps_v^-1 a_k)_row, a_k = area along at the kite's two rows.
  std::vector<Index> rows;
  std::vector<Index> row_offsets;
  std::vector<Index> entry_kite;
  std::vector<double> entry_weight;
};

// sheets: the problem's (dga::Materials::sheets), in its order; sources: a port's waveform per sheet
// (ignored for elements).
LumpedStencil lumped_stencil(dga::HostOperators const& host, std::vector<dga::LumpedSheet> const& sheets,
                             std::vector<Waveform> const& sources);

} // namespace dgatd::solver
