#include "config_tables.hpp"

#include "table_reader.hpp"

#include "dgatd/error.hpp"
#include "dgatd/io/input/material_library.hpp"
#include "dgatd/kernels/matrix_precision.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace dgatd::io::detail {

namespace {

MeshConfig mesh_of(TableReader const& t, std::string const& base_dir)
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
    for (auto const* key : {"generate", "size", "radius", "height", "h", "inner", "cuts", "tfsf", "h_sphere", "grading",
                            "dielectric", "output", "reproducible", "pml"})
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
    for (auto const* key : {"tfsf", "h_sphere", "grading", "dielectric"})
      t.forbid(key, "only applies to generate = \"sphere\"");
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
    if (t.has("h_sphere")) spec.sphere_element_size = t.positive("h_sphere") * s;
    if (t.has("grading")) {
      if (!t.has("h_sphere"))
        throw Error(t.where(t.line("grading")), "[mesh] grading grades from h_sphere, which is not given",
                    "give h_sphere too, or leave grading out");
      spec.grading_distance = t.positive("grading") * s;
    }
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
    TableReader const inner(t.file(), t.at("inner"), table_schema("[mesh] inner"));
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

double not_negative(TableReader const& t, std::string const& key)
{
  double const result = t.number(key);
  if (result < 0) t.fail(key, "= " + format_number(result) + " must not be negative");
  return result;
}

// One [[material.pole]]: its kind's keys (rad/s and s), each with the sign a passive pole needs
// (dga/dispersion.hpp has the models).
dga::Pole pole_of(TableReader const& t)
{
  static std::map<std::string, std::vector<std::string>> const kinds{{"debye", {"delta_eps", "tau"}},
                                                                     {"drude", {"omega_p", "gamma"}},
                                                                     {"lorentz", {"delta_eps", "omega_0", "delta"}},
                                                                     {"pole_residue", {"a", "c"}}};
  std::string const kind = t.choice("kind", {"debye", "drude", "lorentz", "pole_residue"});
  auto const& mine = kinds.at(kind);
  for (auto const& other : kinds)
    for (auto const& key : other.second)
      if (std::find(mine.begin(), mine.end(), key) == mine.end())
        t.forbid(key, "is not a " + kind + " pole's (it takes " + join(mine) + ")");
  for (auto const& key : mine) t.require(key, " (a " + kind + " pole takes " + join(mine) + ")");
  if (kind == "debye") return dga::debye_pole(t.positive("delta_eps"), t.positive("tau"));
  if (kind == "drude") return dga::drude_pole(t.positive("omega_p"), not_negative(t, "gamma"));
  if (kind == "lorentz")
    return dga::lorentz_pole(t.positive("delta_eps"), t.positive("omega_0"), not_negative(t, "delta"));
  auto const a = t.numbers("a", 2, 2), c = t.numbers("c", 2, 2);
  if (a[0] > 0)
    t.fail("a", "has a positive real part, " + format_number(a[0]) +
                    " rad/s: the pole grows without bound; a passive pole has Re a <= 0");
  return dga::pole_residue_pair({a[0], a[1]}, {c[0], c[1]});
}

// A material with pole-residue pairs must still be passive: Im eps(w) <= 0 (e^(+j w t)) at every
// frequency, which the named kinds are by their signs. Checked on a dense logarithmic grid four
// decades around the poles' rates.
void check_passive(TableReader const& t, std::vector<dga::Pole> const& poles)
{
  dga::Dispersion const model{poles};
  double lowest = 0, highest = 0;
  for (auto const& p : poles) {
    double const rate = p.order == 1 ? std::abs(p.a[0]) : std::hypot(p.a[0], p.a[2]);
    if (rate > 0) lowest = lowest == 0 ? rate : std::min(lowest, rate);
    highest = std::max(highest, rate);
  }
  if (highest == 0) return;
  constexpr int samples = 4000;
  double const first = std::log(lowest * 1e-4), last = std::log(highest * 1e4);
  double worst = 0, worst_omega = 0;
  for (int i = 0; i <= samples; ++i) {
    double const omega = std::exp(first + (last - first) * i / samples);
    auto const chi = model.susceptibility(omega);
    double const excess = chi.imag() / std::max(1.0, std::abs(chi));
    if (excess > worst) {
      worst = excess;
      worst_omega = omega;
    }
  }
  if (worst > 1e-9) {
    std::ostringstream what;
    what << std::setprecision(3) << "model is not passive: Im eps = +" << model.susceptibility(worst_omega).imag()
         << " at " << worst_omega / (2 * M_PI)
         << " Hz (with e^(+j w t) a passive medium has Im eps <= 0), so fields would grow in it; refit the "
            "pole-residue pairs with passivity enforced";
    t.fail("pole", what.str());
  }
}

std::vector<dga::Pole> poles_of(TableReader const& t)
{
  if (!t.has("pole")) return {};
  auto const& items = t.at("pole");
  if (!items.is_array() || items.as_array().empty() ||
      !std::all_of(items.as_array().begin(), items.as_array().end(), [](auto const& v) { return v.is_table(); }))
    t.fail("pole", std::string("must be [[material.pole]] tables, not ") + type_name(items));
  std::vector<dga::Pole> poles;
  bool residues = false;
  for (auto const& item : items.as_array()) {
    TableReader const pole(t.file(), item, table_schema("[[material]] pole"));
    residues = residues || pole.string("kind") == "pole_residue";
    poles.push_back(pole_of(pole));
  }
  if (residues) check_passive(t, poles);
  return poles;
}

Material material_of(TableReader const& t)
{
  Material material;
  material.line = t.table_line();
  read_region(t, material.region_name, material.region_tag);
  if (t.has("material")) {
    // A named material of the library brings its eps_inf and poles.
    std::string const name = t.string("material");
    auto const* named = find_material(name);
    if (!named) {
      std::vector<std::string> names;
      for (auto const& known : material_library()) names.push_back(known.name);
      t.fail("material", "= \"" + name + "\" is not in the library (" + join(names) + "; dgatd materials lists them)");
    }
    for (auto const* key : {"eps_r", "eps_inf", "pole"})
      t.forbid(key, "cannot change the library's material \"" + name + "\"; give its poles yourself instead");
    material.eps_r = named->eps_inf;
    material.poles = named->poles;
  } else {
    if (t.has("eps_inf")) t.forbid("eps_r", "and 'eps_inf' both give the permittivity; keep one");
    material.eps_r = t.relative_constant(t.has("eps_inf") ? "eps_inf" : "eps_r");
    material.poles = poles_of(t);
  }
  material.mu_r = t.relative_constant("mu_r");
  material.sigma = t.conductivity("sigma");
  return material;
}

Pml pml_of(TableReader const& t)
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

BoundaryConfig boundary_of(TableReader const& t)
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

// A direction the user wrote, as a unit vector.
Vec3 unit_vector(TableReader const& t, std::string const& key)
{
  Vec3 d = t.vec3(key);
  double const norm = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!(norm > 0)) t.fail(key, "must not be the zero vector");
  for (double& component : d) component /= norm;
  return d;
}

} // namespace

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

std::vector<std::string> surface_names(TableReader const& t, std::string const& key, std::string const& why)
{
  t.require(key, " (a physical surface name or a list of them" + why + ")");
  auto const& value = t.at(key);
  if (value.is_string() && !value.as_string().str.empty()) return {value.as_string().str};
  if (!value.is_array() || value.as_array().empty())
    t.fail(key, "must be a physical surface name or a non-empty list of them");
  std::vector<std::string> names;
  for (auto const& surface : value.as_array()) {
    if (!surface.is_string() || surface.as_string().str.empty())
      t.fail(key, "must list physical surface names (strings)");
    names.push_back(surface.as_string().str);
  }
  return names;
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

namespace {

Source source_of(TableReader const& t, double scale)
{
  Source source;
  source.line = t.table_line();
  std::string const kind =
      t.choice("kind", {"dipole", "port_te10", "edge_current", "plane_wave", "lumped_port", "mode_port"});
  std::string const not_for = "does not apply to kind = \"" + kind + "\"";
  if (kind != "mode_port") t.forbid("mode", not_for);
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
  } else if (kind == "mode_port") {
    source.kind = SourceKind::mode_port;
    t.forbid("position", not_for);
    t.forbid("direction", not_for);
    t.forbid("matched", not_for + " (a mode port is matched)");
    source.surface = t.string("surface");
    if (source.surface.empty()) t.fail("surface", "must not be empty");
    auto const mode = t.integer("mode", 1, 1);
    if (mode > Source::max_port_modes)
      t.fail("mode", "= " + std::to_string(mode) + " must be at most " + std::to_string(Source::max_port_modes) +
                         " (the modes a port's cross-section is solved for)");
    source.mode = static_cast<int>(mode);
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

LumpedConfig lumped_of(TableReader const& t)
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

TimeConfig time_of(TableReader const& t)
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
  if (t.has("local_steps")) {
    time.local_steps_line = t.line("local_steps");
    auto const& levels = t.at("local_steps");
    std::string const expected = "must be \"auto\", \"off\" or a number of levels from 1 to " +
                                 std::to_string(TimeConfig::max_local_step_levels);
    if (levels.is_string()) {
      auto const& word = levels.as_string().str;
      if (word != "auto" && word != "off") t.fail("local_steps", expected);
      time.local_steps = word == "auto" ? TimeConfig::max_local_step_levels : 1;
    } else if (levels.is_integer() && levels.as_integer() >= 1 &&
               levels.as_integer() <= TimeConfig::max_local_step_levels) {
      time.local_steps = static_cast<int>(levels.as_integer());
    } else {
      t.fail("local_steps", expected);
    }
  }
  return time;
}

Probe probe_of(TableReader const& t, double scale)
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

OutputConfig output_of(TableReader const* t, std::string const& base_dir)
{
  OutputConfig output;
  std::string file = "dgatd_out.h5";
  if (t) {
    output.line = t->table_line();
    if (t->has("file")) file = t->string("file");
    if (file.empty()) t->fail("file", "must not be empty");
    output.snapshot_every = t->integer("snapshot_every", 0, 0);
    output.snapshot_volume = t->boolean("snapshot_volume", true);
    output.energy_every = t->integer("energy_every", 10, 1);
    output.checkpoint_every = t->integer("checkpoint_every", 0, 0);
    output.progress = t->boolean("progress", true);
    output.watchdog = t->number("watchdog", output.watchdog);
    if (output.watchdog != 0 && !(output.watchdog > 1))
      t->fail("watchdog", "= " + format_number(output.watchdog) +
                              " must be above 1 (the factor the energy may grow past its reference), or 0 for off");
  }
  output.file = resolve(base_dir, file);
  return output;
}

SolverConfig solver_of(TableReader const& t)
{
  SolverConfig solver;
  if (t.has("formulation")) {
    solver.formulation = t.choice("formulation", {"fractioned", "assembled"}) == "assembled"
                             ? dgatd::solver::FormulationKind::assembled
                             : dgatd::solver::FormulationKind::fractioned;
    solver.formulation_line = t.line("formulation");
  }
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

} // namespace

MeshConfig read_mesh(std::string const& file, toml::value const& table, std::string const& base_dir)
{
  return mesh_of(TableReader(file, table, table_schema("[mesh]")), base_dir);
}

std::vector<Material> read_materials(std::string const& file, toml::value const& tables)
{
  std::vector<Material> materials;
  std::map<std::string, int> seen; // region (as written) -> line of its first [[material]]
  for (auto const& table : tables.as_array()) {
    TableReader const t(file, table, table_schema("[[material]]"));
    Material material = material_of(t);
    std::string const key =
        material.region_name.empty() ? "tag " + std::to_string(material.region_tag) : material.region_name;
    auto const [it, inserted] = seen.emplace(key, material.line);
    if (!inserted)
      t.fail("region",
             "= " + key + " already has a material (line " + std::to_string(it->second) + "); give each region once");
    materials.push_back(material);
  }
  return materials;
}

std::vector<Pml> read_pmls(std::string const& file, toml::value const& tables)
{
  std::vector<Pml> layers;
  for (auto const& table : tables.as_array()) {
    TableReader const t(file, table, table_schema("[[pml]]"));
    Pml pml = pml_of(t);
    for (auto const& other : layers)
      if (other.region_name == pml.region_name && other.region_tag == pml.region_tag)
        t.fail("region", "is already a [[pml]] at line " + std::to_string(other.line) + "; give each layer once");
    layers.push_back(pml);
  }
  return layers;
}

BoundaryConfig read_boundary(std::string const& file, toml::value const& table)
{
  return boundary_of(TableReader(file, table, table_schema("[boundary]")));
}

std::vector<Source> read_sources(std::string const& file, toml::value const& tables, double scale)
{
  std::vector<Source> sources;
  for (auto const& table : tables.as_array())
    sources.push_back(source_of(TableReader(file, table, table_schema("[[source]]")), scale));
  return sources;
}

std::vector<LumpedConfig> read_lumped(std::string const& file, toml::value const& tables)
{
  std::vector<LumpedConfig> elements;
  for (auto const& table : tables.as_array())
    elements.push_back(lumped_of(TableReader(file, table, table_schema("[[lumped]]"))));
  return elements;
}

TimeConfig read_time(std::string const& file, toml::value const& table)
{
  return time_of(TableReader(file, table, table_schema("[time]")));
}

std::vector<Probe> read_probes(std::string const& file, toml::value const& tables, double scale)
{
  std::vector<Probe> probes;
  for (auto const& table : tables.as_array()) {
    TableReader const t(file, table, table_schema("[[probe]]"));
    Probe probe = probe_of(t, scale);
    for (auto const& other : probes)
      if (other.name == probe.name)
        t.fail("name", "= \"" + probe.name + "\" is already used by the probe at line " + std::to_string(other.line));
    probes.push_back(probe);
  }
  return probes;
}

std::vector<FarFieldConfig> read_farfields(std::string const& file, toml::value const& tables)
{
  std::vector<FarFieldConfig> far_fields;
  for (auto const& table : tables.as_array()) {
    TableReader const t(file, table, table_schema("[[farfield]]"));
    FarFieldConfig far_field;
    far_field.line = t.table_line();
    far_field.surface = t.string("surface");
    if (far_field.surface.empty()) t.fail("surface", "must not be empty");
    far_field.frequencies = t.numbers("frequencies", 1, 64);
    for (double const f : far_field.frequencies)
      if (!(f > 0 && std::isfinite(f))) t.fail("frequencies", "must be positive frequencies in Hz");
    for (auto const& other : far_fields)
      if (other.surface == far_field.surface)
        t.fail("surface", "= \"" + far_field.surface + "\" is already a [[farfield]] at line " +
                              std::to_string(other.line) + "; give each surface once, with all its frequencies");
    far_fields.push_back(far_field);
  }
  return far_fields;
}

OutputConfig read_output(std::string const& file, toml::value const* table, std::string const& base_dir)
{
  if (!table) return output_of(nullptr, base_dir);
  TableReader const t(file, *table, table_schema("[output]"));
  return output_of(&t, base_dir);
}

SolverConfig read_solver(std::string const& file, toml::value const& table)
{
  return solver_of(TableReader(file, table, table_schema("[solver]")));
}

} // namespace dgatd::io::detail
