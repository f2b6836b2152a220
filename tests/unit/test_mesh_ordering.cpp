// Locality ordering (mesh/ordering.hpp) renumbers a mesh without changing it: the same tets with the
// same orientation, regions and boundary triangles; the same numbering on every call; neighbours
// in space get near ids; and a run gives the same fields in every ordering, to rounding.
#include "dgatd/mesh/ordering.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/random.hpp"
#include "run_helpers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace dgatd::mesh {
namespace {

Mesh jittered_box(int cells)
{
  StructuredBox box;
  box.cells[0] = box.cells[1] = box.cells[2] = cells;
  box.jitter = 0.2;
  Mesh m = structured_box(box);
  m.tet_region.resize(m.tets.size());
  for (std::size_t t = 0; t < m.tets.size(); ++t) m.tet_region[t] = 1 + static_cast<int>(t % 3);
  // Two boundary triangles: any face of the first and last tets, enough to follow through.
  for (std::size_t t : {std::size_t{0}, m.tets.size() - 1}) {
    m.boundary_triangles.push_back({m.tets[t][0], m.tets[t][1], m.tets[t][2]});
    m.boundary_triangle_tag.push_back(static_cast<int>(t) + 7);
  }
  return m;
}

// The mesh numbered as badly as it can be: vertices and tets in random order, as a mesher that
// numbers by its own history may leave them.
Mesh shuffled(Mesh m)
{
  std::uint64_t state = 2024;
  auto const next = [&state] { return splitmix64_mix(state += splitmix64_increment); };
  Renumbering r;
  r.new_vertex.resize(m.points.size());
  std::iota(r.new_vertex.begin(), r.new_vertex.end(), Index{0});
  r.new_tet.resize(m.tets.size());
  std::iota(r.new_tet.begin(), r.new_tet.end(), Index{0});
  for (auto* permutation : {&r.new_vertex, &r.new_tet})
    for (std::size_t k = permutation->size(); k > 1; --k) std::swap((*permutation)[k - 1], (*permutation)[next() % k]);
  renumber(m, r);
  return m;
}

using TetByPosition = std::array<std::array<double, 3>, 4>;

// Each tet as its four corner positions in its own local order, with its region: what renumbering
// must keep, order of the tets aside.
std::multimap<TetByPosition, int> tets_by_position(Mesh const& m)
{
  std::multimap<TetByPosition, int> tets;
  for (std::size_t t = 0; t < m.tets.size(); ++t) {
    TetByPosition corners;
    for (int i = 0; i < 4; ++i)
      corners[i] = {m.points[m.tets[t][i]][0], m.points[m.tets[t][i]][1], m.points[m.tets[t][i]][2]};
    tets.emplace(corners, m.tet_region[t]);
  }
  return tets;
}

// The mean of |id(a) - id(b)| over the tets' edges: how far apart in memory the data of
// neighbouring vertices lie.
double mean_edge_id_gap(Mesh const& m)
{
  double sum = 0;
  for (auto const& tet : m.tets)
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) sum += std::abs(static_cast<double>(tet[a]) - static_cast<double>(tet[b]));
  return sum / (6.0 * static_cast<double>(m.tets.size()));
}

class Orderings : public ::testing::TestWithParam<Ordering> {};

TEST_P(Orderings, KeepTheMeshAndItsOrientation)
{
  Mesh const original = shuffled(jittered_box(6));
  Mesh ordered = original;
  order_for_locality(ordered, GetParam());
  ASSERT_EQ(ordered.points.size(), original.points.size());
  ASSERT_EQ(ordered.tets.size(), original.tets.size());
  EXPECT_EQ(tets_by_position(ordered), tets_by_position(original));
  for (auto const& tet : ordered.tets) {
    Vec3 const& a = ordered.points[tet[0]];
    EXPECT_GT(
        dot(cross(sub(ordered.points[tet[1]], a), sub(ordered.points[tet[2]], a)), sub(ordered.points[tet[3]], a)),
        0.0);
  }
  ASSERT_EQ(ordered.boundary_triangles.size(), original.boundary_triangles.size());
  for (std::size_t i = 0; i < ordered.boundary_triangles.size(); ++i) {
    EXPECT_EQ(ordered.boundary_triangle_tag[i], original.boundary_triangle_tag[i]);
    for (int k = 0; k < 3; ++k)
      EXPECT_EQ(ordered.points[ordered.boundary_triangles[i][k]], original.points[original.boundary_triangles[i][k]]);
  }
}

TEST_P(Orderings, AreAFunctionOfTheMeshAlone)
{
  Mesh const m = shuffled(jittered_box(5));
  auto const first = locality_renumbering(m, GetParam());
  auto const second = locality_renumbering(m, GetParam());
  EXPECT_EQ(first.new_vertex, second.new_vertex);
  EXPECT_EQ(first.new_tet, second.new_tet);
  for (auto const* permutation : {&first.new_vertex, &first.new_tet}) {
    std::vector<Index> sorted = *permutation;
    std::sort(sorted.begin(), sorted.end());
    std::vector<Index> identity(sorted.size());
    std::iota(identity.begin(), identity.end(), Index{0});
    EXPECT_EQ(sorted, identity) << "not a permutation";
  }
}

// Vertices sharing an edge get near ids, and each tet comes after the tets of smaller vertices.
TEST_P(Orderings, BringNeighboursTogether)
{
  Mesh const random_order = shuffled(jittered_box(12));
  Mesh ordered = random_order;
  order_for_locality(ordered, GetParam());
  double const random_gap = mean_edge_id_gap(random_order);
  double const ordered_gap = mean_edge_id_gap(ordered);
  // A random numbering of the 2197 vertices puts edge ends about a third of them apart; a box of
  // 12 cells per side ordered along a curve or by levels keeps them within a few layers (13^2).
  EXPECT_LT(ordered_gap, random_gap / 4) << ordering_name(GetParam());
  for (std::size_t t = 1; t < ordered.tets.size(); ++t) {
    auto smallest = [&](std::size_t k) { return *std::min_element(ordered.tets[k].begin(), ordered.tets[k].end()); };
    EXPECT_LE(smallest(t - 1), smallest(t)) << "tet " << t;
  }
}

INSTANTIATE_TEST_SUITE_P(Mesh, Orderings, ::testing::Values(Ordering::hilbert, Ordering::rcm),
                         [](auto const& info) { return ordering_name(info.param); });

TEST(Ordering, NoneKeepsTheNumbering)
{
  Mesh const m = shuffled(jittered_box(3));
  Mesh same = m;
  order_for_locality(same, Ordering::none);
  EXPECT_EQ(same.points, m.points);
  EXPECT_EQ(same.tets, m.tets);
  EXPECT_EQ(same.tet_region, m.tet_region);
}

// On a lattice of 8 points per side the Hilbert curve steps from each point to a lattice
// neighbour: consecutive vertex ids are one cell apart along one axis. A curve that jumps (a
// wrong rotation or Gray code) fails this, which no statistical check would show.
TEST(Ordering, HilbertStepsBetweenLatticeNeighbours)
{
  StructuredBox box;
  box.cells[0] = box.cells[1] = box.cells[2] = 7;
  Mesh m = structured_box(box);
  order_for_locality(m, Ordering::hilbert);
  double const h = 1.0 / 7;
  for (std::size_t v = 1; v < m.points.size(); ++v)
    EXPECT_NEAR(norm(sub(m.points[v], m.points[v - 1])), h, 1e-12) << "vertices " << v - 1 << " and " << v;
}

// RCM numbers breadth first from one corner: on a structured box every edge joins vertices whose
// ids differ by at most a few layers of the front (a random numbering: most of the mesh).
TEST(Ordering, ReverseCuthillMcKeeHasTheBandwidthOfAFront)
{
  int const n = 10;
  Mesh m = shuffled(jittered_box(n));
  order_for_locality(m, Ordering::rcm);
  Index bandwidth = 0;
  for (auto const& tet : m.tets)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) bandwidth = std::max(bandwidth, tet[a] - tet[b]);
  // The Kuhn box's vertex graph joins (i,j,k) to (i+1,j+1,k+1): fronts of the breadth-first search
  // are diagonal planes of at most 3 (n+1)^2 / 2 vertices, and an edge spans at most two of them.
  EXPECT_LE(bandwidth, 3 * (n + 1) * (n + 1)) << "of " << m.points.size() << " vertices";
}

// The same run in every ordering: only the order of the sums changes, so the probe traces agree to
// rounding, far below the discretisation error.
TEST(Ordering, RunsGiveTheSameFieldsInEveryOrdering)
{
  testing::ScratchDirectory scratch("ordering");
  std::vector<std::vector<double>> traces;
  for (std::string const ordering : {"none", "hilbert", "rcm"}) {
    auto const config = scratch.path() / ("box_" + ordering + ".toml");
    std::ofstream(config) << "[mesh]\ngenerate = \"box\"\nsize = [1.0, 0.8, 0.6]\nh = 0.2\nreproducible = true\n"
                          << "ordering = \"" << ordering << "\"\n"
                          << R"([[source]]
kind = "dipole"
position = [0.31, 0.23, 0.17]
direction = [0.5, 0.6, 0.62]
waveform = "modulated_gaussian"
frequency = 300e6
t0 = 3e-9
sigma = 1e-9

[time]
steps = 600
dt = 2e-11

[[probe]]
name = "p"
position = [0.63, 0.41, 0.29]

[output]
progress = false
)";
    auto const output = (scratch.path() / ("run_" + ordering + ".h5")).string();
    testing::run_config(config.string(), output);
    traces.push_back(io::probe_component(io::read_probe(output, "p", 'E'), 'z'));
  }
  double peak = 0;
  for (double value : traces[0]) peak = std::max(peak, std::abs(value));
  ASSERT_GT(peak, 0);
  for (std::size_t k = 1; k < traces.size(); ++k) {
    ASSERT_EQ(traces[k].size(), traces[0].size());
    double worst = 0;
    for (std::size_t i = 0; i < traces[0].size(); ++i) worst = std::max(worst, std::abs(traces[k][i] - traces[0][i]));
    // 600 steps of a stable scheme from sums in another order: rounding grows about linearly,
    // 600 x 1e-16 relative; 1e-10 still tells any change of operator or time step.
    EXPECT_LT(worst, 1e-10 * peak) << (k == 1 ? "hilbert" : "rcm");
  }
}

} // namespace
} // namespace dgatd::mesh
