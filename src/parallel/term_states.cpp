#include "dgatd/parallel/term_states.hpp"

#include "dgatd/parallel/decomposition.hpp"

#include <cstdint>
#include <stdexcept>

namespace dgatd::parallel {

TermStatesOverRanks::TermStatesOverRanks(Communicator const& communicator, PartTets const& tets,
                                         std::vector<TermStateLayout> const& layouts)
{
  for (auto const& layout : layouts) {
    auto& places = places_.emplace_back();
    for (auto const& rows : layout.rows) {
      auto& segment = places.emplace_back();
      // As the ranks with the term's tets see the rows: a part without any holds the empty term,
      // whose rows may be narrower.
      segment.width = static_cast<std::size_t>(communicator.max(static_cast<std::int64_t>(rows.width)));
      if (rows.whole_rows > 0) {
        segment.whole = static_cast<std::size_t>(rows.whole_rows);
        segment.place = rows.places;
        segment.owned.assign(rows.places.size(), 1);
        continue;
      }
      bool const by_vertex = communicator.max(rows.by_vertex ? 1 : 0) > 0;
      if (communicator.max(static_cast<std::int64_t>(rows.tets.size())) == 0) continue;
      std::vector<double> counted(static_cast<std::size_t>(tets.whole), 0.0);
      for (Index t : rows.tets)
        if (tets.owned[t]) counted[tets.global[t]] = 1;
      communicator.sum(counted.data(), counted.size());
      std::vector<Index> before(counted.size() + 1, 0);
      for (std::size_t g = 0; g < counted.size(); ++g) before[g + 1] = before[g] + (counted[g] > 0 ? 1 : 0);
      // A row by vertex is four rows of a quarter of the width here, each owned with its vertex.
      Index const slices = by_vertex ? 4 : 1;
      segment.width /= static_cast<std::size_t>(slices);
      segment.whole = static_cast<std::size_t>(before.back() * slices);
      for (Index t : rows.tets)
        for (Index j = 0; j < slices; ++j) {
          segment.place.push_back(before[tets.global[t]] * slices + j);
          segment.owned.push_back(by_vertex ? tets.owned_vertices[t][j] : tets.owned[t]);
        }
    }
  }
}

void TermStatesOverRanks::check(std::vector<TermStateLayout> const& layouts) const
{
  if (layouts.size() != places_.size())
    throw std::logic_error("a term was added to a run over ranks after it was distributed");
  for (std::size_t k = 0; k < layouts.size(); ++k)
    if (rows_size(k) > layouts[k].size) throw std::logic_error("a term's rows are more than its state");
}

std::size_t TermStatesOverRanks::rows_size(std::size_t k) const
{
  std::size_t size = 0;
  for (auto const& segment : places_[k]) size += segment.place.size() * segment.width;
  return size;
}

std::size_t TermStatesOverRanks::shared_size(std::size_t k, std::vector<TermStateLayout> const& layouts) const
{
  return layouts[k].size - rows_size(k);
}

std::size_t TermStatesOverRanks::whole_size(std::vector<TermStateLayout> const& layouts) const
{
  check(layouts);
  std::size_t size = 0;
  for (std::size_t k = 0; k < layouts.size(); ++k) {
    for (auto const& segment : places_[k]) size += segment.whole * segment.width;
    size += shared_size(k, layouts);
  }
  return size;
}

std::vector<double> TermStatesOverRanks::gather(Communicator const& communicator, std::vector<double> const& part,
                                                std::vector<TermStateLayout> const& layouts) const
{
  check(layouts);
  std::vector<double> whole;
  auto next = part.begin();
  for (std::size_t k = 0; k < layouts.size(); ++k) {
    for (auto const& segment : places_[k]) {
      auto const size = static_cast<std::ptrdiff_t>(segment.place.size() * segment.width);
      auto const rows = gather_owned(communicator, std::vector<double>(next, next + size), segment.place, segment.owned,
                                     segment.whole, 0, segment.width);
      whole.insert(whole.end(), rows.begin(), rows.end());
      next += size;
    }
    auto const shared = static_cast<std::ptrdiff_t>(shared_size(k, layouts));
    whole.insert(whole.end(), next, next + shared);
    next += shared;
  }
  if (communicator.rank() != 0) whole.clear();
  return whole;
}

std::vector<double> TermStatesOverRanks::scatter(Communicator const& communicator, std::vector<double> const& whole,
                                                 std::vector<TermStateLayout> const& layouts) const
{
  check(layouts);
  bool const root = communicator.rank() == 0;
  std::vector<double> part;
  std::size_t next = 0;
  // On rank 0, whole's next size numbers; nothing on the others.
  auto const slice = [&](std::size_t size) {
    std::vector<double> numbers;
    if (root)
      numbers.assign(whole.begin() + static_cast<std::ptrdiff_t>(next),
                     whole.begin() + static_cast<std::ptrdiff_t>(next + size));
    next += size;
    return numbers;
  };
  for (std::size_t k = 0; k < layouts.size(); ++k) {
    for (auto const& segment : places_[k]) {
      auto const rows = from_root(communicator, slice(segment.whole * segment.width), segment.place, 0, segment.width);
      part.insert(part.end(), rows.begin(), rows.end());
    }
    // A term without state (a source) may be on some ranks only.
    if (auto const shared = shared_size(k, layouts); shared > 0) {
      auto same = slice(shared);
      broadcast_numbers(communicator, same, 0);
      part.insert(part.end(), same.begin(), same.end());
    }
  }
  return part;
}

} // namespace dgatd::parallel
