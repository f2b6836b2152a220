// The configuration reference a user reads (docs/user/configuration.md) documents exactly the keys
// the parser accepts: every table of config_schema() has its section with one row per key, and the
// reference names no table or key the parser would refuse. The parser's known keys are the schema's,
// which the second test checks through the parser's own message for an unknown key.
#include "dgatd/error.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/io/input/config_schema.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <string>

namespace {

using dgatd::io::config_schema;

std::string known_keys(dgatd::io::TableSchema const& table)
{
  std::string known;
  for (auto const& key : table.keys) known += (known.empty() ? "" : ", ") + key;
  return known;
}

// The table a heading "## `[table]`" or "### `[table] inner`" names, or nothing. (String
// matching, not std::regex: GCC 12 warns inside <regex> at -O1 with the sanitizers, which -Werror
// turns into a failed sanitizer build.)
std::string heading_table(std::string line)
{
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  for (std::string const prefix : {"## `", "### `"})
    if (line.rfind(prefix, 0) == 0 && line.size() > prefix.size() + 1 && line[prefix.size()] == '[' &&
        line.back() == '`')
      return line.substr(prefix.size(), line.size() - prefix.size() - 1);
  return "";
}

// The key a table row "| `key` | ..." documents, or nothing.
std::string row_key(std::string const& line)
{
  if (line.rfind("| `", 0) != 0) return "";
  auto const end = line.find("` |", 3);
  if (end == std::string::npos || end == 3) return "";
  std::string const key = line.substr(3, end - 3);
  bool const plain = std::all_of(key.begin(), key.end(),
                                 [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
  return plain ? key : "";
}

// The sections of the reference: a heading naming a table opens one, and each table row in it
// documents a key.
std::map<std::string, std::multiset<std::string>> documented_keys(std::string const& path)
{
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::map<std::string, std::multiset<std::string>> sections;
  std::string section, line;
  while (std::getline(in, line)) {
    if (auto const table = heading_table(line); !table.empty()) {
      section = table;
      EXPECT_EQ(sections.count(section), 0u) << path << ": two sections for " << section;
      sections[section];
    } else if (line.rfind("#", 0) == 0) {
      section.clear(); // any other heading ends a table's section
    } else if (auto const key = row_key(line); !section.empty() && !key.empty()) {
      sections[section].insert(key);
    }
  }
  return sections;
}

TEST(ConfigReference, DocumentsEveryKeyTheParserAccepts)
{
  std::string const path = std::string(DGATD_SOURCE_DIR) + "/docs/user/configuration.md";
  auto const documented = documented_keys(path);
  for (auto const& table : config_schema()) {
    auto const section = documented.find(table.label);
    if (section == documented.end()) {
      ADD_FAILURE() << path << " has no section ## `" << table.label << "`";
      continue;
    }
    for (auto const& key : table.keys)
      EXPECT_EQ(section->second.count(key), 1u)
          << path << ", " << table.label << ": key '" << key << "' must have exactly one row";
    for (auto const& key : section->second)
      EXPECT_NE(std::find(table.keys.begin(), table.keys.end(), key), table.keys.end())
          << path << ", " << table.label << ": documents '" << key << "', which the parser refuses";
  }
  for (auto const& [label, keys] : documented) {
    bool const known = std::any_of(config_schema().begin(), config_schema().end(),
                                   [&label = label](auto const& table) { return table.label == label; });
    EXPECT_TRUE(known) << path << " documents the table " << label << ", which the parser refuses";
  }
}

// A configuration with every top-level table once: the unknown key added to one of them is refused
// with the schema's keys listed as the known ones.
TEST(ConfigReference, TheParserKnowsTheSchemasKeys)
{
  for (auto const& table : config_schema()) {
    if (table.name.empty()) continue; // nested: [mesh] inner, below
    std::string text = "[mesh]\ngenerate = \"box\"\nsize = [1, 1, 1]\nh = 0.5\n[time]\nsteps = 1\n";
    std::string const opening = table.array ? "[[" + table.name + "]]" : "[" + table.name + "]";
    if (table.name == "mesh" || table.name == "time")
      text.insert(text.find(opening) + opening.size() + 1, "zz_unknown = 1\n");
    else
      text += opening + "\nzz_unknown = 1\n";
    try {
      dgatd::io::parse_config(text, "reference.toml", ".");
      ADD_FAILURE() << table.label << " took an unknown key";
    } catch (dgatd::Error const& e) {
      EXPECT_NE(std::string(e.what()).find("unknown key 'zz_unknown' in " + table.label +
                                           " (known keys: " + known_keys(table) + ")"),
                std::string::npos)
          << e.what();
    }
  }
  try {
    dgatd::io::parse_config("[mesh]\ngenerate = \"box\"\nsize = [1, 1, 1]\nh = 0.5\ninner = { zz_unknown = 1 }\n"
                            "[time]\nsteps = 1\n",
                            "reference.toml", ".");
    ADD_FAILURE() << "[mesh] inner took an unknown key";
  } catch (dgatd::Error const& e) {
    auto const& inner = dgatd::io::table_schema("[mesh] inner");
    EXPECT_NE(
        std::string(e.what()).find("unknown key 'zz_unknown' in [mesh] inner (known keys: " + known_keys(inner) + ")"),
        std::string::npos)
        << e.what();
  }
}

} // namespace
