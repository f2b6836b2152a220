#pragma once
// Each tet's own leapfrog step and the levels a local time stepping groups the tets in
// (docs/method/local_time_stepping.md). The global bound dt_max (the Lanczos estimate of
// solver/stability.hpp) is set by the worst tets of the mesh; on a graded mesh most tets could take a
// multiple of it.
//
// The bound of a tet: the leapfrog is stable for dt^2 lambda_max / 4 < 1, lambda_max the largest
// Rayleigh quotient of the curl-curl form over the electric energy,
//   sum over tets of (C_t U_t)^T (Mmu_t)^-1 (C_t U_t)  /  sum over tets of u_t^T Meps_t u_t,
// U_t the tet's six edge circulations (each the sum of its two halves), u_t its twelve half-edge
// values and Meps_t its four subregions' electric mass blocks, whose sum over the tets around a
// vertex is the vertex's Meps_v. Each tet's quotient is at most its own largest eigenvalue lambda_t,
// so lambda_max <= max over tets of lambda_t, and dt_t = 2 / sqrt(lambda_t) is an admissible step
// for the tet's own unknowns: the smallest dt_t is a safe global step, below the Lanczos bound.
// lambda_t is the largest eigenvalue of the 4 x 4 pencil ((C_t G_t C_t^T), Mmu_t), G_t the 6 x 6
// edge form of the inverse subregion masses (the nonzero spectrum of (Mmu_t)^-1 C_t E Meps_t^-1 E^T
// C_t^T, E the sum of the halves).

#include "dgatd/index.hpp"
#include "dgatd/mesh/topology.hpp"
#include "dgatd/mesh/view.hpp"

#include <cstdint>
#include <vector>

namespace dgatd::dga {

// dt_t of every tet of m with the tets' permittivity and permeability (absolute).
std::vector<double> tet_steps(mesh::MeshView const& m, std::vector<double> const& eps, std::vector<double> const& mu);

// The tets grouped in levels of steps dt0, 2 dt0, 4 dt0, ...: a tet takes the largest power of two
// times dt0 within its own dt_t (dt0 the smallest dt_t times safety), at most max_levels - 1
// doublings, and no more than one level above any tet it shares a face with (the coarse side of a
// level change then meets only the next finer level).
struct StepLevels {
  double dt0 = 0;                 // the finest level's step
  std::vector<int> tet_level;     // per tet
  std::vector<std::int64_t> tets; // per level, how many tets
  // The tets' updates per unit of simulated time with one global dt0 over those with the levels:
  // the work a local time stepping saves on the tets (the blocks and terms aside).
  double work_ratio = 1;
  // The same where, as the scheme steps them (solver/local_step_plan.hpp), the unknowns around a
  // vertex take the finest level of the tets around it and a tet the finest of its four vertices: a
  // fine tet makes the stars of its vertices fine, so scattered fine tets cost more than their own.
  double whole_block_work_ratio = 1;
};
StepLevels step_levels(mesh::Topology const& topology, std::vector<double> const& tet_dt, double safety,
                       int max_levels);

// step_levels' two stages, for a part of a mesh over ranks (solver::step_doublings): each
// tet's largest power of two times dt0 within its dt_t (at most max_levels - 1 doublings), and the
// levels lowered until none is more than one above a face neighbour.
std::vector<int> tet_doublings(std::vector<double> const& tet_dt, double dt0, int max_levels);
void limit_level_jumps(mesh::Topology const& topology, std::vector<int>& tet_level);

// Each tet's level as a run's local steps would take it (0 the coarsest, level k stepping 2^k times
// per coarse step), for what must be decided before the operators and the scheme's spectrum are
// known (the partition over ranks): the levels of tet_doublings and limit_level_jumps from the
// smallest dt_t; the tets that share a vertex with a pinned tet on the coarse level, the number of
// levels dropped until their own steps allow it; every vertex at the finest level of its tets and
// every tet at the finest of its vertices. solver::local_step_plan_for_steps does the same on the
// unknowns' blocks with the margin the spectrum asks for, which can make fewer tets fine.
std::vector<int> expected_tet_levels(mesh::Topology const& topology, std::vector<double> const& tet_dt, int max_levels,
                                     std::vector<char> const& pinned);

} // namespace dgatd::dga
