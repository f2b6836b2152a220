#pragma once
// The run's side of the capabilities that live in their own homes (src/capabilities/,
// docs/developer/adding_a_capability.md): each one's line of the capabilities table and how it adds
// its terms to a run, in the order of src/capabilities/registry.def. Private to simulation/.

#include "dgatd/io/input/config.hpp"
#include "dgatd/simulation/capabilities.hpp"
#include "dgatd/solver/formulation.hpp"
#include "placement.hpp"

#include <functional>
#include <string>
#include <vector>

namespace dgatd::simulation {

struct CapabilityModel {
  // Its configuration table's name (io::Config::capability_items): the name it is registered by in
  // src/capabilities/registry.def, set by capability_models().
  std::string table;
  // Its line of the capabilities table; used_at left empty stands for the lines of its table's items.
  Capability row;
  // Adds the terms of the table's items to the formulation of the problem placement steps: the whole
  // mesh, or a rank's part in the modes the row lets run over ranks. Collective over ranks.
  std::function<void(io::Config const& config, std::vector<io::CapabilityItem> const& items, Placement const& placement,
                     solver::Formulation& formulation)>
      add_terms;
  // The time shapes of the table's items, where they drive the fields (the run's watchdog arms once
  // every source has peaked); empty for a capability that drives none.
  std::function<std::vector<solver::Waveform>(std::vector<io::CapabilityItem> const& items)> waveforms;
};

std::vector<CapabilityModel> const& capability_models();

} // namespace dgatd::simulation
