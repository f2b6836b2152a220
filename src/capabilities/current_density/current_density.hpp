#pragma once
// A uniform impressed current density J(t) = J0 g(t) in named volumes, with the work it does on the
// field recorded per step: the worked example of docs/developer/adding_a_capability.md. Its
// configuration table [[current_density]] is read in table.cpp, its model (what runs with what,
// the stencil, the set-up) is in model.cpp, its term in term.hpp.

#include "dgatd/solver/waveform.hpp"
#include "dgatd/vec3.hpp"

#include <string>
#include <vector>

namespace dgatd::capabilities {

// One [[current_density]] item.
struct CurrentDensity {
  std::string name;                 // of its record, /series/NAME
  std::vector<std::string> regions; // physical volumes
  Vec3 density{};                   // J0, A/m^2
  solver::Waveform waveform;        // g(t), amplitude included
};

} // namespace dgatd::capabilities
