#pragma once
// Perfectly matched layers from the mesh's geometry: a layer is a set of tets (a physical volume);
// its depth d(x) is the distance from x to the surface where it meets the rest of the mesh, its
// direction n(x) points from the nearest point of that surface to x, and its thickness L is the
// depth at which it ends across that direction (its outer surface facing n). The stretching
// profile alpha(d) = alpha_max min(d / L, 1)^order is then sampled at the tet barycentres
// (dga::Stretching; docs/open_regions.md, section 3).

#include "dgatd/dga/operators.hpp"

#include <string>
#include <vector>

namespace dgatd::dga {

struct PmlProfile {
  int order = 3;
  double reflection = 1e-6; // at normal incidence, there and back
  // A layer that bends (a shell's edges and corners) is unstable (docs/open_regions.md section 3)
  // and refused unless the user accepts that for a short run.
  bool allow_bends = false;
};

// What a layer turned out to be, for the run's report.
struct PmlLayer {
  std::string name;
  Index num_tets = 0;
  double thickness = 0;    // L, metres
  double element_size = 0; // mean edge length of its tets
  double alpha_max = 0;    // 1/s
};

// Adds the layer of the tets with in_layer[t] != 0 to stretching (the larger alpha wins where two
// layers meet). Throws dgatd::Error at `where` naming the layer when it touches no other region, has
// no outer surface across its depth, or is thinner than two element layers.
PmlLayer add_pml_layer(Stretching& stretching, mesh::Mesh const& mesh, mesh::Topology const& topology,
                       mesh::Geometry const& geometry, Materials const& materials, std::vector<char> const& in_layer,
                       PmlProfile const& profile, std::string const& name, std::string const& where);

} // namespace dgatd::dga
