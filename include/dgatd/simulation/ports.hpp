#pragma once
// The modes of a configuration's port surfaces (docs/method/port_modes.md): the surface's
// cross-section in the mesh, with the tets' materials behind it and the [boundary] pec sheets that
// cross it among its conductors, and its lowest modes. A mode port (`[[source]] kind = "mode_port"`)
// launches one of them; `dgatd ports` lists them.

#include "dgatd/dga/cross_section.hpp"
#include "dgatd/dga/operators.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/mesh/mesh.hpp"
#include "dgatd/solver/port_mode.hpp"

#include <string>
#include <vector>

namespace dgatd::simulation {

struct PortModes {
  dga::CrossSection section;
  std::vector<solver::PortMode> modes; // the lowest, TEM first, then by increasing cutoff
  double seconds = 0;                  // the section's set-up and solves
};

// The count lowest modes of physical surface tag of mesh (materials: absolute eps and mu per tet), on
// the default execution space. What the eigen-solver leaves open is fixed by the fields alone, so
// that the ports at the two ends of a guide agree: a TE or TM mode's sign (its mean field along the
// plane's projection of x, then y, else the largest entry of its first moment positive) and a
// degenerate pair's polarization (the first's mean field along that direction, the second's across
// it; a hollow guide is solved for one mode beyond count, so that the last one's partner is seen). Throws dgatd::Error
// at where (a configuration line) for a surface that is no cross-section a mode can be solved on (not planar, a mixed
// fill of a hollow guide, ...).
PortModes port_modes(io::Config const& config, mesh::Mesh const& mesh, dga::Materials const& materials, int tag,
                     int count, std::string const& where);

} // namespace dgatd::simulation
