#pragma once
// A conductor of an electrostatic problem (`dgatd statics`, docs/method/electrostatics.md): the
// physical surfaces that bound it, held at a potential or carrying a charge. Its configuration table
// [[conductor]] is read in table.cpp; model.cpp gives its line of the capabilities table and refuses
// it in a time-domain run; the solve is simulation/statics.hpp's.

#include <optional>
#include <string>
#include <vector>

namespace dgatd::capabilities {

// One [[conductor]] item; exactly one of potential and charge is set.
struct Conductor {
  std::string name;
  std::vector<std::string> surfaces; // physical surfaces
  std::optional<double> potential;   // V
  std::optional<double> charge;      // C
};

} // namespace dgatd::capabilities
