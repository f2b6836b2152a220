#pragma once
// Where points lie in the mesh, through the geometry's tet bins (mesh/tet_bins.hpp): the tet that
// holds a point, and the edge whose midpoint is nearest to it. Both answer exactly what a scan over
// every tet or edge in increasing id would, ties included.

#include "dgatd/mesh/view.hpp"

#include <limits>

namespace dgatd::mesh {

// The rule that picks the tet containing x from tets considered in increasing id: the first with
// the largest smallest barycentric coordinate, among the tets whose bounding sphere holds x,
// accepted when that coordinate is >= -1e-9 (x on a face or a vertex, up to rounding).
class ContainingTet {
public:
  ContainingTet(MeshView const& m, Vec3 const& x) : m_(m), x_(x) {}
  void consider(Index t);
  // The tet, or -1 when none of those considered holds x.
  Index result() const { return best_min_ >= -1e-9 ? best_ : -1; }

private:
  MeshView m_;
  Vec3 x_;
  Index best_ = -1;
  double best_min_ = -std::numeric_limits<double>::infinity();
};

// The tet containing x (ContainingTet over every tet), or -1 when x lies outside the mesh.
Index locate_tet(MeshView const& m, Vec3 const& x);

// The edge whose midpoint is nearest to x, the lowest id among equally near ones; -1 for a mesh
// without edges.
Index nearest_edge(MeshView const& m, Vec3 const& x);

} // namespace dgatd::mesh
