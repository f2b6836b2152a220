// The sparse Cholesky factorization (solver/sparse_cholesky.hpp) against a dense one: the same
// solutions on a grid's shifted Laplacian and on a matrix of several unconnected pieces, a factor
// of O(n log n) entries on a large grid, and matrices that are not symmetric positive definite refused
// in one line.
#include "dgatd/solver/sparse_cholesky.hpp"

#include "dgatd/dga/laplacian.hpp"
#include "dgatd/error.hpp"

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace {

using dgatd::Index;
using dgatd::dga::HostCsr;
using dgatd::solver::SparseCholesky;
using Entries = std::vector<std::tuple<Index, Index, double>>;

// The 5-point Laplacian of an nx x ny grid (the P1 stiffness of its right triangles) plus shift on
// the diagonal, its vertices numbered from first.
void add_grid(Entries& entries, Index first, Index nx, Index ny, double shift)
{
  auto id = [&](Index i, Index j) { return first + i + nx * j; };
  for (Index j = 0; j < ny; ++j)
    for (Index i = 0; i < nx; ++i) {
      entries.emplace_back(id(i, j), id(i, j), shift);
      if (i + 1 < nx)
        for (auto [p, q] : {std::pair{id(i, j), id(i + 1, j)}, std::pair{id(i + 1, j), id(i, j)}}) {
          entries.emplace_back(p, p, 1.0);
          entries.emplace_back(p, q, -1.0);
        }
      if (j + 1 < ny)
        for (auto [p, q] : {std::pair{id(i, j), id(i, j + 1)}, std::pair{id(i, j + 1), id(i, j)}}) {
          entries.emplace_back(p, p, 1.0);
          entries.emplace_back(p, q, -1.0);
        }
    }
}

// x = A^-1 b by a dense Cholesky factorization (A symmetric positive definite, n x n).
std::vector<double> dense_solve(HostCsr const& a, std::vector<double> b)
{
  auto const n = static_cast<std::size_t>(a.rows);
  std::vector<double> l(n * n, 0.0);
  for (Index i = 0; i < a.rows; ++i)
    for (Index e = a.row_offsets[i]; e < a.row_offsets[i + 1]; ++e) l[i * n + a.column_indices[e]] += a.values[e];
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t k = 0; k < j; ++k) l[j * n + j] -= l[j * n + k] * l[j * n + k];
    l[j * n + j] = std::sqrt(l[j * n + j]);
    for (std::size_t i = j + 1; i < n; ++i) {
      for (std::size_t k = 0; k < j; ++k) l[i * n + j] -= l[i * n + k] * l[j * n + k];
      l[i * n + j] /= l[j * n + j];
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < i; ++k) b[i] -= l[i * n + k] * b[k];
    b[i] /= l[i * n + i];
  }
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t k = i + 1; k < n; ++k) b[i] -= l[k * n + i] * b[k];
    b[i] /= l[i * n + i];
  }
  return b;
}

// Three random right-hand sides solved by the sparse factor and by the dense one: the same to 1e-12
// of the solution's size (both are backward stable; the matrices' condition numbers are below 1e3).
void expect_dense_solutions(HostCsr const& a)
{
  SparseCholesky const factor(a, "test matrix");
  ASSERT_EQ(factor.size(), a.rows);
  SparseCholesky::HostBlock block("block", static_cast<std::size_t>(a.rows), 3);
  std::mt19937 random(7);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<std::vector<double>> rhs(3, std::vector<double>(static_cast<std::size_t>(a.rows)));
  for (int c = 0; c < 3; ++c)
    for (Index i = 0; i < a.rows; ++i) block(i, c) = rhs[c][i] = uniform(random);
  factor.solve(block);
  for (int c = 0; c < 3; ++c) {
    auto const x = dense_solve(a, rhs[c]);
    double largest = 0, difference = 0;
    for (Index i = 0; i < a.rows; ++i) {
      largest = std::max(largest, std::abs(x[i]));
      difference = std::max(difference, std::abs(block(i, c) - x[i]));
    }
    EXPECT_LT(difference, 1e-12 * largest) << "column " << c;
  }
}

TEST(SparseCholesky, SolvesAShiftedGridLaplacianAsADenseFactorDoes)
{
  Entries entries;
  add_grid(entries, 0, 23, 17, 0.05);
  expect_dense_solutions(dgatd::dga::summed_csr(23 * 17, entries));
}

// Two grids and three vertices coupled to nothing: the order numbers each row once, and the pieces
// solve independently.
TEST(SparseCholesky, SolvesAMatrixOfUnconnectedPieces)
{
  Entries entries;
  add_grid(entries, 0, 12, 9, 0.3);
  add_grid(entries, 108, 20, 3, 0.01);
  for (Index i = 168; i < 171; ++i) entries.emplace_back(i, i, 2.0 + i);
  auto const a = dgatd::dga::summed_csr(171, entries);
  auto order = dgatd::solver::nested_dissection_order(a);
  std::sort(order.begin(), order.end());
  for (Index i = 0; i < a.rows; ++i) ASSERT_EQ(order[i], i);
  expect_dense_solutions(a);
}

// Nested dissection leaves O(n log n) entries in the factor of a k x k grid's matrix (George 1973),
// a banded order (the grid's own) n k. On 128 x 128 (n = 16,384) the level-set dissection leaves 23.3
// per row (2026-12-01); the check is a third of the banded count, 42.7 per row.
TEST(SparseCholesky, NestedDissectionKeepsTheFactorSmall)
{
  Index const k = 128;
  Entries entries;
  add_grid(entries, 0, k, k, 1e-3);
  SparseCholesky const factor(dgatd::dga::summed_csr(k * k, entries), "grid");
  double const n = k * k;
  std::printf("%.0f unknowns: %zu entries in L (%.1f per row; banded: %d per row)\n", n, factor.factor_entries(),
              factor.factor_entries() / n, k);
  EXPECT_LT(factor.factor_entries(), n * k / 3);
}

void expect_refused(HostCsr const& a, std::string const& what)
{
  try {
    SparseCholesky const factor(a, "test matrix");
    FAIL() << "factored a matrix that " << what;
  } catch (dgatd::Error const& e) {
    std::string const message = e.what();
    EXPECT_NE(message.find("test matrix"), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(SparseCholesky, RefusesAMatrixThatIsNotSymmetricPositiveDefinite)
{
  // The grid's Laplacian less a shift beyond its smallest eigenvalue: symmetric, indefinite, with a
  // positive diagonal, so only a pivot finds it.
  Entries entries;
  add_grid(entries, 0, 10, 10, -0.5);
  expect_refused(dgatd::dga::summed_csr(100, entries), "is not positive definite: its Cholesky factorization's pivot");
  // A negative diagonal entry.
  expect_refused(dgatd::dga::summed_csr(2, {{0, 0, 1.0}, {1, 1, -1.0}}), "is not positive definite: its diagonal");
  // An entry without its mirror.
  expect_refused(dgatd::dga::summed_csr(3, {{0, 0, 4.0}, {1, 1, 4.0}, {2, 2, 4.0}, {0, 2, 1.0}}),
                 "is not symmetric: its entry (0, 2) is 1 but (2, 0) is 0");
  HostCsr rectangular = dgatd::dga::summed_csr(2, {{0, 0, 1.0}, {1, 1, 1.0}});
  rectangular.columns = 3;
  expect_refused(rectangular, "not square");
}

} // namespace
