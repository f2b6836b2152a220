#pragma once
// A = L LT for a sparse symmetric positive definite matrix on the host, and solves with it: the
// exact preconditioner of the port modes' eigen-solver (solver/lobpcg.hpp), K + sigma M of a 2D
// section. No library: the rows are put in a nested-dissection order (George 1973; the separators
// are levels of a breadth-first search from a pseudo-peripheral vertex, George and Liu 1981, sec. 8),
// which keeps the factor of a 2D mesh's matrix at O(n log n) entries and its cost at O(n^1.5)
// (a banded or envelope order would be O(n^1.5) entries and O(n^2) work), then factored row by row
// with the elimination tree giving each row's pattern (the up-looking Cholesky of Davis, Direct
// Methods for Sparse Linear Systems, 2006, ch. 4).

#include "dgatd/dga/assembled.hpp"
#include "dgatd/types.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace dgatd::solver {

class SparseCholesky {
public:
  // A block of right-hand sides, a column each.
  using HostBlock = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>;

  // Factors the matrix (both triangles stored, as dga's matrices are; duplicates summed). Throws
  // dgatd::Error naming where when it is not square, not symmetric (to 1e-12 of the geometric mean of
  // the two diagonal entries) or not positive definite (a pivot that is not positive).
  SparseCholesky(dga::HostCsr const& matrix, std::string const& where);

  Index size() const { return static_cast<Index>(order_.size()); }
  // The entries of L, its diagonal included: the memory and the work of a solve (4 of them per column).
  std::size_t factor_entries() const { return values_.size(); }

  // Each column of b (size() rows) overwritten by A^-1 times it.
  void solve(HostBlock const& b) const;

private:
  std::vector<Index> order_;                // order_[k]: the row of A eliminated k-th
  std::vector<std::size_t> column_offsets_; // L by columns of the permuted matrix, the diagonal first
  std::vector<Index> rows_;
  std::vector<double> values_;
};

// A fill-reducing elimination order of a symmetric matrix's graph: order[k] is the row eliminated
// k-th (nested dissection by breadth-first level sets; SparseCholesky's order).
std::vector<Index> nested_dissection_order(dga::HostCsr const& matrix);

} // namespace dgatd::solver
