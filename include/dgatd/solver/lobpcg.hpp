#pragma once
// The lowest eigenpairs of K x = lambda M x, K symmetric positive (semi-)definite and M symmetric
// positive definite, by the locally optimal block preconditioned conjugate gradient method (LOBPCG,
// Knyazev 2001): each step minimises the Rayleigh quotient over the span of the block X, its
// preconditioned residuals W = D^-1 (K X - M X Lambda) (D the diagonal of K, Jacobi) and the previous
// step's directions P. The long vectors live on the execution space given and are multiplied by
// KokkosSparse::spmv and reduced by KokkosBlas::dot; the Rayleigh-Ritz step on the span of [X W P]
// (at most 3 b columns) is a small dense problem on the host (dense_eigen.hpp).

#include "dgatd/dga/assembled.hpp"
#include "dgatd/error.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/solver/dense_eigen.hpp"

#include <KokkosBlas1_dot.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
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

// Columns from first times the inverse diagonal (the Jacobi preconditioner).
template <class Block, class Vector>
struct Scale {
  Block w;
  Vector inverse_diagonal;
  int columns, first;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const
  {
    for (int j = 0; j < columns; ++j) w(i, first + j) *= inverse_diagonal(i);
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

} // namespace lobpcg_detail

template <class ExecutionSpace>
EigenSolve lowest_eigenpairs(dga::HostCsr const& stiffness, dga::HostCsr const& mass, int count,
                             bool orthogonal_to_constant, double tolerance, int max_iterations,
                             std::string const& where)
{
  using memory_space = typename ExecutionSpace::memory_space;
  using device_type = Kokkos::Device<ExecutionSpace, memory_space>;
  using Matrix = KokkosSparse::CrsMatrix<double, Index, device_type, void, Index>;
  // Views of the execution space's device type: Kokkos Kernels runs a product or a reduction on the
  // execution space of its Views, which for a bare HostSpace View is OpenMP, not Serial.
  using Vector = Kokkos::View<double*, device_type>;
  using Block = Kokkos::View<double**, Kokkos::LayoutLeft, device_type>;
  using Table = Kokkos::View<double**, Kokkos::LayoutLeft, device_type>;
  using RowMap = typename Matrix::row_map_type::non_const_type;
  using Entries = typename Matrix::index_type::non_const_type;
  using Values = typename Matrix::values_type::non_const_type;
  using Range = Kokkos::RangePolicy<ExecutionSpace>;

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
  std::vector<double> inverse(static_cast<std::size_t>(n), 0.0), mass_of_constant(static_cast<std::size_t>(n), 0.0);
  double total_mass = 0;
  for (Index i = 0; i < n; ++i) {
    for (Index e = stiffness.row_offsets[i]; e < stiffness.row_offsets[i + 1]; ++e)
      if (stiffness.column_indices[e] == i) inverse[i] = 1 / stiffness.values[e];
    for (Index e = mass.row_offsets[i]; e < mass.row_offsets[i + 1]; ++e) mass_of_constant[i] += mass.values[e];
    total_mass += mass_of_constant[i];
  }
  Vector const inverse_diagonal = kernels::upload_flat<Vector>("dgatd::modes_jacobi", inverse);
  Vector const m_one = kernels::upload_flat<Vector>("dgatd::modes_mass_of_constant", mass_of_constant);

  // S = [X W P] and its products K S, M S.
  Block const s("dgatd::modes_basis", n, 3 * b), ks("dgatd::modes_k_basis", n, 3 * b),
      ms("dgatd::modes_m_basis", n, 3 * b), combined("dgatd::modes_combined", n, 2 * b);
  Vector const lambda("dgatd::modes_ritz_values", b), part("dgatd::modes_constant_part", b);
  auto lambda_host = Kokkos::create_mirror_view(lambda);
  auto part_host = Kokkos::create_mirror_view(part);
  auto columns = [&](Block const& block, int first, int last) {
    return Kokkos::subview(block, Kokkos::ALL, Kokkos::make_pair(first, last));
  };
  auto column = [](Block const& block, int j) { return Kokkos::subview(block, Kokkos::ALL, j); };
  // Column by column: Kokkos Kernels 3.4's multivector product trips -Wmaybe-uninitialized in its
  // own header, and the vectors' product is the same.
  auto multiply = [&](int first, int last) {
    for (int j = first; j < last; ++j) {
      KokkosSparse::spmv("N", 1.0, k, column(s, j), 0.0, column(ks, j));
      KokkosSparse::spmv("N", 1.0, m, column(s, j), 0.0, column(ms, j));
    }
  };
  // The M-orthogonal projection of columns [first, first + b) away from the constant vector.
  auto remove_constant = [&](int first) {
    if (!orthogonal_to_constant) return;
    for (int j = 0; j < b; ++j) part_host(j) = KokkosBlas::dot(m_one, column(s, first + j)) / total_mass;
    Kokkos::deep_copy(part, part_host);
    Kokkos::parallel_for("dgatd::modes_remove_constant", Range(0, n),
                         lobpcg_detail::RemoveConstant<Block, Vector>{s, part, b, first});
  };
  // The Rayleigh-Ritz step on the first size columns of S. Nearly dependent directions (a converged
  // pair's residual, P close to W) are left out below 1e-10 of the largest eigenvalue of the scaled
  // Gram matrix, where rounding in its entries (1e-16) would otherwise be amplified into the basis.
  auto rayleigh_ritz = [&](int size) {
    Table const a_device("dgatd::modes_gram_k", size, size), g_device("dgatd::modes_gram_m", size, size);
    Kokkos::parallel_for("dgatd::modes_gram", Kokkos::TeamPolicy<ExecutionSpace>(size * size, Kokkos::AUTO),
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
    double worst = 0;
    for (int j = 0; j < count; ++j)
      worst = std::max(worst, std::sqrt(KokkosBlas::dot(column(s, b + j), column(s, b + j)) /
                                        KokkosBlas::dot(column(ks, j), column(ks, j))));
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
    Kokkos::parallel_for("dgatd::modes_jacobi", Range(0, n),
                         lobpcg_detail::Scale<Block, Vector>{s, inverse_diagonal, b, b});
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
