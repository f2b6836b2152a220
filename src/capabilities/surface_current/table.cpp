// [[surface_current]]: how a configuration asks for the currents on PEC surfaces.

#include "surface_current.hpp"

#include "dgatd/io/input/capability_tables.hpp"
#include "io/input/config_tables.hpp"

#include <any>
#include <cmath>

namespace dgatd::io {
namespace {

std::any read_surface_current(detail::TableReader const& t, double /*scale: no lengths*/)
{
  capabilities::SurfaceCurrent item;
  item.name = t.string("name");
  if (item.name.empty() || item.name.find('/') != std::string::npos)
    t.fail("name", "must be a name without '/' (its record is /surface_currents/NAME in the output)");
  item.surfaces = detail::surface_names(t, "surfaces", ", PEC");
  if (t.has("frequencies")) {
    item.frequencies = t.numbers("frequencies", 1, 64);
    for (double const f : item.frequencies)
      if (!(f > 0 && std::isfinite(f))) t.fail("frequencies", "must be positive frequencies in Hz");
  }
  return item;
}

} // namespace

CapabilityTable surface_current_table()
{
  CapabilityTable table;
  table.schema.keys = {"name", "surfaces", "frequencies"};
  table.read = read_surface_current;
  return table;
}

} // namespace dgatd::io
