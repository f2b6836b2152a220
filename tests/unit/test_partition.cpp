// Domain decomposition (issue 21, first part): METIS's parts of a mesh, and what each part receives
// per step in the two halo schemes (partition/partition.hpp).
#include "dgatd/error.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/mesh/topology.hpp"
#include "dgatd/vec3.hpp"
#include "partition/partition.hpp"
#include "run_helpers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace {

using dgatd::Index;
using dgatd::partition::part_halos;
using dgatd::partition::partition_tets;

// Two tets on the face (1, 2, 3): tet 0 with apex 0, tet 1 with apex 4.
dgatd::mesh::Mesh two_tets()
{
  dgatd::mesh::Mesh m;
  m.source = "two_tets";
  m.points = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
  m.tets = {{0, 1, 2, 3}, {1, 2, 3, 4}};
  m.tet_region = {0, 0};
  return m;
}

// Counted by hand. Each part holds one tet; the shared vertices 1, 2, 3 have one tet of each part
// and go to the lower, part 0, with vertex 0; part 1 owns vertex 4 only.
TEST(Partition, TwoTetsHaloCountedByHand)
{
  auto const m = two_tets();
  auto const topology = dgatd::mesh::build_topology(m);
  auto const halos = part_halos(topology, {0, 1}, 2);
  ASSERT_EQ(halos.size(), 2u);
  EXPECT_EQ(halos[0].tets, 1);
  EXPECT_EQ(halos[0].blocks, 4);
  EXPECT_EQ(halos[1].blocks, 1);
  // Faraday on tet 1 reads the three half-edges at each of vertices 1, 2, 3 from part 0; tet 0 reads
  // nothing from part 1.
  EXPECT_EQ(halos[1].halo_unknowns, 9);
  EXPECT_EQ(halos[0].halo_unknowns, 0);
  // Ampere on the blocks of 1, 2, 3 reads tet 1's pieces of its edges at them: all six of its edges
  // touch one. Vertex 4's block reads only tet 1's.
  EXPECT_EQ(halos[0].halo_pieces, 6);
  EXPECT_EQ(halos[1].halo_pieces, 0);
  // With ghost tets, part 0 steps tet 1 too and needs its three half-edges at vertex 4; part 1 has
  // no foreign tet at vertex 4, so it needs what it needed before.
  EXPECT_EQ(halos[0].ghost_tets, 1);
  EXPECT_EQ(halos[0].ghost_halo_unknowns, 3);
  EXPECT_EQ(halos[1].ghost_tets, 0);
  EXPECT_EQ(halos[1].ghost_halo_unknowns, 9);
  EXPECT_EQ(halos[0].neighbours, 1);
  EXPECT_EQ(halos[1].neighbours, 1);
}

// 12 x 10 x 8 cells of six tets, jittered so that METIS sees no regular grid.
dgatd::mesh::Mesh jittered_box()
{
  dgatd::mesh::StructuredBox box;
  box.cells[0] = 12;
  box.cells[1] = 10;
  box.cells[2] = 8;
  box.jitter = 0.2;
  return dgatd::mesh::structured_box(box);
}

// With local steps each level's steps end in an exchange every rank waits for: one constraint per
// level balances each level on its own. A corner of the box (a sixth of its tets) stepping twice as
// often, weighed by its steps alone, lands in whichever parts the total balance puts it in; as a
// constraint of its own, every part holds its share of it (METIS keeps each within a few per cent).
TEST(Partition, EachConstraintIsBalancedOnItsOwn)
{
  auto const m = jittered_box();
  auto const topology = dgatd::mesh::build_topology(m);
  auto const tets = m.tets.size();
  std::vector<char> fine(tets, 0);
  long long fine_tets = 0;
  for (std::size_t t = 0; t < tets; ++t) {
    dgatd::Vec3 centre{};
    for (auto v : m.tets[t])
      for (int i = 0; i < 3; ++i) centre[i] += m.points[v][i] / 4;
    fine[t] = centre[0] < 0.55 && centre[1] < 0.55 && centre[2] < 0.55;
    fine_tets += fine[t];
  }
  ASSERT_GT(fine_tets, static_cast<long long>(tets) / 8);
  ASSERT_LT(fine_tets, static_cast<long long>(tets) / 4);
  std::vector<int> steps(tets), per_level(2 * tets, 0);
  for (std::size_t t = 0; t < tets; ++t) {
    steps[t] = fine[t] ? 2 : 1;
    per_level[2 * t + fine[t]] = 1;
  }
  for (int n : {2, 3, 4}) {
    auto const share = [&](std::vector<int> const& parts) {
      std::vector<long long> held(n, 0);
      for (std::size_t t = 0; t < tets; ++t) held[parts[t]] += fine[t];
      return static_cast<double>(*std::max_element(held.begin(), held.end())) * n / fine_tets;
    };
    auto const by_steps = partition_tets(m, topology, n, steps);
    auto const by_level = partition_tets(m, topology, n, per_level, 2);
    EXPECT_GT(share(by_steps), 1.2) << n << " parts";
    EXPECT_LT(share(by_level), 1.05) << n << " parts";
    std::vector<long long> coarse_held(n, 0);
    for (std::size_t t = 0; t < tets; ++t) coarse_held[by_level[t]] += !fine[t];
    EXPECT_LT(*std::max_element(coarse_held.begin(), coarse_held.end()) * n, 1.05 * (tets - fine_tets)) << n;
  }
  EXPECT_THROW(partition_tets(m, topology, 2, per_level, 3), dgatd::Error);
}

TEST(Partition, OnePartReceivesNothing)
{
  dgatd::mesh::StructuredBox box;
  auto const m = dgatd::mesh::structured_box(box);
  auto const topology = dgatd::mesh::build_topology(m);
  auto const parts = partition_tets(m, topology, 1);
  EXPECT_TRUE(std::all_of(parts.begin(), parts.end(), [](int p) { return p == 0; }));
  auto const halos = part_halos(topology, parts, 1);
  EXPECT_EQ(halos[0].tets, topology.num_tets());
  EXPECT_EQ(halos[0].blocks, topology.num_vertices);
  EXPECT_EQ(halos[0].halo_unknowns + halos[0].halo_pieces + halos[0].ghost_tets + halos[0].ghost_halo_unknowns, 0);
}

// METIS's parts of a jittered box: every tet in one part, balanced within METIS's default 3 %
// imbalance, the same on every call; every part exchanges, and the ghost-tet scheme needs at least
// the u of the two-exchange scheme.
TEST(Partition, MetisPartsAreBalancedAndRepeatable)
{
  auto const m = jittered_box();
  auto const topology = dgatd::mesh::build_topology(m);
  for (int n : {2, 3, 4}) {
    auto const parts = partition_tets(m, topology, n);
    EXPECT_EQ(parts, partition_tets(m, topology, n));
    auto const halos = part_halos(topology, parts, n);
    Index tets = 0, blocks = 0;
    for (auto const& h : halos) {
      EXPECT_GT(h.tets, 0);
      EXPECT_LE(h.tets, 1.03 * topology.num_tets() / n + 1) << n << " parts";
      EXPECT_GT(h.neighbours, 0);
      EXPECT_GT(h.halo_unknowns + h.halo_pieces, 0);
      EXPECT_GE(h.ghost_halo_unknowns, h.halo_unknowns);
      tets += h.tets;
      blocks += h.blocks;
    }
    EXPECT_EQ(tets, topology.num_tets());
    EXPECT_EQ(blocks, topology.num_vertices);
  }
}

// A matched layer's tet carries several times a plain tet's work: weights balance the work, not the
// tets. Half the box weighs 4: two parts each hold half the weight (within METIS's 3 %), so the
// heavy tets are spread over more parts than their count alone would ask for.
TEST(Partition, WeightsBalanceTheWork)
{
  auto const m = jittered_box();
  auto const topology = dgatd::mesh::build_topology(m);
  std::vector<int> weight(m.tets.size(), 1);
  long long total = 0;
  for (std::size_t t = 0; t < m.tets.size(); ++t) {
    double x = 0;
    for (auto v : m.tets[t]) x += m.points[v][0] / 4;
    if (x < 0.5) weight[t] = 4;
    total += weight[t];
  }
  for (int n : {2, 3}) {
    auto const parts = partition_tets(m, topology, n, weight);
    std::vector<long long> part_weight(n, 0), part_tets(n, 0);
    for (std::size_t t = 0; t < parts.size(); ++t) {
      part_weight[parts[t]] += weight[t];
      ++part_tets[parts[t]];
    }
    for (int p = 0; p < n; ++p) EXPECT_LE(part_weight[p], 1.03 * total / n + 4) << n << " parts";
    // Unweighted, the parts would hold equal tets; the heaviest part by tets now holds more than
    // 1.2 x the lightest.
    auto const [fewest, most] = std::minmax_element(part_tets.begin(), part_tets.end());
    EXPECT_GT(*most, 1.2 * *fewest) << n << " parts";
  }
}

TEST(Partition, PartCountsOutsideOneToTheTetsAreRefused)
{
  auto const m = two_tets();
  auto const topology = dgatd::mesh::build_topology(m);
  for (int n : {0, 3}) {
    try {
      partition_tets(m, topology, n);
      ADD_FAILURE() << n << " parts were accepted";
    } catch (dgatd::Error const& e) {
      EXPECT_EQ(std::string(e.what()),
                "two_tets: " + std::to_string(n) + " parts for 2 tets (fix: ask for 1 to 2 parts)");
    }
  }
}

// Through the executable: a generated mesh, a table per part, and a bad count in one line.
TEST(Partition, CommandPrintsThePartsAndRefusesABadCount)
{
  dgatd::testing::ScratchDirectory scratch("partition_command");
  auto const mesh =
      dgatd::testing::run_dgatd("mesh box --size 1 1 1 --h 0.25 -o " + scratch.file("box.msh"), scratch.path());
  ASSERT_EQ(mesh.exit_code, 0) << mesh.err;
  auto const good = dgatd::testing::run_dgatd("partition " + scratch.file("box.msh") + " -n 3", scratch.path());
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(good.out.find("3 parts (METIS"), std::string::npos) << good.out;
  EXPECT_NE(good.out.find("one exchange per step"), std::string::npos) << good.out;
  auto const weighted =
      dgatd::testing::run_dgatd("partition " + scratch.file("box.msh") + " -n 2 --weight domain=3", scratch.path());
  EXPECT_EQ(weighted.exit_code, 0) << weighted.err;
  EXPECT_NE(weighted.out.find("(tets by their --weight)"), std::string::npos) << weighted.out;
  // A named vector, not a braced list in the loop: nvcc 11.8 cannot deduce the range of the latter.
  std::vector<std::pair<std::string, std::string>> const refused{
      {" -n 0", "0 parts for"},
      {" --weight domain=0", "--weight domain=0: is not VOLUME=W"},
      {" --weight domain", "--weight domain: is not VOLUME=W"},
      {" --weight domain=1.5", "--weight domain=1.5: is not VOLUME=W"},
      {" --weight nowhere=2", "nowhere"}};
  for (auto const& [arguments, expected] : refused) {
    auto const bad = dgatd::testing::run_dgatd("partition " + scratch.file("box.msh") + arguments, scratch.path());
    EXPECT_NE(bad.exit_code, 0) << arguments;
    EXPECT_NE(bad.err.find(expected), std::string::npos) << arguments << ": " << bad.err;
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << arguments << ": " << bad.err;
  }
}

} // namespace
