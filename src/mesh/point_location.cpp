#include "dgatd/mesh/point_location.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace dgatd::mesh {

void ContainingTet::consider(Index t)
{
  // Cheap rejection: a point of the tet is no farther from its barycentre than its farthest vertex.
  auto const& c = m_.geometry.tet_barycentre[t];
  double reach = 0;
  for (Index v : m_.mesh.tets[t]) reach = std::max(reach, squared_distance(m_.mesh.points[v], c));
  if (squared_distance(x_, c) > reach * (1 + 1e-9)) return;
  auto const lambda = barycentric(m_.mesh, t, x_);
  double const smallest = *std::min_element(lambda.begin(), lambda.end());
  if (smallest > best_min_) {
    best_min_ = smallest;
    best_ = t;
  }
}

Index locate_tet(MeshView const& m, Vec3 const& x)
{
  // Every tet whose bounding sphere holds x is listed, in increasing id, in the bin of x.
  auto const& index = m.geometry.tet_bins;
  ContainingTet search(m, x);
  if (index.num_bins() == 0) return search.result();
  Index const b = index.bin({index.coordinate(x[0], 0), index.coordinate(x[1], 1), index.coordinate(x[2], 2)});
  for (Index i = index.b2t_offsets[b]; i < index.b2t_offsets[b + 1]; ++i) search.consider(index.b2t[i]);
  return search.result();
}

Index nearest_edge(MeshView const& m, Vec3 const& x)
{
  // Rings of bins around the bin of x: an edge's midpoint lies in its tets' spheres, so the tets of
  // the bins searched so far hold every edge whose midpoint lies in them. Stop when every bin
  // outside is farther from x than the nearest midpoint found (with room for rounding, so that no
  // edge outside can be as near and win a tie).
  auto const& index = m.geometry.tet_bins;
  Index best = -1;
  double best_distance = std::numeric_limits<double>::infinity();
  if (index.num_bins() == 0) return best;
  std::array<Index, 3> const centre{index.coordinate(x[0], 0), index.coordinate(x[1], 1), index.coordinate(x[2], 2)};
  for (Index ring = 0;; ++ring) {
    std::array<Index, 3> first, last;
    bool whole_grid = true;
    double gap = std::numeric_limits<double>::infinity();
    for (int c = 0; c < 3; ++c) {
      first[c] = std::max<Index>(0, centre[c] - ring);
      last[c] = std::min<Index>(index.bins[c] - 1, centre[c] + ring);
      whole_grid = whole_grid && first[c] == 0 && last[c] == index.bins[c] - 1;
      double const below = index.origin[c] + first[c] * index.bin_size;
      double const above = index.origin[c] + (last[c] + 1) * index.bin_size;
      double const slack = 1e-12 * (std::abs(x[c]) + std::abs(below) + std::abs(above));
      if (first[c] > 0) gap = std::min(gap, x[c] - below - slack);
      if (last[c] < index.bins[c] - 1) gap = std::min(gap, above - x[c] - slack);
    }
    for (Index k = first[2]; k <= last[2]; ++k)
      for (Index j = first[1]; j <= last[1]; ++j)
        for (Index i = first[0]; i <= last[0]; ++i) {
          bool const on_ring =
              std::max({std::abs(i - centre[0]), std::abs(j - centre[1]), std::abs(k - centre[2])}) == ring;
          if (!on_ring) continue;
          Index const b = index.bin({i, j, k});
          for (Index n = index.b2t_offsets[b]; n < index.b2t_offsets[b + 1]; ++n)
            for (Index e : m.topology.tet_edges[index.b2t[n]]) {
              double const d = squared_distance(x, m.geometry.edge_midpoint[e]);
              if (d < best_distance || (d == best_distance && e < best)) {
                best_distance = d;
                best = e;
              }
            }
        }
    if (whole_grid || (best >= 0 && gap > 0 && gap * gap > best_distance * (1 + 1e-9))) return best;
  }
}

} // namespace dgatd::mesh
