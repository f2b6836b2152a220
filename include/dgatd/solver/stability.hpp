#pragma once
// The stability bound of the leapfrog, dt < 2 / sqrt(rho(K)), K = Meps^-1 C~ Mmu^-1 C, by power
// iteration on the fractioned operators of an execution space (METHOD.md), and the electric energy
// product it needs. Both formulations call it: the assembled operator has the same spectrum, and
// only the fractioned one carries the half-edge mass matrices of the Meps inner product.

#include "dgatd/kernels/ampere.hpp"
#include "dgatd/kernels/device_operators.hpp"
#include "dgatd/kernels/faraday.hpp"
#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/random.hpp"
#include "dgatd/solver/formulation.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace dgatd::solver {

// x.Meps y over the free unknowns.
template <class ExecutionSpace, class TetLayout>
double electric_product(ExecutionSpace const& space,
                        kernels::DeviceOperators<ExecutionSpace, TetLayout, Real> const& ops,
                        Kokkos::View<Real*, typename ExecutionSpace::memory_space> const& x,
                        Kokkos::View<Real*, typename ExecutionSpace::memory_space> const& y)
{
  double sum = 0;
  Kokkos::parallel_reduce(
      "dgatd::electric_product",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index>>(space, 0, ops.num_blocks),
      kernels::BlockQuadraticForm<typename ExecutionSpace::memory_space>{ops.eps, ops.block_offset,
                                                                         ops.block_matrix_offset, x, y},
      sum);
  return sum;
}

// Random free unknowns in [-1, 1) from seed (splitmix64), the rest zero: a field with every mode.
inline std::vector<double> random_free_unknowns(Index num_unknowns, Index num_free, std::uint64_t seed)
{
  std::vector<double> values(num_unknowns, 0.0);
  std::uint64_t state = seed;
  for (Index i = 0; i < num_free; ++i) values[i] = uniform_minus_one_to_one(state);
  return values;
}

// Power iteration on K with the Rayleigh quotient in the Meps inner product (K is self-adjoint
// there, so the estimate rises monotonically to rho). The two kernels applied with dt = 1 from zero
// fields give -K x. The static null space of K (differences of the two halves of an edge) is
// annihilated by the first application and never returns.
template <class ExecutionSpace, class TetLayout>
PowerIterationResult estimate_stability(ExecutionSpace const& space,
                                        kernels::DeviceOperators<ExecutionSpace, TetLayout, Real> const& ops,
                                        double tolerance = 1e-6, int max_iterations = 20000, std::uint64_t seed = 7)
{
  using Vector = Kokkos::View<Real*, typename ExecutionSpace::memory_space>;
  auto work = kernels::make_fields<ExecutionSpace, TetLayout, Real>(ops);
  Vector x("dgatd::power_x", ops.num_unknowns);
  Kokkos::deep_copy(x, kernels::upload_flat<Vector>("dgatd::power_start",
                                                    random_free_unknowns(ops.num_unknowns, ops.num_free, seed)));
  PowerIterationResult result;
  double previous = 0;
  for (int it = 1; it <= max_iterations; ++it) {
    double const norm = std::sqrt(electric_product(space, ops, x, x));
    kernels::for_each("dgatd::scale", space, x.extent(0),
                      kernels::Scale<typename ExecutionSpace::memory_space>{work.u, x, 1.0 / norm});
    Kokkos::deep_copy(space, x, work.u);
    Kokkos::deep_copy(space, work.f, 0.0);
    kernels::faraday_update(space, ops, work, 1.0);
    Kokkos::deep_copy(space, work.u, 0.0);
    kernels::ampere_update(space, ops, work, 1.0);
    // work.u = -K x; with <x, x>_Meps = 1 the Rayleigh quotient is <x, K x>_Meps.
    double const rho = -electric_product(space, ops, x, work.u);
    Kokkos::deep_copy(space, x, work.u);
    result.rho = rho;
    result.iterations = it;
    if (it > 1 && std::abs(rho - previous) < tolerance * std::abs(rho)) {
      result.converged = true;
      break;
    }
    previous = rho;
  }
  result.dt_max = 2.0 / std::sqrt(result.rho);
  return result;
}

} // namespace dgatd::solver
