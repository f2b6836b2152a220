#pragma once
// Gmsh .msh files (2.2 and 4.1, ASCII and binary) in and out through the Gmsh SDK, and .geo scripts in.

#include "dgatd/mesh/mesh.hpp"

#include <string>

namespace dgatd::mesh {

// Reads first-order tetrahedra (the volume mesh, regions from physical volumes) and the triangles
// of physical surfaces (boundary tags), multiplies coordinates by scale (mesh units to metres),
// then validates and orients the result (validate_and_orient). Throws dgatd::Error naming the
// file, the element and the fix for a missing, unreadable or corrupt file, no tetrahedra, or
// second-order / non-tetrahedral volume elements. A Gmsh geometry script (.geo) is meshed first in
// three dimensions with the options it sets (unless it meshes itself), then read likewise.
Mesh read_mesh(std::string const& path, double scale = 1.0);

// Writes mesh as .msh: version "2.2" or "4.1", ASCII or binary.
void write_mesh(Mesh const& mesh, std::string const& path, std::string const& version = "4.1", bool binary = false);

// Reorients inverted tetrahedra (counting them in mesh.reoriented_tets) and refuses degenerate ones
// (volume below a small multiple of the cube of their longest edge), listing the first few ids.
void validate_and_orient(Mesh& mesh);

} // namespace dgatd::mesh
