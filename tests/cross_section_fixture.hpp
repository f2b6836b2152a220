#pragma once
// Port cross-sections for the mode solver's tests: a 2D section drawn with Gmsh's built-in kernel,
// extruded one layer into a thin slab (one layer of prisms, each cut into three tets), read with
// mesh::read_mesh. The section's surfaces are the list port[] of the script given; its bottom face is
// the physical surface "port", and the script after the extrusion names the physical volumes (and
// any PEC sheet) with `In BoundingBox` queries, the slab lying in 0 <= z <= thickness.

#include "scratch_directory.hpp"

#include "dgatd/mesh/gmsh_io.hpp"

#include <string>

namespace dgatd::testing {

inline mesh::Mesh extruded_section(ScratchDirectory const& scratch, std::string const& name, std::string const& section,
                                   double thickness, std::string const& groups)
{
  // Frontal-Delaunay in 2D (Gmsh's default, named so the meshes do not move with it) is deterministic;
  // the extrusion is structured.
  auto const path = scratch.write(name + ".geo", section + "slab[] = Extrude {0, 0, " + std::to_string(thickness) +
                                                     "} { Surface{port[]}; Layers{1}; };\n"
                                                     "Physical Surface(\"port\") = {port[]};\ne = 1e-9;\n" +
                                                     groups + "Mesh.Algorithm = 6;\n");
  return mesh::read_mesh(path);
}

} // namespace dgatd::testing
