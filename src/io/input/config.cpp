#include "dgatd/io/input/config.hpp"

#include "config_guard.hpp"
#include "config_tables.hpp"
#include "table_reader.hpp"

#include "dgatd/error.hpp"
#include "dgatd/io/input/capability_tables.hpp"
#include "dgatd/io/input/config_schema.hpp"

#include <toml.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>
#include <utility>

namespace dgatd::io {

namespace {

using detail::join;
using detail::line_of;
using detail::type_name;

// The first line of toml11's multi-line report, without its "[error] toml::function:" prefix.
std::string syntax_message(toml::exception const& e)
{
  std::string message = e.what();
  message = message.substr(0, message.find('\n'));
  if (message.rfind("[error] ", 0) == 0) message.erase(0, 8);
  if (message.rfind("toml::", 0) == 0) {
    auto const colon = message.find(": ");
    if (colon != std::string::npos) message.erase(0, colon + 2);
  }
  std::string const& source_line = e.location().line_str();
  if (!source_line.empty()) message += " (at '" + source_line + "')";
  return message;
}

// The file's top-level tables by name; table(key) is nullptr for one the file does not have. (A class
// rather than a lambda in parse_config: nvcc's front end turns that lambda into local typedefs the
// host compiler then warns are unused.)
class TopLevelTables {
public:
  explicit TopLevelTables(std::map<std::string, toml::value const*> tables) : tables_(std::move(tables)) {}
  toml::value const* operator()(std::string const& key) const
  {
    auto const found = tables_.find(key);
    if (found == tables_.end()) return nullptr;
    return found->second;
  }

private:
  std::map<std::string, toml::value const*> tables_;
};

// Each of the file's top-level tables checked to be a known table written the schema's way: [name]
// a table, [[name]] an array of tables.
TopLevelTables top_level_tables(toml::value const& root, std::string const& name)
{
  std::vector<std::string> known;
  for (auto const& table : config_schema())
    if (!table.name.empty()) known.push_back(table.name);
  std::map<std::string, toml::value const*> tables;
  for (auto const& [key, value] : root.as_table()) {
    std::string const where = name + ":" + std::to_string(line_of(value));
    auto const schema = std::find_if(config_schema().begin(), config_schema().end(),
                                     [&key = key](TableSchema const& table) { return table.name == key; });
    if (schema == config_schema().end() && !value.is_table())
      throw Error(where, "unknown top-level key '" + key + "' (keys belong in tables: " + join(known) + ")", "");
    if (schema == config_schema().end())
      throw Error(where, "unknown table [" + key + "] (known tables: " + join(known) + ")", "");
    if (schema->array) {
      bool const array_of_tables =
          value.is_array() && std::all_of(value.as_array().begin(), value.as_array().end(),
                                          [](toml::value const& item) { return item.is_table(); });
      if (!array_of_tables) throw Error(where, "'" + key + "' must be written as [[" + key + "]] tables", "");
    } else if (!value.is_table()) {
      throw Error(where, "'" + key + "' must be a table [" + key + "], not " + type_name(value), "");
    }
    tables[key] = &value;
  }
  return TopLevelTables(std::move(tables));
}

} // namespace

char const* to_string(SourceKind kind)
{
  switch (kind) {
  case SourceKind::dipole:
    return "dipole";
  case SourceKind::port_te10:
    return "port_te10";
  case SourceKind::edge_current:
    return "edge_current";
  case SourceKind::plane_wave:
    return "plane_wave";
  case SourceKind::lumped_port:
    return "lumped_port";
  case SourceKind::mode_port:
    return "mode_port";
  }
  return "";
}

char const* to_string(Backend backend) { return backend == Backend::serial ? "serial" : "default"; }

Config parse_config(std::string const& text, std::string const& name, std::string const& base_dir, ConfigUse use)
{
  detail::check_before_parsing(text, name);
  toml::value root;
  try {
    std::istringstream stream(text);
    root = toml::parse(stream, name);
  } catch (toml::exception const& e) {
    throw Error(name + ":" + std::to_string(e.location().line()), "TOML syntax error: " + syntax_message(e), "");
  }
  auto const table = top_level_tables(root, name);

  Config config;
  config.name = name;
  config.base_dir = base_dir;
  config.text = text;

  if (!table("mesh")) throw Error(name, "missing table [mesh] (give file = \"...\" or generate = \"box\")", "");
  config.mesh = detail::read_mesh(name, *table("mesh"), base_dir);
  double const scale = config.mesh.scale;
  if (table("material")) config.materials = detail::read_materials(name, *table("material"));
  if (table("pml")) config.pml = detail::read_pmls(name, *table("pml"));
  if (table("boundary")) config.boundary = detail::read_boundary(name, *table("boundary"));
  if (table("source")) config.sources = detail::read_sources(name, *table("source"), scale);
  if (table("lumped")) config.lumped = detail::read_lumped(name, *table("lumped"));
  if (table("time"))
    config.time = detail::read_time(name, *table("time"));
  else if (use == ConfigUse::run)
    throw Error(name, "missing table [time] (give t_end or steps)", "");
  if (table("probe")) config.probes = detail::read_probes(name, *table("probe"), scale);
  if (table("farfield")) config.farfields = detail::read_farfields(name, *table("farfield"));
  config.output = detail::read_output(name, table("output"), base_dir);
  if (table("solver")) config.solver = detail::read_solver(name, *table("solver"));
  for (auto const& capability : capability_tables()) {
    toml::value const* items = table(capability.schema.name);
    if (!items) continue;
    auto& read = config.capability_items[capability.schema.name];
    for (auto const& item : items->as_array()) {
      detail::TableReader const reader(name, item, capability.schema);
      read.push_back({reader.table_line(), capability.read(reader, scale)});
    }
  }
  return config;
}

Config load_config(std::string const& path, ConfigUse use)
{
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    throw Error(path, "is a directory, not a configuration file", "give the path of a .toml file, e.g. inputs/*.toml");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, "cannot read the configuration file", "check the path and its permissions");
  // One byte past the limit is enough for parse_config to refuse a file too large (or endless,
  // like /dev/zero) without reading all of it.
  std::string text(detail::kMaxConfigBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return parse_config(text, path, std::filesystem::path(path).parent_path().string(), use);
}

} // namespace dgatd::io
