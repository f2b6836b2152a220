#include "dgatd/solver/local_step_plan.hpp"

#include "dgatd/dga/local_steps.hpp"
#include "dgatd/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace dgatd::solver {
namespace {

// The dual block of each free unknown, to find a tet's blocks from its unknowns.
std::vector<Index> block_of_each_row(dga::DofLayout const& layout)
{
  std::vector<Index> block_of_row(layout.num_free);
  for (Index b = 0; b < layout.num_blocks(); ++b)
    for (Index r = layout.block_offset[b]; r < layout.block_offset[b + 1]; ++r) block_of_row[r] = b;
  return block_of_row;
}

// Per block, its owner's value over ranks (from_owners per vertex); the values themselves in one
// process.
std::vector<char> blocks_from_owners(dga::DofLayout const& layout, std::vector<char> const& per_block,
                                     LocalStepRanks const* over_ranks)
{
  if (!over_ranks) return per_block;
  std::vector<char> per_vertex(over_ranks->part.global_vertex.size(), 0);
  for (Index b = 0; b < layout.num_blocks(); ++b) per_vertex[layout.block_vertex[b]] = per_block[b];
  per_vertex = parallel::from_owners(over_ranks->communicator, over_ranks->part, per_vertex);
  std::vector<char> owners(per_block.size());
  for (Index b = 0; b < layout.num_blocks(); ++b) owners[b] = per_vertex[layout.block_vertex[b]];
  return owners;
}

// The distinct indices of a list, in increasing order, by marking them rather than sorting: the
// search for the levels makes a plan per margin it tries, and sorting each level's lists took 40 %
// of the search on the graded sphere RCS (perf/results/2026-12-02-local-steps-search.md).
void keep_distinct_in_order(std::vector<Index>& indices)
{
  if (indices.empty()) return;
  std::vector<char> listed(static_cast<std::size_t>(*std::max_element(indices.begin(), indices.end())) + 1, 0);
  for (Index const i : indices) listed[static_cast<std::size_t>(i)] = 1;
  indices.clear();
  for (std::size_t i = 0; i < listed.size(); ++i)
    if (listed[i]) indices.push_back(static_cast<Index>(i));
}

// Over ranks, the largest value on any rank; the value in one process.
std::int64_t largest(std::int64_t value, LocalStepRanks const* over_ranks)
{
  return over_ranks ? over_ranks->communicator.max(value) : value;
}

// How many tets of the whole mesh pass (counted where owned), and how many there are.
template <class Passes>
std::int64_t count_tets(Index num_tets, LocalStepRanks const* over_ranks, Passes const& passes)
{
  double count = 0;
  for (Index t = 0; t < num_tets; ++t)
    if ((!over_ranks || over_ranks->part.owns_tet[t]) && passes(t)) ++count;
  if (over_ranks) over_ranks->communicator.sum(&count, 1);
  return static_cast<std::int64_t>(count);
}

} // namespace

std::vector<int> step_doublings(mesh::Topology const& topology, std::vector<double> const& steps, double dt0,
                                int max_levels, LocalStepRanks const* over_ranks)
{
  auto doublings = dga::tet_doublings(steps, dt0, max_levels);
  if (!over_ranks) {
    dga::limit_level_jumps(topology, doublings);
    return doublings;
  }
  // Every part holds both tets of each face of its vertices' stars, so the rule settles across the
  // parts' edges once each part's lowerings reach the others: rounds of settling the part and
  // handing the tets it lowered to every rank that holds them, until no part lowers any. Levels only
  // fall, so every rank ends at the one-process levels (the largest that keep the rule).
  auto const& part = over_ranks->part;
  for (;;) {
    auto const before = doublings;
    dga::limit_level_jumps(topology, doublings);
    std::vector<std::int64_t> lowered;
    for (std::size_t t = 0; t < doublings.size(); ++t)
      if (doublings[t] != before[t]) lowered.insert(lowered.end(), {part.global_tet[t], doublings[t]});
    auto const everyone = parallel::all_gathered(over_ranks->communicator, lowered);
    if (everyone.empty()) return doublings;
    for (std::size_t i = 0; i < everyone.size(); i += 2)
      if (Index const t = part.local_tet(static_cast<Index>(everyone[i])); t >= 0)
        doublings[t] = std::min(doublings[t], static_cast<int>(everyone[i + 1]));
  }
}

LocalStepPlan local_step_plan(dga::HostOperators const& ops, std::vector<int> const& tet_level_wished,
                              LocalStepRanks const* over_ranks)
{
  auto const num_tets = static_cast<Index>(ops.tet_dofs.size());
  if (static_cast<Index>(tet_level_wished.size()) != num_tets)
    throw Error("local time stepping",
                "the levels given are for " + std::to_string(tet_level_wished.size()) + " tets, the operators hold " +
                    std::to_string(num_tets),
                "give one level per tet");
  auto const& layout = ops.layout;
  Index const num_blocks = layout.num_blocks();
  Index const num_free = layout.num_free;
  auto const block_of_row = block_of_each_row(layout);

  LocalStepPlan plan;
  std::vector<char> block_level(num_blocks, 0);
  for (Index t = 0; t < num_tets; ++t) {
    if (tet_level_wished[t] < 0 || tet_level_wished[t] > max_local_step_level)
      throw Error("local time stepping",
                  "tet " + std::to_string(t) + " wishes level " + std::to_string(tet_level_wished[t]),
                  "levels count from 0, the coarsest, to " + std::to_string(max_local_step_level));
    for (Index const dof : ops.tet_dofs[t])
      if (dof < num_free)
        block_level[block_of_row[dof]] =
            std::max(block_level[block_of_row[dof]], static_cast<char>(tet_level_wished[t]));
  }
  // A halo block misses some of its tets: its owner, which holds them all, says its level.
  block_level = blocks_from_owners(layout, block_level, over_ranks);
  plan.block_level.assign(block_level.begin(), block_level.end());
  plan.tet_level.assign(num_tets, 0);
  int finest = 0;
  for (Index t = 0; t < num_tets; ++t) {
    int level = tet_level_wished[t];
    for (Index const dof : ops.tet_dofs[t])
      if (dof < num_free) level = std::max(level, plan.block_level[block_of_row[dof]]);
    plan.tet_level[t] = level;
    finest = std::max(finest, level);
  }

  // Every rank steps as many levels, each in its turn (the levels' halo exchanges are collective).
  plan.levels.resize(largest(finest, over_ranks) + 1);
  double counted[2] = {0, 0}; // tet updates per coarse step, tets
  for (Index t = 0; t < num_tets; ++t) {
    int const level = plan.tet_level[t];
    plan.levels[level].own_tets.push_back(t);
    for (int k = 0; k <= level; ++k) plan.levels[k].tets.push_back(t);
    if (over_ranks && !over_ranks->part.owns_tet[t]) continue;
    counted[0] += static_cast<double>(std::int64_t{1} << level);
    ++counted[1];
  }
  if (over_ranks) over_ranks->communicator.sum(counted, 2);
  plan.tet_updates_per_step = counted[1] > 0 ? counted[0] / counted[1] : 1;
  for (Index b = 0; b < num_blocks; ++b)
    for (int k = 0; k <= plan.block_level[b]; ++k) plan.levels[k].blocks.push_back(b);
  for (auto& level : plan.levels) {
    for (Index const b : level.blocks)
      for (Index r = layout.block_offset[b]; r < layout.block_offset[b + 1]; ++r)
        level.curled_edges.push_back(ops.row_curl[r]);
    keep_distinct_in_order(level.curled_edges);
    for (Index const t : level.tets)
      level.read_unknowns.insert(level.read_unknowns.end(), ops.tet_dofs[t].begin(), ops.tet_dofs[t].end());
    keep_distinct_in_order(level.read_unknowns);
  }
  return plan;
}

LocalStepPlan local_step_plan_for_steps(dga::HostOperators const& ops, std::vector<int> const& doublings,
                                        int max_levels, std::vector<Index> const& coarse_tets,
                                        LocalStepRanks const* over_ranks, PinnedLevels pins)
{
  auto const num_tets = static_cast<Index>(ops.tet_dofs.size());
  if (static_cast<Index>(doublings.size()) != num_tets || num_tets == 0 || max_levels < 1)
    throw Error("local time stepping",
                "the steps given are for " + std::to_string(doublings.size()) + " tets with " +
                    std::to_string(max_levels) + " levels, the operators hold " + std::to_string(num_tets) + " tets",
                "give one step per tet and at least one level");
  int const steps_allow = std::min(
      max_levels, 1 + static_cast<int>(largest(*std::max_element(doublings.begin(), doublings.end()), over_ranks)));
  // The tets that must wish the coarse level: every tet touching a block of a pinned tet (a halo
  // block's pin is its owner's, which holds every tet around it).
  auto const& layout = ops.layout;
  auto const block_of_row = block_of_each_row(layout);
  std::vector<char> pinned_block(layout.num_blocks(), 0);
  for (Index const t : coarse_tets)
    for (Index const dof : ops.tet_dofs.at(t))
      if (dof < layout.num_free) pinned_block[block_of_row[dof]] = 1;
  pinned_block = blocks_from_owners(layout, pinned_block, over_ranks);
  std::vector<char> forced(num_tets, 0);
  for (Index t = 0; t < num_tets; ++t)
    for (Index const dof : ops.tet_dofs[t])
      if (dof < layout.num_free && pinned_block[block_of_row[dof]]) forced[t] = 1;
  int levels = steps_allow;
  if (pins == PinnedLevels::drop) {
    for (Index t = 0; t < num_tets; ++t)
      if (forced[t]) levels = std::min(levels, 1 + doublings[t]);
    levels = -static_cast<int>(largest(-levels, over_ranks));
  }
  std::vector<int> wished(num_tets);
  for (Index t = 0; t < num_tets; ++t) wished[t] = forced[t] ? 0 : std::max(0, levels - 1 - doublings[t]);
  auto plan = local_step_plan(ops, wished, over_ranks);
  plan.levels_of_the_steps = steps_allow;
  plan.pinned_tets = count_tets(num_tets, over_ranks, [&](Index t) { return forced[t] != 0; });
  plan.limiting_tets =
      count_tets(num_tets, over_ranks, [&](Index t) { return forced[t] && 1 + doublings[t] < steps_allow; });
  return plan;
}

namespace {

// The highest ratio counts as unmoved by the margin within this fraction, and the coarse step
// shrinks once that many margins in a row left it so, at most max_shrinks times.
constexpr double stalled_change = 0.01;
constexpr int stalled_attempts = 2;
constexpr int max_shrinks = 3;

} // namespace

std::optional<LocalStepChoice> search_local_steps(LocalStepSearch const& search, int most_levels)
{
  std::optional<LocalStepChoice> best;
  double best_time_per_update = 0;
  // The simulated time a tet update buys with these levels at coarse step dt.
  auto const time_per_update = [](int levels, double work_ratio, double dt) {
    return dt * work_ratio / static_cast<double>(std::int64_t{1} << (levels - 1));
  };
  auto const consider = [&](int levels, double margin, double work_ratio, double dt, double highest) {
    if (best && time_per_update(levels, work_ratio, dt) <= best_time_per_update) return;
    best = LocalStepChoice{levels, margin, dt, highest};
    best_time_per_update = time_per_update(levels, work_ratio, dt);
  };
  int attempts = 0;
  for (int levels = most_levels; levels > 1 && attempts < search.max_attempts; --levels) {
    double const limit = search.safety * coarse_step_limit(levels) * search.dt_max;
    double previous_highest = 0;
    int stalled = 0;
    bool settled = false;
    for (int attempt = 0; !settled && attempts < search.max_attempts; ++attempt, ++attempts) {
      double const margin = search.first_margin * std::pow(1 / search.safety, attempt);
      auto const [planned, work_ratio] = search.plan(margin, levels);
      if (planned < levels) break; // the tets' own steps no longer allow as many
      // The most simulated time a tet update of these levels can buy, at their limit and this
      // margin's work ratio (larger margins only lower it): where that is no more than the levels
      // found already buy, no spectrum of theirs can change the choice.
      if (best && time_per_update(levels, work_ratio, limit) <= best_time_per_update) break;
      auto const spectrum = search.spectrum(limit);
      if (spectrum.stable(search.tolerance)) {
        consider(levels, margin, work_ratio, limit, spectrum.highest);
        return best;
      }
      bool const unmoved = spectrum.lowest > -search.tolerance &&
                           std::abs(spectrum.highest - previous_highest) <= stalled_change * spectrum.highest;
      stalled = unmoved ? stalled + 1 : 0;
      previous_highest = spectrum.highest;
      if (stalled < stalled_attempts) continue;
      // A mode the margin does not move has dt^2 lambda / 4 in proportion to dt^2; the Ritz value
      // that proved the step unstable lies below the mode's, so the step shrinks again while the
      // spectrum says so.
      double dt = limit, highest = spectrum.highest;
      for (int shrink = 0; shrink < max_shrinks; ++shrink) {
        dt *= search.safety / std::sqrt(highest);
        auto const shrunk = search.spectrum(dt);
        if (shrunk.stable(search.tolerance)) {
          consider(levels, margin, work_ratio, dt, shrunk.highest);
          break;
        }
        if (shrunk.lowest < -search.tolerance) break;
        highest = shrunk.highest;
      }
      settled = true;
    }
  }
  return best;
}

} // namespace dgatd::solver
