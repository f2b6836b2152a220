#pragma once
// The configuration layer's side of physics errors: a dgatd::ModelError (facts in the method's
// words) reworded as the one-line dgatd::Error a user of the configuration file reads, at the line
// of the table that asked for the item and with advice in the configuration's keys.

#include "dgatd/error.hpp"
#include "dgatd/io/input/config.hpp"

#include <string>

namespace dgatd::simulation {

// The name the layer of a [[pml]] table goes by in the physics (and so in its ModelErrors): its
// region's name, else its tag.
std::string layer_name(io::Pml const& pml);

// The name a plane wave of a [[source]] table goes by in the physics: its total-field region's
// volumes, joined by ", ".
std::string plane_wave_name(io::Source const& source);

// A matched layer at its [[pml]] line, a matched port at its [[source]] line, a time step at the
// file (it has no line of its own), each named as the configuration names it.
Error config_error(io::Config const& config, ModelError const& error);

} // namespace dgatd::simulation
