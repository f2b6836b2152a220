#pragma once
// Reading one TOML table of a run configuration: the keys checked against the table's schema up
// front, then typed values handed out with the file, line and key in every message. Private to
// io/input (the table readers in config_tables.cpp, the parse in config.cpp).

#include "dgatd/error.hpp"
#include "dgatd/io/input/config_schema.hpp"
#include "dgatd/vec3.hpp"

#include <toml.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace dgatd::io::detail {

inline std::string join(std::vector<std::string> const& items)
{
  std::string joined;
  for (auto const& item : items) joined += (joined.empty() ? "" : ", ") + item;
  return joined;
}

inline int line_of(toml::value const& value) { return static_cast<int>(value.location().line()); }

inline std::string resolve(std::string const& base_dir, std::string const& path)
{
  std::filesystem::path const p(path);
  if (p.is_absolute() || base_dir.empty()) return p.lexically_normal().string();
  return (std::filesystem::path(base_dir) / p).lexically_normal().string();
}

inline char const* type_name(toml::value const& value)
{
  switch (value.type()) {
  case toml::value_t::boolean:
    return "a boolean";
  case toml::value_t::integer:
    return "an integer";
  case toml::value_t::floating:
    return "a number";
  case toml::value_t::string:
    return "a string";
  case toml::value_t::array:
    return "an array";
  case toml::value_t::table:
    return "a table";
  default:
    return "a date or time";
  }
}

// One TOML table being read: checks its keys against the known ones up front, then hands out typed
// values with the file, line and key in every message.
class TableReader {
public:
  // The keys known are the schema's (config_schema.hpp).
  TableReader(std::string const& file, toml::value const& table, TableSchema const& schema)
      : file_(file), table_(table), label_(schema.label)
  {
    auto const& known = schema.keys;
    // Report the first unknown key in file order so the message is stable.
    toml::value const* unknown = nullptr;
    std::string unknown_key;
    for (auto const& [key, value] : table_.as_table()) {
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      if (!unknown || line_of(value) < line_of(*unknown)) {
        unknown = &value;
        unknown_key = key;
      }
    }
    if (unknown)
      throw Error(where(line_of(*unknown)),
                  "unknown key '" + unknown_key + "' in " + label_ + " (known keys: " + join(known) + ")", "");
  }

  bool has(std::string const& key) const { return table_.as_table().count(key) != 0; }
  toml::value const& at(std::string const& key) const { return table_.as_table().at(key); }
  int line(std::string const& key) const { return line_of(at(key)); }
  int table_line() const { return line_of(table_); }
  std::string const& file() const { return file_; }

  std::string where(int line) const { return line > 0 ? file_ + ":" + std::to_string(line) : file_; }

  [[noreturn]] void fail(std::string const& key, std::string const& what) const
  {
    throw Error(where(line(key)), label_ + " " + key + " " + what, "");
  }
  [[noreturn]] void fail_table(std::string const& what) const { throw Error(where(table_line()), what, ""); }

  void require(std::string const& key, std::string const& why = "") const
  {
    if (!has(key)) fail_table(label_ + " needs the key '" + key + "'" + why);
  }
  void forbid(std::string const& key, std::string const& why) const
  {
    if (has(key)) throw Error(where(line(key)), label_ + " key '" + key + "' " + why, "");
  }

  double number(std::string const& key) const
  {
    require(key);
    auto const& value = at(key);
    double result = 0;
    if (value.is_integer())
      result = static_cast<double>(value.as_integer());
    else if (value.is_floating())
      result = value.as_floating();
    else
      fail(key, std::string("must be a number, not ") + type_name(value));
    if (!std::isfinite(result)) fail(key, "must be finite");
    return result;
  }
  double number(std::string const& key, double fallback) const { return has(key) ? number(key) : fallback; }

  double positive(std::string const& key) const
  {
    double const result = number(key);
    if (!(result > 0)) fail(key, "= " + format_number(result) + " must be positive");
    return result;
  }
  double positive(std::string const& key, double fallback) const { return has(key) ? positive(key) : fallback; }

  // A relative permittivity or permeability, 1 by default. Far outside what materials have, the mass
  // matrices and the stability bound overflow or lose every digit, and the run would produce NaN.
  double relative_constant(std::string const& key) const
  {
    constexpr double lowest = 1e-3;
    constexpr double highest = 1e7;
    double const result = positive(key, 1.0);
    if (!(result >= lowest && result <= highest))
      fail(key, "= " + format_number(result) + " is outside the physical range " + format_number(lowest) + " to " +
                    format_number(highest));
    return result;
  }

  // A conductivity in S/m, 0 by default; the time-averaged loss term is stable for any value, but
  // beyond copper's 6e7 S/m a volume is a conductor the mesh does not resolve.
  double conductivity(std::string const& key) const
  {
    constexpr double highest = 1e8;
    double const result = number(key, 0.0);
    if (result < 0) fail(key, "= " + format_number(result) + " must not be negative (a conductivity, S/m)");
    if (result > highest)
      fail(key, "= " + format_number(result) + " S/m is above " + format_number(highest) +
                    " S/m; model a conductor this good as a PEC surface");
    return result;
  }

  std::int64_t integer(std::string const& key, std::int64_t fallback, std::int64_t minimum) const
  {
    if (!has(key)) return fallback;
    auto const& value = at(key);
    if (!value.is_integer()) fail(key, std::string("must be an integer, not ") + type_name(value));
    auto const result = static_cast<std::int64_t>(value.as_integer());
    if (result < minimum)
      fail(key, "= " + std::to_string(result) + " must be " + (minimum == 1 ? "positive" : "zero or positive"));
    return result;
  }

  bool boolean(std::string const& key, bool fallback) const
  {
    if (!has(key)) return fallback;
    auto const& value = at(key);
    if (!value.is_boolean()) fail(key, std::string("must be true or false, not ") + type_name(value));
    return value.as_boolean();
  }

  std::string string(std::string const& key) const
  {
    require(key);
    auto const& value = at(key);
    if (!value.is_string()) fail(key, std::string("must be a string, not ") + type_name(value));
    return value.as_string().str;
  }

  // One of choices; the message lists them.
  std::string choice(std::string const& key, std::vector<std::string> const& choices) const
  {
    std::string const result = string(key);
    if (std::find(choices.begin(), choices.end(), result) == choices.end())
      fail(key, "= \"" + result + "\" is not one of " + join(choices));
    return result;
  }

  std::vector<double> numbers(std::string const& key, std::size_t min_count, std::size_t max_count) const
  {
    require(key);
    auto const& value = at(key);
    std::string const expected = min_count == max_count ? "an array of " + std::to_string(min_count) + " numbers"
                                                        : "an array of " + std::to_string(min_count) + " to " +
                                                              std::to_string(max_count) + " numbers";
    if (!value.is_array()) fail(key, "must be " + expected + ", not " + type_name(value));
    auto const& array = value.as_array();
    if (array.size() < min_count || array.size() > max_count)
      fail(key, "must be " + expected + ", not " + std::to_string(array.size()));
    std::vector<double> result;
    for (auto const& item : array) {
      if (item.is_integer())
        result.push_back(static_cast<double>(item.as_integer()));
      else if (item.is_floating() && std::isfinite(item.as_floating()))
        result.push_back(item.as_floating());
      else
        fail(key, "must be " + expected + " (finite), but holds " + type_name(item));
    }
    return result;
  }

  Vec3 vec3(std::string const& key) const
  {
    auto const values = numbers(key, 3, 3);
    return {values[0], values[1], values[2]};
  }

private:
  std::string file_;
  toml::value const& table_;
  std::string label_;
};

} // namespace dgatd::io::detail
