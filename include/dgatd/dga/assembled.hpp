#pragma once
// The original (assembled) DGATD of the papers' baseline: full-edge circulations U (E) and full
// dual-edge circulations F (F), stepped with two global sparse matrices
//   F <- F - dt (Mmu^-1 Cg) U,    U <- U + dt (Meps^-1 Cg^T) F
// where Mmu^-1 = sum_t P_t^T (Mmu_t)^-1 P_t and Meps^-1 = sum_v Q_v^T (Meps_v)^-1 Q_v. Built from
// the fractioned operators, so summing the fractioned unknowns reproduces it exactly.

#include "dgatd/dga/operators.hpp"
#include "dgatd/mesh/topology.hpp"

#include <cstdint>
#include <vector>

namespace dgatd::dga {

struct HostCsr {
  Index rows = 0;
  Index columns = 0;
  std::vector<Index> row_offsets;
  std::vector<Index> column_indices;
  std::vector<double> values;
};

struct AssembledOperators {
  HostCsr faraday; // Mmu^-1 Cg, F x E
  HostCsr ampere;  // Meps^-1 Cg^T, E x F
};

AssembledOperators assemble_global(mesh::Topology const& topology, HostOperators const& ops);

// The fractioned unknowns summed to the assembled ones: U_e = u^(a,e) + u^(b,e), F_f = sum_t f^(t,f).
std::vector<double> sum_to_edges(mesh::Topology const& topology, DofLayout const& layout, std::vector<double> const& u);
std::vector<double> sum_to_faces(mesh::Topology const& topology, std::vector<double> const& f_per_tet_row_major);

// A vector over free half-edge unknowns (e.g. a source's (Meps_v)^-1 I) as the assembled edge vector.
std::vector<double> half_edge_rows_to_edges(mesh::Topology const& topology, DofLayout const& layout,
                                            std::vector<Index> const& rows, std::vector<double> const& values);

} // namespace dgatd::dga
