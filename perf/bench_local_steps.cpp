// The local time stepping's cycle against the leapfrog's steps over the same simulated time, on a
// closed vacuum problem (PEC walls, an initial field): solver::FractionedLeapfrog with the local steps of
// dga::step_levels against solver::FractionedLeapfrog at its own 0.9 dt_max, the two timed in turns
// (same round) and the median of the rounds' ratios printed beside the ratio the levels predict
// (tet updates). Default mesh: a box of 20^3 cells graded 8:1 along each axis; --mesh FILE takes any
// Gmsh mesh (all of it vacuum). --smoke: a 5^3 box, one short round.
#include "dgatd/dga/local_steps.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/simulation/problem.hpp"
#include "dgatd/solver/leapfrog.hpp"
#include "dgatd/solver/local_step_plan.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Space = Kokkos::DefaultExecutionSpace;

template <class Stepper>
double seconds_of(Stepper& stepper, std::int64_t count)
{
  Kokkos::fence();
  auto const start = std::chrono::steady_clock::now();
  for (std::int64_t n = 0; n < count; ++n) stepper.step();
  Kokkos::fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int run(int argc, char* argv[])
{
  bool smoke = false;
  std::string mesh_file;
  int max_levels = 4, rounds = 7;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      smoke = true;
    } else if (std::strcmp(argv[i], "--mesh") == 0 && i + 1 < argc) {
      mesh_file = argv[++i];
    } else if (std::strcmp(argv[i], "--levels") == 0 && i + 1 < argc) {
      max_levels = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--smoke] [--mesh FILE.msh] [--levels N (4)] [--rounds R (7)]\n", argv[0]);
      return 2;
    }
  }
  if (max_levels < 1 || rounds < 1) {
    std::fprintf(stderr, "%s: --levels and --rounds take a positive number\n", argv[0]);
    return 2;
  }
  if (smoke) rounds = 1;
  auto mesh = mesh_file.empty() ? dgatd::mesh::graded_box(smoke ? 5 : 20, 8.0) : dgatd::mesh::read_mesh(mesh_file);
  std::size_t const num_tets = mesh.tets.size();
  auto const problem = dgatd::simulation::make_problem(
      std::move(mesh),
      dgatd::dga::Materials{std::vector<double>(num_tets, 1.0), std::vector<double>(num_tets, 1.0), {}},
      dgatd::simulation::BoundaryKinds{});

  auto const tet_dt = dgatd::dga::tet_steps(problem.view(), problem.materials.eps, problem.materials.mu);
  auto const levels = dgatd::dga::step_levels(problem.topology, tet_dt, 1.0, max_levels);
  auto const plan = dgatd::solver::local_step_plan_for_steps(problem.operators, levels.tet_level, max_levels, {});

  Space const space;
  dgatd::solver::FractionedLeapfrog<Space> leapfrog(space, problem.operators);
  double const dt_max = leapfrog.estimate_stability().dt_max;
  double const leapfrog_dt = 0.9 * dt_max;
  leapfrog.set_dt(leapfrog_dt);
  dgatd::solver::FractionedLeapfrog<Space> local(space, problem.operators, dgatd::kernels::AmpereBlockPass::columns);
  local.set_local_steps(plan);
  int const num_levels = local.local_steps()->levels();
  std::int64_t const cycle = std::int64_t{1} << (num_levels - 1);
  double const coarse_dt = local.local_steps()->coarse_step(dt_max, 0.9);
  local.set_dt(coarse_dt);
  auto const u0 =
      dgatd::solver::random_free_unknowns(leapfrog.operators().num_unknowns, leapfrog.operators().num_free, 11);
  leapfrog.set_initial_field(u0);
  local.set_initial_field(u0);

  // The same simulated time for both in each round.
  std::int64_t const coarse_steps = smoke ? 2 : std::max<std::int64_t>(4, 4000 / cycle / 4);
  auto const leapfrog_steps =
      static_cast<std::int64_t>(std::ceil(static_cast<double>(coarse_steps) * coarse_dt / leapfrog_dt));
  std::vector<double> ratios, local_seconds, leapfrog_seconds;
  for (int r = 0; r < rounds; ++r) {
    leapfrog_seconds.push_back(seconds_of(leapfrog, leapfrog_steps));
    local_seconds.push_back(seconds_of(local, coarse_steps));
    ratios.push_back(leapfrog_seconds.back() / local_seconds.back());
  }
  // Tet updates over the same time: the leapfrog updates every tet at its own step, the scheme each
  // tet 2^level times per coarse step.
  double const predicted =
      static_cast<double>(leapfrog_steps) / (static_cast<double>(coarse_steps) * plan.tet_updates_per_step);

  std::printf("bench_local_steps: %s, %zu tets, %s\n", mesh_file.empty() ? "graded box" : mesh_file.c_str(), num_tets,
              Space::name());
  std::printf("  %-34s %12d\n", "levels", num_levels);
  for (int k = 0; k < num_levels; ++k)
    std::printf("  level %d (dt / %-4lld)  own tets %9zu, blocks %9zu\n", k, static_cast<long long>(1) << k,
                plan.levels[k].own_tets.size(),
                plan.levels[k].blocks.size() - (k + 1 < num_levels ? plan.levels[k + 1].blocks.size() : 0));
  std::printf("  %-34s %12.4g s (0.9 dt_max)\n", "leapfrog step", leapfrog_dt);
  std::printf("  %-34s %12.4g s (finest step %.3f dt_max)\n", "coarse step", coarse_dt,
              coarse_dt / static_cast<double>(cycle) / dt_max);
  std::printf("  %-34s %12lld and %lld coarse steps\n", "per round: leapfrog steps",
              static_cast<long long>(leapfrog_steps), static_cast<long long>(coarse_steps));
  std::printf("  %-34s %12.3f s\n", "leapfrog, median round", median(leapfrog_seconds));
  std::printf("  %-34s %12.3f s\n", "local steps, median round", median(local_seconds));
  std::printf("  %-34s %12.2fx (predicted by tet updates %.2fx)\n", "speed-up, median of same-round ratios",
              median(ratios), predicted);
  std::printf("{\"benchmark\":\"local_steps\",\"smoke\":%s,\"tets\":%zu,\"levels\":%d,\"rounds\":%d,"
              "\"leapfrog_s\":%.6f,\"local_s\":%.6f,\"speedup\":%.4f,\"predicted\":%.4f}\n",
              smoke ? "true" : "false", num_tets, num_levels, rounds, median(leapfrog_seconds), median(local_seconds),
              median(ratios), predicted);
  return 0;
}

} // namespace

int main(int argc, char* argv[])
{
  Kokkos::ScopeGuard kokkos(argc, argv);
  return run(argc, argv);
}
