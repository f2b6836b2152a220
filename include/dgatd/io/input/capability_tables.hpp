#pragma once
// The configuration tables of the capabilities that live in their own homes (src/capabilities/,
// docs/developer/adding_a_capability.md). Each declares its table's schema and reads one item of it;
// the parser checks and reads the table like its own, and keeps what the capability read, typed by
// it, in Config::capability_items under the table's name.

#include "dgatd/io/input/config_schema.hpp"

#include <any>
#include <functional>
#include <vector>

namespace dgatd::io {

namespace detail {
class TableReader; // io/input/table_reader.hpp, private to the parser and the capabilities' tables
}

struct CapabilityTable {
  // An array of tables, [[NAME]]: the capability gives its keys; capability_tables() names it NAME,
  // as src/capabilities/registry.def registers it.
  TableSchema schema;
  // One item, its keys already checked against the schema; throws dgatd::Error through the reader.
  // scale: [mesh] scale, which multiplies every length.
  std::function<std::any(detail::TableReader const& item, double scale)> read;
};

// In the order of src/capabilities/registry.def.
std::vector<CapabilityTable> const& capability_tables();

} // namespace dgatd::io
