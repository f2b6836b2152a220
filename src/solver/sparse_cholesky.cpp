#include "dgatd/solver/sparse_cholesky.hpp"

#include "dgatd/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace dgatd::solver {

namespace {

constexpr char const* cholesky_fix = "the matrix must be symmetric positive definite, as a stiffness plus a positive "
                                     "multiple of a mass is on a mesh without degenerate elements";

// The graph of a symmetric matrix: each row's off-diagonal columns (a duplicate does no harm).
struct AdjacencyGraph {
  std::vector<Index> offsets, neighbours;
  Index size() const { return static_cast<Index>(offsets.size()) - 1; }
  Index degree(Index v) const { return offsets[v + 1] - offsets[v]; }
};

AdjacencyGraph adjacency_of(dga::HostCsr const& a)
{
  AdjacencyGraph g;
  g.offsets.reserve(static_cast<std::size_t>(a.rows) + 1);
  g.offsets.push_back(0);
  for (Index i = 0; i < a.rows; ++i) {
    for (Index e = a.row_offsets[i]; e < a.row_offsets[i + 1]; ++e)
      if (a.column_indices[e] != i) g.neighbours.push_back(a.column_indices[e]);
    g.offsets.push_back(static_cast<Index>(g.neighbours.size()));
  }
  return g;
}

// Nested dissection by breadth-first level sets (George and Liu, Computer Solution of Large Sparse
// Positive Definite Systems, 1981, ch. 8). A connected piece is searched from a pseudo-peripheral
// vertex (one of greatest eccentricity found by repeated searches from the last level); the level
// that holds its median vertex, less its vertices with no neighbour in the next level, separates the
// levels before it from those after it; the two sides are dissected the same way and numbered first,
// the separator after them. On a 2D mesh the levels are arcs across the section, O(sqrt n) vertices,
// so the factor has O(n log n) entries. Pieces of at most `leaf` vertices are numbered as they come:
// their fill is at most leaf^2 / 2 entries each, and splitting them further gains little (on a
// 40,100-triangle section leaves of 8 save 2 % of the factor's entries, leaves of 64 cost 14 %).
class LevelSetDissection {
public:
  explicit LevelSetDissection(AdjacencyGraph const& graph)
      : graph_(graph), piece_(static_cast<std::size_t>(graph.size()), 0),
        level_(static_cast<std::size_t>(graph.size()), -1)
  {
  }

  std::vector<Index> order()
  {
    std::vector<Index> all(static_cast<std::size_t>(graph_.size()));
    std::iota(all.begin(), all.end(), 0);
    if (!all.empty()) dissect(all, 0);
    return std::move(order_);
  }

private:
  static constexpr std::size_t leaf = 16;
  static constexpr int numbered = -1;

  AdjacencyGraph const& graph_;
  std::vector<int> piece_;   // per vertex, the piece it belongs to now (numbered once in the order)
  std::vector<Index> level_; // per vertex, its level in the current search; -1 when not reached
  std::vector<Index> order_;
  int pieces_ = 1;

  void number(std::vector<Index> const& vertices)
  {
    for (Index v : vertices) {
      piece_[v] = numbered;
      order_.push_back(v);
    }
  }

  // The vertices of piece reached from start, level by level: level l is [levels[l], levels[l + 1]).
  // level_ keeps their levels until forget.
  std::vector<Index> search(Index start, int piece, std::vector<std::size_t>& levels)
  {
    std::vector<Index> reached{start};
    level_[start] = 0;
    levels.assign(1, 0);
    for (std::size_t begin = 0; begin < reached.size();) {
      std::size_t const end = reached.size();
      auto const next = static_cast<Index>(levels.size());
      levels.push_back(end);
      for (std::size_t r = begin; r < end; ++r)
        for (Index e = graph_.offsets[reached[r]]; e < graph_.offsets[reached[r] + 1]; ++e) {
          Index const u = graph_.neighbours[e];
          if (piece_[u] == piece && level_[u] < 0) {
            level_[u] = next;
            reached.push_back(u);
          }
        }
      begin = end;
    }
    return reached;
  }

  void forget(std::vector<Index> const& reached)
  {
    for (Index v : reached) level_[v] = -1;
  }

  void dissect(std::vector<Index> const& vertices, int piece)
  {
    if (vertices.size() <= leaf) {
      number(vertices);
      return;
    }
    std::vector<std::size_t> levels;
    auto reached = search(vertices[0], piece, levels);
    if (reached.size() < vertices.size()) {
      // Several connected pieces, each its own: nothing couples them.
      forget(reached);
      std::vector<std::pair<std::vector<Index>, int>> components;
      for (Index v : vertices) {
        if (piece_[v] != piece) continue;
        auto component = search(v, piece, levels);
        forget(component);
        int const id = pieces_++;
        for (Index u : component) piece_[u] = id;
        components.emplace_back(std::move(component), id);
      }
      for (auto const& [component, id] : components) dissect(component, id);
      return;
    }
    // A pseudo-peripheral root: a vertex of least degree in the last level is as far from the root
    // as the root's eccentricity, so its own is at least that; stop when it does not grow.
    for (int round = 0; round < 8; ++round) {
      std::size_t const count = levels.size() - 1;
      Index candidate = reached[levels[count - 1]];
      for (std::size_t r = levels[count - 1]; r < levels[count]; ++r)
        if (graph_.degree(reached[r]) < graph_.degree(candidate)) candidate = reached[r];
      forget(reached);
      reached = search(candidate, piece, levels);
      if (levels.size() - 1 <= count) break;
    }
    std::size_t const count = levels.size() - 1;
    if (count < 3) {
      // A piece of diameter two or less (nearly complete): no level separates it usefully.
      forget(reached);
      number(reached);
      return;
    }
    std::size_t middle = 1;
    while (middle + 2 < count && levels[middle + 1] <= reached.size() / 2) ++middle;
    auto const after = static_cast<Index>(middle + 1);
    std::vector<Index> first, second, separator;
    for (std::size_t r = 0; r < levels[middle]; ++r) first.push_back(reached[r]);
    for (std::size_t r = levels[middle]; r < levels[middle + 1]; ++r) {
      Index const v = reached[r];
      bool touches = false;
      for (Index e = graph_.offsets[v]; e < graph_.offsets[v + 1] && !touches; ++e)
        touches = piece_[graph_.neighbours[e]] == piece && level_[graph_.neighbours[e]] == after;
      (touches ? separator : first).push_back(v);
    }
    for (std::size_t r = levels[middle + 1]; r < reached.size(); ++r) second.push_back(reached[r]);
    forget(reached);
    int const first_id = pieces_++, second_id = pieces_++;
    for (Index v : first) piece_[v] = first_id;
    for (Index v : second) piece_[v] = second_id;
    for (Index v : separator) piece_[v] = numbered;
    dissect(first, first_id);
    dissect(second, second_id);
    number(separator);
  }
};

// Refuses a matrix that is not square, has a column out of range, a diagonal entry that is not
// positive, or entries a_ij and a_ji further apart than 1e-12 sqrt(a_ii a_jj) (assembly in another
// order rounds them differently, by far less).
void check_symmetric(dga::HostCsr const& a, std::string const& where)
{
  Index const n = a.rows;
  if (a.columns != n || a.row_offsets.size() != static_cast<std::size_t>(n) + 1)
    throw Error(where,
                "the matrix is " + std::to_string(a.rows) + " x " + std::to_string(a.columns) +
                    " (or its row offsets are not rows + 1), not square",
                cholesky_fix);
  std::vector<double> diagonal(static_cast<std::size_t>(n), 0.0);
  std::vector<Index> transposed_offsets(static_cast<std::size_t>(n) + 1, 0);
  for (Index i = 0; i < n; ++i)
    for (Index e = a.row_offsets[i]; e < a.row_offsets[i + 1]; ++e) {
      Index const j = a.column_indices[e];
      if (j < 0 || j >= n)
        throw Error(where,
                    "the matrix's row " + std::to_string(i) + " has column " + std::to_string(j) + " of " +
                        std::to_string(n),
                    cholesky_fix);
      if (j == i) diagonal[i] += a.values[e];
      ++transposed_offsets[j + 1];
    }
  for (Index i = 0; i < n; ++i)
    if (!(diagonal[i] > 0))
      throw Error(where,
                  "the matrix is not positive definite: its diagonal entry " + std::to_string(i) + " is " +
                      format_number(diagonal[i]),
                  cholesky_fix);
  std::partial_sum(transposed_offsets.begin(), transposed_offsets.end(), transposed_offsets.begin());
  std::vector<Index> transposed_columns(a.values.size());
  std::vector<double> transposed_values(a.values.size());
  {
    std::vector<Index> next(transposed_offsets.begin(), transposed_offsets.end() - 1);
    for (Index i = 0; i < n; ++i)
      for (Index e = a.row_offsets[i]; e < a.row_offsets[i + 1]; ++e) {
        Index const p = next[a.column_indices[e]]++;
        transposed_columns[p] = i;
        transposed_values[p] = a.values[e];
      }
  }
  std::vector<double> row(static_cast<std::size_t>(n), 0.0), column(row.size(), 0.0);
  std::vector<Index> touched;
  for (Index i = 0; i < n; ++i) {
    touched.clear();
    for (Index e = a.row_offsets[i]; e < a.row_offsets[i + 1]; ++e) {
      row[a.column_indices[e]] += a.values[e];
      touched.push_back(a.column_indices[e]);
    }
    for (Index e = transposed_offsets[i]; e < transposed_offsets[i + 1]; ++e) {
      column[transposed_columns[e]] += transposed_values[e];
      touched.push_back(transposed_columns[e]);
    }
    for (Index j : touched) {
      if (std::abs(row[j] - column[j]) > 1e-12 * std::sqrt(diagonal[i] * diagonal[j]))
        throw Error(where,
                    "the matrix is not symmetric: its entry (" + std::to_string(i) + ", " + std::to_string(j) +
                        ") is " + format_number(row[j]) + " but (" + std::to_string(j) + ", " + std::to_string(i) +
                        ") is " + format_number(column[j]),
                    cholesky_fix);
    }
    for (Index j : touched) row[j] = column[j] = 0;
  }
}

} // namespace

std::vector<Index> nested_dissection_order(dga::HostCsr const& matrix)
{
  AdjacencyGraph const graph = adjacency_of(matrix);
  return LevelSetDissection(graph).order();
}

SparseCholesky::SparseCholesky(dga::HostCsr const& a, std::string const& where)
{
  check_symmetric(a, where);
  Index const n = a.rows;
  order_ = nested_dissection_order(a);
  std::vector<Index> position(static_cast<std::size_t>(n));
  for (Index k = 0; k < n; ++k) position[order_[k]] = k;
  // Column k of the permuted matrix's upper triangle is row order_[k] of A at the positions <= k.

  // The elimination tree: parent[j] is the first row below j in L's column j (Davis, sec. 4.1).
  std::vector<Index> parent(static_cast<std::size_t>(n), -1), ancestor(static_cast<std::size_t>(n), -1);
  for (Index k = 0; k < n; ++k)
    for (Index e = a.row_offsets[order_[k]]; e < a.row_offsets[order_[k] + 1]; ++e)
      for (Index i = position[a.column_indices[e]]; i != -1 && i < k;) {
        Index const next = ancestor[i];
        ancestor[i] = k;
        if (next == -1) parent[i] = k;
        i = next;
      }

  // Row k's pattern, the columns j < k of L(k, j) != 0: the vertices on the tree's paths from the
  // upper triangle's entries of column k up to k (Davis, sec. 4.2), into stack[top, n) in an order
  // where each comes after those below it in the tree.
  std::vector<Index> mark(static_cast<std::size_t>(n), -1), stack(static_cast<std::size_t>(n));
  auto const row_pattern = [&](Index k) {
    Index top = n;
    mark[k] = k;
    for (Index e = a.row_offsets[order_[k]]; e < a.row_offsets[order_[k] + 1]; ++e) {
      Index i = position[a.column_indices[e]];
      if (i > k) continue;
      Index length = 0;
      for (; mark[i] != k; i = parent[i]) {
        stack[length++] = i;
        mark[i] = k;
      }
      while (length > 0) stack[--top] = stack[--length];
    }
    return top;
  };

  std::vector<std::size_t> counts(static_cast<std::size_t>(n), 1);
  for (Index k = 0; k < n; ++k)
    for (Index t = row_pattern(k); t < n; ++t) ++counts[stack[t]];
  column_offsets_.assign(static_cast<std::size_t>(n) + 1, 0);
  std::partial_sum(counts.begin(), counts.end(), column_offsets_.begin() + 1);
  rows_.resize(column_offsets_.back());
  values_.resize(column_offsets_.back());

  // Up-looking: row k of L from the triangular solve L(0:k, 0:k) l = A(0:k, k) over its pattern
  // (Davis, sec. 4.8), each column's entries appended in increasing row.
  std::vector<std::size_t> next(column_offsets_.begin(), column_offsets_.end() - 1);
  std::vector<double> x(static_cast<std::size_t>(n), 0.0);
  std::fill(mark.begin(), mark.end(), -1);
  for (Index k = 0; k < n; ++k) {
    Index top = row_pattern(k);
    for (Index e = a.row_offsets[order_[k]]; e < a.row_offsets[order_[k] + 1]; ++e)
      if (position[a.column_indices[e]] <= k) x[position[a.column_indices[e]]] += a.values[e];
    double pivot = x[k];
    x[k] = 0;
    for (; top < n; ++top) {
      Index const j = stack[top];
      double const l_kj = x[j] / values_[column_offsets_[j]];
      x[j] = 0;
      for (std::size_t p = column_offsets_[j] + 1; p < next[j]; ++p) x[rows_[p]] -= values_[p] * l_kj;
      pivot -= l_kj * l_kj;
      std::size_t const p = next[j]++;
      rows_[p] = k;
      values_[p] = l_kj;
    }
    if (!(pivot > 0))
      throw Error(where,
                  "the matrix is not positive definite: its Cholesky factorization's pivot at row " +
                      std::to_string(order_[k]) + " is " + format_number(pivot),
                  cholesky_fix);
    std::size_t const p = next[k]++;
    rows_[p] = k;
    values_[p] = std::sqrt(pivot);
  }
}

void SparseCholesky::solve(HostBlock const& b) const
{
  Index const n = size();
  if (b.extent(0) != static_cast<std::size_t>(n))
    throw Error("SparseCholesky::solve",
                "a block of " + std::to_string(b.extent(0)) + " rows for a matrix of " + std::to_string(n), "");
  auto const m = static_cast<std::size_t>(b.extent(1));
  // The permuted right-hand sides, a row of m per unknown, so each update runs along the columns.
  std::vector<double> w(static_cast<std::size_t>(n) * m);
  for (Index k = 0; k < n; ++k)
    for (std::size_t c = 0; c < m; ++c) w[k * m + c] = b(order_[k], c);
  // L y = w by columns, then LT x = y by rows of LT (L's columns again).
  for (Index j = 0; j < n; ++j) {
    double* const wj = &w[j * m];
    double const inverse = 1 / values_[column_offsets_[j]];
    for (std::size_t c = 0; c < m; ++c) wj[c] *= inverse;
    for (std::size_t p = column_offsets_[j] + 1; p < column_offsets_[j + 1]; ++p) {
      double* const wr = &w[static_cast<std::size_t>(rows_[p]) * m];
      for (std::size_t c = 0; c < m; ++c) wr[c] -= values_[p] * wj[c];
    }
  }
  for (Index j = n - 1; j >= 0; --j) {
    double* const wj = &w[j * m];
    for (std::size_t p = column_offsets_[j] + 1; p < column_offsets_[j + 1]; ++p) {
      double const* const wr = &w[static_cast<std::size_t>(rows_[p]) * m];
      for (std::size_t c = 0; c < m; ++c) wj[c] -= values_[p] * wr[c];
    }
    double const inverse = 1 / values_[column_offsets_[j]];
    for (std::size_t c = 0; c < m; ++c) wj[c] *= inverse;
  }
  for (Index k = 0; k < n; ++k)
    for (std::size_t c = 0; c < m; ++c) b(order_[k], c) = w[k * m + c];
}

} // namespace dgatd::solver
