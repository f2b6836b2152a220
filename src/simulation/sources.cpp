#include "simulation_impl.hpp"

#include "capability_models.hpp"

#include "dgatd/mesh/point_location.hpp"
#include "dgatd/solver/far_field.hpp"
#include "dgatd/solver/lumped_elements.hpp"
#include "dgatd/solver/matched_port.hpp"
#include "dgatd/solver/plane_wave.hpp"
#include "dgatd/solver/stencils.hpp"

#include <algorithm>
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

// The tets of mesh in a plane wave's total-field region, its volumes found in whole (the mesh a run
// of one process steps, or the whole mesh of a run over ranks; a part from disk with the regions
// that have tets in the whole mesh).
std::vector<char> total_field_tets(io::Config const& config, io::Source const& source, mesh::Mesh const& whole,
                                   mesh::Mesh const& mesh, std::vector<int> const* regions = nullptr)
{
  std::vector<int> tags;
  for (auto const& region : source.regions)
    tags.push_back(volume_tag(whole, region, 0, "[[source]] plane_wave", config.where(source.line), regions));
  std::vector<char> total(mesh.tets.size(), 0);
  for (std::size_t t = 0; t < total.size(); ++t)
    total[t] = std::find(tags.begin(), tags.end(), mesh.tet_region[t]) != tags.end();
  return total;
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

} // namespace

void Simulation::Impl::add_sources_and_probes()
{
  auto const view = problem.view();
  auto const& ops = problem.operators;
  for (auto const& source : config.sources) {
    std::string const name = "source at " + config.where(source.line);
    switch (source.kind) {
    case io::SourceKind::port_te10: {
      int const tag = surface_tag(problem.mesh, source.surface, config.where(source.line));
      if (source.matched) {
        formulation->add_term(
            solver::matched_port_term(source.surface,
                                      solver::matched_te10_port_stencil(view, ops, problem.materials.eps,
                                                                        problem.materials.mu, tag, source.surface),
                                      solver::strength(source.waveform)));
        break;
      }
      formulation->add_prescribed(solver::te10_port_stencil(view, ops.layout, tag, source.surface),
                                  solver::strength(source.waveform));
      break;
    }
    case io::SourceKind::dipole:
      formulation->add_current_source(solver::dipole_stencil(view, ops, name, source.position, source.direction),
                                      solver::strength(source.waveform));
      break;
    case io::SourceKind::edge_current:
      formulation->add_current_source(solver::edge_current_stencil(view, ops, name, source.position, source.direction),
                                      solver::strength(source.waveform));
      break;
    case io::SourceKind::plane_wave: {
      auto const spec = plane_wave_spec(source);
      auto const total = total_field_tets(config, source, problem.mesh, problem.mesh);
      auto const vertex_total = solver::total_field_vertices(problem.mesh, total);
      auto const surface = solver::tfsf_surface(view, problem.materials, problem.face_kinds, total, vertex_total, spec);
      auto const stencil = solver::plane_wave_stencil(view, ops, total, vertex_total, spec, surface);
      check_plane_wave_start(config, source, stencil);
      formulation->add_term(solver::plane_wave_term(stencil));
      break;
    }
    case io::SourceKind::lumped_port:
      break; // with the lumped elements, below
    }
  }
  if (!problem.materials.sheets.empty()) {
    // The sheets are the lumped ports in the order of the sources, then the [[lumped]] elements.
    std::vector<solver::Waveform> waveforms;
    for (auto const& source : config.sources)
      if (source.kind == io::SourceKind::lumped_port) waveforms.push_back(source.waveform);
    waveforms.resize(problem.materials.sheets.size());
    formulation->add_term(
        solver::lumped_elements_term(solver::lumped_stencil(ops, problem.materials.sheets, waveforms)));
  }
  std::vector<solver::ProbeStencil> probes;
  for (auto const& probe : config.probes)
    probes.push_back(solver::probe_stencil(view, ops.layout, probe.name, probe.position));
  formulation->set_probes(probes);
  add_far_fields();
  for (auto const& model : capability_models())
    if (auto const items = config.capability_items.find(model.table); items != config.capability_items.end())
      model.add_terms(config, items->second, problem, *formulation);
}

// The plane wave a far-field surface compares with (radar cross sections) is the run's only one.
void Simulation::Impl::add_far_fields()
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
    int const tag = surface_tag(problem.mesh, far_field.surface, where);
    auto stencil = solver::far_field_stencil(problem.view(), problem.operators, problem.materials, tag,
                                             far_field.surface, far_field.frequencies);
    if (plane_waves == 1) {
      stencil.has_incident = true;
      stencil.incident_direction = plane_wave->direction;
      stencil.incident_polarization = plane_wave->polarization;
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

// Each rank adds what acts on its part: a source where its tet or edge is among the part's (on the
// blocks it does not own it is overwritten by the halo exchange), a probe on the rank that owns its
// tet (the others read zero, and the ranks' samples are summed). Every item is first found in the
// whole mesh, so the same tet or edge is chosen as in a run of one process.
void Simulation::Impl::add_sources_and_probes(parallel::MeshPart const& part, std::vector<Index> const& probe_tets,
                                              std::vector<int> const& vertex_owner)
{
  auto const view = problem.view();
  auto const whole_view = whole.view();
  auto const& ops = problem.operators;
  auto const edge_global = parallel::global_edges(problem.topology, part.global_tet, whole.topology.tet_edges);
  auto const owned_blocks = this->owned_blocks(part);
  for (auto const& source : config.sources) {
    std::string const name = "source at " + config.where(source.line);
    switch (source.kind) {
    case io::SourceKind::port_te10: {
      // Every rank adds the port, with the rows it holds (maybe none): its voltage is a sum over all.
      int const tag = surface_tag(whole.mesh, source.surface, config.where(source.line));
      if (source.matched)
        formulation->add_term(solver::matched_port_term(
            source.surface,
            solver::matched_te10_port_stencil(whole_view, whole.materials.eps, whole.materials.mu, view, ops,
                                              owned_blocks, tag, source.surface),
            solver::strength(source.waveform)));
      else
        formulation->add_prescribed(solver::te10_port_stencil(whole_view, view, ops.layout, tag, source.surface),
                                    solver::strength(source.waveform));
      break;
    }
    case io::SourceKind::dipole:
      if (part.local_tet(solver::containing_tet(whole_view, name, source.position)) >= 0)
        formulation->add_current_source(solver::dipole_stencil(view, ops, name, source.position, source.direction),
                                        solver::strength(source.waveform));
      break;
    case io::SourceKind::edge_current:
      if (std::find(edge_global.begin(), edge_global.end(), mesh::nearest_edge(whole_view, source.position)) !=
          edge_global.end())
        formulation->add_current_source(
            solver::edge_current_stencil(view, ops, name, source.position, source.direction),
            solver::strength(source.waveform));
      break;
    case io::SourceKind::plane_wave: {
      // Every rank adds it, with its part's corrections (maybe none). Which blocks hold the total
      // field is decided on the whole mesh: a vertex at the part's rim may have its total-field
      // tets on another rank.
      auto const spec = plane_wave_spec(source);
      auto const whole_total = total_field_tets(config, source, whole.mesh, whole.mesh);
      auto const whole_vertices = solver::total_field_vertices(whole.mesh, whole_total);
      auto const surface =
          solver::tfsf_surface(whole_view, whole.materials, whole.face_kinds, whole_total, whole_vertices, spec);
      std::vector<char> vertex_total;
      for (Index v : part.global_vertex) vertex_total.push_back(whole_vertices[v]);
      auto const stencil = solver::plane_wave_stencil(
          view, ops, total_field_tets(config, source, whole.mesh, problem.mesh), vertex_total, spec, surface);
      check_plane_wave_start(config, source, stencil);
      formulation->add_term(solver::plane_wave_term(stencil));
      break;
    }
    case io::SourceKind::lumped_port:
      throw std::logic_error("a lumped port over ranks (the capabilities table refuses it)");
    }
  }
  std::vector<solver::ProbeStencil> probes;
  for (std::size_t k = 0; k < config.probes.size(); ++k) {
    auto const& probe = config.probes[k];
    bool const here = parallel::tet_owner(whole.mesh, vertex_owner, probe_tets[k]) == communicator->rank();
    probes.push_back(here ? solver::probe_stencil(view, ops.layout, probe.name, probe.position)
                          : solver::ProbeStencil{});
  }
  formulation->set_probes(probes);
}

// add_sources_and_probes without the whole mesh: probe_tets (global) as set_up_from_parts found
// them over the ranks, and per source its tet (a dipole) or edge (an edge current), global.
// Collective (a matched port gathers its surface).
void Simulation::Impl::add_sources_and_probes_of_parts(parallel::MeshPart const& part,
                                                       std::vector<Index> const& edge_global,
                                                       std::vector<Index> const& probe_tets,
                                                       std::vector<Index> const& source_items)
{
  auto const view = problem.view();
  auto const& ops = problem.operators;
  for (std::size_t k = 0; k < config.sources.size(); ++k) {
    auto const& source = config.sources[k];
    std::string const name = "source at " + config.where(source.line);
    if (source.kind == io::SourceKind::port_te10) {
      // Every rank adds the port, with the rows or prescribed half-edges it holds (maybe none); its
      // shape, plane and medium come from the whole port surface with the tets beside it, gathered on
      // every rank.
      int const tag = surface_tag(problem.mesh, source.surface, config.where(source.line));
      auto port = parallel::gather_surface(*communicator, part, problem.topology, tag);
      port.groups = problem.mesh.groups;
      port.source = problem.mesh.source;
      auto const port_topology = mesh::build_topology(port);
      auto const port_geometry = mesh::build_geometry(port, port_topology);
      mesh::MeshView const port_view{port, port_topology, port_geometry};
      if (!source.matched) {
        formulation->add_prescribed(solver::te10_port_stencil(port_view, view, ops.layout, tag, source.surface),
                                    solver::strength(source.waveform));
        continue;
      }
      auto const port_materials = materials_of(config, port, &parts->regions);
      formulation->add_term(solver::matched_port_term(
          source.surface,
          solver::matched_te10_port_stencil(port_view, port_materials.eps, port_materials.mu, view, ops,
                                            owned_blocks(part), tag, source.surface),
          solver::strength(source.waveform)));
      continue;
    }
    if (source.kind == io::SourceKind::plane_wave) {
      // Every rank adds it, with its part's corrections (maybe none). A vertex is in the total field
      // when one of its tets is: its owner, which holds them all, says.
      auto const spec = plane_wave_spec(source);
      auto const total = total_field_tets(config, source, problem.mesh, problem.mesh, &parts->regions);
      auto const vertex_total =
          parallel::from_owners(*communicator, part, solver::total_field_vertices(problem.mesh, total));
      solver::SurfaceOverRanks const ranks{*communicator, part.owns_vertex, part.global_tet, part.global_vertex};
      auto const surface =
          solver::tfsf_surface(view, problem.materials, problem.face_kinds, total, vertex_total, spec, &ranks);
      auto stencil = solver::plane_wave_stencil(view, ops, total, vertex_total, spec, surface);
      // The check on every rank alike: a part without corrections starts at nothing.
      for (double start : parallel::all_gathered(*communicator, std::vector<double>{stencil.start_value}))
        stencil.start_value = std::max(stencil.start_value, start);
      check_plane_wave_start(config, source, stencil);
      formulation->add_term(solver::plane_wave_term(stencil));
      continue;
    }
    bool const here = source.kind == io::SourceKind::dipole
                          ? part.local_tet(source_items[k]) >= 0
                          : std::find(edge_global.begin(), edge_global.end(), source_items[k]) != edge_global.end();
    if (!here) continue;
    formulation->add_current_source(
        source.kind == io::SourceKind::dipole
            ? solver::dipole_stencil(view, ops, name, source.position, source.direction)
            : solver::edge_current_stencil(view, ops, name, source.position, source.direction),
        solver::strength(source.waveform));
  }
  std::vector<solver::ProbeStencil> probes;
  for (std::size_t k = 0; k < config.probes.size(); ++k) {
    auto const& probe = config.probes[k];
    Index const t = part.local_tet(probe_tets[k]);
    bool const here = t >= 0 && part.owns_tet[t];
    probes.push_back(here ? solver::probe_stencil(view, ops.layout, probe.name, probe.position)
                          : solver::ProbeStencil{});
  }
  formulation->set_probes(probes);
}

} // namespace dgatd::simulation
