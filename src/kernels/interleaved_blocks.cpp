#include "dgatd/kernels/interleaved_blocks.hpp"

#include <algorithm>
#include <cstddef>

namespace dgatd::kernels {

InterleavedBlocks interleave_dual_blocks(dga::DofLayout const& layout, std::vector<double> const& eps_inverse)
{
  std::vector<std::vector<Index>> blocks_of_degree(static_cast<std::size_t>(layout.max_block_size) + 1);
  for (Index b = 0; b < layout.num_blocks(); ++b) blocks_of_degree[layout.block_size(b)].push_back(b);

  InterleavedBlocks out;
  for (Index d = layout.max_block_size; d > 0; --d) {
    auto const& blocks = blocks_of_degree[d];
    if (blocks.empty()) continue;
    DegreeGroup group;
    group.degree = d;
    group.num_blocks = static_cast<Index>(blocks.size());
    group.num_slices = (group.num_blocks + slice_width - 1) / slice_width;
    group.first_slot = static_cast<Index>(out.slot_first.size());
    group.matrix_offset = static_cast<std::int64_t>(out.packed.size());
    std::int64_t const per_block = group.entries_per_block();
    out.packed.resize(out.packed.size() + static_cast<std::size_t>(group.num_slices * per_block * slice_width), 0.0);
    out.slot_first.resize(out.slot_first.size() + static_cast<std::size_t>(group.num_slices * slice_width), -1);
    for (Index j = 0; j < group.num_blocks; ++j) {
      Index const b = blocks[j];
      out.slot_first[group.first_slot + j] = layout.block_offset[b];
      double const* full = eps_inverse.data() + layout.block_matrix_offset[b];
      double* lane =
          out.packed.data() + group.matrix_offset + (j / slice_width) * per_block * slice_width + j % slice_width;
      std::int64_t k = 0;
      for (Index r = 0; r < d; ++r)
        for (Index c = r; c < d; ++c, ++k) lane[k * slice_width] = full[r * d + c];
    }
    out.groups.push_back(group);
  }
  return out;
}

} // namespace dgatd::kernels
