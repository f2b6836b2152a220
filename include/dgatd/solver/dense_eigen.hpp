#pragma once
// Small dense symmetric eigenproblems on the host (a few dozen rows): the Rayleigh-Ritz step of the
// port modes' block eigen-solver and the coupled lines' modes. Cyclic Jacobi rotations, which reach
// every eigenpair to a few units of rounding of the matrix's norm and need no library.

#include <cstddef>
#include <vector>

namespace dgatd::solver {

// Eigenpairs by increasing eigenvalue; vector k is column k of the rows x columns row-major table.
struct DenseEigen {
  int rows = 0, columns = 0;
  std::vector<double> values;
  std::vector<double> vectors;
  double vector(int row, int column) const { return vectors[static_cast<std::size_t>(row) * columns + column]; }
};

// A = V diag(values) VT for a symmetric n x n matrix (row-major), V orthogonal.
DenseEigen symmetric_eigen(std::vector<double> matrix, int n);

// A c = theta B c for symmetric A and symmetric positive semi-definite B (n x n, row-major). B's
// columns are first scaled to a unit diagonal; the directions where the scaled B has an eigenvalue
// below drop times its largest (nearly dependent columns) are left out, so the result has
// columns <= n eigenvectors, B-orthonormal.
DenseEigen generalized_symmetric_eigen(std::vector<double> const& a, std::vector<double> const& b, int n, double drop);

} // namespace dgatd::solver
