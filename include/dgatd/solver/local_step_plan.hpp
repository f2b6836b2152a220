#pragma once
// Which unknowns a local time stepping (solver/local_step_leapfrog.hpp) advances at which level, and
// the lists its kernels run over (docs/method/local_time_stepping.md, section 3). Level 0 is the
// coarsest, stepping the whole step; level k steps half of level k - 1's.
//
// The levels are chosen per tet (each tet's own step, dga::tet_steps and dga::step_levels). A dual
// block (the unknowns around a vertex) steps at the finest level of the tets around it: the scheme's
// fine part must hold whole blocks, so that its projector commutes with Meps and the scheme
// conserves an energy. A tet then takes the finest level of its blocks.

#include "dgatd/dga/operators.hpp"
#include "dgatd/index.hpp"

#include <cstdint>
#include <vector>

namespace dgatd::solver {

struct LocalStepPlan {
  struct Level {
    std::vector<Index> own_tets;      // the tets of this level: Faraday at this level's step
    std::vector<Index> tets;          // the tets of this level and finer ones
    std::vector<Index> blocks;        // the blocks of this level and finer ones
    std::vector<Index> curled_edges;  // the dual curls those blocks' rows read
    std::vector<Index> read_unknowns; // every unknown the tets of this level and finer ones read
  };
  std::vector<int> block_level;
  std::vector<int> tet_level;
  std::vector<Level> levels; // coarsest first; one level is the leapfrog itself
  // Tet updates per coarse step over the tets' count: what the levels cost against one step of the
  // coarse level for every tet (1 with one level; 2^(L-1) would be the finest step everywhere).
  double tet_updates_per_step = 1;
};

// The plan for ops with each tet's level wished (0 the coarsest, any number of levels): blocks and
// tets then take the finest level they touch, as above.
LocalStepPlan local_step_plan(dga::HostOperators const& ops, std::vector<int> const& tet_level_wished);

} // namespace dgatd::solver
