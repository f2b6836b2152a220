#pragma once
// A spatial index of the tets, built once with the geometry (ArborX's shape: build once, then ask
// which tets may hold a point and which lie near it): a uniform grid of cubic bins over the mesh,
// each listing, in increasing id, the tets whose bounding sphere (about the barycentre, through the
// farthest vertex) reaches into it. A uniform grid suits the near-uniform cells of these meshes;
// mesh/point_location.hpp answers the queries.

#include "dgatd/mesh/mesh.hpp"

#include <array>
#include <vector>

namespace dgatd::mesh {

struct TetBins {
  Vec3 origin{};               // the lower corner of bin (0, 0, 0)
  double bin_size = 0;         // the edge of a bin
  std::array<Index, 3> bins{}; // along x, y and z; all zero for a mesh without tets
  // Bin -> tet CSR, bins numbered x fastest.
  std::vector<Index> b2t_offsets;
  std::vector<Index> b2t;

  Index num_bins() const { return bins[0] * bins[1] * bins[2]; }
  // The bin coordinate of x along axis c, clamped to the grid.
  Index coordinate(double x, int c) const;
  Index bin(std::array<Index, 3> const& b) const { return b[0] + bins[0] * (b[1] + bins[1] * b[2]); }
};

TetBins build_tet_bins(Mesh const& mesh, std::vector<Vec3> const& tet_barycentre);

} // namespace dgatd::mesh
