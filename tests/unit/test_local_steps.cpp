// Each tet's own leapfrog step (dga::tet_steps) and the levels of a local time stepping
// (dga::step_levels), dgatd/dga/local_steps.hpp: the smallest tet step is a safe global step (below
// the Lanczos bound of the whole operator), it scales as sqrt(eps) does, and the levels
// keep every tet within its own step and one level of its neighbours.
#include "dgatd/dga/local_steps.hpp"
#include "dgatd/error.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/simulation/problem.hpp"
#include "dgatd/simulation/simulation.hpp"
#include "dgatd/solver/local_step_plan.hpp"

#include "run_helpers.hpp"
#include "scratch_directory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string const box = R"([mesh]
generate = "box"
size = [1.0, 0.8, 0.6]
h = 0.15
reproducible = true
inner = { shape = "box", corner = [0.3, 0.2, 0.15], size = [0.4, 0.4, 0.3] }
[time]
steps = 1
)";

std::string dielectric(double eps_r)
{
  return "[[material]]\nregion = \"inner\"\neps_r = " + std::to_string(eps_r) + "\n";
}

struct Steps {
  dgatd::simulation::Problem problem;
  std::vector<double> tet_dt;
};

dgatd::io::Config parsed(std::string const& text) { return dgatd::io::parse_config(text, "steps.toml", "."); }

// The tets' steps of a configuration's problem.
Steps steps_of(std::string const& text)
{
  auto const config = parsed(text);
  Steps s{dgatd::simulation::make_problem(config, dgatd::simulation::load_mesh(config)), {}};
  s.tet_dt = dgatd::dga::tet_steps(s.problem.view(), s.problem.materials.eps, s.problem.materials.mu);
  return s;
}

double smallest(std::vector<double> const& v) { return *std::min_element(v.begin(), v.end()); }

// The bound holds for the whole operator: the Lanczos Ritz value is at most the largest eigenvalue,
// which is at most the largest tet's, so the smallest tet step is below the Lanczos dt_max. It is of
// the same order (measured: 0.43 to 0.55 of it on these meshes), so the tets' steps rank the tets
// for levels, while the finest level's step itself is better taken from the global bound.
TEST(LocalSteps, TheSmallestTetStepIsASafeGlobalStep)
{
  for (std::string const& text : {box, box + dielectric(4.0), box + dielectric(0.3)}) {
    dgatd::simulation::Simulation const simulation(parsed(text));
    auto const& p = simulation.problem();
    double const ratio =
        smallest(dgatd::dga::tet_steps(p.view(), p.materials.eps, p.materials.mu)) / simulation.plan().dt_max;
    EXPECT_LE(ratio, 1.0 + 1e-9) << text;
    EXPECT_GT(ratio, 0.25) << text;
    std::printf("smallest tet step / Lanczos dt_max = %.4f\n", ratio);
  }
}

// lambda_t scales as 1/eps: the tets of a volume with eps_r = 4 take twice the step they take in
// vacuum, to rounding; the others keep theirs.
TEST(LocalSteps, ATetStepScalesAsTheSquareRootOfItsPermittivity)
{
  auto const vacuum = steps_of(box);
  auto const filled = steps_of(box + dielectric(4.0));
  ASSERT_EQ(vacuum.tet_dt.size(), filled.tet_dt.size());
  int inner = -1;
  for (auto const& g : filled.problem.mesh.groups)
    if (g.dim == 3 && g.name == "inner") inner = g.tag;
  ASSERT_GE(inner, 0);
  std::size_t inside = 0;
  for (std::size_t t = 0; t < vacuum.tet_dt.size(); ++t) {
    bool const in = filled.problem.mesh.tet_region[t] == inner;
    inside += in ? 1 : 0;
    EXPECT_NEAR(filled.tet_dt[t] / vacuum.tet_dt[t], in ? 2.0 : 1.0, 1e-12) << "tet " << t;
  }
  EXPECT_GT(inside, 0u);
}

// A slow volume (eps_r = 16: a quarter of the step) in vacuum: the vacuum's tets climb to the levels
// their steps allow, one level at a time away from the volume.
TEST(LocalSteps, LevelsKeepEachTetWithinItsStepAndOneLevelOfItsNeighbours)
{
  auto const s = steps_of(box + dielectric(16.0));
  auto const& topology = s.problem.topology;
  for (int max_levels : {1, 2, 4}) {
    auto const levels = dgatd::dga::step_levels(topology, s.tet_dt, 0.9, max_levels);
    EXPECT_DOUBLE_EQ(levels.dt0, 0.9 * smallest(s.tet_dt));
    ASSERT_EQ(levels.tet_level.size(), s.tet_dt.size());
    ASSERT_LE(static_cast<int>(levels.tets.size()), max_levels);
    std::int64_t counted = 0;
    double updates = 0;
    for (std::size_t t = 0; t < s.tet_dt.size(); ++t) {
      int const level = levels.tet_level[t];
      ASSERT_GE(level, 0);
      EXPECT_LE(std::ldexp(levels.dt0, level), s.tet_dt[t]) << "tet " << t;
      updates += std::ldexp(1.0, -level);
      for (auto f : topology.tet_faces[t])
        for (auto across : topology.face_tets[f])
          if (across >= 0) {
            EXPECT_LE(std::abs(level - levels.tet_level[across]), 1) << "tets " << t << ", " << across;
          }
    }
    for (auto n : levels.tets) counted += n;
    EXPECT_EQ(counted, static_cast<std::int64_t>(s.tet_dt.size()));
    EXPECT_NEAR(levels.work_ratio, s.tet_dt.size() / updates, 1e-12 * levels.work_ratio);
    // With whole blocks: a vertex at the finest level of its tets, a tet at the finest of its vertices
    // (from the mesh's own vertex lists here).
    std::vector<int> vertex_level(s.problem.mesh.points.size(), max_levels);
    for (std::size_t t = 0; t < s.tet_dt.size(); ++t)
      for (auto v : s.problem.mesh.tets[t]) vertex_level[v] = std::min(vertex_level[v], levels.tet_level[t]);
    double block_updates = 0;
    for (auto const& tet : s.problem.mesh.tets) {
      int level = max_levels;
      for (auto v : tet) level = std::min(level, vertex_level[v]);
      block_updates += std::ldexp(1.0, -level);
    }
    EXPECT_NEAR(levels.whole_block_work_ratio, s.tet_dt.size() / block_updates, 1e-12 * levels.work_ratio);
    EXPECT_LE(levels.whole_block_work_ratio, levels.work_ratio);
    EXPECT_GE(levels.whole_block_work_ratio, 1.0);
    if (max_levels == 1) {
      EXPECT_EQ(levels.work_ratio, 1.0);
      EXPECT_EQ(levels.whole_block_work_ratio, 1.0);
    }
    // The vacuum takes about four times the volume's step: with three levels or more, most tets
    // step at least twice as far.
    if (max_levels == 4) {
      EXPECT_GT(levels.work_ratio, 2.0);
    }
  }
}

// The levels a partition is weighed by before the operators exist (dga::expected_tet_levels, through
// the vertices) are those the run's plan takes at the first margin (solver::local_step_plan_for_steps,
// through the unknowns' blocks), with and without a pin like a matched layer's. The walls are PMC:
// under PEC a vertex whose every edge is PEC has no block, so the plan spreads no level through it
// where the expectation does (a few tets at the walls' corners; a partition's weights bear that).
TEST(LocalStepPlan, ExpectedLevelsAreThePlansAtTheFirstMargin)
{
  auto const s = steps_of(box + dielectric(16.0) + "[boundary]\npec = []\n");
  auto const& topology = s.problem.topology;
  auto const num_tets = s.tet_dt.size();
  auto const doublings = dgatd::solver::step_doublings(topology, s.tet_dt, smallest(s.tet_dt), 4);
  // A pin on a tet whose vertices' tets all allow a doubling: the levels drop from four to two.
  std::vector<char> pinned(num_tets, 0);
  std::vector<dgatd::Index> pinned_tets;
  for (std::size_t t = 0; t < num_tets && pinned_tets.empty(); ++t) {
    int lowest = doublings[t];
    for (auto v : s.problem.mesh.tets[t])
      for (auto i = topology.v2t_offsets[v]; i < topology.v2t_offsets[v + 1]; ++i)
        lowest = std::min(lowest, doublings[topology.v2t[i]]);
    if (lowest == 1) {
      pinned[t] = 1;
      pinned_tets.push_back(static_cast<dgatd::Index>(t));
    }
  }
  ASSERT_EQ(pinned_tets.size(), 1u);
  for (bool pins : {false, true}) {
    auto const pinned_here = pins ? pinned : std::vector<char>(num_tets, 0);
    auto const pinned_list = pins ? pinned_tets : std::vector<dgatd::Index>{};
    auto const expected = dgatd::dga::expected_tet_levels(topology, s.tet_dt, 4, pinned_here);
    auto const plan = dgatd::solver::local_step_plan_for_steps(s.problem.operators, doublings, 4, pinned_list);
    EXPECT_EQ(expected, plan.tet_level) << (pins ? "with" : "without") << " pins";
    EXPECT_EQ(plan.levels.size(), pins ? 2u : 4u);
    std::vector<std::int64_t> per_level(plan.levels.size(), 0);
    for (int level : expected) ++per_level.at(static_cast<std::size_t>(level));
    EXPECT_GE(std::count_if(per_level.begin(), per_level.end(), [](std::int64_t n) { return n > 0; }), 2);
  }
}

// dgatd info prints the levels of the mesh in vacuum: its rows count every tet once, and the ratio
// is the library's.
TEST(LocalSteps, InfoPrintsTheLevelsOfTheMesh)
{
  dgatd::testing::ScratchDirectory scratch("local_steps_info");
  auto const config = parsed(box);
  auto const mesh = dgatd::simulation::load_mesh(config);
  std::string const file = (scratch.path() / "box.msh").string();
  dgatd::mesh::write_mesh(mesh, file);
  auto const info = dgatd::testing::run_dgatd("info " + file, scratch.path());
  ASSERT_EQ(info.exit_code, 0) << info.err;
  auto const at = info.out.find("local time steps");
  ASSERT_NE(at, std::string::npos) << info.out;
  std::istringstream lines(info.out.substr(at));
  std::string line;
  std::getline(lines, line);
  long long counted = 0;
  double ratio = 0;
  while (std::getline(lines, line)) {
    double multiple = 0;
    long long tets = 0;
    if (std::sscanf(line.c_str(), " %lf dt0 %lld tets", &multiple, &tets) == 2)
      counted += tets;
    else if (std::sscanf(line.c_str(), "  the tets' updates a local time stepping would save: %lfx", &ratio) == 1)
      break;
  }
  EXPECT_EQ(counted, mesh.num_tets());
  auto const s = steps_of(box);
  auto const levels = dgatd::dga::step_levels(s.problem.topology, s.tet_dt, 1.0, 8);
  EXPECT_NEAR(ratio, levels.work_ratio, 0.005) << info.out;
}

// The plan a local time stepping runs over (solver/local_step_plan.hpp): a block steps at the finest
// level of its tets, a tet at the finest of its blocks and no coarser than it wished, the lists of
// level k hold what is of level k or finer, and a level's tets read only unknowns it copies.
TEST(LocalStepPlan, BlocksAndTetsTakeTheFinestLevelTheyTouch)
{
  dgatd::mesh::StructuredBox box;
  box.cells[0] = 5;
  box.cells[1] = 4;
  box.cells[2] = 3;
  box.jitter = 0.2;
  auto const problem = dgatd::simulation::pec_box(box, 1.0, 1.0);
  auto const& ops = problem.operators;
  auto const num_tets = static_cast<dgatd::Index>(ops.tet_dofs.size());
  // Wished levels in bands along the tets' numbering: 0 .. 3.
  std::vector<int> wished(num_tets);
  for (dgatd::Index t = 0; t < num_tets; ++t) wished[t] = static_cast<int>((4 * t) / num_tets);
  auto const plan = dgatd::solver::local_step_plan(ops, wished);
  ASSERT_EQ(plan.levels.size(), 4u);
  auto const& layout = ops.layout;
  std::vector<int> row_level(layout.num_free);
  for (dgatd::Index b = 0; b < layout.num_blocks(); ++b)
    for (dgatd::Index r = layout.block_offset[b]; r < layout.block_offset[b + 1]; ++r)
      row_level[r] = plan.block_level[b];
  std::vector<int> block_finest_tet(layout.num_blocks(), 0);
  double updates = 0;
  for (dgatd::Index t = 0; t < num_tets; ++t) {
    int finest_block = 0;
    for (auto const dof : ops.tet_dofs[t])
      if (dof < layout.num_free) {
        finest_block = std::max(finest_block, row_level[dof]);
        auto const b = layout.block_of(dof);
        block_finest_tet[b] = std::max(block_finest_tet[b], wished[t]);
      }
    EXPECT_EQ(plan.tet_level[t], std::max(wished[t], finest_block)) << "tet " << t;
    updates += static_cast<double>(1 << plan.tet_level[t]);
  }
  EXPECT_EQ(plan.block_level, block_finest_tet);
  EXPECT_DOUBLE_EQ(plan.tet_updates_per_step, updates / num_tets);
  for (std::size_t k = 0; k < plan.levels.size(); ++k) {
    auto const& level = plan.levels[k];
    for (dgatd::Index t = 0; t < num_tets; ++t) {
      bool const listed = std::binary_search(level.tets.begin(), level.tets.end(), t);
      EXPECT_EQ(listed, plan.tet_level[t] >= static_cast<int>(k)) << "level " << k << ", tet " << t;
      EXPECT_EQ(std::binary_search(level.own_tets.begin(), level.own_tets.end(), t),
                plan.tet_level[t] == static_cast<int>(k));
      if (!listed) continue;
      for (auto const dof : ops.tet_dofs[t]) {
        EXPECT_TRUE(std::binary_search(level.read_unknowns.begin(), level.read_unknowns.end(), dof));
      }
    }
    for (dgatd::Index b = 0; b < layout.num_blocks(); ++b) {
      EXPECT_EQ(std::binary_search(level.blocks.begin(), level.blocks.end(), b),
                plan.block_level[b] >= static_cast<int>(k));
      if (plan.block_level[b] < static_cast<int>(k)) continue;
      for (dgatd::Index r = layout.block_offset[b]; r < layout.block_offset[b + 1]; ++r) {
        EXPECT_TRUE(std::binary_search(level.curled_edges.begin(), level.curled_edges.end(), ops.row_curl[r]));
      }
    }
  }
  // A level's dual curls read only the edge pieces of its own tets (level k or finer).
  for (std::size_t k = 0; k < plan.levels.size(); ++k)
    for (auto const edge : plan.levels[k].curled_edges)
      for (auto i = ops.edge_curl_offsets[edge]; i < ops.edge_curl_offsets[edge + 1]; ++i)
        EXPECT_GE(plan.tet_level[dgatd::dga::decode_curl_piece(ops.edge_curl_entries[i]).tet], static_cast<int>(k));
  EXPECT_THROW(dgatd::solver::local_step_plan(ops, std::vector<int>(3, 0)), dgatd::Error) << "levels of 3 tets";
}

// The search for levels and coarse step (solver::search_local_steps) on a model of the scheme's
// spectrum: a mode at the levels' interfaces that the margin moves (its ratio 1.2 / margin at the
// levels' limit), and a mode the coarse level keeps (a pinned tet's, the same at any margin), both
// growing as dt^2. The tets' own steps allow 4 levels up to a margin of 1.5 and 3 beyond; the work
// ratio is set per level count.
struct SpectrumModel {
  double interface = 1.2;  // the interface mode's ratio at margin 1
  double coarse_ratio = 0; // the coarse mode's ratio at 4 levels' limit
  double work_ratio[5] = {1, 1, 1.6, 2.5, 3.0};
  double margin = 1;
  int levels = 1;
  int spectra[5] = {}; // the spectra taken, per level count of the plan they judged
  dgatd::solver::LocalStepSearch search()
  {
    dgatd::solver::LocalStepSearch s;
    s.dt_max = 1;
    s.plan = [this](double m, int l) {
      margin = m;
      levels = std::min(l, m < 1.5 ? 4 : 3);
      return std::make_pair(levels, work_ratio[levels]);
    };
    s.spectrum = [this](double dt) {
      ++spectra[levels];
      double const limit4 = 0.95 * dgatd::solver::coarse_step_limit(4);
      double const limit = 0.95 * dgatd::solver::coarse_step_limit(levels);
      double const coarse = coarse_ratio * (dt / limit4) * (dt / limit4);
      double const at_interfaces = interface / margin * (dt / limit) * (dt / limit);
      return dgatd::solver::LocalStepSpectrum{0.01, std::max(at_interfaces, coarse), 10};
    };
    return s;
  }
};

TEST(LocalStepSearch, TheMarginGrowsUntilTheSpectrumAtTheLimitIsStable)
{
  SpectrumModel model;
  auto const choice = dgatd::solver::search_local_steps(model.search(), 4);
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->levels, 4);
  // The first margin above 1.2: (1 / 0.95)^4 = 1.228.
  EXPECT_DOUBLE_EQ(choice->margin, std::pow(1 / 0.95, 4));
  EXPECT_DOUBLE_EQ(choice->dt, 0.95 * dgatd::solver::coarse_step_limit(4));
  EXPECT_NEAR(choice->highest, 1.2 * std::pow(0.95, 4), 1e-12);
}

// A mode the margin does not move: the coarse step shrinks to fit it (by 0.95 / sqrt(1.3)), and one
// level fewer, stable at its limit, is taken only where a tet update buys more simulated time.
TEST(LocalStepSearch, AModeTheMarginKeepsShrinksTheCoarseStepAgainstOneLevelFewer)
{
  double const limit4 = 0.95 * dgatd::solver::coarse_step_limit(4);
  double const limit3 = 0.95 * dgatd::solver::coarse_step_limit(3);
  double const shrunk = limit4 * 0.95 / std::sqrt(1.3);
  for (double const four_levels_work : {3.0, 3.5}) {
    SpectrumModel model;
    model.coarse_ratio = 1.3;
    model.work_ratio[4] = four_levels_work;
    auto const choice = dgatd::solver::search_local_steps(model.search(), 4);
    ASSERT_TRUE(choice);
    bool const four_better = shrunk * four_levels_work / 8 > limit3 * model.work_ratio[3] / 4;
    EXPECT_EQ(four_better, four_levels_work == 3.5) << "the model's two cases fall either side";
    // Three levels at their limit buy no more than four shrunk: their spectra could not change the choice.
    EXPECT_EQ(model.spectra[3] > 0, !four_better);
    if (four_better) {
      EXPECT_EQ(choice->levels, 4);
      EXPECT_DOUBLE_EQ(choice->dt, shrunk);
      EXPECT_NEAR(choice->highest, 0.95 * 0.95, 1e-12);
    } else {
      EXPECT_EQ(choice->levels, 3);
      EXPECT_DOUBLE_EQ(choice->dt, limit3);
      EXPECT_LT(choice->highest, 1);
    }
  }
}

// Where the tets' own steps stop allowing the levels before any margin is stable, one level fewer;
// where nothing is ever stable, no choice (the run then takes one global step).
TEST(LocalStepSearch, FewerLevelsWhereTheStepsNoLongerAllowThemAndNoneWhereNothingIsStable)
{
  SpectrumModel model;
  model.interface = 1.45; // stable from a margin of 1.45 up: past 1.5 only three levels are left
  auto const choice = dgatd::solver::search_local_steps(model.search(), 4);
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->levels, 3);
  EXPECT_GT(choice->margin, 1.45);

  SpectrumModel never;
  never.interface = 1e9;
  auto const search = never.search();
  EXPECT_FALSE(dgatd::solver::search_local_steps(search, 4));
  EXPECT_LE(std::accumulate(std::begin(never.spectra), std::end(never.spectra), 0), search.max_attempts + 3 * 3)
      << "the attempts and each level count's shrinks";
}

} // namespace
