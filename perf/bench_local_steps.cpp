// The local time stepping's cycle against the leapfrog's steps over the same simulated time, on a
// closed vacuum problem (PEC walls, an initial field): solver::FractionedLeapfrog with the local steps of
// dga::step_levels against solver::FractionedLeapfrog at its own 0.9 dt_max, the two timed in turns
// (same round) and the median of the rounds' ratios printed beside the ratio the levels predict
// (tet updates). Default mesh: a box of 20^3 cells graded 8:1 along each axis; --mesh FILE takes any
// Gmsh mesh (all of it vacuum), numbered as --ordering says (none: the file's or generator's order).
// --contiguous-levels tets|all times, in the same rounds, the local steps on the mesh renumbered so
// that each level's tets are contiguous (the vertices, blocks and unknowns kept in their order), or
// its tets, blocks and unknowns too, the question of docs/method/local_time_stepping.md section 7
// ("What remains"), and prints how many runs of consecutive numbers each level makes in both numberings.
// --passes then times the levels' passes one by one (each fenced), against the whole mesh's Faraday
// and Ampere per item, in each numbering timed: where the cycle's time goes beside the tet and block
// updates the prediction counts. --smoke: a 5^3 box, one short round.
#include "dgatd/dga/local_steps.hpp"
#include "dgatd/kernels/ampere.hpp"
#include "dgatd/kernels/faraday.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/mesh/ordering.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/simulation/problem.hpp"
#include "dgatd/solver/leapfrog.hpp"
#include "dgatd/solver/local_step_plan.hpp"
#include "dgatd/solver/local_steps.hpp"
#include "lab/report.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using Space = Kokkos::DefaultExecutionSpace;

template <class Pass>
double fenced_seconds(Pass const& pass)
{
  Kokkos::fence();
  auto const start = std::chrono::steady_clock::now();
  pass();
  Kokkos::fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <class Stepper>
double seconds_of(Stepper& stepper, std::int64_t count)
{
  return fenced_seconds([&] {
    for (std::int64_t n = 0; n < count; ++n) stepper.step();
  });
}

double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

dgatd::simulation::Problem vacuum_problem(dgatd::mesh::Mesh mesh)
{
  std::size_t const num_tets = mesh.tets.size();
  return dgatd::simulation::make_problem(
      std::move(mesh),
      dgatd::dga::Materials{std::vector<double>(num_tets, 1.0), std::vector<double>(num_tets, 1.0), {}},
      dgatd::simulation::BoundaryKinds{});
}

// The numbering with each of the plan's levels contiguous, the present one kept within a level: with
// vertices_too, vertices by the level of their dual block (the blocks, and with them the unknowns,
// follow the vertices; a vertex without one, on a wall, by the finest of its tets), else in their
// order; tets by their level, then by their lowest new vertex id as the locality ordering sorts them.
dgatd::mesh::Renumbering contiguous_levels(dgatd::mesh::Mesh const& mesh, dgatd::dga::DofLayout const& layout,
                                           dgatd::solver::LocalStepPlan const& plan, bool vertices_too)
{
  std::vector<int> tet_level(mesh.tets.size(), 0);
  for (std::size_t k = 0; k < plan.levels.size(); ++k)
    for (dgatd::Index const t : plan.levels[k].own_tets) tet_level[t] = static_cast<int>(k);
  dgatd::mesh::Renumbering renumbering;
  renumbering.new_vertex.resize(mesh.points.size());
  std::iota(renumbering.new_vertex.begin(), renumbering.new_vertex.end(), dgatd::Index{0});
  if (vertices_too) {
    std::vector<int> vertex_level(mesh.points.size(), 0);
    for (std::size_t t = 0; t < mesh.tets.size(); ++t)
      for (dgatd::Index const v : mesh.tets[t]) vertex_level[v] = std::max(vertex_level[v], tet_level[t]);
    for (std::size_t k = 0; k < plan.levels.size(); ++k)
      for (dgatd::Index const b : plan.levels[k].blocks) vertex_level[layout.block_vertex[b]] = static_cast<int>(k);
    renumbering.new_vertex = dgatd::mesh::stable_ranks(vertex_level);
  }
  std::vector<std::pair<int, dgatd::Index>> tet_key(mesh.tets.size());
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    auto const& tet = mesh.tets[t];
    tet_key[t] = {tet_level[t], std::min({renumbering.new_vertex[tet[0]], renumbering.new_vertex[tet[1]],
                                          renumbering.new_vertex[tet[2]], renumbering.new_vertex[tet[3]]})};
  }
  renumbering.new_tet = dgatd::mesh::stable_ranks(tet_key);
  return renumbering;
}

// --passes: the levels' passes timed one by one over coarse_steps coarse steps, on fields of their
// own from u0, and the whole mesh's Faraday and Ampere (with its dual curl) over as many leapfrog
// steps; the cycle measured against what its tet and block updates cost at the whole passes' rates.
template <class Operators>
void print_passes(Operators const& ops, dgatd::solver::LocalStepPlan const& plan, std::vector<double> const& u0,
                  double leapfrog_dt, double coarse_dt, std::int64_t coarse_steps)
{
  using Steps = dgatd::solver::LocalSteps<Space>;
  using Times = dgatd::solver::LocalStepPassTimes;
  Space const space;
  Steps steps(ops, plan);
  auto const fields = dgatd::kernels::make_fields<Space, typename Operators::tet_layout, dgatd::Real>(ops);
  auto const start_field = dgatd::kernels::upload_flat<decltype(fields.u)>("bench::u0", u0);
  Kokkos::deep_copy(fields.u, start_field);
  double whole_faraday = 0, whole_ampere = 0;
  for (std::int64_t n = 0; n < coarse_steps; ++n) {
    whole_faraday += fenced_seconds([&] { dgatd::kernels::faraday_update(space, ops, fields, leapfrog_dt); });
    whole_ampere += fenced_seconds([&] { dgatd::kernels::ampere_update(space, ops, fields, leapfrog_dt); });
  }
  double const per_tet = whole_faraday / static_cast<double>(coarse_steps * ops.num_tets);
  double const per_block = whole_ampere / static_cast<double>(coarse_steps * ops.num_blocks);

  Kokkos::deep_copy(fields.u, start_field);
  Kokkos::deep_copy(fields.f, 0.0);
  Times times;
  steps.time_passes(&times);
  double coarse_ampere = 0;
  for (std::int64_t n = 0; n < coarse_steps; ++n) {
    steps.faraday(space, ops, fields, coarse_dt);
    coarse_ampere += fenced_seconds([&] { dgatd::kernels::ampere_update(space, ops, fields, coarse_dt); });
  }
  steps.time_passes(nullptr);

  auto const steps_count = static_cast<double>(coarse_steps);
  std::printf("  passes one by one, each fenced, over %lld coarse steps (ns per item; items per coarse step):\n",
              static_cast<long long>(coarse_steps));
  std::printf("    %-36s %9.1f ns per tet\n", "whole mesh: Faraday", 1e9 * per_tet);
  std::printf("    %-36s %9.1f ns per block\n", "whole mesh: Ampere with its dual curl", 1e9 * per_block);
  double cycle = coarse_ampere, tet_updates = 0, block_updates = static_cast<double>(ops.num_blocks) * steps_count;
  for (std::size_t k = 0; k < times.levels.size(); ++k)
    for (int kind = 0; kind < Times::kinds; ++kind) {
      auto const& total = times.levels[k][kind];
      if (total.items == 0) continue;
      cycle += total.seconds;
      if (kind == Times::faraday) tet_updates += total.items;
      if (kind == Times::ampere) block_updates += total.items;
      std::printf("    level %zu %-28s %9.1f ns per item, %10.0f items, %7.3f ms\n", k, Times::name(kind),
                  1e9 * total.seconds / total.items, total.items / steps_count, 1e3 * total.seconds / steps_count);
    }
  std::printf("    %-36s %9.1f ns per block, %10lld items, %7.3f ms\n", "coarse Ampere with its dual curl",
              1e9 * coarse_ampere / (steps_count * static_cast<double>(ops.num_blocks)),
              static_cast<long long>(ops.num_blocks), 1e3 * coarse_ampere / steps_count);
  double const at_whole_rates = tet_updates * per_tet + block_updates * per_block;
  std::printf("    %-36s %9.2f ms per coarse step, %.2fx what its tet and block updates cost at the whole "
              "passes' rates (%.2f ms)\n",
              "the cycle", 1e3 * cycle / steps_count, cycle / at_whole_rates, 1e3 * at_whole_rates / steps_count);
}

int run(int argc, char* argv[])
{
  bool smoke = false, passes = false;
  std::string mesh_file, ordering_name = "none", contiguous;
  int max_levels = 4, rounds = 7;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      smoke = true;
    } else if (std::strcmp(argv[i], "--mesh") == 0 && i + 1 < argc) {
      mesh_file = argv[++i];
    } else if (std::strcmp(argv[i], "--ordering") == 0 && i + 1 < argc) {
      ordering_name = argv[++i];
    } else if (std::strcmp(argv[i], "--contiguous-levels") == 0 && i + 1 < argc) {
      contiguous = argv[++i];
    } else if (std::strcmp(argv[i], "--passes") == 0) {
      passes = true;
    } else if (std::strcmp(argv[i], "--levels") == 0 && i + 1 < argc) {
      max_levels = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else {
      std::fprintf(
          stderr,
          "usage: %s [--smoke] [--mesh FILE.msh] [--ordering hilbert|rcm|none (none)] [--contiguous-levels tets|all] "
          "[--passes] [--levels N (4)] [--rounds R (7)]\n",
          argv[0]);
      return 2;
    }
  }
  auto const ordering = dgatd::mesh::ordering_named(ordering_name);
  if (!ordering) {
    std::fprintf(stderr, "%s: --ordering takes hilbert, rcm or none, not '%s'\n", argv[0], ordering_name.c_str());
    return 2;
  }
  if (!contiguous.empty() && contiguous != "tets" && contiguous != "all") {
    std::fprintf(stderr, "%s: --contiguous-levels takes tets or all, not '%s'\n", argv[0], contiguous.c_str());
    return 2;
  }
  if (max_levels < 1 || rounds < 1) {
    std::fprintf(stderr, "%s: --levels and --rounds take a positive number\n", argv[0]);
    return 2;
  }
  if (smoke) rounds = 1;
  auto mesh = mesh_file.empty() ? dgatd::mesh::graded_box(smoke ? 5 : 20, 8.0) : dgatd::mesh::read_mesh(mesh_file);
  dgatd::mesh::order_for_locality(mesh, *ordering);
  std::size_t const num_tets = mesh.tets.size();
  std::optional<dgatd::mesh::Mesh> renumbered;
  if (!contiguous.empty()) renumbered = mesh;
  auto const problem = vacuum_problem(std::move(mesh));

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

  // The same levels on the same tets, renumbered: the same work in another order.
  std::optional<dgatd::simulation::Problem> contiguous_problem;
  std::optional<dgatd::solver::LocalStepPlan> contiguous_plan;
  std::optional<dgatd::solver::FractionedLeapfrog<Space>> contiguous_local;
  if (!contiguous.empty()) {
    auto const renumbering = contiguous_levels(*renumbered, problem.operators.layout, plan, contiguous == "all");
    dgatd::mesh::renumber(*renumbered, renumbering);
    contiguous_problem = vacuum_problem(std::move(*renumbered));
    std::vector<int> renumbered_level(num_tets);
    for (std::size_t t = 0; t < num_tets; ++t) renumbered_level[renumbering.new_tet[t]] = levels.tet_level[t];
    contiguous_plan =
        dgatd::solver::local_step_plan_for_steps(contiguous_problem->operators, renumbered_level, max_levels, {});
    bool same_levels = contiguous_plan->levels.size() == plan.levels.size();
    for (std::size_t k = 0; same_levels && k < plan.levels.size(); ++k)
      same_levels = contiguous_plan->levels[k].own_tets.size() == plan.levels[k].own_tets.size() &&
                    contiguous_plan->levels[k].blocks.size() == plan.levels[k].blocks.size();
    if (!same_levels) {
      std::fprintf(stderr, "%s: the renumbered mesh's levels differ from the mesh's\n", argv[0]);
      return 1;
    }
    contiguous_local.emplace(space, contiguous_problem->operators, dgatd::kernels::AmpereBlockPass::columns);
    contiguous_local->set_local_steps(*contiguous_plan);
    contiguous_local->set_dt(coarse_dt);
    contiguous_local->set_initial_field(dgatd::solver::random_free_unknowns(
        contiguous_local->operators().num_unknowns, contiguous_local->operators().num_free, 11));
  }

  // The same simulated time for both in each round.
  std::int64_t const coarse_steps = smoke ? 2 : std::max<std::int64_t>(4, 4000 / cycle / 4);
  auto const leapfrog_steps =
      static_cast<std::int64_t>(std::ceil(static_cast<double>(coarse_steps) * coarse_dt / leapfrog_dt));
  std::vector<double> ratios, local_seconds, leapfrog_seconds, contiguous_seconds, contiguous_ratios;
  for (int r = 0; r < rounds; ++r) {
    leapfrog_seconds.push_back(seconds_of(leapfrog, leapfrog_steps));
    local_seconds.push_back(seconds_of(local, coarse_steps));
    ratios.push_back(leapfrog_seconds.back() / local_seconds.back());
    if (contiguous_local) {
      contiguous_seconds.push_back(seconds_of(*contiguous_local, coarse_steps));
      contiguous_ratios.push_back(local_seconds.back() / contiguous_seconds.back());
    }
  }
  // Tet updates over the same time: the leapfrog updates every tet at its own step, the scheme each
  // tet 2^level times per coarse step.
  double const predicted =
      static_cast<double>(leapfrog_steps) / (static_cast<double>(coarse_steps) * plan.tet_updates_per_step);

  std::printf("bench_local_steps: %s, %zu tets, %s ordering, %s\n",
              mesh_file.empty() ? "graded box" : mesh_file.c_str(), num_tets, ordering_name.c_str(), Space::name());
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
  std::string contiguous_json;
  if (contiguous_local) {
    std::printf("  each level in the %s ordering:\n", ordering_name.c_str());
    dgatd::perf::print_level_runs(std::cout, plan);
    std::printf("  each level in the numbering with contiguous levels (%s):\n", contiguous.c_str());
    dgatd::perf::print_level_runs(std::cout, *contiguous_plan);
    std::printf("  %-34s %12.3f s\n", "levels contiguous, median round", median(contiguous_seconds));
    std::printf("  %-34s %12.3fx\n", "contiguous over the given, same-round", median(contiguous_ratios));
    contiguous_json = ",\"contiguous_s\":" + std::to_string(median(contiguous_seconds)) +
                      ",\"contiguous_speedup\":" + std::to_string(median(contiguous_ratios));
  }
  if (passes) {
    std::printf("  in the %s ordering:\n", ordering_name.c_str());
    print_passes(local.operators(), plan, u0, leapfrog_dt, coarse_dt, coarse_steps);
  }
  if (passes && contiguous_local) {
    auto const& ops = contiguous_local->operators();
    std::printf("  in the numbering with contiguous levels (%s):\n", contiguous.c_str());
    print_passes(ops, *contiguous_plan, dgatd::solver::random_free_unknowns(ops.num_unknowns, ops.num_free, 11),
                 leapfrog_dt, coarse_dt, coarse_steps);
  }
  std::printf("{\"benchmark\":\"local_steps\",\"smoke\":%s,\"tets\":%zu,\"ordering\":\"%s\",\"levels\":%d,"
              "\"rounds\":%d,\"leapfrog_s\":%.6f,\"local_s\":%.6f,\"speedup\":%.4f,\"predicted\":%.4f%s}\n",
              smoke ? "true" : "false", num_tets, ordering_name.c_str(), num_levels, rounds, median(leapfrog_seconds),
              median(local_seconds), median(ratios), predicted, contiguous_json.c_str());
  return 0;
}

} // namespace

int main(int argc, char* argv[])
{
  Kokkos::ScopeGuard kokkos(argc, argv);
  return run(argc, argv);
}
