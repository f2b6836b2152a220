#include "dgatd/solver/local_step_plan.hpp"

#include "dgatd/error.hpp"

#include <algorithm>
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

} // namespace

LocalStepPlan local_step_plan(dga::HostOperators const& ops, std::vector<int> const& tet_level_wished)
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
  plan.block_level.assign(num_blocks, 0);
  for (Index t = 0; t < num_tets; ++t) {
    if (tet_level_wished[t] < 0)
      throw Error("local time stepping",
                  "tet " + std::to_string(t) + " wishes level " + std::to_string(tet_level_wished[t]),
                  "levels count from 0, the coarsest");
    for (Index const dof : ops.tet_dofs[t])
      if (dof < num_free)
        plan.block_level[block_of_row[dof]] = std::max(plan.block_level[block_of_row[dof]], tet_level_wished[t]);
  }
  plan.tet_level.assign(num_tets, 0);
  int finest = 0;
  for (Index t = 0; t < num_tets; ++t) {
    int level = tet_level_wished[t];
    for (Index const dof : ops.tet_dofs[t])
      if (dof < num_free) level = std::max(level, plan.block_level[block_of_row[dof]]);
    plan.tet_level[t] = level;
    finest = std::max(finest, level);
  }

  plan.levels.resize(finest + 1);
  double updates = 0;
  for (Index t = 0; t < num_tets; ++t) {
    int const level = plan.tet_level[t];
    plan.levels[level].own_tets.push_back(t);
    for (int k = 0; k <= level; ++k) plan.levels[k].tets.push_back(t);
    updates += static_cast<double>(std::int64_t{1} << level);
  }
  plan.tet_updates_per_step = num_tets > 0 ? updates / num_tets : 1;
  for (Index b = 0; b < num_blocks; ++b)
    for (int k = 0; k <= plan.block_level[b]; ++k) plan.levels[k].blocks.push_back(b);
  for (auto& level : plan.levels) {
    for (Index const b : level.blocks)
      for (Index r = layout.block_offset[b]; r < layout.block_offset[b + 1]; ++r)
        level.curled_edges.push_back(ops.row_curl[r]);
    std::sort(level.curled_edges.begin(), level.curled_edges.end());
    level.curled_edges.erase(std::unique(level.curled_edges.begin(), level.curled_edges.end()),
                             level.curled_edges.end());
    for (Index const t : level.tets)
      level.read_unknowns.insert(level.read_unknowns.end(), ops.tet_dofs[t].begin(), ops.tet_dofs[t].end());
    std::sort(level.read_unknowns.begin(), level.read_unknowns.end());
    level.read_unknowns.erase(std::unique(level.read_unknowns.begin(), level.read_unknowns.end()),
                              level.read_unknowns.end());
  }
  return plan;
}

LocalStepPlan local_step_plan_for_steps(dga::HostOperators const& ops, std::vector<int> const& doublings,
                                        int max_levels, std::vector<Index> const& coarse_tets)
{
  auto const num_tets = static_cast<Index>(ops.tet_dofs.size());
  if (static_cast<Index>(doublings.size()) != num_tets || num_tets == 0 || max_levels < 1)
    throw Error("local time stepping",
                "the steps given are for " + std::to_string(doublings.size()) + " tets with " +
                    std::to_string(max_levels) + " levels, the operators hold " + std::to_string(num_tets) + " tets",
                "give one step per tet and at least one level");
  int const steps_allow = std::min(max_levels, 1 + *std::max_element(doublings.begin(), doublings.end()));
  // The tets that must wish the coarse level: every tet touching a block of a pinned tet.
  std::vector<char> forced(num_tets, 0);
  if (!coarse_tets.empty()) {
    auto const& layout = ops.layout;
    auto const block_of_row = block_of_each_row(layout);
    std::vector<char> pinned_block(layout.num_blocks(), 0);
    for (Index const t : coarse_tets)
      for (Index const dof : ops.tet_dofs.at(t))
        if (dof < layout.num_free) pinned_block[block_of_row[dof]] = 1;
    for (Index t = 0; t < num_tets; ++t)
      for (Index const dof : ops.tet_dofs[t])
        if (dof < layout.num_free && pinned_block[block_of_row[dof]]) forced[t] = 1;
  }
  int levels = steps_allow;
  std::int64_t limiting = 0;
  for (Index t = 0; t < num_tets; ++t)
    if (forced[t]) {
      levels = std::min(levels, 1 + doublings[t]);
      if (1 + doublings[t] < steps_allow) ++limiting;
    }
  std::vector<int> wished(num_tets);
  for (Index t = 0; t < num_tets; ++t) wished[t] = forced[t] ? 0 : std::max(0, levels - 1 - doublings[t]);
  auto plan = local_step_plan(ops, wished);
  plan.levels_of_the_steps = steps_allow;
  plan.pinned_tets = std::count(forced.begin(), forced.end(), char{1});
  plan.limiting_tets = limiting;
  return plan;
}

} // namespace dgatd::solver
