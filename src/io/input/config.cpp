#include "dgatd/io/input/config.hpp"

#include "dgatd/error.hpp"

#include <toml.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <system_error>
#include <utility>

namespace dgatd::io {

namespace {

std::string join(std::vector<std::string> const& items)
{
  std::string joined;
  for (auto const& item : items) joined += (joined.empty() ? "" : ", ") + item;
  return joined;
}

int line_of(toml::value const& value) { return static_cast<int>(value.location().line()); }

std::string resolve(std::string const& base_dir, std::string const& path)
{
  std::filesystem::path const p(path);
  if (p.is_absolute() || base_dir.empty()) return p.lexically_normal().string();
  return (std::filesystem::path(base_dir) / p).lexically_normal().string();
}

char const* type_name(toml::value const& value)
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
  TableReader(std::string const& file, toml::value const& table, std::string label, std::vector<std::string> known)
      : file_(file), table_(table), label_(std::move(label))
  {
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

// Tables of the file: [name] must be a table, [[name]] an array of tables.
std::vector<std::string> const known_tables{"mesh",  "material", "pml",    "boundary", "source", "time",
                                            "probe", "farfield", "output", "solver",   "lumped"};
std::vector<std::string> const array_tables{"material", "pml", "source", "probe", "farfield", "lumped"};

MeshConfig read_mesh(TableReader const& t, std::string const& base_dir)
{
  MeshConfig mesh;
  mesh.scale = t.positive("scale", 1.0);
  if (t.has("ordering")) mesh.ordering = *mesh::ordering_named(t.choice("ordering", mesh::ordering_names()));
  if (t.has("file") && t.has("generate"))
    throw Error(t.where(std::max(t.line("file"), t.line("generate"))),
                "[mesh] has both 'file' and 'generate'; keep one", "");
  if (!t.has("file") && !t.has("generate"))
    t.fail_table("[mesh] needs 'file' (a mesh file) or 'generate' (box, cylinder, waveguide, cell or sphere)");

  if (t.has("file")) {
    for (auto const* key : {"generate", "size", "radius", "height", "h", "inner", "cuts", "tfsf", "dielectric",
                            "output", "reproducible", "pml"})
      t.forbid(key, "only applies to generated meshes (generate = ...)");
    std::string const file = t.string("file");
    if (file.empty()) t.fail("file", "must not be empty");
    mesh.file = resolve(base_dir, file);
    if (t.has("parts")) {
      std::string const parts = t.string("parts");
      if (parts.empty()) t.fail("parts", "must not be empty");
      mesh.parts = resolve(base_dir, parts);
    }
    return mesh;
  }

  t.forbid("parts", "needs a mesh file: write the generated mesh (output = ...), split it with dgatd partition and "
                    "give it as file");
  auto& spec = mesh.generate;
  spec.shape = t.choice("generate", {"box", "cylinder", "waveguide", "cell", "sphere"});
  double const s = mesh.scale;
  bool const sphere = spec.shape == "sphere";
  if (!sphere)
    for (auto const* key : {"tfsf", "dielectric"}) t.forbid(key, "only applies to generate = \"sphere\"");
  if (spec.shape == "cylinder") {
    t.forbid("size", "does not apply to a cylinder (give radius and height)");
    t.forbid("pml", "does not apply to a cylinder (only a box or a waveguide gets a PML)");
    spec.size = {t.positive("radius") * s, t.positive("height") * s, 0.0};
  } else if (sphere) {
    t.forbid("height", "only applies to generate = \"cylinder\"");
    double const box = t.positive("size") * s;
    spec.size = {box, box, box};
    spec.sphere_radius = t.positive("radius") * s;
    spec.tfsf = t.positive("tfsf") * s;
    spec.dielectric = t.boolean("dielectric", false);
  } else {
    t.forbid("radius", "only applies to generate = \"cylinder\" or \"sphere\"");
    t.forbid("height", "only applies to generate = \"cylinder\"");
    auto const size = t.numbers("size", 3, 3);
    for (double const extent : size)
      if (!(extent > 0)) t.fail("size", "must hold three positive extents");
    spec.size = {size[0] * s, size[1] * s, size[2] * s};
  }
  spec.element_size = t.positive("h") * s;
  if (t.has("pml")) spec.pml = t.positive("pml") * s;
  if (t.has("cuts")) {
    if (spec.shape != "cell") t.fail("cuts", "only applies to generate = \"cell\"");
    for (double const z : t.numbers("cuts", 1, 1000)) spec.cuts.push_back(z * s);
  }
  spec.reproducible = t.boolean("reproducible", false);
  if (t.has("output")) {
    std::string const output = t.string("output");
    if (output.empty()) t.fail("output", "must not be empty");
    mesh.output = resolve(base_dir, output);
  }

  if (t.has("inner")) {
    if (!t.at("inner").is_table())
      t.fail("inner", std::string("must be a table { shape, corner, size }, not ") + type_name(t.at("inner")));
    TableReader const inner(t.file(), t.at("inner"), "[mesh] inner", {"shape", "corner", "size"});
    spec.inner.shape = inner.choice("shape", {"box", "cylinder"});
    spec.inner.corner = scaled(inner.vec3("corner"), s);
    bool const cylinder = spec.inner.shape == "cylinder";
    // A cylinder is [radius, height]; the generator's third entry is unused.
    auto const size = cylinder ? inner.numbers("size", 2, 2) : inner.numbers("size", 3, 3);
    for (double const extent : size)
      if (!(extent > 0)) inner.fail("size", cylinder ? "must be [radius, height], both positive" : "must be positive");
    spec.inner.size = {size[0] * s, size[1] * s, cylinder ? 0.0 : size[2] * s};
  }
  return mesh;
}

// region = "name" or a positive tag: the physical volume a table applies to.
void read_region(TableReader const& t, std::string& name, int& tag)
{
  t.require("region", " (a physical volume name or tag)");
  auto const& region = t.at("region");
  if (region.is_string()) {
    name = region.as_string().str;
    if (name.empty()) t.fail("region", "must not be empty");
  } else if (region.is_integer()) {
    tag = static_cast<int>(region.as_integer());
    if (tag <= 0) t.fail("region", "= " + std::to_string(tag) + " must be positive");
  } else {
    t.fail("region", std::string("must be a physical volume name or tag, not ") + type_name(region));
  }
}

Material read_material(TableReader const& t)
{
  Material material;
  material.line = t.table_line();
  read_region(t, material.region_name, material.region_tag);
  material.eps_r = t.relative_constant("eps_r");
  material.mu_r = t.relative_constant("mu_r");
  material.sigma = t.conductivity("sigma");
  return material;
}

Pml read_pml(TableReader const& t)
{
  Pml pml;
  pml.line = t.table_line();
  read_region(t, pml.region_name, pml.region_tag);
  pml.order = static_cast<int>(t.integer("order", pml.order, 1));
  if (pml.order > 8)
    t.fail("order", "= " + std::to_string(pml.order) +
                        " is above 8; order 1, the default, reflects least (docs/method/open_regions.md, section 3)");
  pml.reflection = t.number("reflection", pml.reflection);
  if (!(pml.reflection > 0 && pml.reflection < 1))
    t.fail("reflection", "= " + format_number(pml.reflection) + " must lie between 0 and 1 (e.g. 1e-6)");
  pml.cfs_frequency = t.number("cfs_frequency", pml.cfs_frequency);
  if (!(pml.cfs_frequency >= 0 && std::isfinite(pml.cfs_frequency)))
    t.fail("cfs_frequency", "= " + format_number(pml.cfs_frequency) +
                                " must be a frequency >= 0 in Hz (0, the default, is the plain stretch)");
  return pml;
}

std::vector<std::string> surface_names(TableReader const& t, std::string const& key)
{
  auto const& list = t.at(key);
  if (!list.is_array()) t.fail(key, std::string("must be a list of surface names, not ") + type_name(list));
  std::vector<std::string> names;
  for (auto const& item : list.as_array()) {
    if (!item.is_string() || item.as_string().str.empty() || item.as_string().str == "*")
      t.fail(key, "must list physical surface names (strings)");
    names.push_back(item.as_string().str);
  }
  return names;
}

BoundaryConfig read_boundary(TableReader const& t)
{
  BoundaryConfig boundary;
  boundary.line = t.table_line();
  if (t.has("absorbing")) boundary.absorbing_surfaces = surface_names(t, "absorbing");
  if (!t.has("pec")) return boundary;
  auto const& pec = t.at("pec");
  if (pec.is_string()) {
    if (pec.as_string().str != "*") t.fail("pec", "must be \"*\" (the whole boundary) or a list of surface names");
    return boundary;
  }
  if (!pec.is_array()) t.fail("pec", std::string("must be \"*\" or a list of surface names, not ") + type_name(pec));
  boundary.pec_everywhere = false;
  boundary.pec_surfaces = surface_names(t, "pec");
  return boundary;
}

solver::Waveform read_waveform(TableReader const& t)
{
  solver::Waveform w;
  std::string const kind = t.choice("waveform", {"gaussian", "modulated_gaussian", "sine"});
  w.amplitude = t.number("amplitude", 1.0);
  std::string const not_for = "does not apply to waveform = \"" + kind + "\"";
  if (kind == "sine") {
    w.kind = solver::WaveformKind::sine;
    t.forbid("t0", not_for);
    t.forbid("sigma", not_for);
    w.frequency = t.positive("frequency");
    // Three periods of turn-on keep the switch-on transient's spectrum near the drive frequency.
    w.ramp = t.positive("ramp", 3.0 / w.frequency);
    return w;
  }
  w.kind = kind == "gaussian" ? solver::WaveformKind::gaussian : solver::WaveformKind::modulated_gaussian;
  t.forbid("ramp", not_for);
  if (w.kind == solver::WaveformKind::gaussian)
    t.forbid("frequency", not_for);
  else
    w.frequency = t.positive("frequency");
  w.sigma = t.positive("sigma");
  // Centred five widths in, the pulse starts from exp(-12.5) ≈ 4e-6 of its peak: no switch-on jump.
  w.t0 = t.number("t0", 5.0 * w.sigma);
  if (w.t0 < 0) t.fail("t0", "= " + format_number(w.t0) + " must not be negative");
  return w;
}

// A direction the user wrote, as a unit vector.
Vec3 unit_vector(TableReader const& t, std::string const& key)
{
  Vec3 d = t.vec3(key);
  double const norm = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!(norm > 0)) t.fail(key, "must not be the zero vector");
  for (double& component : d) component /= norm;
  return d;
}

// One physical volume name or a list of them.
std::vector<std::string> volume_names(TableReader const& t, std::string const& key)
{
  t.require(key, " (a physical volume name or a list of them)");
  auto const& value = t.at(key);
  if (value.is_string()) {
    if (value.as_string().str.empty()) t.fail(key, "must not be empty");
    return {value.as_string().str};
  }
  if (!value.is_array() || value.as_array().empty())
    t.fail(key, std::string("must be a physical volume name or a list of them, not ") + type_name(value));
  std::vector<std::string> names;
  for (auto const& item : value.as_array()) {
    if (!item.is_string() || item.as_string().str.empty()) t.fail(key, "must list physical volume names (strings)");
    names.push_back(item.as_string().str);
  }
  return names;
}

Source read_source(TableReader const& t, double scale)
{
  Source source;
  source.line = t.table_line();
  std::string const kind = t.choice("kind", {"dipole", "port_te10", "edge_current", "plane_wave", "lumped_port"});
  std::string const not_for = "does not apply to kind = \"" + kind + "\"";
  if (kind != "lumped_port") t.forbid("resistance", not_for);
  t.require("waveform", " (gaussian, modulated_gaussian or sine)");
  if (kind != "plane_wave") {
    t.forbid("region", not_for);
    t.forbid("polarization", not_for);
    t.forbid("origin", not_for);
  }
  if (kind == "port_te10") {
    source.kind = SourceKind::port_te10;
    t.forbid("position", not_for);
    t.forbid("direction", not_for);
    source.surface = t.string("surface");
    if (source.surface.empty()) t.fail("surface", "must not be empty");
    source.matched = t.boolean("matched", false);
  } else if (kind == "lumped_port") {
    source.kind = SourceKind::lumped_port;
    t.forbid("position", not_for);
    t.forbid("matched", not_for);
    source.surface = t.string("surface");
    if (source.surface.empty()) t.fail("surface", "must not be empty");
    source.direction = unit_vector(t, "direction");
    source.resistance = t.positive("resistance", 50.0);
  } else if (kind == "plane_wave") {
    source.kind = SourceKind::plane_wave;
    t.forbid("position", not_for);
    t.forbid("surface", not_for);
    t.forbid("matched", not_for);
    source.regions = volume_names(t, "region");
    source.direction = unit_vector(t, "direction");
    source.polarization = unit_vector(t, "polarization");
    double const cosine = dot(source.direction, source.polarization);
    // Rounding of a perpendicular pair written with a few digits stays far below this.
    if (std::abs(cosine) > 1e-6)
      t.fail("polarization",
             "is not perpendicular to direction (they are " +
                 format_number(std::acos(std::clamp(cosine, -1.0, 1.0)) * 180 / 3.14159265358979323846) +
                 " degrees apart); a plane wave's e is transverse");
    if (t.has("origin")) source.origin = scaled(t.vec3("origin"), scale);
  } else {
    source.kind = kind == "dipole" ? SourceKind::dipole : SourceKind::edge_current;
    t.forbid("surface", not_for);
    t.forbid("matched", not_for);
    source.position = scaled(t.vec3("position"), scale);
    source.direction = unit_vector(t, "direction");
  }
  source.waveform = read_waveform(t);
  return source;
}

LumpedConfig read_lumped(TableReader const& t)
{
  LumpedConfig lumped;
  lumped.line = t.table_line();
  std::string const kind = t.choice("kind", {"resistor", "capacitor", "inductor", "rlc"});
  lumped.surface = t.string("surface");
  if (lumped.surface.empty()) t.fail("surface", "must not be empty");
  lumped.direction = unit_vector(t, "direction");
  std::string const not_for = "does not apply to kind = \"" + kind + "\"";
  auto& circuit = lumped.circuit;
  if (kind != "rlc") {
    t.forbid("circuit", not_for);
    std::string const own = kind == "resistor" ? "resistance" : kind == "capacitor" ? "capacitance" : "inductance";
    for (std::string const key : {"resistance", "capacitance", "inductance"})
      if (key != own) t.forbid(key, not_for + " (use kind = \"rlc\" to combine elements)");
  }
  if (kind == "resistor") {
    lumped.kind = LumpedKind::resistor;
    circuit.resistance = t.positive("resistance");
  } else if (kind == "capacitor") {
    lumped.kind = LumpedKind::capacitor;
    circuit.capacitance = t.positive("capacitance");
  } else if (kind == "inductor") {
    lumped.kind = LumpedKind::inductor;
    circuit.inductance = t.positive("inductance");
  } else {
    lumped.kind = LumpedKind::rlc;
    circuit.series = t.choice("circuit", {"series", "parallel"}) == "series";
    circuit.resistance = t.has("resistance") ? t.positive("resistance") : 0.0;
    circuit.capacitance = t.has("capacitance") ? t.positive("capacitance") : 0.0;
    circuit.inductance = t.has("inductance") ? t.positive("inductance") : 0.0;
    if (!t.has("resistance") && !t.has("capacitance") && !t.has("inductance"))
      t.fail_table("[[lumped]] kind = \"rlc\" needs at least one of resistance, capacitance and inductance");
  }
  return lumped;
}

TimeConfig read_time(TableReader const& t)
{
  TimeConfig time;
  if (t.has("t_end") && t.has("steps"))
    throw Error(t.where(std::max(t.line("t_end"), t.line("steps"))),
                "[time] has both t_end and steps; give exactly one", "");
  if (t.has("t_end"))
    time.t_end = t.positive("t_end");
  else if (t.has("steps"))
    time.steps = t.integer("steps", 0, 1);
  else
    t.fail_table("[time] needs t_end (seconds) or steps");
  if (t.has("dt")) {
    auto const& dt = t.at("dt");
    if (dt.is_string()) {
      if (dt.as_string().str != "auto") t.fail("dt", "must be \"auto\" or a time step in seconds");
    } else {
      time.dt = t.positive("dt");
    }
  }
  time.safety = t.number("safety", time.safety);
  if (!(time.safety > 0 && time.safety < 1))
    t.fail("safety", "= " + format_number(time.safety) + " must lie strictly between 0 and 1");
  time.allow_unstable = t.boolean("allow_unstable", false);
  return time;
}

Probe read_probe(TableReader const& t, double scale)
{
  Probe probe;
  probe.line = t.table_line();
  probe.name = t.string("name");
  bool const valid = !probe.name.empty() && std::all_of(probe.name.begin(), probe.name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (!valid) t.fail("name", "= \"" + probe.name + "\" may only hold letters, digits and '_'");
  probe.position = scaled(t.vec3("position"), scale);
  return probe;
}

OutputConfig read_output(TableReader const* t, std::string const& base_dir)
{
  OutputConfig output;
  std::string file = "dgatd_out.h5";
  if (t) {
    output.line = t->table_line();
    if (t->has("file")) file = t->string("file");
    if (file.empty()) t->fail("file", "must not be empty");
    output.snapshot_every = t->integer("snapshot_every", 0, 0);
    output.energy_every = t->integer("energy_every", 10, 1);
    output.checkpoint_every = t->integer("checkpoint_every", 0, 0);
    output.progress = t->boolean("progress", true);
  }
  output.file = resolve(base_dir, file);
  return output;
}

SolverConfig read_solver(TableReader const& t)
{
  SolverConfig solver;
  if (t.has("formulation"))
    solver.formulation = t.choice("formulation", {"fractioned", "assembled"}) == "assembled"
                             ? dgatd::solver::FormulationKind::assembled
                             : dgatd::solver::FormulationKind::fractioned;
  if (t.has("backend"))
    solver.backend = t.choice("backend", {"default", "serial"}) == "serial" ? Backend::serial : Backend::default_space;
  if (t.has("precision")) {
    auto const precision = dgatd::kernels::step_precision_named(t.choice("precision", {"double", "mixed", "single"}));
    solver.precision = precision.matrices;
    solver.field_precision = precision.fields;
    solver.precision_line = t.line("precision");
  }
  solver.overlap_halo = t.boolean("overlap_halo", true);
  return solver;
}

// toml11 3.7 (Debian 12) trusts its input further than a loader of user files can: an invalid
// UTF-8 sequence inside a string sends its error path outside the text (a heap overflow), its
// recursive descent overflows the stack on 2000 nested arrays, and its time grows quadratically
// with nesting, dotted keys and the length of a line (a 200 KB line takes a minute, 1000 nested
// arrays seconds). A dgatd configuration has short lines and tables at most three levels deep, so
// input far beyond that is refused before toml11 sees it. Its size may be large: a configuration
// with probes over closed surfaces lists thousands of them (tests/regression/test_radiating_dipole:
// 1923 probes, 157 KB, parsed in 0.3 s); toml11's time grows about linearly with the number of
// tables (20 000 tables or 1.3 MB of probes: 1.3 and 2.5 s), so 4 MiB bounds the parse to seconds
// and still stops an endless file.
constexpr std::size_t kMaxConfigBytes = 4 * 1024 * 1024;
constexpr std::size_t kMaxLineBytes = 4096;
constexpr int kMaxNesting = 32;     // arrays and inline tables inside each other
constexpr int kMaxDotsPerLine = 64; // dotted keys and numbers on one line

// The byte at text[i], 0 past the end. (Named functions rather than lambdas here and below: nvcc's
// front end turns these lambdas into local typedefs that the host compiler then warns are unused.)
unsigned byte_at(std::string const& text, std::size_t i)
{
  return i < text.size() ? static_cast<unsigned char>(text[i]) : 0u;
}

bool continuation_at(std::string const& text, std::size_t i, unsigned low = 0x80, unsigned high = 0xbf)
{
  return byte_at(text, i) >= low && byte_at(text, i) <= high;
}

// The length of the UTF-8 sequence at text[i] (RFC 3629, as TOML requires), 0 when it is invalid.
std::size_t utf8_length(std::string const& text, std::size_t i)
{
  unsigned const lead = byte_at(text, i);
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return continuation_at(text, i + 1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    unsigned const low = lead == 0xe0 ? 0xa0 : 0x80, high = lead == 0xed ? 0x9f : 0xbf;
    return continuation_at(text, i + 1, low, high) && continuation_at(text, i + 2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    unsigned const low = lead == 0xf0 ? 0x90 : 0x80, high = lead == 0xf4 ? 0x8f : 0xbf;
    return continuation_at(text, i + 1, low, high) && continuation_at(text, i + 2) && continuation_at(text, i + 3) ? 4
                                                                                                                   : 0;
  }
  return 0;
}

// "file:line" for a message about the line a scan of the configuration has reached.
std::string at_line(std::string const& name, int line) { return name + ":" + std::to_string(line); }

// Size, encoding, line length, nesting depth and dots per line. Strings and comments are skipped as
// TOML delimits them: a bracket or a dot inside a string is text.
void check_before_parsing(std::string const& text, std::string const& name)
{
  if (text.size() > kMaxConfigBytes)
    throw Error(name,
                "is larger than " + std::to_string(kMaxConfigBytes / (1024 * 1024)) +
                    " MiB, far more than a configuration",
                "check that this is the configuration file (see inputs/*.toml)");
  int line = 1;
  for (std::size_t i = 0, line_start = 0; i < text.size();) {
    std::size_t const length = utf8_length(text, i);
    if (length == 0) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(text[i])));
      throw Error(at_line(name, line), std::string("byte ") + byte + " is not valid UTF-8, which TOML requires",
                  "save the file as UTF-8");
    }
    if (i - line_start >= kMaxLineBytes)
      throw Error(at_line(name, line), "the line is longer than " + std::to_string(kMaxLineBytes) + " bytes",
                  "break long arrays over several lines");
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
    i += length;
  }

  // Valid UTF-8 has no byte below 0x80 inside a multi-byte character, so the scan goes by bytes.
  // The dots are counted per line: dots_line is the line they were counted on.
  line = 1;
  int depth = 0, dots = 0, dots_line = 1;
  std::size_t i = 0;
  while (i < text.size()) {
    char const c = text[i];
    if (c == '"' || c == '\'') {
      std::string const triple(3, c);
      bool const multi_line = text.compare(i, 3, triple) == 0;
      i += multi_line ? 3 : 1;
      while (i < text.size()) {
        if (text[i] == '\\' && c == '"') { // an escape: the next character cannot close the string
          ++i;
          if (i < text.size() && text[i] == '\n') ++line;
          ++i;
        } else if (text[i] == '\n') {
          if (!multi_line) break; // unterminated: toml11 reports it
          ++line;
          ++i;
        } else if (multi_line ? text.compare(i, 3, triple) == 0 : text[i] == c) {
          i += multi_line ? 3 : 1;
          // Up to two quotes right before the closing three belong to the string.
          for (int extra = 0; multi_line && extra < 2 && i < text.size() && text[i] == c; ++extra) ++i;
          break;
        } else {
          ++i;
        }
      }
      continue;
    }
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == '\n') ++line;
    if ((c == '[' || c == '{') && ++depth > kMaxNesting)
      throw Error(at_line(name, line), "arrays and tables nested more than " + std::to_string(kMaxNesting) + " deep",
                  "a dgatd configuration nests at most three levels; check the brackets");
    if (c == ']' || c == '}') depth = std::max(depth - 1, 0);
    if (c == '.') {
      if (dots_line != line) {
        dots_line = line;
        dots = 0;
      }
      if (++dots > kMaxDotsPerLine)
        throw Error(at_line(name, line),
                    "more than " + std::to_string(kMaxDotsPerLine) + " dots on one line (dotted keys or numbers)",
                    "a dgatd key has at most three parts, e.g. mesh.inner.shape; split the line");
    }
    ++i;
  }
}

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
  }
  return "";
}

char const* to_string(Backend backend) { return backend == Backend::serial ? "serial" : "default"; }

Config parse_config(std::string const& text, std::string const& name, std::string const& base_dir)
{
  check_before_parsing(text, name);
  toml::value root;
  try {
    std::istringstream stream(text);
    root = toml::parse(stream, name);
  } catch (toml::exception const& e) {
    throw Error(name + ":" + std::to_string(e.location().line()), "TOML syntax error: " + syntax_message(e), "");
  }

  // Top-level keys must be known tables of the right kind.
  std::map<std::string, toml::value const*> tables;
  for (auto const& [key, value] : root.as_table()) {
    std::string const where = name + ":" + std::to_string(line_of(value));
    bool const known = std::find(known_tables.begin(), known_tables.end(), key) != known_tables.end();
    if (!known && !value.is_table())
      throw Error(where, "unknown top-level key '" + key + "' (keys belong in tables: " + join(known_tables) + ")", "");
    if (!known) throw Error(where, "unknown table [" + key + "] (known tables: " + join(known_tables) + ")", "");
    bool const is_array = std::find(array_tables.begin(), array_tables.end(), key) != array_tables.end();
    if (is_array) {
      bool const array_of_tables =
          value.is_array() && std::all_of(value.as_array().begin(), value.as_array().end(),
                                          [](toml::value const& item) { return item.is_table(); });
      if (!array_of_tables) throw Error(where, "'" + key + "' must be written as [[" + key + "]] tables", "");
    } else if (!value.is_table()) {
      throw Error(where, "'" + key + "' must be a table [" + key + "], not " + type_name(value), "");
    }
    tables[key] = &value;
  }

  Config config;
  config.name = name;
  config.base_dir = base_dir;
  config.text = text;

  if (!tables.count("mesh")) throw Error(name, "missing table [mesh] (give file = \"...\" or generate = \"box\")", "");
  config.mesh = read_mesh(TableReader(name, *tables["mesh"], "[mesh]",
                                      {"file", "generate", "size", "radius", "height", "h", "inner", "cuts", "tfsf",
                                       "dielectric", "scale", "output", "reproducible", "pml", "ordering", "parts"}),
                          base_dir);
  double const scale = config.mesh.scale;

  if (tables.count("material")) {
    std::map<std::string, int> seen; // region (as written) -> line of its first [[material]]
    for (auto const& table : tables["material"]->as_array()) {
      TableReader const t(name, table, "[[material]]", {"region", "eps_r", "mu_r", "sigma"});
      Material material = read_material(t);
      std::string const key =
          material.region_name.empty() ? "tag " + std::to_string(material.region_tag) : material.region_name;
      auto const [it, inserted] = seen.emplace(key, material.line);
      if (!inserted)
        t.fail("region",
               "= " + key + " already has a material (line " + std::to_string(it->second) + "); give each region once");
      config.materials.push_back(material);
    }
  }

  if (tables.count("pml")) {
    for (auto const& table : tables["pml"]->as_array()) {
      TableReader const t(name, table, "[[pml]]", {"region", "order", "reflection", "cfs_frequency"});
      Pml pml = read_pml(t);
      for (auto const& other : config.pml)
        if (other.region_name == pml.region_name && other.region_tag == pml.region_tag)
          t.fail("region", "is already a [[pml]] at line " + std::to_string(other.line) + "; give each layer once");
      config.pml.push_back(pml);
    }
  }

  if (tables.count("boundary"))
    config.boundary = read_boundary(TableReader(name, *tables["boundary"], "[boundary]", {"pec", "absorbing"}));

  if (tables.count("source"))
    for (auto const& table : tables["source"]->as_array())
      config.sources.push_back(read_source(
          TableReader(name, table, "[[source]]",
                      {"kind", "position", "direction", "surface", "matched", "region", "polarization", "origin",
                       "resistance", "amplitude", "waveform", "t0", "sigma", "frequency", "ramp"}),
          scale));

  if (tables.count("lumped"))
    for (auto const& table : tables["lumped"]->as_array())
      config.lumped.push_back(read_lumped(
          TableReader(name, table, "[[lumped]]",
                      {"kind", "surface", "direction", "resistance", "capacitance", "inductance", "circuit"})));

  if (!tables.count("time")) throw Error(name, "missing table [time] (give t_end or steps)", "");
  config.time =
      read_time(TableReader(name, *tables["time"], "[time]", {"t_end", "steps", "dt", "safety", "allow_unstable"}));

  if (tables.count("probe")) {
    for (auto const& table : tables["probe"]->as_array()) {
      TableReader const t(name, table, "[[probe]]", {"name", "position"});
      Probe probe = read_probe(t, scale);
      for (auto const& other : config.probes)
        if (other.name == probe.name)
          t.fail("name", "= \"" + probe.name + "\" is already used by the probe at line " + std::to_string(other.line));
      config.probes.push_back(probe);
    }
  }

  if (tables.count("farfield")) {
    for (auto const& table : tables["farfield"]->as_array()) {
      TableReader const t(name, table, "[[farfield]]", {"surface", "frequencies"});
      FarFieldConfig far_field;
      far_field.line = t.table_line();
      far_field.surface = t.string("surface");
      if (far_field.surface.empty()) t.fail("surface", "must not be empty");
      far_field.frequencies = t.numbers("frequencies", 1, 64);
      for (double const f : far_field.frequencies)
        if (!(f > 0 && std::isfinite(f))) t.fail("frequencies", "must be positive frequencies in Hz");
      for (auto const& other : config.farfields)
        if (other.surface == far_field.surface)
          t.fail("surface", "= \"" + far_field.surface + "\" is already a [[farfield]] at line " +
                                std::to_string(other.line) + "; give each surface once, with all its frequencies");
      config.farfields.push_back(far_field);
    }
  }

  if (tables.count("output")) {
    TableReader const t(name, *tables["output"], "[output]",
                        {"file", "snapshot_every", "energy_every", "checkpoint_every", "progress"});
    config.output = read_output(&t, base_dir);
  } else {
    config.output = read_output(nullptr, base_dir);
  }

  if (tables.count("solver"))
    config.solver = read_solver(
        TableReader(name, *tables["solver"], "[solver]", {"formulation", "backend", "precision", "overlap_halo"}));
  return config;
}

Config load_config(std::string const& path)
{
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    throw Error(path, "is a directory, not a configuration file", "give the path of a .toml file, e.g. inputs/*.toml");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, "cannot read the configuration file", "check the path and its permissions");
  // One byte past the limit is enough for parse_config to refuse a file too large (or endless,
  // like /dev/zero) without reading all of it.
  std::string text(kMaxConfigBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return parse_config(text, path, std::filesystem::path(path).parent_path().string());
}

} // namespace dgatd::io
