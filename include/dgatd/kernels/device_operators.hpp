#pragma once
// The operators and fields of the fractioned scheme on an execution space. Per-tet arrays take
// their layout as a template parameter: tet index fastest (LayoutLeft) coalesces on GPUs,
// contiguous per tet (LayoutRight) streams on CPUs; the default is what the space prefers. The
// dual-block inverses are stored the way the chosen Ampere block pass reads them.

#include "dgatd/dga/operators.hpp"
#include "dgatd/kernels/interleaved_blocks.hpp"
#include "dgatd/kernels/matrix_precision.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/kokkos_compat.hpp"
#include "dgatd/types.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace dgatd::kernels {

template <class ExecutionSpace>
using DefaultTetLayout = typename ExecutionSpace::array_layout;

// How Ampere's block pass (kernels/ampere.hpp) multiplies the dual-block inverses. Every one
// compiles and runs on every backend, so the host test suite exercises the GPU forms too.
enum class AmpereBlockPass {
  columns,         // full d x d inverses, contiguous per block; one block per work item, column by column
  team_rows,       // same storage; one team per block, rows over threads, columns over vector lanes
  interleaved,     // packed symmetric inverses interleaved per degree group; one thread per block
  interleaved_simd // same storage; one slice of blocks per work item, the blocks in SIMD lanes
};

inline constexpr AmpereBlockPass all_block_passes[] = {AmpereBlockPass::columns, AmpereBlockPass::team_rows,
                                                       AmpereBlockPass::interleaved, AmpereBlockPass::interleaved_simd};

inline char const* block_pass_name(AmpereBlockPass pass)
{
  switch (pass) {
  case AmpereBlockPass::columns:
    return "columns";
  case AmpereBlockPass::team_rows:
    return "team-rows";
  case AmpereBlockPass::interleaved:
    return "interleaved";
  case AmpereBlockPass::interleaved_simd:
    return "interleaved-simd";
  }
  return "unknown";
}

inline bool stores_packed_blocks(AmpereBlockPass pass)
{
  return pass == AmpereBlockPass::interleaved || pass == AmpereBlockPass::interleaved_simd;
}

// What each backend runs unless told otherwise (perf/results/2026-11-23-cpu-kernels.md). On GPUs one thread per block
// over the packed interleaved storage (30 % fewer bytes than the full blocks): only interleaved
// entries let consecutive threads read consecutive addresses. On CPU cores the column-wise pass
// over full blocks: the SIMD slice pass moves fewer bytes and took 0.8-0.9 of its time on a quiet
// 2-core EPYC, but with SSE2 it issues twice the instructions per byte, and on a loaded machine
// (these shared ones, CI) it fell to 0.5-0.7 of the triad where the column-wise pass held 0.9.
template <class ExecutionSpace>
constexpr AmpereBlockPass default_block_pass()
{
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecutionSpace::memory_space>::accessible
             ? AmpereBlockPass::columns
             : AmpereBlockPass::interleaved;
}

template <class Scalar>
constexpr MatrixPrecision matrix_precision_of()
{
  static_assert(std::is_same_v<Scalar, double> || std::is_same_v<Scalar, float>, "matrices are double or float");
  return std::is_same_v<Scalar, float> ? MatrixPrecision::float32 : MatrixPrecision::float64;
}

// Entry (i, j) of a packed symmetric n x n matrix, the upper triangle row by row.
KOKKOS_INLINE_FUNCTION constexpr int packed_symmetric_index(int n, int i, int j)
{
  return i <= j ? i * n - i * (i - 1) / 2 + (j - i) : j * n - j * (j - 1) / 2 + (i - j);
}

// The matrices a step multiplies by, in one precision: per tet (Mmu_t)^-1 packed symmetric
// (Faraday applies C_t from the edge signs, so the operator stays (Mmu_t)^-1 C_t with a symmetric
// inverse however it is rounded), and the dual-block inverses in the storage of the block pass.
template <class Scalar, class TetLayout, class MemorySpace>
struct LocalMatrices {
  Kokkos::View<Scalar* [10], TetLayout, MemorySpace> mu_inverse;
  // Full (Meps_v)^-1 blocks at block_matrix_offset, for the columns and team_rows passes; empty otherwise.
  Kokkos::View<Scalar*, MemorySpace> eps_inverse;
  // The interleaved passes' storage (kernels/interleaved_blocks.hpp); empty otherwise.
  Kokkos::View<Scalar*, MemorySpace> packed_inverse;
};

template <class ExecutionSpace, class TetLayout = DefaultTetLayout<ExecutionSpace>>
struct DeviceOperators {
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using tet_layout = TetLayout;

  Kokkos::View<Index* [12], TetLayout, memory_space> tet_dofs;
  Kokkos::View<std::uint32_t*, memory_space> tet_edge_signs;
  AmpereBlockPass block_pass = AmpereBlockPass::columns;
  // The step's matrices: those of matrix_precision are uploaded, the others are empty.
  MatrixPrecision matrix_precision = MatrixPrecision::float64;
  LocalMatrices<double, TetLayout, memory_space> double_matrices;
  LocalMatrices<float, TetLayout, memory_space> float_matrices;
  Kokkos::View<Index*, memory_space> slot_first;
  std::vector<DegreeGroup> degree_groups;
  Kokkos::View<DegreeGroup*, memory_space> degree_group_table; // the same, for kernels
  // The mass matrices whose inverses the step multiplies by (in float32, the inverses of the rounded
  // inverses): the energy the step conserves and the Rayleigh quotients are measured with them.
  Kokkos::View<Real* [16], TetLayout, memory_space> mu;
  Kokkos::View<Real*, memory_space> eps;
  Kokkos::View<Index*, memory_space> block_offset;
  Kokkos::View<std::int64_t*, memory_space> block_matrix_offset;
  Kokkos::View<Index*, memory_space> edge_curl_offsets;
  // HostOperators::edge_curl_entries as offsets into the flat allocation of Fields::edge_pieces.
  Kokkos::View<Index*, memory_space> edge_curl_pieces;
  Kokkos::View<Index*, memory_space> row_curl;
  Index num_tets = 0;
  Index num_blocks = 0;
  Index num_free = 0;
  Index num_prescribed = 0;
  Index num_unknowns = 0; // free + prescribed + the zero slot
  Index num_curled_edges = 0;
  Index max_block_size = 0;
  std::int64_t block_matrix_entries = 0;

  template <class Scalar>
  LocalMatrices<Scalar, TetLayout, memory_space> const& matrices() const
  {
    if constexpr (std::is_same_v<Scalar, float>)
      return float_matrices;
    else
      return double_matrices;
  }
};

template <class ExecutionSpace, class TetLayout = DefaultTetLayout<ExecutionSpace>, class FieldScalar = Real>
struct Fields {
  using memory_space = typename ExecutionSpace::memory_space;
  Kokkos::View<FieldScalar*, memory_space> u; // half-edge circulations of e (free, prescribed, zero slot)
  Kokkos::View<FieldScalar* [4], TetLayout, memory_space> f; // dual half-edge circulations of h, per tet
  // Not state, derived from f^ by the Faraday kernel for the Ampere update: the six edge pieces per
  // tet (HostOperators::tet_edge_signs), and the dual curl of every curled edge between Ampere's
  // two passes.
  Kokkos::View<FieldScalar* [6], TetLayout, memory_space> edge_pieces;
  Kokkos::View<FieldScalar*, memory_space> dual_curl;
};

namespace detail {

// Where piece (t, k) of an unpadded [num_tets][6] allocation lives.
template <class TetLayout>
std::vector<Index> piece_offsets(std::vector<std::uint32_t> const& entries, std::size_t num_tets)
{
  std::vector<Index> offsets(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    auto const piece = dga::decode_curl_piece(entries[i]);
    auto const tet = static_cast<std::int64_t>(piece.tet);
    auto const edge = static_cast<std::int64_t>(piece.local_edge);
    offsets[i] = static_cast<Index>(std::is_same_v<TetLayout, Kokkos::LayoutRight>
                                        ? 6 * tet + edge
                                        : tet + edge * static_cast<std::int64_t>(num_tets));
  }
  return offsets;
}

} // namespace detail

namespace detail {

template <class Scalar, class TetLayout, class MemorySpace>
LocalMatrices<Scalar, TetLayout, MemorySpace> upload_matrices(dga::HostOperators const& host,
                                                              InterleavedBlocks const* interleaved)
{
  using Matrices = LocalMatrices<Scalar, TetLayout, MemorySpace>;
  Matrices matrices;
  matrices.mu_inverse = upload_rows<decltype(matrices.mu_inverse)>("dgatd::mu_inverse", host.mu_inverse);
  if (interleaved)
    matrices.packed_inverse =
        upload_flat<decltype(matrices.packed_inverse)>("dgatd::interleaved_block_inverses", interleaved->packed);
  else
    matrices.eps_inverse = upload_flat<decltype(matrices.eps_inverse)>("dgatd::dual_block_inverses", host.eps_inverse);
  return matrices;
}

} // namespace detail

// Only the storage of the dual-block inverses that the chosen pass reads goes to the device, in the
// chosen precision: the full blocks alone take d_v (about 14) numbers per unknown, device memory a
// GPU run needs.
template <class ExecutionSpace, class TetLayout = DefaultTetLayout<ExecutionSpace>>
DeviceOperators<ExecutionSpace, TetLayout> upload(dga::HostOperators const& host,
                                                  AmpereBlockPass block_pass = default_block_pass<ExecutionSpace>(),
                                                  MatrixPrecision precision = MatrixPrecision::float64)
{
  using Ops = DeviceOperators<ExecutionSpace, TetLayout>;
  using memory_space = typename Ops::memory_space;
  Ops ops;
  ops.tet_dofs = upload_rows<decltype(ops.tet_dofs)>("dgatd::tet_dofs", host.tet_dofs);
  ops.tet_edge_signs = upload_flat<decltype(ops.tet_edge_signs)>("dgatd::tet_edge_signs", host.tet_edge_signs);
  ops.block_pass = block_pass;
  ops.matrix_precision = precision;
  InterleavedBlocks interleaved;
  bool const packed = stores_packed_blocks(block_pass);
  if (packed) {
    interleaved = interleave_dual_blocks(host.layout, host.eps_inverse);
    ops.slot_first = upload_flat<decltype(ops.slot_first)>("dgatd::slot_first", interleaved.slot_first);
    ops.degree_groups = interleaved.groups;
    ops.degree_group_table = upload_flat<decltype(ops.degree_group_table)>("dgatd::degree_groups", interleaved.groups);
  }
  if (precision == MatrixPrecision::float32) {
    ops.float_matrices = detail::upload_matrices<float, TetLayout, memory_space>(host, packed ? &interleaved : nullptr);
    dga::MassMatrices const masses = dga::masses_of_float_inverses(host);
    ops.mu = upload_rows<decltype(ops.mu)>("dgatd::mu_matrices", masses.mu);
    ops.eps = upload_flat<decltype(ops.eps)>("dgatd::dual_blocks", masses.eps);
  } else {
    ops.double_matrices =
        detail::upload_matrices<double, TetLayout, memory_space>(host, packed ? &interleaved : nullptr);
    ops.mu = upload_rows<decltype(ops.mu)>("dgatd::mu_matrices", host.mu);
    ops.eps = upload_flat<decltype(ops.eps)>("dgatd::dual_blocks", host.eps);
  }
  ops.block_offset = upload_flat<decltype(ops.block_offset)>("dgatd::block_offset", host.layout.block_offset);
  ops.block_matrix_offset =
      upload_flat<decltype(ops.block_matrix_offset)>("dgatd::block_matrix_offset", host.layout.block_matrix_offset);
  ops.edge_curl_offsets =
      upload_flat<decltype(ops.edge_curl_offsets)>("dgatd::edge_curl_offsets", host.edge_curl_offsets);
  ops.edge_curl_pieces = upload_flat<decltype(ops.edge_curl_pieces)>(
      "dgatd::edge_curl_pieces", detail::piece_offsets<TetLayout>(host.edge_curl_entries, host.tet_dofs.size()));
  ops.row_curl = upload_flat<decltype(ops.row_curl)>("dgatd::row_curl", host.row_curl);
  ops.num_tets = static_cast<Index>(host.tet_dofs.size());
  ops.num_blocks = host.layout.num_blocks();
  ops.num_free = host.layout.num_free;
  ops.num_prescribed = host.layout.num_prescribed;
  ops.num_unknowns = host.layout.size();
  ops.num_curled_edges = static_cast<Index>(host.edge_curl_offsets.size()) - 1;
  ops.max_block_size = host.layout.max_block_size;
  ops.block_matrix_entries = host.layout.block_matrix_offset.back();
  return ops;
}

template <class ExecutionSpace, class TetLayout = DefaultTetLayout<ExecutionSpace>, class FieldScalar = Real>
Fields<ExecutionSpace, TetLayout, FieldScalar> make_fields(DeviceOperators<ExecutionSpace, TetLayout> const& ops)
{
  Fields<ExecutionSpace, TetLayout, FieldScalar> fields;
  fields.u = decltype(fields.u)("dgatd::u_hat", ops.num_unknowns);
  fields.f = decltype(fields.f)("dgatd::f_hat", ops.num_tets);
  fields.edge_pieces = decltype(fields.edge_pieces)("dgatd::edge_pieces", ops.num_tets);
  fields.dual_curl = decltype(fields.dual_curl)("dgatd::dual_curl", ops.num_curled_edges);
  return fields;
}

} // namespace dgatd::kernels
