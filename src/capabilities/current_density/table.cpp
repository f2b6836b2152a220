// [[current_density]]: how a configuration asks for a uniform impressed current density.

#include "current_density.hpp"

#include "dgatd/io/input/capability_tables.hpp"
#include "io/input/config_tables.hpp"

#include <any>

namespace dgatd::io {
namespace {

std::any read_current_density(detail::TableReader const& t, double /*scale: no lengths*/)
{
  capabilities::CurrentDensity item;
  item.name = t.string("name");
  if (item.name.empty() || item.name.find('/') != std::string::npos)
    t.fail("name", "must be a name without '/' (its record is /series/NAME in the output)");
  item.regions = detail::volume_names(t, "region");
  item.density = t.vec3("density");
  t.require("waveform", " (gaussian, modulated_gaussian or sine)");
  item.waveform = detail::read_waveform(t);
  return item;
}

} // namespace

CapabilityTable current_density_table()
{
  CapabilityTable table;
  table.schema.keys = {"name", "region", "density", "amplitude", "waveform", "t0", "sigma", "frequency", "ramp"};
  table.read = read_current_density;
  return table;
}

} // namespace dgatd::io
