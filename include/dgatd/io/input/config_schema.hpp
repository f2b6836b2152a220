#pragma once
// The tables of a run configuration and the keys each accepts, as data: the parser checks every
// table against it (an unknown key names the known ones), and the configuration reference
// (docs/user/configuration.md) is tested against it, so the two cannot drift apart.

#include <string>
#include <vector>

namespace dgatd::io {

struct TableSchema {
  // How the file and the messages write the table: "[mesh]", "[[source]]", "[mesh] inner".
  std::string label;
  // The top-level key ("mesh"), or empty for a table nested in another (its label names the parent).
  std::string name;
  bool array = false; // written [[name]], any number of times
  std::vector<std::string> keys;
};

// Every table, top-level ones first in the order the reference documents them.
std::vector<TableSchema> const& config_schema();
// The table labelled label; std::logic_error when there is none (a programming error).
TableSchema const& table_schema(std::string const& label);

} // namespace dgatd::io
