#pragma once
// A strict reading of a .msh file before Gmsh gets it. Gmsh 4.8's MSH readers trust the file: a
// physical name's dimension indexes a four-entry array, node and element blocks larger than their
// section's total overrun the reader's caches (both write out of bounds), and any other
// inconsistency raises an exception half-way that leaks the open file and the elements built so
// far. So read_mesh hands Gmsh only files this check has read through as Gmsh would and found
// consistent; anything else stops here with one line naming the file, the line or byte, the
// problem and the fix.

#include <string>

namespace dgatd::mesh::detail {

// Accepts MSH 2.2 and 4.1, ASCII and binary (little-endian, 8-byte doubles): $MeshFormat first,
// then at most one each of $PhysicalNames, $Entities (4.1), $Nodes and $Elements, and comment
// sections (any other name, text only). Node, element and entity tags must be positive and
// consistent (every element's nodes and entity defined, block sizes adding up to the section's
// totals), element types those of first- and second-order meshes (points to pyramids), and lines
// within Gmsh's line buffers. Sections dgatd does not use (periodic nodes, partitions,
// parametrizations, post-processing data) are refused. Throws dgatd::Error.
void check_msh_file(std::string const& path);

} // namespace dgatd::mesh::detail
