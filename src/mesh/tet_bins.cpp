#include "dgatd/mesh/tet_bins.hpp"

#include "dgatd/host_parallel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace dgatd::mesh {
namespace {

// The box around tet t's bounding sphere, widened so that it holds every point the point location's
// sphere test (squared distance <= reach (1 + 1e-9), mesh/point_location.cpp) lets through, whatever
// the rounding of either.
struct Box {
  Vec3 low, high;
};
Box sphere_box(Mesh const& mesh, Index t, Vec3 const& centre)
{
  double reach = 0;
  double magnitude = 0;
  for (Index v : mesh.tets[t]) reach = std::max(reach, squared_distance(mesh.points[v], centre));
  for (double c : centre) magnitude = std::max(magnitude, std::abs(c));
  double const radius = std::sqrt(reach) * (1 + 1e-6) + 1e-12 * magnitude;
  Box box;
  for (int c = 0; c < 3; ++c) {
    box.low[c] = centre[c] - radius;
    box.high[c] = centre[c] + radius;
  }
  return box;
}

} // namespace

Index TetBins::coordinate(double x, int c) const
{
  double const b = std::floor((x - origin[c]) / bin_size);
  if (!(b > 0)) return 0; // below the grid, or not a number
  return static_cast<Index>(std::min(b, static_cast<double>(bins[c] - 1)));
}

TetBins build_tet_bins(Mesh const& mesh, std::vector<Vec3> const& tet_barycentre)
{
  TetBins index;
  Index const num_tets = mesh.num_tets();
  if (num_tets == 0) {
    index.b2t_offsets.assign(1, 0);
    return index;
  }
  std::vector<Box> boxes(static_cast<std::size_t>(num_tets));
  host_parallel_for("dgatd::tet_bins::boxes", num_tets,
                    [&](std::int64_t t) { boxes[t] = sphere_box(mesh, static_cast<Index>(t), tet_barycentre[t]); });
  Vec3 low = boxes[0].low, high = boxes[0].high;
  double mean_width = 0;
  for (auto const& box : boxes)
    for (int c = 0; c < 3; ++c) {
      low[c] = std::min(low[c], box.low[c]);
      high[c] = std::max(high[c], box.high[c]);
      mean_width += (box.high[c] - box.low[c]) / (3.0 * num_tets);
    }
  // Bins twice as wide as a typical sphere's box: a tet lands in about 3.4 bins, a bin holds a few
  // hundred; never more bins than tets.
  index.origin = low;
  index.bin_size = mean_width > 0 ? 2 * mean_width : 1.0; // 1 m for tets shrunk to a point
  auto bins_along = [&](int c) { return std::max(1.0, std::ceil((high[c] - low[c]) / index.bin_size)); };
  while (bins_along(0) * bins_along(1) * bins_along(2) > num_tets) index.bin_size *= 1.25;
  for (int c = 0; c < 3; ++c) index.bins[c] = static_cast<Index>(bins_along(c));

  // Each tet in every bin its box reaches into, bins filled in increasing tet id.
  auto for_each_bin = [&](Box const& box, auto&& visit) {
    std::array<Index, 3> first, last;
    for (int c = 0; c < 3; ++c) {
      first[c] = index.coordinate(box.low[c], c);
      last[c] = index.coordinate(box.high[c], c);
    }
    for (Index k = first[2]; k <= last[2]; ++k)
      for (Index j = first[1]; j <= last[1]; ++j)
        for (Index i = first[0]; i <= last[0]; ++i) visit(index.bin({i, j, k}));
  };
  index.b2t_offsets.assign(static_cast<std::size_t>(index.num_bins()) + 1, 0);
  for (auto const& box : boxes) for_each_bin(box, [&](Index b) { ++index.b2t_offsets[b + 1]; });
  for (Index b = 0; b < index.num_bins(); ++b) index.b2t_offsets[b + 1] += index.b2t_offsets[b];
  index.b2t.resize(static_cast<std::size_t>(index.b2t_offsets.back()));
  std::vector<Index> fill(index.b2t_offsets.begin(), index.b2t_offsets.end() - 1);
  for (Index t = 0; t < num_tets; ++t) for_each_bin(boxes[t], [&](Index b) { index.b2t[fill[b]++] = t; });
  return index;
}

} // namespace dgatd::mesh
