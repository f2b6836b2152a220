#pragma once
// The stability bound of the leapfrog, dt < 2 / sqrt(rho(K)), K = Meps^-1 C~ Mmu^-1 C, by a
// Lanczos iteration on the fractioned operators of an execution space (METHOD.md), and the
// electric energy product. Both formulations call it: the assembled operator has the same
// spectrum, and only the fractioned one carries the half-edge mass matrices of the Meps inner
// product.

#include "dgatd/kernels/ampere.hpp"
#include "dgatd/kernels/device_operators.hpp"
#include "dgatd/kernels/faraday.hpp"
#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/parallel/communicator.hpp"
#include "dgatd/random.hpp"
#include "dgatd/solver/formulation.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace dgatd::solver {

// x.Meps y over the free unknowns (of the blocks owned here, in a run over several ranks).
template <class ExecutionSpace, class TetLayout, class FieldScalar>
double electric_product(ExecutionSpace const& space, kernels::DeviceOperators<ExecutionSpace, TetLayout> const& ops,
                        Kokkos::View<FieldScalar*, typename ExecutionSpace::memory_space> const& x,
                        Kokkos::View<FieldScalar*, typename ExecutionSpace::memory_space> const& y,
                        kernels::OwnedMask<typename ExecutionSpace::memory_space> const& owned_blocks = {})
{
  double sum = 0;
  Kokkos::parallel_reduce("dgatd::electric_product",
                          Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index>>(space, 0, ops.num_blocks),
                          kernels::BlockQuadraticForm<typename ExecutionSpace::memory_space, FieldScalar>{
                              ops.eps, ops.block_offset, ops.block_matrix_offset, x, y, owned_blocks},
                          sum);
  return sum;
}

// The seed of the stability bound's start field.
inline constexpr std::uint64_t stability_seed = 7;

// Random free unknowns in [-1, 1) from seed (splitmix64), the rest zero: a field with every mode.
inline std::vector<double> random_free_unknowns(Index num_unknowns, Index num_free, std::uint64_t seed)
{
  std::vector<double> values(num_unknowns, 0.0);
  std::uint64_t state = seed;
  for (Index i = 0; i < num_free; ++i) values[i] = uniform_minus_one_to_one(state);
  return values;
}

// The Lanczos iteration over the parts of a problem on several ranks (parallel/decomposition.hpp):
// its sums count the rows each rank owns, the halo unknowns take their owners' values after each
// application of K, and the start field is the one-process run's, so every rank runs the same
// iteration as one process, to the rounding of the sums.
template <class MemorySpace>
struct DistributedLanczos {
  parallel::Communicator const* communicator = nullptr;
  kernels::OwnedMask<MemorySpace> owned_rows;
  std::function<void(Kokkos::View<Real*, MemorySpace> const&)> exchange;
  std::vector<double> start; // u^ of the start field, free unknowns from random_free_unknowns' sequence
};

namespace stability_detail {

// -K x into work.u: the two kernels applied with dt = 1 from zero fields, Faraday reading x in
// place. The static null space of K (differences of the two halves of an edge) is annihilated by
// the first application.
template <class ExecutionSpace, class TetLayout>
void apply_minus_k(ExecutionSpace const& space, kernels::DeviceOperators<ExecutionSpace, TetLayout> const& ops,
                   kernels::Fields<ExecutionSpace, TetLayout, Real> const& work,
                   Kokkos::View<Real*, typename ExecutionSpace::memory_space> const& x,
                   DistributedLanczos<typename ExecutionSpace::memory_space> const* distributed)
{
  auto from_x = work;
  from_x.u = x;
  Kokkos::deep_copy(space, work.f, 0.0);
  kernels::faraday_update(space, ops, from_x, 1.0);
  Kokkos::deep_copy(space, work.u, 0.0);
  kernels::ampere_update(space, ops, work, 1.0);
  if (distributed) distributed->exchange(work.u);
}

// The largest eigenvalue of the symmetric tridiagonal matrix with diagonal alpha and off-diagonal
// beta (beta[k] joins rows k and k+1), at least low, by bisection on Sturm counts.
double largest_tridiagonal_eigenvalue(std::vector<double> const& alpha, std::vector<double> const& beta, double low);

} // namespace stability_detail

// Lanczos on K in the Meps inner product, where K is self-adjoint: the largest Ritz value of the
// tridiagonal matrix approaches rho from below, like the power iteration's Rayleigh quotient, but
// from the whole Krylov space rather than its last vector, so in far fewer applications of K (one
// Faraday and one Ampere pass each, as in a step). The products with Meps come from the dual curl
// and the recurrence (kernels::LanczosRecurrence), so an iteration reads no mass matrix. The
// start is K of a random field, which has no component in K's static null space. Stops when the
// estimate grows by less than tolerance (relative) in an iteration, or exactly when the Krylov
// space closes. No reorthogonalisation: lost orthogonality repeats converged Ritz values but does
// not lift the largest one above rho.
template <class ExecutionSpace, class TetLayout>
StabilityBound
estimate_stability(ExecutionSpace const& space, kernels::DeviceOperators<ExecutionSpace, TetLayout> const& ops,
                   double tolerance = 1e-6, int max_iterations = 20000, std::uint64_t seed = stability_seed,
                   DistributedLanczos<typename ExecutionSpace::memory_space> const* distributed = nullptr)
{
  using memory_space = typename ExecutionSpace::memory_space;
  using Vector = Kokkos::View<Real*, memory_space>;
  using FreeRows = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index>>;
  auto work = kernels::make_fields<ExecutionSpace, TetLayout, Real>(ops);
  Vector q("dgatd::lanczos_q", ops.num_unknowns);
  Vector q_previous("dgatd::lanczos_q_previous", ops.num_unknowns);
  Vector p("dgatd::lanczos_p", ops.num_free);
  Vector p_previous("dgatd::lanczos_p_previous", ops.num_free);
  kernels::OwnedMask<memory_space> const owned_rows =
      distributed ? distributed->owned_rows : kernels::OwnedMask<memory_space>{};
  auto over_ranks = [&](double sum) {
    if (distributed) distributed->communicator->sum(&sum, 1);
    return sum;
  };
  auto recurrence = [&](double alpha, double beta) {
    double sum = 0;
    Kokkos::parallel_reduce("dgatd::lanczos_recurrence", FreeRows(space, 0, ops.num_free),
                            kernels::LanczosRecurrence<memory_space>{work.u, ops.row_curl, work.dual_curl, q,
                                                                     q_previous, p, p_previous, alpha, beta,
                                                                     owned_rows},
                            sum);
    return over_ranks(sum);
  };
  // q_previous, p_previous /= norm, then they become q, p; the old q, p are the next previous ones.
  auto advance = [&](double norm) {
    kernels::for_each("dgatd::lanczos_scale", space, ops.num_free,
                      kernels::ScalePair<memory_space>{q_previous, p_previous, 1.0 / norm});
    std::swap(q, q_previous);
    std::swap(p, p_previous);
  };

  StabilityBound result;
  stability_detail::apply_minus_k(
      space, ops, work,
      kernels::upload_flat<Vector>("dgatd::lanczos_start",
                                   distributed ? distributed->start
                                               : random_free_unknowns(ops.num_unknowns, ops.num_free, seed)),
      distributed);
  double const start_norm = std::sqrt(std::max(0.0, recurrence(0.0, 0.0)));
  if (!(start_norm > 0)) {
    result.dt_max = HUGE_VAL; // no free unknown, or K = 0: nothing bounds dt, which the caller refuses
    return result;
  }
  advance(start_norm);
  std::vector<double> alpha, beta;
  double beta_previous = 0;
  for (int it = 1; it <= max_iterations; ++it) {
    stability_detail::apply_minus_k(space, ops, work, q, distributed);
    double sum = 0;
    Kokkos::parallel_reduce("dgatd::lanczos_alpha", FreeRows(space, 0, ops.num_free),
                            kernels::LanczosAlpha<memory_space>{q, ops.row_curl, work.dual_curl, owned_rows}, sum);
    alpha.push_back(over_ranks(sum));
    double const beta_next = std::sqrt(std::max(0.0, recurrence(alpha.back(), beta_previous)));
    double const rho = stability_detail::largest_tridiagonal_eigenvalue(alpha, beta, result.rho);
    result.iterations = it;
    bool const closed = !(beta_next > 1e-13 * rho);
    bool const settled = it > 1 && rho - result.rho < tolerance * rho;
    result.rho = rho;
    if (closed || settled) {
      result.converged = true;
      break;
    }
    beta.push_back(beta_next);
    beta_previous = beta_next;
    advance(beta_next);
  }
  result.dt_max = 2.0 / std::sqrt(result.rho);
  return result;
}

} // namespace dgatd::solver
