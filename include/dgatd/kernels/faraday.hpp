#pragma once
// Faraday update, eq. (5) of the paper: f^_t <- f^_t - dt K_t U_t for every tet, where U_t are the
// six full-edge circulations U_e = u^(a,e) + u^(b,e) of the tet and K_t = (Mmu_t)^-1 C_t.

#include "dgatd/kernels/device_operators.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace dgatd::kernels {

template <class ExecutionSpace, class TetLayout, class MatrixScalar, class FieldScalar>
struct FaradayKernel {
  using memory_space = typename ExecutionSpace::memory_space;
  Kokkos::View<Index const* [12], TetLayout, memory_space> tet_dofs;
  Kokkos::View<MatrixScalar const* [24], TetLayout, memory_space> faraday;
  Kokkos::View<FieldScalar const*, memory_space, Kokkos::MemoryTraits<Kokkos::RandomAccess>> u;
  Kokkos::View<FieldScalar* [4], TetLayout, memory_space> f;
  FieldScalar dt;

  FaradayKernel(DeviceOperators<ExecutionSpace, TetLayout, MatrixScalar> const& ops,
                Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields, FieldScalar time_step)
      : tet_dofs(ops.tet_dofs), faraday(ops.faraday), u(fields.u), f(fields.f), dt(time_step)
  {
  }

  KOKKOS_INLINE_FUNCTION void operator()(Index t) const
  {
    FieldScalar circulation[6];
    for (int k = 0; k < 6; ++k) circulation[k] = u(tet_dofs(t, 2 * k)) + u(tet_dofs(t, 2 * k + 1));
    for (int j = 0; j < 4; ++j) {
      FieldScalar s = 0;
      for (int k = 0; k < 6; ++k) s += static_cast<FieldScalar>(faraday(t, 6 * j + k)) * circulation[k];
      f(t, j) -= dt * s;
    }
  }

  // Dynamic: on a shared host a descheduled thread would otherwise hold up the whole launch with its
  // static share of tets (GPUs ignore the schedule).
  using policy_type = Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<Index>>;

  policy_type policy(ExecutionSpace const& space) const
  {
    return policy_type(space, 0, static_cast<Index>(f.extent(0)));
  }

  // Compulsory traffic, each array element moved once: K_t (24 per tet) and the 12 unknown indices
  // read, f^ read and written (4 per tet), and every unknown u^ read once.
  static std::int64_t bytes_moved(Index num_tets, Index num_unknowns)
  {
    return static_cast<std::int64_t>(num_tets) *
               (24 * sizeof(MatrixScalar) + 12 * sizeof(Index) + 2 * 4 * sizeof(FieldScalar)) +
           static_cast<std::int64_t>(num_unknowns) * sizeof(FieldScalar);
  }
};

template <class ExecutionSpace, class TetLayout, class MatrixScalar, class FieldScalar>
void faraday_update(ExecutionSpace const& space, DeviceOperators<ExecutionSpace, TetLayout, MatrixScalar> const& ops,
                    Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields, FieldScalar dt)
{
  compat::ScopedRegion region("dgatd::Faraday");
  FaradayKernel<ExecutionSpace, TetLayout, MatrixScalar, FieldScalar> kernel(ops, fields, dt);
  Kokkos::parallel_for("dgatd::Faraday", kernel.policy(space), kernel);
}

} // namespace dgatd::kernels
