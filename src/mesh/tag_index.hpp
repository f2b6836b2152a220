#pragma once
// Tags to dense ids, 0 to n - 1 in increasing tag order, for the .msh check and the reader. Gmsh
// numbers a mesh's nodes 1 to N, so where the tags are that dense a table indexed by tag numbers them
// without a sort and answers in one step (a sort and a search per node reference were most of a large
// mesh's reading); sparse tags are sorted and searched.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace dgatd::mesh::detail {

class TagIndex {
public:
  TagIndex() = default;

  // From tags in any order, repeats allowed. The table is taken where the largest tag is at most 8
  // per expected item plus 1024, so its memory stays of the order of the items'.
  TagIndex(std::vector<std::uint64_t> tags, std::size_t expected_items)
  {
    std::uint64_t largest = 0;
    for (auto tag : tags) largest = std::max(largest, tag);
    if (!tags.empty() && largest <= 8 * static_cast<std::uint64_t>(expected_items) + 1024) {
      table_.assign(largest + 1, -1);
      for (auto tag : tags) table_[tag] = 0;
      for (std::uint64_t tag = 0; tag <= largest; ++tag)
        if (table_[tag] == 0) {
          table_[tag] = static_cast<std::int32_t>(tags_.size());
          tags_.push_back(tag);
        }
      return;
    }
    std::sort(tags.begin(), tags.end());
    tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
    tags_ = std::move(tags);
  }

  // The id of a tag, or -1 where it is not among them.
  std::int32_t operator()(std::uint64_t tag) const
  {
    if (!table_.empty()) return tag < table_.size() ? table_[tag] : -1;
    auto const it = std::lower_bound(tags_.begin(), tags_.end(), tag);
    return it != tags_.end() && *it == tag ? static_cast<std::int32_t>(it - tags_.begin()) : -1;
  }

  // The tag of each id, increasing.
  std::vector<std::uint64_t> const& tags() const { return tags_; }

private:
  std::vector<std::int32_t> table_; // empty where the tags are sparse
  std::vector<std::uint64_t> tags_;
};

} // namespace dgatd::mesh::detail
