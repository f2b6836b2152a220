#pragma once
// The terms' state of a run over ranks in the whole problem's numbering, so that a checkpoint saved
// over N ranks restores over any number (solver::Formulation::state): rows over tets (the matched
// layers' auxiliaries) gathered from and scattered to the ranks that compute them, the rest of a
// term's state the same on every rank.

#include "dgatd/index.hpp"
#include "dgatd/parallel/communicator.hpp"

#include <array>
#include <cstddef>
#include <utility>
#include <vector>

namespace dgatd::parallel {

// Rows of a term's state, one per tet. by_vertex: each row is four equal slices, one per vertex of
// the tet (Ampère's subregions), which the vertex's owner computes. Rows that are not per tet (a
// far-field surface's faces) give their places instead: each row's place among whole_rows (> 0) in
// the whole problem's order, every row computed by this rank alone; tets is then empty.
struct StateRows {
  std::vector<Index> tets;
  std::size_t width = 0;
  bool by_vertex = false;
  std::vector<Index> places;
  Index whole_rows = 0;
};

inline StateRows tet_rows(std::vector<Index> tets, std::size_t width, bool by_vertex = false)
{
  StateRows rows;
  rows.tets = std::move(tets);
  rows.width = width;
  rows.by_vertex = by_vertex;
  return rows;
}

// A term's state after some steps: its size, and how it lies over the part: segment after segment of
// rows (width numbers per tet of tets, ascending, or per place), then what is the same on every rank
// (all of it for a term without rows).
struct TermStateLayout {
  std::size_t size = 0;
  std::vector<StateRows> rows;
};

// What a part knows of the whole problem's tets, per local tet.
struct PartTets {
  std::vector<char> owned;
  std::vector<Index> global;
  std::vector<std::array<char, 4>> owned_vertices; // whether this rank owns each vertex
  Index whole = 0;                                 // the whole problem's tets
};

class TermStatesOverRanks {
public:
  TermStatesOverRanks() = default;
  // Where each term's rows lie in the whole problem's state: a tet's rows are in the one-process
  // order, ascending global tet within each segment (parts number their tets in the global order),
  // so a segment's place for a tet is the count of the segment's tets before it over all ranks.
  // layouts: the terms' at any step (their rows do not change). Collective.
  TermStatesOverRanks(Communicator const& communicator, PartTets const& tets,
                      std::vector<TermStateLayout> const& layouts);

  // The size of the whole problem's state for the terms' layouts at some step.
  std::size_t whole_size(std::vector<TermStateLayout> const& layouts) const;
  // On rank 0 the whole problem's state from each part's (laid out as layouts); nothing on the
  // others. Collective.
  std::vector<double> gather(Communicator const& communicator, std::vector<double> const& part,
                             std::vector<TermStateLayout> const& layouts) const;
  // This part's state (laid out as layouts) from the whole problem's, which rank 0 alone holds.
  // Collective.
  std::vector<double> scatter(Communicator const& communicator, std::vector<double> const& whole,
                              std::vector<TermStateLayout> const& layouts) const;

private:
  struct SegmentPlace {
    std::vector<Index> place; // per local row
    std::vector<char> owned;  // per local row: whether this rank computes it
    std::size_t whole = 0;    // rows in the whole problem
    std::size_t width = 0;
  };
  // Throws std::logic_error when layouts do not match the terms placed.
  void check(std::vector<TermStateLayout> const& layouts) const;
  // The numbers of term k's state in its rows on this rank, and after them (the same on every rank).
  std::size_t rows_size(std::size_t k) const;
  std::size_t shared_size(std::size_t k, std::vector<TermStateLayout> const& layouts) const;

  std::vector<std::vector<SegmentPlace>> places_; // per term
};

} // namespace dgatd::parallel
