#pragma once
// Electrostatic potentials and capacitances on the DGA complex (dga/laplacian.hpp): the potential
// phi with K phi = 0 at the free vertices and given values at the fixed ones (conductors and a
// grounded boundary; any other boundary is a natural one, zero normal D), solved for the free
// vertices by conjugate gradients with a Jacobi preconditioner, the matrix-vector products and
// reductions by Kokkos Kernels (KokkosSparse::spmv, KokkosBlas::dot and axpby) on the execution
// space given, so the same solve runs on Serial, OpenMP and CUDA.

#include "dgatd/dga/assembled.hpp"
#include "dgatd/dga/laplacian.hpp"
#include "dgatd/error.hpp"
#include "dgatd/kernels/upload.hpp"

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace dgatd::solver {

struct PotentialSolve {
  std::vector<double> potential; // at every vertex
  int iterations = 0;
  double relative_residual = 0; // |b - K_ff x| / |b| on the free vertices
};

// The potential with the vertices where fixed[v] holds at prescribed[v]; the CG stops at a relative
// residual below tolerance, and throws where max_iterations do not reach it.
template <class ExecutionSpace>
PotentialSolve solve_potential(dga::HostCsr const& laplacian, std::vector<char> const& fixed,
                               std::vector<double> const& prescribed, double tolerance, int max_iterations);

// The Maxwell capacitance matrix of the conductors (each a list of vertices), with the ground
// vertices at zero potential: C_ij = phi_i^T K phi_j, phi_j the potential with conductor j at 1 V
// and the others and the ground at 0 (the energy form, symmetric); C_ij is also the charge on
// conductor i. The solves are kept, one per conductor.
struct Capacitances {
  std::vector<std::vector<double>> matrix; // F
  std::vector<PotentialSolve> solves;
};

template <class ExecutionSpace>
Capacitances capacitance_matrix(dga::HostCsr const& laplacian, std::vector<std::vector<Index>> const& conductors,
                                std::vector<Index> const& ground, double tolerance, int max_iterations);

// z = D^-1 r, the Jacobi preconditioner (inverse holds D^-1). A functor: nvcc 11.8 cannot register
// an extended lambda's kernel inside this function template.
template <class Vector>
struct JacobiStep {
  Vector inverse, r, z;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { z(i) = inverse(i) * r(i); }
};

template <class ExecutionSpace, class Vector>
void apply_jacobi(Vector const& inverse, Vector const& r, Vector const& z)
{
  Kokkos::parallel_for("dgatd::jacobi", Kokkos::RangePolicy<ExecutionSpace>(0, static_cast<std::int64_t>(z.extent(0))),
                       JacobiStep<Vector>{inverse, r, z});
}

template <class ExecutionSpace>
PotentialSolve solve_potential(dga::HostCsr const& laplacian, std::vector<char> const& fixed,
                               std::vector<double> const& prescribed, double tolerance, int max_iterations)
{
  using memory_space = typename ExecutionSpace::memory_space;
  using device_type = Kokkos::Device<ExecutionSpace, memory_space>;
  using Matrix = KokkosSparse::CrsMatrix<double, Index, device_type, void, Index>;
  // The execution space in the type, so that Kokkos Kernels runs the dots and updates there.
  using Vector = Kokkos::View<double*, device_type>;

  // The free vertices' rows and columns; the fixed columns move to the right-hand side.
  Index const n = laplacian.rows;
  std::vector<Index> free_index(static_cast<std::size_t>(n), -1);
  Index num_free = 0;
  for (Index v = 0; v < n; ++v)
    if (!fixed[v]) free_index[v] = num_free++;
  dga::HostCsr reduced;
  reduced.rows = reduced.columns = num_free;
  reduced.row_offsets.assign(static_cast<std::size_t>(num_free) + 1, 0);
  std::vector<double> rhs(static_cast<std::size_t>(num_free), 0.0), diagonal(static_cast<std::size_t>(num_free), 0.0);
  for (Index v = 0; v < n; ++v) {
    Index const row = free_index[v];
    if (row < 0) continue;
    for (Index k = laplacian.row_offsets[v]; k < laplacian.row_offsets[v + 1]; ++k) {
      Index const w = laplacian.column_indices[k];
      if (fixed[w]) {
        rhs[row] -= laplacian.values[k] * prescribed[w];
      } else {
        reduced.column_indices.push_back(free_index[w]);
        reduced.values.push_back(laplacian.values[k]);
        if (w == v) diagonal[row] = laplacian.values[k];
      }
    }
    reduced.row_offsets[row + 1] = static_cast<Index>(reduced.values.size());
  }
  for (double const d : diagonal)
    if (!(d > 0))
      throw Error("electrostatics", "a free vertex has no positive diagonal in the Laplacian",
                  "check that every vertex belongs to a tet with a positive permittivity");

  PotentialSolve result;
  result.potential = prescribed;
  if (num_free > 0) {
    using RowMap = typename Matrix::row_map_type::non_const_type;
    using Entries = typename Matrix::index_type::non_const_type;
    using Values = typename Matrix::values_type::non_const_type;
    Matrix const a("dgatd::laplacian", num_free, num_free, static_cast<Index>(reduced.values.size()),
                   kernels::upload_flat<Values>("dgatd::laplacian_values", reduced.values),
                   kernels::upload_flat<RowMap>("dgatd::laplacian_rows", reduced.row_offsets),
                   kernels::upload_flat<Entries>("dgatd::laplacian_entries", reduced.column_indices));
    Vector const b = kernels::upload_flat<Vector>("dgatd::potential_rhs", rhs);
    std::vector<double> inverse(diagonal.size());
    for (std::size_t i = 0; i < diagonal.size(); ++i) inverse[i] = 1 / diagonal[i];
    Vector const jacobi = kernels::upload_flat<Vector>("dgatd::potential_jacobi", inverse);
    Vector x("dgatd::potential", num_free), r("dgatd::potential_r", num_free), z("dgatd::potential_z", num_free),
        p("dgatd::potential_p", num_free), q("dgatd::potential_q", num_free);
    Kokkos::deep_copy(r, b);
    double const b_norm = std::sqrt(KokkosBlas::dot(b, b));
    apply_jacobi<ExecutionSpace>(jacobi, r, z);
    Kokkos::deep_copy(p, z);
    double rz = KokkosBlas::dot(r, z);
    double r_norm = b_norm;
    int iteration = 0;
    while (b_norm > 0 && r_norm > tolerance * b_norm) {
      if (iteration == max_iterations)
        throw Error("electrostatics",
                    "the conjugate gradients reached a relative residual of " + std::to_string(r_norm / b_norm) +
                        " after " + std::to_string(iteration) + " iterations, not " + std::to_string(tolerance),
                    "check the mesh's quality (dgatd info) or allow more iterations");
      KokkosSparse::spmv("N", 1.0, a, p, 0.0, q);
      double const alpha = rz / KokkosBlas::dot(p, q);
      KokkosBlas::axpby(alpha, p, 1.0, x);
      KokkosBlas::axpby(-alpha, q, 1.0, r);
      apply_jacobi<ExecutionSpace>(jacobi, r, z);
      double const rz_next = KokkosBlas::dot(r, z);
      KokkosBlas::axpby(1.0, z, rz_next / rz, p);
      rz = rz_next;
      r_norm = std::sqrt(KokkosBlas::dot(r, r));
      ++iteration;
    }
    result.iterations = iteration;
    result.relative_residual = b_norm > 0 ? r_norm / b_norm : 0;
    auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    for (Index v = 0; v < n; ++v)
      if (free_index[v] >= 0) result.potential[v] = host(free_index[v]);
  }
  return result;
}

template <class ExecutionSpace>
Capacitances capacitance_matrix(dga::HostCsr const& laplacian, std::vector<std::vector<Index>> const& conductors,
                                std::vector<Index> const& ground, double tolerance, int max_iterations)
{
  auto const n = static_cast<std::size_t>(laplacian.rows);
  std::vector<char> fixed(n, 0);
  for (Index const v : ground) fixed[v] = 1;
  for (auto const& conductor : conductors)
    for (Index const v : conductor) fixed[v] = 1;
  Capacitances c;
  std::vector<std::vector<double>> charges; // K phi_j
  for (auto const& conductor : conductors) {
    std::vector<double> prescribed(n, 0.0);
    for (Index const v : conductor) prescribed[v] = 1;
    c.solves.push_back(solve_potential<ExecutionSpace>(laplacian, fixed, prescribed, tolerance, max_iterations));
    charges.push_back(dga::multiply(laplacian, c.solves.back().potential));
  }
  for (std::size_t i = 0; i < conductors.size(); ++i) {
    c.matrix.emplace_back();
    for (std::size_t j = 0; j < conductors.size(); ++j) {
      double energy = 0;
      for (std::size_t v = 0; v < n; ++v) energy += c.solves[i].potential[v] * charges[j][v];
      c.matrix.back().push_back(energy);
    }
  }
  return c;
}

} // namespace dgatd::solver
