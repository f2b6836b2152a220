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
#include "dgatd/mesh/topology.hpp"
#include "dgatd/parallel/communicator.hpp"
#include "dgatd/parallel/decomposition.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace dgatd::solver {

// The finest level a plan takes (its steps' ratio, 2^level, an int64; the levels travel between
// ranks as bytes).
inline constexpr int max_local_step_level = 62;

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
  // Where the terms pinned tets to the coarse level (local_step_plan_for_steps): the levels the tets'
  // own steps allowed, how many tets the pins put on the coarse level, and how many of those allow
  // fewer levels than the rest (slivers beside a matched layer cost every tet its levels).
  int levels_of_the_steps = 1;
  std::int64_t pinned_tets = 0;
  std::int64_t limiting_tets = 0;

  // Tet updates per unit of simulated time with one global step at the finest level over those with
  // the levels (the work the levels save on the tets; 1 with one level).
  double work_ratio() const
  {
    return static_cast<double>(std::int64_t{1} << (levels.size() - 1)) / tet_updates_per_step;
  }
};

// The stabilisation of level k >= 1 (Grote, Mehlin and Sauter's nu, as 1 + nu / p^2 with p = 2):
// its two steps advance a mode of A's fine part by T_2(nu_k - w lambda) / T_2(nu_k) instead of
// T_2(1 - h^2 lambda / 2), which stays above -1, so no mode of A_p sits on the stability limit
// (the plain scheme's resonances). nu_k grows towards the finer levels: level k passes to level
// k - 1 eigenvalues mu with h_(k-1)^2 mu <= 2 + 2 / T_2(nu_k), and level k - 1's two steps are stable
// for h_(k-1)^2 mu <= 2 + 2 / T_2(nu_(k-1)) (level 0, the leapfrog, for 4): strictly inside where
// nu_k > nu_(k-1); equal nu put them exactly on the limit, and a mesh graded 8:1 then grew.
inline double local_step_stabilisation(std::size_t k) { return 1 + 0.05 * static_cast<double>(k); }
// The finest level's step over the leapfrog's dt_max (the Lanczos bound of the whole operator) at
// the limit of its stabilised two steps, nu / sqrt(2 nu^2 - 1) (1 with one level), and the coarse
// step's limit over dt_max, 2^(levels - 1) times that.
inline double finest_step_factor(int levels)
{
  if (levels <= 1) return 1;
  double const nu = local_step_stabilisation(static_cast<std::size_t>(levels - 1));
  return nu / std::sqrt(2 * nu * nu - 1);
}
inline double coarse_step_limit(int levels)
{
  return static_cast<double>(std::int64_t{1} << (levels - 1)) * finest_step_factor(levels);
}

// dt^2 lambda / 4 for the lowest and highest eigenvalues lambda of the local-step scheme's operator
// A_p at a coarse step (LocalSteps::spectrum): stable where both lie in [0, 1).
struct LocalStepSpectrum {
  double lowest = 0, highest = 0;
  int iterations = 0;
  // Both above -tolerance and below 1 - tolerance.
  bool stable(double tolerance) const { return lowest > -tolerance && highest < 1 - tolerance; }
};

// One rank's part of a mesh over ranks (parallel/decomposition.hpp), the mesh of the operators: its
// plan is the whole mesh's on its tets and blocks. A tet's level settles against its face neighbours
// in every part, a halo block takes its owner's level and pins, and the counts are the whole mesh's.
// The functions below take a null pointer in one process; with one, they are collective.
struct LocalStepRanks {
  parallel::Communicator const& communicator;
  parallel::MeshPart const& part;
};

// Each tet's doublings of dt0 within its step (at most max_levels - 1), lowered until none is more
// than one above a tet it shares a face with: dga::step_levels' tet_level for the smallest step dt0,
// which over ranks is the whole mesh's smallest.
std::vector<int> step_doublings(mesh::Topology const& topology, std::vector<double> const& steps, double dt0,
                                int max_levels, LocalStepRanks const* over_ranks = nullptr);

// The plan for ops with each tet's level wished (0 the coarsest, any number of levels): blocks and
// tets then take the finest level they touch, as above.
LocalStepPlan local_step_plan(dga::HostOperators const& ops, std::vector<int> const& tet_level_wished,
                              LocalStepRanks const* over_ranks = nullptr);

// What the pinned tets' own steps do to the levels (local_step_plan_for_steps): drop them until those
// steps allow the coarse step, or hold them (as many as the other tets' steps allow, up to
// max_levels), the scheme's spectrum then judging the pinned tets at the coarse step with the rest.
enum class PinnedLevels { drop, hold };

// The plan from each tet's own step as doublings of the finest (dga::StepLevels::tet_level: the tet
// may step 2^j times the finest level's step), at most max_levels levels, with the tets of
// coarse_tets on the coarse level (the terms that need it, Term::local_step_support). A tet steps the
// coarse level only when every block around its vertices does, that is when every tet sharing a
// vertex with it wishes the coarse level; pins says whether the levels drop until the steps of those
// tets allow it.
LocalStepPlan local_step_plan_for_steps(dga::HostOperators const& ops, std::vector<int> const& doublings,
                                        int max_levels, std::vector<Index> const& coarse_tets,
                                        LocalStepRanks const* over_ranks = nullptr,
                                        PinnedLevels pins = PinnedLevels::drop);

// The search for the levels and their coarse step (docs/method/local_time_stepping.md, section 5).
// plan(margin, levels) makes the plan of at most that many levels, held against the pins, at that
// margin on the tets' own steps, and returns the levels it has (fewer where the own steps no longer
// allow as many) and its work ratio (LocalStepPlan::work_ratio); spectrum(dt) is A_p's of the plan
// made last, at a coarse step dt, the Lanczos iteration stopping once it proves the step unstable.
struct LocalStepSearch {
  double first_margin = 1;
  double safety = 0.95; // the coarse step's fraction of its limit; the margin grows by 1 / safety
  double dt_max = 0;    // the leapfrog's bound, which the coarse step's limit scales
  int max_attempts = 40;
  double tolerance = 1e-6; // LocalStepSpectrum::stable's
  std::function<std::pair<int, double>(double margin, int levels)> plan;
  std::function<LocalStepSpectrum(double dt)> spectrum;
};
struct LocalStepChoice {
  int levels = 1;
  double margin = 1, dt = 0, highest = 0;
};
// From most_levels down: the margin grows until the spectrum at safety times the coarse step's limit
// is stable, which settles it. Where two margins in a row leave the highest ratio where it was
// (within 1 %, no negative ratio: a mode the coarse level keeps, such as a pinned tet's), the coarse
// step shrinks by safety / sqrt(highest), at most three times, and those levels are weighed against
// one level fewer by the simulated time a tet update buys, dt times the work ratio over 2^(levels - 1).
// Fewer levels whose limit and work ratio cannot buy more than the levels found take no spectrum.
// None where no level count above one is stable within max_attempts plans.
std::optional<LocalStepChoice> search_local_steps(LocalStepSearch const& search, int most_levels);

} // namespace dgatd::solver
