#include "dgatd/io/input/capability_tables.hpp"

namespace dgatd::io {

#define DGATD_CAPABILITY(NAME) CapabilityTable NAME##_table();
#include "capabilities/registry.def"
#undef DGATD_CAPABILITY

std::vector<CapabilityTable> const& capability_tables()
{
#define DGATD_CAPABILITY(NAME) NAME##_table(),
  static std::vector<CapabilityTable> const tables{
#include "capabilities/registry.def"
  };
#undef DGATD_CAPABILITY
  return tables;
}

} // namespace dgatd::io
