#pragma once
// Ampere update, eq. (6) of the paper, for every dual volume v:
//   u^_v <- u^_v + dt (Meps_v)^-1 (C~ f^)_v
// in two passes. DualCurlKernel forms the circulation of h around the dual face of every edge that
// has a free half, once per edge, by adding up the edge pieces the Faraday kernel left per tet: both
// halves of an edge see the same circulation, and forming it inside each dual block (per row, or
// per tet around the vertex) did that gather twice and, on CPU cores, left the block products
// waiting on arithmetic instead of memory (README, Performance). AmpereKernel then multiplies every
// block's dense d_v x d_v inverse against the curls of its rows.

#include "dgatd/error.hpp"
#include "dgatd/kernels/device_operators.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace dgatd::kernels {

template <class ExecutionSpace, class TetLayout, class FieldScalar>
struct DualCurlKernel {
  using memory_space = typename ExecutionSpace::memory_space;
  // Dynamic: on a shared host a descheduled thread would otherwise hold up the whole launch with its
  // static share of edges (GPUs ignore the schedule).
  using policy_type = Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<Index>>;

  Kokkos::View<Index const*, memory_space> offsets;
  Kokkos::View<Index const*, memory_space> entries;
  // The edge pieces seen as their flat allocation: the entries are offsets into it, computed once,
  // where Kokkos' two-index arithmetic per read would cost as much as the load itself on CPUs.
  Kokkos::View<FieldScalar const*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> pieces;
  Kokkos::View<FieldScalar*, memory_space> curl;

  template <class MatrixScalar>
  DualCurlKernel(DeviceOperators<ExecutionSpace, TetLayout, MatrixScalar> const& ops,
                 Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields)
      : offsets(ops.edge_curl_offsets), entries(ops.edge_curl_pieces),
        pieces(fields.edge_pieces.data(), fields.edge_pieces.span()), curl(fields.dual_curl)
  {
    if (fields.edge_pieces.span() != 6 * static_cast<std::size_t>(ops.num_tets))
      throw Error("Ampere update", "the edge pieces of the dual curl are not one unpadded allocation",
                  "allocate them with make_fields");
  }

  policy_type policy(ExecutionSpace const& space) const
  {
    return policy_type(space, 0, static_cast<Index>(curl.extent(0)));
  }

  KOKKOS_INLINE_FUNCTION void operator()(Index edge) const
  {
    // Two partial sums keep two additions in flight.
    FieldScalar even = 0;
    FieldScalar odd = 0;
    Index i = offsets(edge);
    Index const end = offsets(edge + 1);
    for (; i + 1 < end; i += 2) {
      even += pieces(entries(i));
      odd += pieces(entries(i + 1));
    }
    if (i < end) even += pieces(entries(i));
    curl(edge) = even + odd;
  }

  // Compulsory traffic, each array element moved once: the offsets and entries, the edge pieces
  // (6 per tet), the curl written.
  static std::int64_t bytes_moved(Index num_curled_edges, std::int64_t num_entries, Index num_tets)
  {
    return static_cast<std::int64_t>(num_curled_edges + 1) * static_cast<std::int64_t>(sizeof(Index)) +
           num_entries * static_cast<std::int64_t>(sizeof(Index)) +
           static_cast<std::int64_t>(num_tets) * 6 * static_cast<std::int64_t>(sizeof(FieldScalar)) +
           static_cast<std::int64_t>(num_curled_edges) * static_cast<std::int64_t>(sizeof(FieldScalar));
  }
};

template <class ExecutionSpace, class MatrixScalar, class FieldScalar>
struct AmpereKernel {
  using memory_space = typename ExecutionSpace::memory_space;
  static constexpr bool runs_on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
  struct HostTag {};
  struct TeamTag {};
  // Dynamic: see DualCurlKernel.
  using host_policy_type =
      Kokkos::RangePolicy<ExecutionSpace, HostTag, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<Index>>;
  using team_policy_type =
      Kokkos::TeamPolicy<ExecutionSpace, TeamTag, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<Index>>;
  using member_type = typename team_policy_type::member_type;
  using scratch_view = Kokkos::View<FieldScalar*, typename ExecutionSpace::scratch_memory_space,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  Kokkos::View<MatrixScalar const*, memory_space> eps_inverse;
  Kokkos::View<Index const*, memory_space> block_offset;
  Kokkos::View<std::int64_t const*, memory_space> block_matrix_offset;
  Kokkos::View<Index const*, memory_space> row_curl;
  Kokkos::View<FieldScalar const*, memory_space> curl;
  Kokkos::View<FieldScalar*, memory_space> u;
  FieldScalar dt;
  Index num_blocks;
  Index max_block_size;

  template <class TetLayout>
  AmpereKernel(DeviceOperators<ExecutionSpace, TetLayout, MatrixScalar> const& ops,
               Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields, FieldScalar time_step)
      : eps_inverse(ops.eps_inverse), block_offset(ops.block_offset), block_matrix_offset(ops.block_matrix_offset),
        row_curl(ops.row_curl), curl(fields.dual_curl), u(fields.u), dt(time_step), num_blocks(ops.num_blocks),
        max_block_size(ops.max_block_size)
  {
  }

  host_policy_type host_policy(ExecutionSpace const& space) const { return host_policy_type(space, 0, num_blocks); }

  // GPUs spread a block's rows over a team's threads and its columns over vector lanes; the block's
  // curls are staged in scratch sized for the largest block of the mesh, never a compiled-in maximum.
  team_policy_type team_policy(ExecutionSpace const& space) const
  {
    team_policy_type p(space, num_blocks, Kokkos::AUTO, 8);
    std::size_t const needed = scratch_view::shmem_size(max_block_size);
    std::size_t const available = static_cast<std::size_t>(p.scratch_size_max(0));
    if (needed > available)
      throw Error("Ampere kernel",
                  "a dual block of " + std::to_string(max_block_size) + " rows needs " + std::to_string(needed) +
                      " bytes of team scratch, the device offers " + std::to_string(available),
                  "refine the mesh around high-degree vertices");
    return p.set_scratch_size(0, Kokkos::PerTeam(needed));
  }

  // One thread per block: y = A x is accumulated column by column straight into u^. A is symmetric,
  // so its column j is its contiguous row j, and every row's sum is an independent chain the
  // compiler vectorises; a dot product per row would wait on one FMA chain per row.
  KOKKOS_INLINE_FUNCTION void operator()(HostTag, Index b) const
  {
    Index const first = block_offset(b);
    Index const d = block_offset(b + 1) - first;
    MatrixScalar const* matrix = eps_inverse.data() + block_matrix_offset(b);
    FieldScalar* out = u.data() + first;
    for (Index j = 0; j < d; ++j) {
      FieldScalar const x = dt * curl(row_curl(first + j));
      MatrixScalar const* column = matrix + static_cast<std::int64_t>(j) * d;
      for (Index i = 0; i < d; ++i) out[i] += static_cast<FieldScalar>(column[i]) * x;
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(TeamTag, member_type const& team) const
  {
    Index const b = team.league_rank();
    Index const first = block_offset(b);
    Index const d = block_offset(b + 1) - first;
    std::int64_t const m = block_matrix_offset(b);
    scratch_view x(team.team_scratch(0), d);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, d), [&](Index j) { x(j) = curl(row_curl(first + j)); });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, d), [&](Index i) {
      FieldScalar y = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, d),
          [&](Index j, FieldScalar& sum) {
            sum += static_cast<FieldScalar>(eps_inverse(m + static_cast<std::int64_t>(i) * d + j)) * x(j);
          },
          y);
      Kokkos::single(Kokkos::PerThread(team), [&]() { u(first + i) += dt * y; });
    });
  }

  // Compulsory traffic, each array element moved once: every block matrix entry, the block offsets,
  // the row -> curl map, the curls, the free unknowns read and written.
  static std::int64_t bytes_moved(std::int64_t matrix_entries, Index num_blocks, Index num_free, Index num_curled_edges)
  {
    return matrix_entries * static_cast<std::int64_t>(sizeof(MatrixScalar)) +
           static_cast<std::int64_t>(num_blocks + 1) * static_cast<std::int64_t>(sizeof(Index) + sizeof(std::int64_t)) +
           static_cast<std::int64_t>(num_free) * static_cast<std::int64_t>(sizeof(Index) + 2 * sizeof(FieldScalar)) +
           static_cast<std::int64_t>(num_curled_edges) * static_cast<std::int64_t>(sizeof(FieldScalar));
  }
};

// Traffic of the whole update, both passes.
template <class ExecutionSpace, class TetLayout, class MatrixScalar, class FieldScalar = Real>
std::int64_t ampere_bytes_moved(DeviceOperators<ExecutionSpace, TetLayout, MatrixScalar> const& ops)
{
  return DualCurlKernel<ExecutionSpace, TetLayout, FieldScalar>::bytes_moved(
             ops.num_curled_edges, static_cast<std::int64_t>(ops.edge_curl_pieces.extent(0)), ops.num_tets) +
         AmpereKernel<ExecutionSpace, MatrixScalar, FieldScalar>::bytes_moved(ops.block_matrix_entries, ops.num_blocks,
                                                                              ops.num_free, ops.num_curled_edges);
}

template <class ExecutionSpace, class TetLayout, class MatrixScalar, class FieldScalar>
void ampere_update(ExecutionSpace const& space, DeviceOperators<ExecutionSpace, TetLayout, MatrixScalar> const& ops,
                   Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields, FieldScalar dt)
{
  compat::ScopedRegion region("dgatd::Ampere");
  DualCurlKernel<ExecutionSpace, TetLayout, FieldScalar> const curl_pass(ops, fields);
  Kokkos::parallel_for("dgatd::Ampere::dual_curl", curl_pass.policy(space), curl_pass);
  AmpereKernel<ExecutionSpace, MatrixScalar, FieldScalar> const block_pass(ops, fields, dt);
  if constexpr (AmpereKernel<ExecutionSpace, MatrixScalar, FieldScalar>::runs_on_host)
    Kokkos::parallel_for("dgatd::Ampere::blocks", block_pass.host_policy(space), block_pass);
  else
    Kokkos::parallel_for("dgatd::Ampere::blocks", block_pass.team_policy(space), block_pass);
}

} // namespace dgatd::kernels
