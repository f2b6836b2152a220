#include "dgatd/mesh/ordering.hpp"

#include "dgatd/host_parallel.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <utility>

namespace dgatd::mesh {
namespace {

constexpr int hilbert_bits = 21; // per axis: three axes fill a 63-bit key
constexpr std::array<Ordering, 3> all_orderings{Ordering::hilbert, Ordering::rcm, Ordering::none};

// Index along the Hilbert curve of a point of the 2^21-cube, after J. Skilling, "Programming the
// Hilbert curve", AIP Conf. Proc. 707 (2004): the axes are turned into the curve's transposed form
// (undo the excess work, then Gray-code), whose bits, read across the axes from the top, are the index.
std::uint64_t hilbert_index(std::array<std::uint32_t, 3> x)
{
  std::uint32_t const top = 1u << (hilbert_bits - 1);
  for (std::uint32_t q = top; q > 1; q >>= 1) {
    std::uint32_t const lower = q - 1;
    for (int i = 0; i < 3; ++i) {
      if (x[i] & q) {
        x[0] ^= lower;
      } else {
        std::uint32_t const swapped = (x[0] ^ x[i]) & lower;
        x[0] ^= swapped;
        x[i] ^= swapped;
      }
    }
  }
  for (int i = 1; i < 3; ++i) x[i] ^= x[i - 1];
  std::uint32_t flip = 0;
  for (std::uint32_t q = top; q > 1; q >>= 1)
    if (x[2] & q) flip ^= q - 1;
  for (auto& axis : x) axis ^= flip;
  std::uint64_t index = 0;
  for (int bit = hilbert_bits - 1; bit >= 0; --bit)
    for (int i = 0; i < 3; ++i) index = index << 1 | ((x[i] >> bit) & 1u);
  return index;
}

// stable_ranks() for tets keyed by their sorted new vertex ids: a stable counting sort by the lowest id, then
// each small bucket (the tets whose lowest vertex it is) sorted on the host's threads. Same ranks as
// a stable sort of the whole, without its serial pass over every tet.
std::vector<Index> tet_ranks(std::vector<std::array<Index, 4>> const& keys, std::size_t num_vertices)
{
  std::vector<std::size_t> offsets(num_vertices + 1, 0);
  for (auto const& key : keys) ++offsets[static_cast<std::size_t>(key[0]) + 1];
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
  std::vector<Index> order(keys.size());
  {
    std::vector<std::size_t> next(offsets.begin(), offsets.end() - 1);
    for (std::size_t t = 0; t < keys.size(); ++t) order[next[keys[t][0]]++] = static_cast<Index>(t);
  }
  std::vector<Index> rank(keys.size());
  host_parallel_for("dgatd::ordering::tet_buckets", static_cast<std::int64_t>(num_vertices), [&](std::int64_t v) {
    auto const first = order.begin() + static_cast<std::ptrdiff_t>(offsets[v]);
    auto const last = order.begin() + static_cast<std::ptrdiff_t>(offsets[v + 1]);
    std::stable_sort(first, last, [&keys](Index a, Index b) { return keys[a] < keys[b]; });
    for (auto it = first; it != last; ++it) rank[*it] = static_cast<Index>(it - order.begin());
  });
  return rank;
}

// Positions quantised on one scale for all three axes (a long domain keeps its aspect), then their
// places along the curve.
std::vector<Index> hilbert_vertex_order(Mesh const& mesh)
{
  Vec3 low{HUGE_VAL, HUGE_VAL, HUGE_VAL};
  Vec3 high{-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (auto const& p : mesh.points)
    for (int i = 0; i < 3; ++i) {
      low[i] = std::min(low[i], p[i]);
      high[i] = std::max(high[i], p[i]);
    }
  double const extent = std::max({high[0] - low[0], high[1] - low[1], high[2] - low[2]});
  double const cells = static_cast<double>((1u << hilbert_bits) - 1);
  double const scale = extent > 0 ? cells / extent : 0.0;
  std::vector<std::uint64_t> keys(mesh.points.size());
  host_parallel_for("dgatd::ordering::hilbert", static_cast<std::int64_t>(keys.size()), [&](std::int64_t v) {
    std::array<std::uint32_t, 3> cell{};
    for (int i = 0; i < 3; ++i)
      cell[i] = static_cast<std::uint32_t>(std::min(cells, std::max(0.0, (mesh.points[v][i] - low[i]) * scale)));
    keys[v] = hilbert_index(cell);
  });
  return stable_ranks(keys);
}

// The vertex graph (vertices joined by a tet edge) as CSR, each row increasing.
void vertex_graph(Mesh const& mesh, std::vector<Index>& offsets, std::vector<Index>& neighbours)
{
  std::size_t const n = mesh.points.size();
  offsets.assign(n + 1, 0);
  for (auto const& tet : mesh.tets)
    for (Index v : tet) offsets[static_cast<std::size_t>(v) + 1] += 3;
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
  std::vector<Index> all(static_cast<std::size_t>(offsets.back()));
  std::vector<Index> next(offsets.begin(), offsets.end() - 1);
  for (auto const& tet : mesh.tets)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        if (a != b) all[static_cast<std::size_t>(next[tet[a]]++)] = tet[b];
  neighbours.clear();
  std::vector<Index> unique_offsets(n + 1, 0);
  for (std::size_t v = 0; v < n; ++v) {
    auto const first = all.begin() + offsets[v];
    auto const last = all.begin() + offsets[v + 1];
    std::sort(first, last);
    neighbours.insert(neighbours.end(), first, std::unique(first, last));
    unique_offsets[v + 1] = static_cast<Index>(neighbours.size());
  }
  offsets = std::move(unique_offsets);
}

// Reverse Cuthill-McKee. Each connected piece starts from a pseudo-peripheral vertex (George and
// Liu: repeat a breadth-first search from the smallest-degree vertex of the last level while the
// depth grows); a vertex's unvisited neighbours are queued by increasing degree, then id.
std::vector<Index> rcm_vertex_order(Mesh const& mesh)
{
  std::vector<Index> offsets, neighbours;
  vertex_graph(mesh, offsets, neighbours);
  Index const n = mesh.num_vertices();
  auto degree = [&](Index v) { return offsets[v + 1] - offsets[v]; };
  auto by_degree = [&](Index a, Index b) { return degree(a) != degree(b) ? degree(a) < degree(b) : a < b; };

  std::vector<Index> level(static_cast<std::size_t>(n), -1);
  std::vector<Index> queue;
  // Breadth-first levels of the piece from start; returns its depth and leaves the last level's
  // smallest-degree vertex in deepest. Only the piece's own vertices are reset afterwards.
  auto search = [&](Index start, Index& deepest) {
    queue.assign(1, start);
    level[start] = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      Index const v = queue[head];
      for (Index k = offsets[v]; k < offsets[v + 1]; ++k)
        if (level[neighbours[k]] < 0) {
          level[neighbours[k]] = level[v] + 1;
          queue.push_back(neighbours[k]);
        }
    }
    Index const depth = level[queue.back()];
    deepest = queue.back();
    for (Index v : queue)
      if (level[v] == depth && by_degree(v, deepest)) deepest = v;
    for (Index v : queue) level[v] = -1;
    return depth;
  };

  std::vector<char> placed(static_cast<std::size_t>(n), 0);
  std::vector<Index> order;
  order.reserve(static_cast<std::size_t>(n));
  std::vector<Index> candidates;
  for (Index seed = 0; seed < n; ++seed) {
    if (placed[seed]) continue;
    Index deepest = seed;
    search(seed, deepest); // queue: the piece's vertices
    Index start = seed;
    for (Index v : queue)
      if (by_degree(v, start)) start = v;
    Index depth = search(start, deepest);
    for (;;) {
      Index candidate_deepest = deepest;
      Index const candidate_depth = search(deepest, candidate_deepest);
      if (candidate_depth <= depth) break;
      start = deepest;
      depth = candidate_depth;
      deepest = candidate_deepest;
    }
    std::size_t head = order.size();
    order.push_back(start);
    placed[start] = 1;
    for (; head < order.size(); ++head) {
      Index const v = order[head];
      candidates.clear();
      for (Index k = offsets[v]; k < offsets[v + 1]; ++k)
        if (!placed[neighbours[k]]) {
          placed[neighbours[k]] = 1;
          candidates.push_back(neighbours[k]);
        }
      std::sort(candidates.begin(), candidates.end(), by_degree);
      order.insert(order.end(), candidates.begin(), candidates.end());
    }
  }
  std::vector<Index> new_vertex(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < order.size(); ++k) new_vertex[order[k]] = n - 1 - static_cast<Index>(k);
  return new_vertex;
}

} // namespace

std::string ordering_name(Ordering ordering)
{
  switch (ordering) {
  case Ordering::none:
    return "none";
  case Ordering::hilbert:
    return "hilbert";
  case Ordering::rcm:
    return "rcm";
  }
  return "unknown";
}

std::vector<std::string> ordering_names()
{
  std::vector<std::string> names;
  for (auto const ordering : all_orderings) names.push_back(ordering_name(ordering));
  return names;
}

std::optional<Ordering> ordering_named(std::string const& name)
{
  for (auto const ordering : all_orderings)
    if (ordering_name(ordering) == name) return ordering;
  return std::nullopt;
}

Renumbering locality_renumbering(Mesh const& mesh, Ordering ordering)
{
  Renumbering r;
  if (ordering == Ordering::none) {
    r.new_vertex.resize(mesh.points.size());
    std::iota(r.new_vertex.begin(), r.new_vertex.end(), Index{0});
    r.new_tet.resize(mesh.tets.size());
    std::iota(r.new_tet.begin(), r.new_tet.end(), Index{0});
    return r;
  }
  r.new_vertex = ordering == Ordering::hilbert ? hilbert_vertex_order(mesh) : rcm_vertex_order(mesh);
  std::vector<std::array<Index, 4>> keys(mesh.tets.size());
  host_parallel_for("dgatd::ordering::tet_keys", static_cast<std::int64_t>(keys.size()), [&](std::int64_t t) {
    for (int i = 0; i < 4; ++i) keys[t][i] = r.new_vertex[mesh.tets[t][i]];
    std::sort(keys[t].begin(), keys[t].end());
  });
  r.new_tet = tet_ranks(keys, mesh.points.size());
  return r;
}

void renumber(Mesh& mesh, Renumbering const& r)
{
  // Permutations: every item is written once, so the threads never share a destination.
  std::vector<Vec3> points(mesh.points.size());
  host_parallel_for("dgatd::ordering::points", static_cast<std::int64_t>(points.size()),
                    [&](std::int64_t v) { points[r.new_vertex[v]] = mesh.points[v]; });
  mesh.points = std::move(points);

  std::vector<std::array<Index, 4>> tets(mesh.tets.size());
  std::vector<int> regions(mesh.tet_region.size());
  host_parallel_for("dgatd::ordering::tets", static_cast<std::int64_t>(tets.size()), [&](std::int64_t t) {
    for (int i = 0; i < 4; ++i) tets[r.new_tet[t]][i] = r.new_vertex[mesh.tets[t][i]];
    if (!regions.empty()) regions[r.new_tet[t]] = mesh.tet_region[t];
  });
  mesh.tets = std::move(tets);
  mesh.tet_region = std::move(regions);
  for (auto& triangle : mesh.boundary_triangles)
    for (auto& v : triangle) v = r.new_vertex[v];
  for (auto& segment : mesh.curve_segments)
    for (auto& v : segment) v = r.new_vertex[v];
}

void order_for_locality(Mesh& mesh, Ordering ordering)
{
  if (ordering != Ordering::none) renumber(mesh, locality_renumbering(mesh, ordering));
}

} // namespace dgatd::mesh
