#pragma once
// A mesh with its DGA complex and geometric factors, by reference: what the mesh queries
// (point location, surfaces) and the solver's stencils read.

#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/mesh.hpp"
#include "dgatd/mesh/topology.hpp"

namespace dgatd::mesh {

struct MeshView {
  Mesh const& mesh;
  Topology const& topology;
  Geometry const& geometry;
};

} // namespace dgatd::mesh
