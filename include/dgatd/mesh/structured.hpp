#pragma once
// Structured box meshes without Gmsh: every cell of an nx x ny x nz grid split into the six Kuhn
// tetrahedra around its main diagonal, interior vertices optionally jittered. Used by tests and
// benchmarks that need exactly reproducible meshes of any size, fast.

#include "dgatd/mesh/mesh.hpp"

#include <cstdint>

namespace dgatd::mesh {

struct StructuredBox {
  double size[3] = {1.0, 1.0, 1.0}; // metres
  int cells[3] = {4, 4, 4};
  double jitter = 0.0; // interior vertices move by up to jitter x cell size in each coordinate
  std::uint64_t seed = 1;
};

Mesh structured_box(StructuredBox const& box);

// The unit cube of cells^3 cells whose grid lines are spaced geometrically along each axis, the last
// cell `ratio` times the first: a mesh graded ratio:1 (the local time stepping's tests and benchmark).
Mesh graded_box(int cells, double ratio);

} // namespace dgatd::mesh
