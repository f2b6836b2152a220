#pragma once
// Ampere update, eq. (6) of the paper, for every dual volume v:
//   u^_v <- u^_v + dt (Meps_v)^-1 (C~ f^)_v
// in two passes. DualCurlKernel forms the circulation of h around the dual face of every edge that
// has a free half, once per edge, by adding up the edge pieces the Faraday kernel left per tet: both
// halves of an edge see the same circulation, and forming it inside each dual block (per row, or
// per tet around the vertex) did that gather twice and, on CPU cores, left the block products
// waiting on arithmetic instead of memory (perf/results/2026-11-23-cpu-kernels.md). The block pass then multiplies
// every block's inverse against dt times the curls of its rows, in the form ops.block_pass names
// (AmpereBlockPass): AmpereKernel reads the full inverses (columns, team_rows),
// InterleavedBlockKernel the packed interleaved ones (interleaved, interleaved_simd).
//
// Every form adds the same products to u^_i in the same order (column j = 0 .. d-1), except
// team_rows, which sums a row first and scales it by dt once: on hardware without fused
// multiply-adds the others give bitwise the same u^.

#include "dgatd/error.hpp"
#include "dgatd/instances.hpp"
#include "dgatd/kernels/device_operators.hpp"
#include "dgatd/kernels/interleaved_blocks.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

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

  DualCurlKernel(DeviceOperators<ExecutionSpace, TetLayout> const& ops,
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
  struct ColumnsTag {};
  struct TeamTag {};
  // Dynamic: see DualCurlKernel.
  using columns_policy_type =
      Kokkos::RangePolicy<ExecutionSpace, ColumnsTag, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<Index>>;
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
  AmpereKernel(DeviceOperators<ExecutionSpace, TetLayout> const& ops,
               Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields, FieldScalar time_step)
      : eps_inverse(ops.template matrices<MatrixScalar>().eps_inverse), block_offset(ops.block_offset),
        block_matrix_offset(ops.block_matrix_offset), row_curl(ops.row_curl), curl(fields.dual_curl), u(fields.u),
        dt(time_step), num_blocks(ops.num_blocks), max_block_size(ops.max_block_size)
  {
    if (static_cast<std::int64_t>(eps_inverse.extent(0)) != ops.block_matrix_entries)
      throw Error("Ampere update",
                  std::string("the full dual-block inverses were not uploaded in ") +
                      matrix_precision_name(matrix_precision_of<MatrixScalar>()),
                  "upload the operators for the columns or team_rows block pass in this precision");
  }

  columns_policy_type columns_policy(ExecutionSpace const& space) const
  {
    return columns_policy_type(space, 0, num_blocks);
  }

  // A team per block, its rows over the team's threads and its columns over vector lanes; the
  // block's curls are staged in scratch sized for the largest block of the mesh, never a
  // compiled-in maximum. Host backends run a team's vector lanes as one loop (Kokkos 3.4 ignores
  // any other length there, later versions check it), so they are asked for one lane.
  team_policy_type team_policy(ExecutionSpace const& space) const
  {
    team_policy_type p(space, num_blocks, Kokkos::AUTO, runs_on_host ? 1 : 8);
    std::size_t const needed = scratch_view::shmem_size(max_block_size);
    std::size_t const available = static_cast<std::size_t>(p.scratch_size_max(0));
    if (needed > available)
      throw Error("Ampere kernel",
                  "a dual block of " + std::to_string(max_block_size) + " rows needs " + std::to_string(needed) +
                      " bytes of team scratch, the device offers " + std::to_string(available),
                  "refine the mesh around high-degree vertices");
    return p.set_scratch_size(0, Kokkos::PerTeam(needed));
  }

  // One block per work item: y = A x is accumulated column by column straight into u^. A is
  // symmetric, so its column j is its contiguous row j, and every row's sum is an independent chain
  // the compiler vectorises; a dot product per row would wait on one FMA chain per row.
  KOKKOS_INLINE_FUNCTION void operator()(ColumnsTag, Index b) const
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

namespace detail {

template <class Body, int... I>
KOKKOS_FORCEINLINE_FUNCTION void static_for_each(Body const& body, std::integer_sequence<int, I...>)
{
  (body(std::integral_constant<int, I>{}), ...);
}

// body(std::integral_constant<int, i>) for i = 0 .. N-1, unrolled by the language rather than left
// to the optimiser, so that arrays indexed by i stay in registers on GPUs.
template <int N, class Body>
KOKKOS_FORCEINLINE_FUNCTION void static_for(Body const& body)
{
  static_for_each(body, std::make_integer_sequence<int, N>{});
}

} // namespace detail

// Degrees up to this have kernels compiled for their size; larger blocks (rare: 4-40 occur, about
// 14 is typical) run the generic one.
inline constexpr int max_unrolled_degree = 24;

// The one-thread-per-block pass launches the degrees 1-8, 9-16 and 17-24 together: a launch per
// degree cost a Gmsh cylinder (degrees 4 to 30 or more) about 25 launches of a few microseconds
// each, most of its Ampere time on an H200, while a band's kernel takes the registers of its
// largest degree only (sm_90: 48 for d = 8, 80 for 16, 128 for 24; the 9-16 band is the one the
// typical degree, 14, falls in).
inline constexpr int degree_band_width = 8;
static_assert(max_unrolled_degree % degree_band_width == 0, "bands tile the compiled degrees");

// The interleaved block passes (kernels/interleaved_blocks.hpp). Both do, per block, the same
// arithmetic: dt x and u^ (as y) in local arrays, every packed entry (i, c) read once and applied
// twice, y_i += a x_c and y_c += a x_i, the rows in order so that each y_i receives its products
// in column order. They differ in how blocks map to work items:
//  - BandTag<LowestDegree>: one thread per block, one launch per band of degree_band_width degrees,
//    each block with the kernel compiled for its degree, x and y indexed by compile-time constants
//    so they stay in registers: the GPU form, where a warp (one slice, so one degree) reads one
//    256-byte run per entry.
//  - SliceTag: one whole slice per work item, every operation over its slice_width blocks in SIMD
//    lanes, all groups in one launch that picks the degree per slice: the CPU form, streaming each
//    slice front to back; one launch, because every launch costs a fork and join of the threads.
// GenericTag, for groups above max_unrolled_degree or unrolled_degree_limit, reads the size at run
// time, one row per work item.
template <class ExecutionSpace, class MatrixScalar, class FieldScalar>
struct InterleavedBlockKernel {
  using memory_space = typename ExecutionSpace::memory_space;
  template <int LowestDegree>
  struct BandTag {
  };
  struct GenericTag {};
  struct SliceTag {};
  // Dynamic: see DualCurlKernel.
  template <class Tag>
  using policy_type =
      Kokkos::RangePolicy<ExecutionSpace, Tag, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<Index>>;

  Kokkos::View<MatrixScalar const*, memory_space> packed;
  Kokkos::View<Index const*, memory_space> slot_first;
  Kokkos::View<DegreeGroup const*, memory_space> groups;
  Kokkos::View<Index const*, memory_space> row_curl;
  Kokkos::View<FieldScalar const*, memory_space> curl;
  Kokkos::View<FieldScalar*, memory_space> u;
  FieldScalar dt;
  int unrolled_degree_limit;
  Index launch_first_group = 0; // BandTag launches: the first group they cover
  DegreeGroup launch_group;     // GenericTag launches: the group they cover

  template <class TetLayout>
  InterleavedBlockKernel(DeviceOperators<ExecutionSpace, TetLayout> const& ops,
                         Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields, FieldScalar time_step,
                         int unrolled_limit)
      : packed(ops.template matrices<MatrixScalar>().packed_inverse), slot_first(ops.slot_first),
        groups(ops.degree_group_table), row_curl(ops.row_curl), curl(fields.dual_curl), u(fields.u), dt(time_step),
        unrolled_degree_limit(unrolled_limit)
  {
    if ((ops.degree_groups.empty() || packed.extent(0) == 0) && ops.num_blocks > 0)
      throw Error("Ampere update",
                  std::string("the interleaved dual-block inverses were not uploaded in ") +
                      matrix_precision_name(matrix_precision_of<MatrixScalar>()),
                  "upload the operators for an interleaved block pass in this precision");
  }

  template <int LowestDegree>
  policy_type<BandTag<LowestDegree>> band_policy(ExecutionSpace const& space, Index first_slot, Index end_slot) const
  {
    return policy_type<BandTag<LowestDegree>>(space, first_slot, end_slot);
  }

  policy_type<GenericTag> generic_policy(ExecutionSpace const& space) const
  {
    return policy_type<GenericTag>(space, 0, launch_group.num_blocks * launch_group.degree);
  }

  policy_type<SliceTag> slice_policy(ExecutionSpace const& space) const
  {
    return policy_type<SliceTag>(space, 0, static_cast<Index>(slot_first.extent(0)) / slice_width);
  }

  // A band's groups are consecutive and whole slices, so a warp (one slice) is of one degree and
  // takes one branch of band_block.
  template <int LowestDegree>
  KOKKOS_INLINE_FUNCTION void operator()(BandTag<LowestDegree>, Index slot) const
  {
    Index g = launch_first_group;
    while (slot >= groups(g).first_slot + groups(g).num_slices * slice_width) ++g;
    DegreeGroup const group = groups(g);
    Index const j = slot - group.first_slot;
    if (j < group.num_blocks) band_block<LowestDegree, LowestDegree + degree_band_width - 1>(group, j);
  }

  KOKKOS_INLINE_FUNCTION void operator()(GenericTag, Index row) const
  {
    generic_row(launch_group, row / launch_group.degree, row % launch_group.degree);
  }

  template <int Degree, int HighestDegree>
  KOKKOS_INLINE_FUNCTION void band_block(DegreeGroup const& group, Index j) const
  {
    if constexpr (Degree < HighestDegree) {
      if (group.degree != Degree) {
        band_block<Degree + 1, HighestDegree>(group, j);
        return;
      }
    }
    one_block<Degree>(group, j);
  }

  // Groups are few (one per degree) and whole slices each, so a scan finds a slice's group.
  KOKKOS_INLINE_FUNCTION void operator()(SliceTag, Index s) const
  {
    Index g = 0;
    while (s >= groups(g).first_slot / slice_width + groups(g).num_slices) ++g;
    DegreeGroup const group = groups(g);
    slice_of_degree<1>(group, s - group.first_slot / slice_width);
  }

  template <int Degree>
  KOKKOS_INLINE_FUNCTION void slice_of_degree(DegreeGroup const& group, Index s) const
  {
    if constexpr (Degree > max_unrolled_degree) {
      for (Index j = s * slice_width; j < (s + 1) * slice_width && j < group.num_blocks; ++j) generic_block(group, j);
    } else {
      if (group.degree == Degree && Degree <= unrolled_degree_limit)
        one_slice<Degree>(group, s);
      else
        slice_of_degree<Degree + 1>(group, s);
    }
  }

  // Block j of the group, everything unrolled for its degree.
  template <int Degree>
  KOKKOS_INLINE_FUNCTION void one_block(DegreeGroup const& group, Index j) const
  {
    constexpr int entries = Degree * (Degree + 1) / 2;
    Index const first = slot_first(group.first_slot + j);
    MatrixScalar const* a = packed.data() + group.matrix_offset +
                            static_cast<std::int64_t>(j / slice_width) * entries * slice_width + j % slice_width;
    FieldScalar x[Degree];
    FieldScalar y[Degree];
    detail::static_for<Degree>([&](auto row) {
      constexpr int i = decltype(row)::value;
      x[i] = dt * curl(row_curl(first + i));
      y[i] = u(first + i);
    });
    detail::static_for<Degree>([&](auto row) {
      constexpr int i = decltype(row)::value;
      constexpr int diagonal = i * Degree - i * (i - 1) / 2; // packed index of (i, i)
      y[i] += static_cast<FieldScalar>(a[diagonal * slice_width]) * x[i];
      detail::static_for<Degree - 1 - i>([&](auto offset) {
        constexpr int c = i + 1 + decltype(offset)::value;
        FieldScalar const entry = static_cast<FieldScalar>(a[(diagonal + c - i) * slice_width]);
        y[i] += entry * x[c];
        y[c] += entry * x[i];
      });
    });
    detail::static_for<Degree>([&](auto row) { u(first + decltype(row)::value) = y[decltype(row)::value]; });
  }

  // Slice s of the group, the lanes innermost so that every statement is one SIMD loop. Padding
  // lanes multiply zeros and are not written back. Unrolling the entries here instead, as on GPUs,
  // made GCC vectorise across entries rather than lanes, several times slower.
  template <int Degree>
  KOKKOS_INLINE_FUNCTION void one_slice(DegreeGroup const& group, Index s) const
  {
    constexpr int entries = Degree * (Degree + 1) / 2;
    Index first[slice_width];
    FieldScalar x[Degree][slice_width];
    FieldScalar y[Degree][slice_width];
    for (int w = 0; w < slice_width; ++w) first[w] = slot_first(group.first_slot + s * slice_width + w);
    for (int w = 0; w < slice_width; ++w)
      for (int i = 0; i < Degree; ++i) {
        if (first[w] < 0) {
          x[i][w] = 0;
          y[i][w] = 0;
        } else {
          x[i][w] = dt * curl(row_curl(first[w] + i));
          y[i][w] = u(first[w] + i);
        }
      }
    MatrixScalar const* a = packed.data() + group.matrix_offset + static_cast<std::int64_t>(s) * entries * slice_width;
    for (int i = 0; i < Degree; ++i) {
      for (int w = 0; w < slice_width; ++w) y[i][w] += static_cast<FieldScalar>(a[w]) * x[i][w];
      a += slice_width;
      for (int c = i + 1; c < Degree; ++c, a += slice_width)
        for (int w = 0; w < slice_width; ++w) {
          FieldScalar const entry = static_cast<FieldScalar>(a[w]);
          y[i][w] += entry * x[c][w];
          y[c][w] += entry * x[i][w];
        }
    }
    for (int w = 0; w < slice_width; ++w)
      if (first[w] >= 0)
        for (int i = 0; i < Degree; ++i) u(first[w] + i) = y[i][w];
  }

  // Blocks of no compiled degree, row by row: each entry read from its packed place (twice, the
  // second time from cache) and the curls gathered again per row, which such rare blocks afford.
  // The rows are independent (x comes from the curls, not from u), so a GPU takes one per thread:
  // a thread per block left a Gmsh cylinder's few dozen blocks above degree 24 in one thread block,
  // d^2 dependent steps each, the longest kernel of its Ampere pass.
  KOKKOS_INLINE_FUNCTION void generic_row(DegreeGroup const& group, Index j, Index i) const
  {
    Index const d = group.degree;
    Index const first = slot_first(group.first_slot + j);
    MatrixScalar const* a = packed.data() + group.matrix_offset +
                            static_cast<std::int64_t>(j / slice_width) * group.entries_per_block() * slice_width +
                            j % slice_width;
    FieldScalar sum = u(first + i);
    for (Index c = 0; c < d; ++c) {
      std::int64_t const low = c < i ? c : i;
      std::int64_t const high = c < i ? i : c;
      std::int64_t const k = low * d - low * (low - 1) / 2 + (high - low);
      sum += static_cast<FieldScalar>(a[k * slice_width]) * (dt * curl(row_curl(first + c)));
    }
    u(first + i) = sum;
  }

  KOKKOS_INLINE_FUNCTION void generic_block(DegreeGroup const& group, Index j) const
  {
    for (Index i = 0; i < group.degree; ++i) generic_row(group, j, i);
  }

  // Compulsory traffic, each array element moved once: the packed entries (padding included), the
  // slot -> first unknown map, the row -> curl map, the curls, the free unknowns read and written.
  static std::int64_t bytes_moved(std::int64_t packed_entries, std::int64_t slots, Index num_free,
                                  Index num_curled_edges)
  {
    return packed_entries * static_cast<std::int64_t>(sizeof(MatrixScalar)) +
           slots * static_cast<std::int64_t>(sizeof(Index)) +
           static_cast<std::int64_t>(num_free) * static_cast<std::int64_t>(sizeof(Index) + 2 * sizeof(FieldScalar)) +
           static_cast<std::int64_t>(num_curled_edges) * static_cast<std::int64_t>(sizeof(FieldScalar));
  }
};

namespace detail {

// The one-thread-per-block form over the slots [first_slot, end_slot) of the groups of one band.
template <int LowestDegree = 1, class Kernel, class ExecutionSpace>
void launch_degree_band(ExecutionSpace const& space, Kernel const& kernel, int lowest_degree, Index first_slot,
                        Index end_slot)
{
  static_assert(LowestDegree <= max_unrolled_degree, "a band starts at a compiled degree");
  if constexpr (LowestDegree + degree_band_width <= max_unrolled_degree) {
    if (lowest_degree != LowestDegree) {
      launch_degree_band<LowestDegree + degree_band_width>(space, kernel, lowest_degree, first_slot, end_slot);
      return;
    }
  }
  Kokkos::parallel_for("dgatd::Ampere::blocks", kernel.template band_policy<LowestDegree>(space, first_slot, end_slot),
                       kernel);
}

template <class Kernel, class ExecutionSpace>
void launch_interleaved_blocks(ExecutionSpace const& space, Kernel& kernel, std::vector<DegreeGroup> const& groups)
{
  std::size_t g = 0;
  while (g < groups.size()) {
    Index const degree = groups[g].degree;
    if (degree > kernel.unrolled_degree_limit || degree > max_unrolled_degree) {
      kernel.launch_group = groups[g++];
      Kokkos::parallel_for("dgatd::Ampere::blocks", kernel.generic_policy(space), kernel);
      continue;
    }
    // Groups come largest degree first, so the band's groups follow this one.
    int const lowest = (degree - 1) / degree_band_width * degree_band_width + 1;
    std::size_t end = g;
    while (end < groups.size() && groups[end].degree >= lowest) ++end;
    kernel.launch_first_group = static_cast<Index>(g);
    Index const end_slot = groups[end - 1].first_slot + groups[end - 1].num_slices * slice_width;
    launch_degree_band(space, kernel, lowest, groups[g].first_slot, end_slot);
    g = end;
  }
}

} // namespace detail

// Traffic of the whole update, both passes, for the block pass and precision the operators were
// uploaded for.
template <class FieldScalar = Real, class ExecutionSpace, class TetLayout>
std::int64_t ampere_bytes_moved(DeviceOperators<ExecutionSpace, TetLayout> const& ops)
{
  std::int64_t const curl_pass = DualCurlKernel<ExecutionSpace, TetLayout, FieldScalar>::bytes_moved(
      ops.num_curled_edges, static_cast<std::int64_t>(ops.edge_curl_pieces.extent(0)), ops.num_tets);
  auto const block_pass = [&](auto matrix_scalar) {
    using MatrixScalar = decltype(matrix_scalar);
    if (stores_packed_blocks(ops.block_pass))
      return InterleavedBlockKernel<ExecutionSpace, MatrixScalar, FieldScalar>::bytes_moved(
          static_cast<std::int64_t>(ops.template matrices<MatrixScalar>().packed_inverse.extent(0)),
          static_cast<std::int64_t>(ops.slot_first.extent(0)), ops.num_free, ops.num_curled_edges);
    return AmpereKernel<ExecutionSpace, MatrixScalar, FieldScalar>::bytes_moved(
        ops.block_matrix_entries, ops.num_blocks, ops.num_free, ops.num_curled_edges);
  };
  return curl_pass + (ops.matrix_precision == MatrixPrecision::float32 ? block_pass(float{}) : block_pass(double{}));
}

namespace detail {

template <class MatrixScalar, class ExecutionSpace, class TetLayout, class FieldScalar>
void ampere_block_pass(ExecutionSpace const& space, DeviceOperators<ExecutionSpace, TetLayout> const& ops,
                       Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields, FieldScalar dt,
                       int unrolled_degree_limit)
{
  using Full = AmpereKernel<ExecutionSpace, MatrixScalar, FieldScalar>;
  using Interleaved = InterleavedBlockKernel<ExecutionSpace, MatrixScalar, FieldScalar>;
  switch (ops.block_pass) {
  case AmpereBlockPass::columns: {
    Full const block_pass(ops, fields, dt);
    Kokkos::parallel_for("dgatd::Ampere::blocks", block_pass.columns_policy(space), block_pass);
    break;
  }
  case AmpereBlockPass::team_rows: {
    Full const block_pass(ops, fields, dt);
    Kokkos::parallel_for("dgatd::Ampere::blocks", block_pass.team_policy(space), block_pass);
    break;
  }
  case AmpereBlockPass::interleaved: {
    Interleaved block_pass(ops, fields, dt, unrolled_degree_limit);
    launch_interleaved_blocks(space, block_pass, ops.degree_groups);
    break;
  }
  case AmpereBlockPass::interleaved_simd: {
    Interleaved const block_pass(ops, fields, dt, unrolled_degree_limit);
    Kokkos::parallel_for("dgatd::Ampere::blocks", block_pass.slice_policy(space), block_pass);
    break;
  }
  }
}

} // namespace detail

// In the precision of the operators' matrices. unrolled_degree_limit: interleaved groups of larger
// blocks run the generic kernel; tests lower it to cover that kernel on meshes whose vertices are
// all of ordinary degree.
template <class ExecutionSpace, class TetLayout, class FieldScalar>
void ampere_update(ExecutionSpace const& space, DeviceOperators<ExecutionSpace, TetLayout> const& ops,
                   Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields, FieldScalar dt,
                   int unrolled_degree_limit = max_unrolled_degree)
{
  compat::ScopedRegion region("dgatd::Ampere");
  DualCurlKernel<ExecutionSpace, TetLayout, FieldScalar> const curl_pass(ops, fields);
  Kokkos::parallel_for("dgatd::Ampere::dual_curl", curl_pass.policy(space), curl_pass);
  with_step_matrix_scalar<FieldScalar>(ops.matrix_precision, [&](auto matrix_scalar) {
    detail::ampere_block_pass<decltype(matrix_scalar)>(space, ops, fields, dt, unrolled_degree_limit);
  });
}

// The library compiles the update on its instance spaces and layouts for double and float
// fields (dgatd/instances.hpp), so the benchmarks and tests that call it link those.
#define DGATD_AMPERE_UPDATE_INSTANCES(PREFIX, SPACE, LAYOUT)                                                           \
  DGATD_AMPERE_UPDATE_FIELD_INSTANCES(PREFIX, SPACE, LAYOUT, Real)                                                     \
  DGATD_AMPERE_UPDATE_FIELD_INSTANCES(PREFIX, SPACE, LAYOUT, float)
#define DGATD_AMPERE_UPDATE_FIELD_INSTANCES(PREFIX, SPACE, LAYOUT, FIELD)                                              \
  PREFIX template void ampere_update(SPACE const&, DeviceOperators<SPACE, LAYOUT> const&,                              \
                                     Fields<SPACE, LAYOUT, FIELD> const&, FIELD, int);
DGATD_FOR_EACH_INSTANCE_LAYOUT(DGATD_AMPERE_UPDATE_INSTANCES, extern)

} // namespace dgatd::kernels
