#include "dgatd/io/input/capability_tables.hpp"

namespace dgatd::io {

#define DGATD_CAPABILITY(NAME) CapabilityTable NAME##_table();
#include "capabilities/registry.def"
#undef DGATD_CAPABILITY

namespace {

// The table as registered: [[name]], an array of tables.
CapabilityTable registered(std::string const& name, CapabilityTable table)
{
  table.schema.name = name;
  table.schema.label = "[[" + name + "]]";
  table.schema.array = true;
  return table;
}

} // namespace

std::vector<CapabilityTable> const& capability_tables()
{
#define DGATD_CAPABILITY(NAME) registered(#NAME, NAME##_table()),
  static std::vector<CapabilityTable> const tables{
#include "capabilities/registry.def"
  };
#undef DGATD_CAPABILITY
  return tables;
}

} // namespace dgatd::io
