#pragma once
// The surface current J_s = n x h and charge rho_s = n . d on named PEC surfaces, as snapshots and as
// Fourier transforms at chosen frequencies (docs/method/surface_currents.md). Its configuration
// table [[surface_current]] is read in table.cpp, its model (what runs with what, the faces and
// their stencil, the set-up) is in model.cpp, its term in term.hpp.

#include <string>
#include <vector>

namespace dgatd::capabilities {

// One [[surface_current]] item.
struct SurfaceCurrent {
  std::string name;                  // of its record, /surface_currents/NAME
  std::vector<std::string> surfaces; // physical surfaces, PEC
  std::vector<double> frequencies;   // Hz, of the transforms; may be empty (snapshots only)
};

} // namespace dgatd::capabilities
