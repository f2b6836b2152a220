#pragma once
// Ampere update, eq. (6) of the paper, one team per dual volume v:
//   u^_v <- u^_v + dt (Meps_v)^-1 (C~ f^)_v
// The team first forms the circulation of h around the dual face of every edge at v in scratch,
// tet by tet: each tet around v gives its three f^ at v to the rows of its three edges at v. Then
// the rows multiply the dense d_v x d_v inverse against it. Block sizes vary (4-40 rows): scratch is
// sized for the largest block of the mesh, never a compiled-in maximum.

#include "dgatd/error.hpp"
#include "dgatd/kernels/device_operators.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace dgatd::kernels {

template <class ExecutionSpace, class TetLayout, class MatrixScalar, class FieldScalar>
struct AmpereKernel {
  using memory_space = typename ExecutionSpace::memory_space;
  // Dynamic: on a shared host a descheduled thread would otherwise hold up the whole launch with its
  // static share of blocks (GPUs ignore the schedule).
  using policy_type = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<Index>>;
  using member_type = typename policy_type::member_type;
  using scratch_view = Kokkos::View<FieldScalar*, typename ExecutionSpace::scratch_memory_space,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  Kokkos::View<MatrixScalar const*, memory_space> eps_inverse;
  Kokkos::View<Index const*, memory_space> block_offset;
  Kokkos::View<std::int64_t const*, memory_space> block_matrix_offset;
  Kokkos::View<Index const*, memory_space> block_pair_offsets;
  Kokkos::View<Index const*, memory_space> pair_tet_vertex;
  Kokkos::View<std::uint32_t const*, memory_space> pair_code;
  // f^ seen as its flat allocation: the gather computes one offset per entry instead of Kokkos'
  // two-index arithmetic, which costs as much as the load itself on CPUs.
  Kokkos::View<FieldScalar const*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> f;
  Index f_face_stride;
  Kokkos::View<FieldScalar*, memory_space> u;
  FieldScalar dt;
  Index num_blocks;
  Index max_block_size;

  AmpereKernel(DeviceOperators<ExecutionSpace, TetLayout, MatrixScalar> const& ops,
               Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields, FieldScalar time_step)
      : eps_inverse(ops.eps_inverse), block_offset(ops.block_offset), block_matrix_offset(ops.block_matrix_offset),
        block_pair_offsets(ops.block_pair_offsets), pair_tet_vertex(ops.pair_tet_vertex), pair_code(ops.pair_code),
        f(fields.f.data(), fields.f.span()), f_face_stride(static_cast<Index>(fields.f.stride(1))), u(fields.u),
        dt(time_step), num_blocks(ops.num_blocks), max_block_size(ops.max_block_size)
  {
    if (!fields.f.span_is_contiguous())
      throw Error("Ampere kernel", "the dual half-edge field f^ is not one contiguous allocation",
                  "allocate it with make_fields");
  }

  static std::size_t scratch_bytes(Index max_rows) { return scratch_view::shmem_size(max_rows); }

  // Host backends run one thread per block and stream its rows; GPUs spread the rows over a team's
  // threads and the columns over vector lanes.
  policy_type policy(ExecutionSpace const& space) const
  {
    constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
    policy_type p = host ? policy_type(space, num_blocks, 1, 1) : policy_type(space, num_blocks, Kokkos::AUTO, 8);
    std::size_t const needed = scratch_bytes(max_block_size);
    std::size_t const available = static_cast<std::size_t>(p.scratch_size_max(0));
    if (needed > available)
      throw Error("Ampere kernel",
                  "a dual block of " + std::to_string(max_block_size) + " rows needs " + std::to_string(needed) +
                      " bytes of team scratch, the device offers " + std::to_string(available),
                  "refine the mesh around high-degree vertices");
    return p.set_scratch_size(0, Kokkos::PerTeam(needed));
  }

  // Where f^(t, j), slot 4 t + j, lives: rows of four are contiguous in LayoutRight, so the slot is
  // the offset.
  KOKKOS_INLINE_FUNCTION Index offset_of(Index slot) const
  {
    if constexpr (std::is_same_v<TetLayout, Kokkos::LayoutRight>)
      return slot;
    else
      return (slot >> 2) + (slot & 3) * f_face_stride;
  }

  // One tet's share of the dual curl at the block's vertex, added to the rows of its edges there.
  // A team of one thread (host backends) owns its scratch; wider teams add atomically.
  KOKKOS_INLINE_FUNCTION void add_tet(scratch_view const& curl, Index pair, bool shared) const
  {
    Index const tet_vertex = pair_tet_vertex(pair);
    std::uint32_t const code = pair_code(pair);
    Index const base = tet_vertex & ~Index(3);
    int const lv = tet_vertex & 3;
    FieldScalar face[3];
    for (int i = 0; i < 3; ++i) face[i] = f(offset_of(base + i + (i >= lv)));
    int bit = 24;
    FieldScalar c[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i)
      for (int m = 0; m < 3; ++m) {
        if (i == m) continue;
        // Signs by arithmetic, not a branch: on unstructured meshes they look random to a predictor.
        c[m] += (FieldScalar(1) - FieldScalar(2) * static_cast<FieldScalar>((code >> bit) & 1u)) * face[i];
        ++bit;
      }
    for (int m = 0; m < 3; ++m) {
      std::uint32_t const row = (code >> (8 * m)) & 255u;
      if (row == 255u) continue;
      if (shared)
        Kokkos::atomic_add(&curl(row), c[m]);
      else
        curl(row) += c[m];
    }
  }

  KOKKOS_INLINE_FUNCTION FieldScalar row_product(member_type const& team, scratch_view const& curl,
                                                 std::int64_t row_start, Index d) const
  {
    FieldScalar y = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, d),
        [&](Index j, FieldScalar& sum) { sum += static_cast<FieldScalar>(eps_inverse(row_start + j)) * curl(j); }, y);
    return y;
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const
  {
    Index const b = team.league_rank();
    Index const first = block_offset(b);
    Index const d = block_offset(b + 1) - first;
    std::int64_t const m = block_matrix_offset(b);
    scratch_view curl(team.team_scratch(0), d);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, d), [&](Index i) { curl(i) = 0; });
    team.team_barrier();
    bool const shared = team.team_size() > 1;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, block_pair_offsets(b), block_pair_offsets(b + 1)),
                         [&](Index pair) { add_tet(curl, pair, shared); });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, d), [&](Index i) {
      FieldScalar const y = row_product(team, curl, m + static_cast<std::int64_t>(i) * d, d);
      Kokkos::single(Kokkos::PerThread(team), [&]() { u(first + i) += dt * y; });
    });
  }

  // Compulsory traffic, each array element moved once: every block matrix entry, the block offsets,
  // the (tet, vertex) pair lists (two 4-byte words per pair), f^ read once (4 per tet), the free
  // unknowns read and written.
  static std::int64_t bytes_moved(std::int64_t matrix_entries, Index num_blocks, Index num_free, Index num_pairs,
                                  Index num_tets)
  {
    return matrix_entries * static_cast<std::int64_t>(sizeof(MatrixScalar)) +
           static_cast<std::int64_t>(num_blocks + 1) * (2 * sizeof(Index) + sizeof(std::int64_t)) +
           static_cast<std::int64_t>(num_pairs) * (sizeof(Index) + sizeof(std::uint32_t)) +
           static_cast<std::int64_t>(num_tets) * 4 * sizeof(FieldScalar) +
           static_cast<std::int64_t>(num_free) * 2 * sizeof(FieldScalar);
  }
};

template <class ExecutionSpace, class TetLayout, class MatrixScalar, class FieldScalar>
void ampere_update(ExecutionSpace const& space, DeviceOperators<ExecutionSpace, TetLayout, MatrixScalar> const& ops,
                   Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields, FieldScalar dt)
{
  compat::ScopedRegion region("dgatd::Ampere");
  AmpereKernel<ExecutionSpace, TetLayout, MatrixScalar, FieldScalar> kernel(ops, fields, dt);
  Kokkos::parallel_for("dgatd::Ampere", kernel.policy(space), kernel);
}

} // namespace dgatd::kernels
