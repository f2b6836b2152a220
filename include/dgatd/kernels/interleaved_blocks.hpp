#pragma once
// The dual-block inverses as the interleaved Ampere block passes read them. Blocks are grouped by
// their size d (largest first) and each (Meps_v)^-1 is stored once as its packed upper triangle,
// P = d (d + 1) / 2 entries in row-major order ((0,0) (0,1) .. (0,d-1) (1,1) .. (d-1,d-1)): the
// inverses are exactly symmetric (dga::invert_spd), so the lower triangle is the same numbers.
// Within a group the blocks fill slots of slice_width, and a slice holds its blocks' entries
// interleaved, entry-major: entry k of the block in lane w of slice s of the group is at
//   group.matrix_offset + (s * P + k) * slice_width + w.
// On a GPU the 32 threads of a warp take the 32 blocks of a slice and read one 256-byte run per
// entry, the slice front to back; on a CPU core one work item takes a whole slice with its blocks
// in SIMD lanes and streams it as one contiguous run. Each group is padded to whole slices with
// zero entries and slots whose slot_first is -1.

#include "dgatd/dga/operators.hpp"
#include "dgatd/types.hpp"

#include <cstdint>
#include <vector>

namespace dgatd::kernels {

inline constexpr Index slice_width = 32;

struct DegreeGroup {
  Index degree = 0;
  Index num_blocks = 0;
  Index num_slices = 0;           // num_blocks rounded up to whole slices, / slice_width
  Index first_slot = 0;           // the group's slots are [first_slot, first_slot + num_slices * slice_width)
  std::int64_t matrix_offset = 0; // the group's first packed entry

  KOKKOS_INLINE_FUNCTION std::int64_t entries_per_block() const
  {
    return static_cast<std::int64_t>(degree) * (degree + 1) / 2;
  }
};

struct InterleavedBlocks {
  std::vector<DegreeGroup> groups; // by decreasing degree
  std::vector<Index> slot_first;   // first unknown of the block in each slot, -1 for padding
  std::vector<double> packed;
};

// From the full row-major inverses at layout.block_matrix_offset (HostOperators::eps_inverse).
// Blocks of one degree keep their relative order, so blocks that the assembly grouped by degree
// (dga::AssemblyOptions) put neighbouring lanes on neighbouring unknowns.
InterleavedBlocks interleave_dual_blocks(dga::DofLayout const& layout, std::vector<double> const& eps_inverse);

} // namespace dgatd::kernels
