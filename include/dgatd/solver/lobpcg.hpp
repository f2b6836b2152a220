#pragma once
// The lowest eigenpairs of K x = lambda M x, K symmetric positive (semi-)definite and M symmetric
// positive definite, by the locally optimal block preconditioned conjugate gradient method (LOBPCG,
// Knyazev 2001): each step minimises the Rayleigh quotient over the span of the block X, its
// preconditioned residuals W = T (K X - M X Lambda) and the previous step's directions P.
//
// The preconditioner is T = (K + sigma M)^-1, applied exactly by a sparse Cholesky factor computed
// once on the host (solver/sparse_cholesky.hpp). sigma > 0 makes a natural-boundary K (its null space
// the constants) definite; T is then spectrally equivalent to K on the wanted modes with constants
// independent of the mesh, so the steps needed do not grow with refinement (a 2D section's factor
// costs O(n^1.5) once and O(n log n) per solve; the Jacobi preconditioner this replaces needed
// iterations growing like 1 / h: 464 TE steps on a 10,083-triangle section, 10 now, and 11 at 40,100
// triangles; perf/results/2026-12-01-port-modes-setup.md). Pairs whose residual is below the
// tolerance are soft-locked: they stay in X but their W and P columns are zeroed, since with a strong
// preconditioner their residuals are rounding noise whose nearly dependent directions otherwise spoil
// the Rayleigh-Ritz step (without it, a pair converged to 1e-12 was thrown back to 2e-3 on a
// 40,100-triangle section, and the solve did not recover).
//
// The long vectors live on the execution space given; a step is about ten kernels there whatever the
// block size (a block's products by K and M in one pass over the matrices, all Gram entries in one
// team kernel), the triangular solves of T on the host, and the Rayleigh-Ritz step on the span of
// [X W P] (at most 3 b columns) a small dense problem on the host (dense_eigen.hpp).

#include "dgatd/dga/assembled.hpp"
#include "dgatd/error.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/solver/dense_eigen.hpp"
#include "dgatd/solver/sparse_cholesky.hpp"

#include <KokkosSparse_CrsMatrix.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace dgatd::solver {

struct EigenSolve {
  std::vector<double> values;               // increasing, as many as asked
  std::vector<std::vector<double>> vectors; // M-orthonormal
  int iterations = 0;
  double relative_residual = 0; // the largest |K x - lambda M x| / |K x| of the pairs asked
};

// The count lowest eigenpairs; with orthogonal_to_constant the block is kept M-orthogonal to the
// constant vector (the null space of a natural-boundary Laplacian, which is then skipped). Stops
// when every pair asked has a relative residual below tolerance; throws dgatd::Error naming where
// when max_iterations do not reach it.
template <class ExecutionSpace>
EigenSolve lowest_eigenpairs(dga::HostCsr const& stiffness, dga::HostCsr const& mass, int count,
                             bool orthogonal_to_constant, double tolerance, int max_iterations,
                             std::string const& where);

namespace lobpcg_detail {

// Functors, not lambdas: nvcc 11.8 cannot register an extended lambda's kernel inside a function
// template. Blocks are n x columns tables, LayoutLeft, so a block's column is a contiguous vector.

// Columns [first, last) of K S and M S, both matrices read once for all the columns: the block's
// point. (Kokkos Kernels 3.4's multivector spmv trips -Wmaybe-uninitialized in its own header, and
// a product per column costs a launch per column.)
template <class Matrix, class Block>
struct BlockProduct {
  Matrix k, m;
  Block s, ks, ms;
  int first, last;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const
  {
    for (int j = first; j < last; ++j) {
      double k_sum = 0, m_sum = 0;
      for (auto e = k.graph.row_map(i); e < k.graph.row_map(i + 1); ++e)
        k_sum += k.values(e) * s(k.graph.entries(e), j);
      for (auto e = m.graph.row_map(i); e < m.graph.row_map(i + 1); ++e)
        m_sum += m.values(e) * s(m.graph.entries(e), j);
      ks(i, j) = k_sum;
      ms(i, j) = m_sum;
    }
  }
};

// The residuals K X - M X Lambda of the block's first columns into its columns from first.
template <class Block, class Vector>
struct Residual {
  Block kx, mx, r;
  Vector lambda;
  int columns, first;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const
  {
    for (int j = 0; j < columns; ++j) r(i, first + j) = kx(i, j) - lambda(j) * mx(i, j);
  }
};

// squares(t) = |column t of a|^2 for t < count, |column t - count of b|^2 after: the residuals and
// the products K x of the block's pairs, a team per column.
template <class ExecutionSpace, class Block, class Vector>
struct SquaredNorms {
  Block residuals, products;
  Vector squares;
  int count, first;
  KOKKOS_INLINE_FUNCTION void operator()(typename Kokkos::TeamPolicy<ExecutionSpace>::member_type const& team) const
  {
    int const t = team.league_rank();
    auto const rows = static_cast<std::int64_t>(residuals.extent(0));
    double sum = 0;
    if (t < count) {
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, rows),
          [&](std::int64_t r, double& partial) { partial += residuals(r, first + t) * residuals(r, first + t); }, sum);
    } else {
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, rows),
          [&](std::int64_t r, double& partial) { partial += products(r, t - count) * products(r, t - count); }, sum);
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() { squares(t) = sum; });
  }
};

// Soft locking: the columns j of W and P (and P's products) zeroed where locked(j), a pair whose
// residual is below the tolerance, which keeps its place in X but adds no directions to the basis.
template <class Block, class Mask>
struct Lock {
  Block s, ks, ms;
  Mask locked;
  int b;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const
  {
    for (int j = 0; j < b; ++j)
      if (locked(j)) {
        s(i, b + j) = 0;
        s(i, 2 * b + j) = 0;
        ks(i, 2 * b + j) = 0;
        ms(i, 2 * b + j) = 0;
      }
  }
};

// part(j) = (1T M w_j) / (1T M 1) for the columns w_j from first: their constant part in the M inner
// product, a team per column.
template <class ExecutionSpace, class Block, class Vector>
struct ConstantPart {
  Block w;
  Vector mass_of_constant, part;
  double total_mass;
  int first;
  KOKKOS_INLINE_FUNCTION void operator()(typename Kokkos::TeamPolicy<ExecutionSpace>::member_type const& team) const
  {
    int const j = team.league_rank();
    double sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, static_cast<std::int64_t>(w.extent(0))),
        [&](std::int64_t r, double& partial) { partial += mass_of_constant(r) * w(r, first + j); }, sum);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { part(j) = sum / total_mass; });
  }
};

// Columns from first less part(j) times the constant vector.
template <class Block, class Vector>
struct RemoveConstant {
  Block w;
  Vector part;
  int columns, first;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const
  {
    for (int j = 0; j < columns; ++j) w(i, first + j) -= part(j);
  }
};

// The Gram matrices a(i, j) = S_i . (K S)_j and g(i, j) = S_i . (M S)_j of the first size columns,
// a team per entry reducing over the rows: one launch for the whole Rayleigh-Ritz step.
template <class ExecutionSpace, class Block, class Table>
struct Gram {
  Block s, ks, ms;
  Table a, g;
  int size;
  KOKKOS_INLINE_FUNCTION void operator()(typename Kokkos::TeamPolicy<ExecutionSpace>::member_type const& team) const
  {
    int const i = team.league_rank() / size, j = team.league_rank() % size;
    auto const rows = static_cast<std::int64_t>(s.extent(0));
    double k_product = 0, m_product = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, rows), [&](std::int64_t r, double& sum) { sum += s(r, i) * ks(r, j); },
        k_product);
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, rows), [&](std::int64_t r, double& sum) { sum += s(r, i) * ms(r, j); },
        m_product);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      a(i, j) = k_product;
      g(i, j) = m_product;
    });
  }
};

// out = S C over the first inputs columns of S.
template <class Block, class Table>
struct Combine {
  Block s;
  Table c;
  Block out;
  int inputs, outputs;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const
  {
    for (int j = 0; j < outputs; ++j) {
      double sum = 0;
      for (int k = 0; k < inputs; ++k) sum += s(i, k) * c(k, j);
      out(i, j) = sum;
    }
  }
};

// T = (K + sigma M)^-1, the preconditioner, factored once, with sigma = tr(K) / (10 n tr(M)): about
// 0.7 / area of the section on any mesh of near-equilateral triangles (lobpcg.cpp says why).
SparseCholesky shifted_factor(dga::HostCsr const& stiffness, dga::HostCsr const& mass, std::string const& where);

} // namespace lobpcg_detail

template <class ExecutionSpace>
EigenSolve lowest_eigenpairs(dga::HostCsr const& stiffness, dga::HostCsr const& mass, int count,
                             bool orthogonal_to_constant, double tolerance, int max_iterations,
                             std::string const& where)
{
  using memory_space = typename ExecutionSpace::memory_space;
  using device_type = Kokkos::Device<ExecutionSpace, memory_space>;
  using Matrix = KokkosSparse::CrsMatrix<double, Index, device_type, void, Index>;
  using Vector = Kokkos::View<double*, device_type>;
  using Block = Kokkos::View<double**, Kokkos::LayoutLeft, device_type>;
  using Table = Kokkos::View<double**, Kokkos::LayoutLeft, device_type>;
  using Mask = Kokkos::View<int*, device_type>;
  using RowMap = typename Matrix::row_map_type::non_const_type;
  using Entries = typename Matrix::index_type::non_const_type;
  using Values = typename Matrix::values_type::non_const_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace>;
  using Teams = Kokkos::TeamPolicy<ExecutionSpace>;

  Index const n = stiffness.rows;
  // Guard vectors beyond the pairs asked: the last pair asked converges at the rate of its gap to
  // the first eigenvalue outside the block.
  int const b = count + std::max(2, count / 2);
  if (count < 1 || 3 * b > n)
    throw Error(where,
                "asks for " + std::to_string(count) + " eigenpairs of a problem with " + std::to_string(n) +
                    " unknowns; the block solver needs three blocks of " + std::to_string(b) + " vectors",
                "ask for fewer modes or refine the mesh of the port");
  auto upload = [](std::string const& label, dga::HostCsr const& a) {
    return Matrix(label, a.rows, a.columns, static_cast<Index>(a.values.size()),
                  kernels::upload_flat<Values>(label + "_values", a.values),
                  kernels::upload_flat<RowMap>(label + "_rows", a.row_offsets),
                  kernels::upload_flat<Entries>(label + "_entries", a.column_indices));
  };
  Matrix const k = upload("dgatd::modes_stiffness", stiffness);
  Matrix const m = upload("dgatd::modes_mass", mass);
  std::vector<double> mass_of_constant(static_cast<std::size_t>(n), 0.0);
  double total_mass = 0;
  for (Index i = 0; i < n; ++i) {
    for (Index e = mass.row_offsets[i]; e < mass.row_offsets[i + 1]; ++e) mass_of_constant[i] += mass.values[e];
    total_mass += mass_of_constant[i];
  }
  Vector const m_one = kernels::upload_flat<Vector>("dgatd::modes_mass_of_constant", mass_of_constant);

  // S = [X W P] and its products K S, M S.
  Block const s("dgatd::modes_basis", n, 3 * b), ks("dgatd::modes_k_basis", n, 3 * b),
      ms("dgatd::modes_m_basis", n, 3 * b), combined("dgatd::modes_combined", n, 2 * b);
  Vector const lambda("dgatd::modes_ritz_values", b), part("dgatd::modes_constant_part", b),
      squares("dgatd::modes_squared_norms", 2 * b);
  Mask const locked("dgatd::modes_locked", b);
  auto lambda_host = Kokkos::create_mirror_view(lambda);
  auto locked_host = Kokkos::create_mirror_view(locked);
  auto squares_host = Kokkos::create_mirror_view(squares);
  auto columns = [](Block const& block, int first, int last) {
    return Kokkos::subview(block, Kokkos::ALL, Kokkos::make_pair(first, last));
  };
  auto multiply = [&](int first, int last) {
    Kokkos::parallel_for("dgatd::modes_products", Range(0, n),
                         lobpcg_detail::BlockProduct<Matrix, Block>{k, m, s, ks, ms, first, last});
  };
  // The M-orthogonal projection of columns [first, first + b) away from the constant vector.
  auto remove_constant = [&](int first) {
    if (!orthogonal_to_constant) return;
    Kokkos::parallel_for("dgatd::modes_constant_part", Teams(b, Kokkos::AUTO),
                         lobpcg_detail::ConstantPart<ExecutionSpace, Block, Vector>{s, m_one, part, total_mass, first});
    Kokkos::parallel_for("dgatd::modes_remove_constant", Range(0, n),
                         lobpcg_detail::RemoveConstant<Block, Vector>{s, part, b, first});
  };
  // W <- T W = (K + sigma M)^-1 W, the residuals' columns of S (contiguous in LayoutLeft), on the host.
  // Where the execution space's memory is the host's the mirror is W itself and nothing is copied. On
  // a GPU the block crosses over and back each step, n b doubles each way (160 kB for n = 5e3, b = 4:
  // about 10 microseconds over PCIe 4 plus two synchronisations), against 2 ms of triangular solves on
  // one host core: both are small beside the hundreds of Jacobi steps they save.
  SparseCholesky const preconditioner = lobpcg_detail::shifted_factor(stiffness, mass, where);
  auto const residuals = columns(s, b, 2 * b);
  auto const residuals_host = Kokkos::create_mirror_view(residuals);
  auto precondition = [&]() {
    Kokkos::deep_copy(residuals_host, residuals);
    preconditioner.solve(residuals_host);
    Kokkos::deep_copy(residuals, residuals_host);
  };
  // The Rayleigh-Ritz step on the first size columns of S. Nearly dependent directions (P close to W,
  // the first steps from a random start; a locked pair's zero columns) are left out below 1e-10 of the
  // largest eigenvalue of the scaled Gram matrix, where rounding in its entries (1e-16) would
  // otherwise be amplified into the basis.
  auto rayleigh_ritz = [&](int size) {
    Table const a_device("dgatd::modes_gram_k", size, size), g_device("dgatd::modes_gram_m", size, size);
    Kokkos::parallel_for("dgatd::modes_gram", Teams(size * size, Kokkos::AUTO),
                         lobpcg_detail::Gram<ExecutionSpace, Block, Table>{s, ks, ms, a_device, g_device, size});
    auto const a_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a_device);
    auto const g_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g_device);
    std::vector<double> a(static_cast<std::size_t>(size) * size), g(a.size());
    for (int i = 0; i < size; ++i)
      for (int j = 0; j < size; ++j) {
        a[static_cast<std::size_t>(i) * size + j] = 0.5 * (a_host(i, j) + a_host(j, i));
        g[static_cast<std::size_t>(i) * size + j] = 0.5 * (g_host(i, j) + g_host(j, i));
      }
    auto ritz = generalized_symmetric_eigen(a, g, size, 1e-10);
    if (ritz.columns < b)
      throw Error(where,
                  "the block eigen-solver's basis lost rank (" + std::to_string(ritz.columns) + " of " +
                      std::to_string(b) + " directions left)",
                  "ask for fewer modes or refine the mesh of the port");
    return ritz;
  };
  // X <- S C_X, the b lowest Ritz vectors, and P <- the same combinations without X's part.
  auto update = [&](DenseEigen const& ritz, int size) {
    Table const c("dgatd::modes_ritz_vectors", size, 2 * b);
    auto c_host = Kokkos::create_mirror_view(c);
    for (int i = 0; i < size; ++i)
      for (int j = 0; j < b; ++j) {
        c_host(i, j) = ritz.vector(i, j);
        c_host(i, b + j) = i < b ? 0.0 : ritz.vector(i, j);
      }
    Kokkos::deep_copy(c, c_host);
    Kokkos::parallel_for("dgatd::modes_combine", Range(0, n),
                         lobpcg_detail::Combine<Block, Table>{s, c, combined, size, 2 * b});
    Kokkos::deep_copy(columns(s, 0, b), columns(combined, 0, b));
    Kokkos::deep_copy(columns(s, 2 * b, 3 * b), columns(combined, b, 2 * b));
    for (int j = 0; j < b; ++j) lambda_host(j) = ritz.values[j];
    Kokkos::deep_copy(lambda, lambda_host);
  };

  // A fixed pseudo-random start (the 32-bit Mersenne twister's output is the same everywhere), so
  // every backend takes the same steps.
  {
    Block const start("dgatd::modes_start", n, b);
    auto start_host = Kokkos::create_mirror_view(start);
    std::mt19937 random(20260101u);
    for (int j = 0; j < b; ++j)
      for (Index i = 0; i < n; ++i) start_host(i, j) = 2.0 * random() / 4294967296.0 - 1.0;
    Kokkos::deep_copy(start, start_host);
    Kokkos::deep_copy(columns(s, 0, b), start);
  }
  remove_constant(0);
  multiply(0, b);
  update(rayleigh_ritz(b), b);
  multiply(0, b);

  EigenSolve result;
  for (int iteration = 0;; ++iteration) {
    Kokkos::parallel_for("dgatd::modes_residual", Range(0, n),
                         lobpcg_detail::Residual<Block, Vector>{ks, ms, s, lambda, b, b});
    Kokkos::parallel_for("dgatd::modes_residual_norms", Teams(2 * b, Kokkos::AUTO),
                         lobpcg_detail::SquaredNorms<ExecutionSpace, Block, Vector>{s, ks, squares, b, b});
    Kokkos::deep_copy(squares_host, squares);
    double worst = 0;
    for (int j = 0; j < count; ++j) worst = std::max(worst, std::sqrt(squares_host(j) / squares_host(b + j)));
    if (worst <= tolerance) {
      result.iterations = iteration;
      result.relative_residual = worst;
      break;
    }
    if (iteration == max_iterations)
      throw Error(where,
                  "the block eigen-solver (LOBPCG) reached a relative residual of " + format_number(worst) + " after " +
                      std::to_string(iteration) + " iterations, not " + format_number(tolerance),
                  "allow more iterations or ask for a looser tolerance");
    // Soft locking, re-decided every step (a locked pair whose residual grows again is freed).
    bool any_locked = false;
    for (int j = 0; j < b; ++j) {
      locked_host(j) = std::sqrt(squares_host(j) / squares_host(b + j)) <= tolerance ? 1 : 0;
      any_locked = any_locked || locked_host(j);
    }
    if (any_locked) {
      Kokkos::deep_copy(locked, locked_host);
      Kokkos::parallel_for("dgatd::modes_lock", Range(0, n), lobpcg_detail::Lock<Block, Mask>{s, ks, ms, locked, b});
    }
    precondition();
    remove_constant(b);
    multiply(b, 2 * b);
    int const size = iteration == 0 ? 2 * b : 3 * b;
    update(rayleigh_ritz(size), size);
    multiply(0, b);
    multiply(2 * b, 3 * b);
  }
  auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s);
  for (int j = 0; j < count; ++j) {
    result.values.push_back(lambda_host(j));
    result.vectors.emplace_back(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) result.vectors.back()[i] = host(i, j);
  }
  return result;
}

} // namespace dgatd::solver
