#include "simulation_impl.hpp"

#include "capability_models.hpp"
#include "placement.hpp"

#include "dgatd/simulation/ports.hpp"
#include "dgatd/solver/far_field.hpp"
#include "dgatd/solver/lumped_elements.hpp"
#include "dgatd/solver/matched_port.hpp"
#include "dgatd/solver/plane_wave.hpp"
#include "dgatd/solver/stencils.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dgatd::simulation {
namespace {

solver::PlaneWaveSpec plane_wave_spec(io::Source const& source)
{
  solver::PlaneWaveSpec spec;
  spec.name = plane_wave_name(source);
  spec.direction = source.direction;
  spec.polarization = source.polarization;
  spec.waveform = source.waveform;
  spec.origin = source.origin;
  return spec;
}

// A plane wave already on at t = 0 switches on with a jump that rings through the whole run (below
// 1e-4 of the peak it stays under -80 dB; a pulse centred five widths in starts at 4e-6).
void check_plane_wave_start(io::Config const& config, io::Source const& source, solver::PlaneWaveStencil const& stencil)
{
  if (stencil.start_value <= 1e-4) return;
  throw Error(config.where(source.line),
              "the plane wave is already at " + format_number(100 * stencil.start_value) +
                  " % of its peak on the total-field surface at t = 0",
              source.origin ? "move origin against direction, or raise t0" : "raise t0");
}

// A face by its corners, in an order that does not depend on the order they are given in: the port's
// faces of a part and of the mesh around the port have the same points.
std::array<double, 9> corner_key(std::array<Vec3, 3> corners)
{
  std::sort(corners.begin(), corners.end());
  return {corners[0][0], corners[0][1], corners[0][2], corners[1][0], corners[1][1],
          corners[1][2], corners[2][0], corners[2][1], corners[2][2]};
}

// The mode ports on source's surface: one [[source]] per mode, each a port of its own.
std::vector<io::Source const*> mode_ports_on(io::Config const& config, io::Source const& source)
{
  std::vector<io::Source const*> on_surface;
  for (auto const& s : config.sources)
    if (s.kind == io::SourceKind::mode_port && s.surface == source.surface) on_surface.push_back(&s);
  return on_surface;
}

// The name a mode port's records carry: its surface, or surface:N where the surface carries several
// modes, so that S is given per mode pair.
std::string mode_port_name(io::Config const& config, io::Source const& source)
{
  return mode_ports_on(config, source).size() > 1 ? source.surface + ":" + std::to_string(source.mode) : source.surface;
}

// A surface carries one TE10 port, or mode ports of distinct modes.
void check_one_port_per_mode(io::Config const& config, io::Source const& source)
{
  for (auto const& other : config.sources) {
    if (&other == &source) return;
    if (other.surface != source.surface) continue;
    bool const te10 = other.kind == io::SourceKind::port_te10 || source.kind == io::SourceKind::port_te10;
    if (te10 || (other.kind == io::SourceKind::mode_port && other.mode == source.mode))
      throw Error(config.where(source.line),
                  "surface '" + source.surface + "' already carries " +
                      (te10 ? std::string("a port") : "mode " + std::to_string(source.mode)) + " (" +
                      config.where(other.line) + ")",
                  te10 ? "give the TE10 port a surface of its own, or make both mode ports (mode = 1, 2, ...)"
                       : "give each mode of a surface one [[source]]");
  }
}

// The modes of a mode port's surface, solved once for all its ports: the port's cross-section in the
// mesh around it (PEC sheets of [boundary] pec crossing it among its conductors) and its lowest modes,
// as many as the highest one its ports ask for.
PortModes surface_modes(io::Config const& config, io::Source const& source, Problem const& around, int tag)
{
  std::string const where = config.where(source.line);
  solver::exterior_port_faces(around.view(), tag, source.surface);
  int count = 0;
  for (auto const* port : mode_ports_on(config, source)) count = std::max(count, port->mode);
  return port_modes(config, around.mesh, around.materials, tag, count, where);
}

// The mode a mode port launches and absorbs (docs/method/port_modes.md), one of its surface's modes
// (found), as a matched port takes it: its pattern h x n normalised to unit integral square, looked
// up per face by its corners, and the wave admittance a TEM mode has at every frequency and a TE mode far above its
// cutoff. note: what the set-up report says of it (the section's solve with its first port).
solver::MatchedPortMode mode_port_mode(io::Config const& config, io::Source const& source, Problem const& around,
                                       PortModes const& found, bool first_on_surface, std::string& note)
{
  std::string const where = config.where(source.line);
  auto const& section = found.section;
  auto const& modes = found.modes;
  if (static_cast<int>(modes.size()) < source.mode)
    throw Error(where,
                "[[source]] kind = \"mode_port\" asks for mode " + std::to_string(source.mode) + " of '" +
                    source.surface + "', whose cross-section has " + std::to_string(modes.size()) +
                    " (an inhomogeneous section with conductors has its quasi-TEM modes only)",
                "ask for mode 1 to " + std::to_string(modes.size()));
  auto const& mode = modes[static_cast<std::size_t>(source.mode - 1)];
  if (mode.kind == solver::ModeKind::tm)
    throw Error(where,
                "mode " + std::to_string(source.mode) + " of '" + source.surface +
                    "' is TM: a mode port launches and absorbs TEM and TE modes",
                "ask for a TEM or TE mode (dgatd ports lists them)");
  double const mu = section.mu_r.front();
  for (double const m : section.mu_r)
    if (m != mu)
      throw Error(where, "the cross-section of '" + source.surface + "' has more than one permeability",
                  "fill the port's section with one mu_r");
  // The port's pattern p = h x n, the mode's transverse H turned into the plane's E direction: the
  // port injects its current along p (n x H = the surface current) and reads its voltage against p
  // (the amplitude of a mode is the integral of (E x h) . n). In a homogeneous fill p is along e; in a
  // quasi-TEM section (microstrip) it is the vacuum pattern (solver/port_mode.hpp), whose current has
  // no divergence where the dielectric changes, which e's would have there: along e the port charges
  // the substrate's edge and reflects nearly all of a low frequency.
  std::vector<Vec3> pattern(mode.magnetic.size());
  double norm = 0, peak = 0;
  for (Index t = 0; t < section.num_triangles(); ++t) {
    pattern[t] = cross(mode.magnetic[t], section.normal);
    norm += dot(pattern[t], pattern[t]) * section.area(t);
    peak = std::max(peak, dot(mode.electric[t], mode.electric[t]));
  }
  double const scale = 1 / std::sqrt(norm);
  double field_voltage = 0; // the voltage the port reads of the mode's own field
  for (Index t = 0; t < section.num_triangles(); ++t)
    field_voltage += dot(mode.electric[t], pattern[t]) * scale * section.area(t);
  solver::MatchedPortMode matched;
  // TEM: h = sqrt(eps_eff) / (eta0 mu_r) n x e_0 at every frequency; TE: sqrt(eps_r / mu_r) / eta0 far
  // above cutoff, with eps_eff = eps_r mu_r of the fill.
  matched.admittance = std::sqrt(mode.eps_eff) / (mu * std::sqrt(dga::mu0 / dga::eps0));
  matched.cutoff = 2 * M_PI * mode.cutoff_frequency;
  matched.peak_voltage = std::abs(field_voltage) / std::sqrt(peak);
  std::map<std::array<double, 9>, Index> triangle_of;
  for (Index t = 0; t < section.num_triangles(); ++t) {
    std::array<Vec3, 3> corners;
    for (int i = 0; i < 3; ++i) corners[i] = around.mesh.points[section.mesh_vertex[section.triangles[t][i]]];
    triangle_of[corner_key(corners)] = t;
  }
  std::vector<Vec3> field(pattern.size());
  for (std::size_t t = 0; t < field.size(); ++t) field[t] = scaled(pattern[t], scale);
  std::string const surface = source.surface;
  matched.field = [triangle_of, field, surface](std::array<Vec3, 3> const& corners, Vec3 const&) {
    auto const found = triangle_of.find(corner_key(corners));
    if (found == triangle_of.end())
      throw Error(surface, "a port face is not in its cross-section", "report this: the port's faces changed");
    return field[static_cast<std::size_t>(found->second)];
  };
  char line[400];
  std::string const name = mode_port_name(config, source);
  if (mode.kind == solver::ModeKind::tem)
    std::snprintf(line, sizeof line, "  mode port '%s': mode %d, TEM, eps_eff %.4f, Z0 %.3f ohm", name.c_str(),
                  source.mode, mode.eps_eff, mode.impedance);
  else
    std::snprintf(line, sizeof line, "  mode port '%s': mode %d, TE, cutoff %.6g Hz", name.c_str(), source.mode,
                  mode.cutoff_frequency);
  note += line;
  if (first_on_surface) {
    std::snprintf(line, sizeof line, "; its section of %lld triangles solved in %.2f s (%d iterations)\n",
                  static_cast<long long>(section.num_triangles()), found.seconds, mode.iterations);
    note += line;
  } else {
    note += "; the same section\n";
  }
  return matched;
}

} // namespace

// Each item is placed where the placement says: a source on the part that steps its tet or edge,
// a port or a plane wave on every part with the rows it holds (maybe none; a port's voltage is a sum
// over all), a probe on the owner of its tet. Collective over ranks.
void Simulation::Impl::add_sources_and_probes(Placement const& placement)
{
  auto const view = problem.view();
  auto const& ops = problem.operators;
  std::map<int, PortModes> modes_of_surface; // per mode ports' surface tag, solved with its first port
  for (auto const& source : config.sources) {
    std::string const where = config.where(source.line);
    std::string const name = "source at " + where;
    switch (source.kind) {
    case io::SourceKind::port_te10: {
      check_one_port_per_mode(config, source);
      int const tag = placement.surface_tag(source.surface, where);
      auto const around = placement.around_surface(tag);
      if (source.matched)
        formulation->add_term(solver::matched_port_term(
            source.surface,
            solver::matched_port_stencil(
                view, ops, placement.owned_blocks(), tag, source.surface,
                solver::te10_mode(around->view(), around->materials.eps, around->materials.mu, tag, source.surface)),
            solver::strength(source.waveform)));
      else
        formulation->add_prescribed(solver::te10_port_stencil(around->view(), view, ops.layout, tag, source.surface),
                                    solver::strength(source.waveform));
      break;
    }
    case io::SourceKind::dipole:
      if (placement.steps_point(name, source.position))
        formulation->add_current_source(solver::dipole_stencil(view, ops, name, source.position, source.direction),
                                        solver::strength(source.waveform));
      break;
    case io::SourceKind::edge_current:
      if (placement.steps_edge_nearest(source.position))
        formulation->add_current_source(
            solver::edge_current_stencil(view, ops, name, source.position, source.direction),
            solver::strength(source.waveform));
      break;
    case io::SourceKind::plane_wave: {
      std::vector<int> tags;
      for (auto const& region : source.regions)
        tags.push_back(placement.volume_tag(region, "[[source]] plane_wave", where));
      auto const spec = plane_wave_spec(source);
      auto const total = placement.total_field(tags, spec);
      auto stencil = solver::plane_wave_stencil(view, ops, total.tets, total.vertices, spec, total.surface);
      plane_wave_origin = spec.origin ? *spec.origin : total.surface.first_point;
      // Checked on every rank alike: a part without corrections starts at nothing.
      stencil.start_value = placement.largest(stencil.start_value);
      check_plane_wave_start(config, source, stencil);
      formulation->add_term(solver::plane_wave_term(stencil));
      break;
    }
    case io::SourceKind::mode_port: {
      check_one_port_per_mode(config, source);
      int const tag = placement.surface_tag(source.surface, where);
      auto const around = placement.around_surface(tag);
      auto solved = modes_of_surface.find(tag);
      bool const first_on_surface = solved == modes_of_surface.end();
      if (first_on_surface) solved = modes_of_surface.emplace(tag, surface_modes(config, source, *around, tag)).first;
      auto const mode = mode_port_mode(config, source, *around, solved->second, first_on_surface, port_modes_report);
      formulation->add_term(solver::matched_port_term(
          mode_port_name(config, source),
          solver::matched_port_stencil(view, ops, placement.owned_blocks(), tag, source.surface, mode),
          solver::strength(source.waveform)));
      break;
    }
    case io::SourceKind::lumped_port:
      break; // with the lumped elements, below
    }
  }
  add_lumped_elements(placement);
  std::vector<solver::ProbeStencil> probes;
  for (std::size_t k = 0; k < config.probes.size(); ++k) {
    auto const& probe = config.probes[k];
    probes.push_back(placement.reads_probe(k) ? solver::probe_stencil(view, ops.layout, probe.name, probe.position)
                                              : solver::ProbeStencil{});
  }
  formulation->set_probes(probes);
  add_far_fields(placement);
  for (auto const& model : capability_models())
    if (auto const items = config.capability_items.find(model.table); items != config.capability_items.end())
      model.add_terms(config, items->second, placement, *formulation);
}

// The sheets are the lumped ports in the order of the sources, then the [[lumped]] elements; over
// ranks each rank computes the kites of the blocks it owns.
void Simulation::Impl::add_lumped_elements(Placement const& placement)
{
  if (problem.materials.sheets.empty()) return;
  std::vector<solver::Waveform> waveforms;
  for (auto const& source : config.sources)
    if (source.kind == io::SourceKind::lumped_port) waveforms.push_back(source.waveform);
  waveforms.resize(problem.materials.sheets.size());
  std::optional<solver::KitesOverRanks> over_ranks;
  if (auto const* part = placement.part())
    over_ranks = solver::KitesOverRanks{placement.owned_blocks(), placement.face_global(), part->global_vertex};
  formulation->add_term(solver::lumped_elements_term(solver::lumped_stencil(
      problem.operators, problem.materials.sheets, waveforms, over_ranks ? &*over_ranks : nullptr)));
}

// The plane wave a far-field surface compares with (radar cross sections) is the run's only one.
void Simulation::Impl::add_far_fields(Placement const& placement)
{
  io::Source const* plane_wave = nullptr;
  int plane_waves = 0;
  for (auto const& source : config.sources)
    if (source.kind == io::SourceKind::plane_wave) {
      plane_wave = &source;
      ++plane_waves;
    }
  for (auto const& far_field : config.farfields) {
    std::string const where = config.where(far_field.line);
    int const tag = placement.surface_tag(far_field.surface, where);
    auto stencil =
        solver::far_field_stencil(problem.view(), problem.operators, placement.far_field_sides(tag, far_field.surface),
                                  far_field.surface, far_field.frequencies);
    if (plane_waves == 1) {
      stencil.has_incident = true;
      stencil.incident_direction = plane_wave->direction;
      stencil.incident_polarization = plane_wave->polarization;
      stencil.incident_origin = plane_wave_origin;
      stencil.incident_waveform = plane_wave->waveform;
    }
    warn_outside_band(far_field);
    formulation->add_term(solver::far_field_term(stencil));
  }
}

// A frequency where no source has any strength gets a far field of rounding noise: said, not refused
// (the user may add a source later, or mean the noise floor).
void Simulation::Impl::warn_outside_band(io::FarFieldConfig const& far_field) const
{
  if (!options.report || config.sources.empty()) return;
  for (double f : far_field.frequencies) {
    double strongest = 0;
    for (auto const& source : config.sources)
      strongest = std::max(strongest, solver::relative_spectrum(source.waveform, f));
    if (strongest < 1e-3)
      *options.report << "warning: " << config.where(far_field.line) << ": [[farfield]] frequency " << f
                      << " Hz is outside the sources' band (more than 60 dB below their peak): its far field is "
                         "noise\n";
  }
}

} // namespace dgatd::simulation
