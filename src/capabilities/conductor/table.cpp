// [[conductor]]: how a configuration names the conductors of `dgatd statics`.

#include "conductor.hpp"

#include "dgatd/io/input/capability_tables.hpp"
#include "io/input/config_tables.hpp"

#include <any>
#include <cmath>

namespace dgatd::io {
namespace {

std::any read_conductor(detail::TableReader const& t, double /*scale: no lengths*/)
{
  capabilities::Conductor item;
  item.name = t.string("name");
  if (item.name.empty() || item.name.find('/') != std::string::npos)
    t.fail("name", "must be a name without '/' (it names the conductor's row of the capacitance matrix)");
  item.surfaces = detail::surface_names(t, "surfaces", "");
  if (t.has("potential") == t.has("charge"))
    t.fail_table("[[conductor]] needs exactly one of potential (volts) and charge (coulombs)");
  if (t.has("potential")) item.potential = t.number("potential");
  if (t.has("charge")) item.charge = t.number("charge");
  return item;
}

} // namespace

CapabilityTable conductor_table()
{
  CapabilityTable table;
  table.schema.keys = {"name", "surfaces", "potential", "charge"};
  table.read = read_conductor;
  return table;
}

} // namespace dgatd::io
