#include "dgatd/simulation/simulation.hpp"

#include "dgatd/error.hpp"
#include "dgatd/io/output/checkpoint.hpp"
#include "dgatd/io/output/hdf5_writer.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/mesh/ordering.hpp"
#include "dgatd/mesh/point_location.hpp"
#include "dgatd/random.hpp"
#include "dgatd/simulation/capabilities.hpp"
#include "dgatd/simulation/config_errors.hpp"
#include "dgatd/simulation/part_files.hpp"
#include "dgatd/solver/formulations.hpp"
#include "dgatd/solver/stencils.hpp"
#include "recorder.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <optional>
#include <ostream>
#include <sstream>
#include <type_traits>
#include <utility>

namespace dgatd::simulation {
namespace {

// dt from the stability bound and the [time] table.
TimePlan plan_time_steps(io::Config const& config, solver::StabilityBound const& bound)
{
  TimePlan plan;
  plan.dt_max = bound.dt_max;
  plan.bound_iterations = bound.iterations;
  if (!std::isfinite(bound.dt_max) || !(bound.dt_max > 0))
    throw Error(config.name,
                "the stability bound is not a positive number (dt_max = " + format_number(bound.dt_max) + ")",
                "check the materials and the mesh quality (dgatd info)");
  // Unconverged, the Ritz value is still below the spectral radius, so dt_max would be too large.
  if (!bound.converged && !(config.time.dt && config.time.allow_unstable))
    throw Error(config.name,
                "the stability bound did not converge in " + std::to_string(bound.iterations) +
                    " Lanczos iterations (last estimate dt_max = " + format_number(bound.dt_max) + " s)",
                "check the mesh quality (dgatd info), or set [time] dt with allow_unstable = true");
  if (config.time.dt) {
    plan.dt = *config.time.dt;
    if (plan.dt > plan.dt_max && !config.time.allow_unstable)
      throw Error(config.name,
                  "[time] dt = " + format_number(plan.dt) +
                      " s exceeds the stability bound dt_max = " + format_number(plan.dt_max) + " s",
                  "set dt below the bound, dt = \"auto\", or allow_unstable = true for experiments");
  } else {
    plan.dt = config.time.safety * plan.dt_max;
  }
  return plan;
}

std::int64_t steps_to_end(io::Config const& config, double dt)
{
  return config.time.steps ? *config.time.steps : static_cast<std::int64_t>(std::ceil(*config.time.t_end / dt - 1e-9));
}

std::unique_ptr<io::RunWriter> hdf5_writer(std::string const& path, io::RunAttributes const& attributes,
                                           io::ResumePoint const* resume)
{
  if (resume) return std::make_unique<io::Hdf5Writer>(path, *resume);
  return std::make_unique<io::Hdf5Writer>(path, attributes);
}

solver::Signal scaled(solver::Waveform const& w)
{
  return [w](double t) { return w.amplitude * w.value(t); };
}

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

// The output of the ranks other than 0 in a run over several ranks: rank 0 writes everything.
class SilentWriter final : public io::RunWriter {
public:
  void write_mesh(std::vector<Vec3> const&, std::vector<std::array<std::int32_t, 4>> const&,
                  std::vector<std::int32_t> const&) override
  {
  }
  std::size_t add_probe(std::string const&, Vec3 const&) override { return probes_++; }
  void append_step(double, std::vector<io::ProbeSample> const&) override {}
  void append_energy(double, double) override {}
  void write_snapshot(double, std::vector<Vec3> const&, std::vector<Vec3> const&) override {}
  void write_port(solver::PortSeries const&, double) override {}
  void write_far_field(solver::FarFieldRecord const&) override {}
  void flush() override {}
  void close(bool) override {}
  std::string description() const override { return "nothing (rank 0 writes the output)"; }

private:
  std::size_t probes_ = 0;
};

// The manifest against the configuration and the rank count; the mesh file's bytes on rank 0 only
// (check_file), which reads it through once.
void check_manifest(io::Config const& config, PartsManifest const& manifest, int ranks, bool check_file)
{
  std::string const again = "split it again: dgatd partition " + config.mesh.file + " -n " + std::to_string(ranks) +
                            " --scale " + format_number(config.mesh.scale) + " --ordering " +
                            mesh::ordering_name(config.mesh.ordering) + " -o " + manifest.directory;
  if (manifest.ranks != ranks)
    throw Error(manifest.directory,
                "holds parts for " + std::to_string(manifest.ranks) + " ranks, but the run has " +
                    std::to_string(ranks),
                "run under mpirun -n " + std::to_string(manifest.ranks) + ", or " + again);
  if (manifest.ordering != mesh::ordering_name(config.mesh.ordering) || manifest.scale != config.mesh.scale)
    throw Error(manifest.directory,
                "was split with ordering \"" + manifest.ordering + "\" and scale " + format_number(manifest.scale) +
                    ", the configuration asks for \"" + mesh::ordering_name(config.mesh.ordering) + "\" and " +
                    format_number(config.mesh.scale),
                again);
  if (!check_file) return;
  std::int64_t size = 0;
  if (mesh_file_hash(config.mesh.file, size) != manifest.mesh_file_hash || size != manifest.mesh_file_size)
    throw Error(manifest.directory, "was split from another mesh (" + manifest.mesh_file + ") than " + config.mesh.file,
                again);
}

} // namespace

struct Simulation::Impl {
  io::Config config;
  SimulationOptions options;
  std::string output_path;
  StageTimes times;
  Problem problem;
  TimePlan plan;
  std::unique_ptr<solver::Formulation> formulation;
  std::string backend;
  int concurrency = 1;
  std::int64_t restart_step = -1; // the checkpoint's step when restarting
  bool ran = false;
  // A run over several ranks: problem is this rank's part, whole the whole problem without
  // operators (what the output is written in).
  std::shared_ptr<parallel::Communicator> communicator;
  bool over_ranks = false;
  Problem whole;
  Index whole_free_unknowns = 0;                                      // of the whole problem, for the report
  std::vector<double> part_tets, part_halo_values, part_halo_seconds; // per rank, for the report

  // Runs stage on every rank (parallel::together), a ModelError told at its configuration line.
  template <class Stage>
  void together(Stage&& stage)
  {
    parallel::together(*communicator, [&] {
      try {
        stage();
      } catch (ModelError const& e) {
        throw config_error(config, e);
      }
    });
  }
  // The end of a set-up over ranks, once the formulation is distributed: the parts' sizes for the
  // report, the stability bound over all, the checkpoint's state.
  void finish_set_up_over_ranks(parallel::MeshPart const& part, io::Checkpoint const* checkpoint, Stopwatch& clock)
  {
    int const ranks = communicator->size();
    part_tets.assign(ranks, 0.0);
    part_halo_values.assign(ranks, 0.0);
    part_tets[communicator->rank()] = static_cast<double>(part.global_tet.size());
    part_halo_values[communicator->rank()] = static_cast<double>(formulation->halo().values_sent);
    communicator->sum(part_tets.data(), ranks);
    communicator->sum(part_halo_values.data(), ranks);
    times.setup += clock.lap();
    together([&] { plan_steps(checkpoint); });
    times.dt_bound += clock.lap();
    if (checkpoint) {
      together([&] { restore(*checkpoint); });
      times.setup += clock.lap();
    }
  }

  // A snapshot's E and H per tet of the whole mesh, on rank 0; empty on the other ranks (collective
  // over ranks).
  void tet_fields(std::vector<Vec3>& e, std::vector<Vec3>& h) const;
  // From parts: the global ids of the part's edges, faces and tets, the tets it owns, and its faces
  // that have two tets in the whole mesh and one here (rim_faces).
  struct PartIds {
    std::vector<Index> edges, faces, tets;
    std::vector<char> owns_tet, rim_face;
  } part_ids;
  // A rim face's circulation sums the f^ of two tets, one of them in another part. The owner of any
  // of the face's vertices steps both, so each rim face is asked of the owner of its first vertex:
  // per rank, the rim faces asked of it (answered, local ids) and the rim faces it answers here.
  struct RimFaces {
    std::vector<std::vector<Index>> answered, asked;
  } rim_faces_over_ranks;
  void plan_rim_faces(parallel::MeshPart const& part);

  // From parts on disk: the manifest; whole then holds, on rank 0 only, the mesh gathered from the
  // ranks for the output and the checkpoints, and no complex.
  std::optional<PartsManifest> parts;

  Problem const& output_problem() const { return over_ranks ? whole : problem; }
  struct Counts {
    Index vertices, edges, faces, tets;
  };
  // Of the whole mesh (on every rank).
  Counts whole_counts() const
  {
    if (parts) return {parts->vertices, parts->edges, parts->faces, parts->tets};
    auto const& p = output_problem();
    return {p.mesh.num_vertices(), p.topology.num_edges(), p.topology.num_faces(), p.mesh.num_tets()};
  }
  // What the capabilities table refuses of the configuration in the modes this run steps in, refused
  // in one line before anything is built; groups: the mesh's physical groups once known.
  void refuse_unsupported(std::vector<mesh::PhysicalGroup> const* groups) const
  {
    bool const on_gpu = config.solver.backend == io::Backend::default_space &&
                        !std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::DefaultHostExecutionSpace>;
    simulation::refuse_unsupported(config, run_modes(config, over_ranks, on_gpu), groups);
    if (over_ranks && !options.partitioner)
      throw std::logic_error("a simulation over several ranks needs SimulationOptions::partitioner");
  }
  template <class Space>
  void make_formulation_on();
  void plan_steps(io::Checkpoint const* checkpoint);
  void add_sources_and_probes();
  void add_sources_and_probes(parallel::MeshPart const& part, std::vector<Index> const& probe_tets,
                              std::vector<int> const& vertex_owner);
  void add_far_fields();
  void warn_outside_band(io::FarFieldConfig const& far_field) const;
  void make_formulation()
  {
    if (config.solver.backend == io::Backend::serial)
      make_formulation_on<Kokkos::Serial>();
    else
      make_formulation_on<Kokkos::DefaultExecutionSpace>();
  }
  void add_sources_and_probes_of_parts(parallel::MeshPart const& part, std::vector<Index> const& edge_global,
                                       std::vector<Index> const& probe_tets, std::vector<Index> const& source_items);
  void distribute(parallel::MeshPart const& part, std::vector<Index> const& edge_global,
                  std::vector<Index> const& face_global);
  // The whole problem's number of each local unknown (-1 where it has none), its free unknowns and
  // its size (DofLayout::size).
  struct Numbering {
    std::vector<Index> global;
    Index free = 0, size = 0;
  };
  Numbering number_from_whole(parallel::MeshPart const& part, std::vector<Index> const& edge_global) const;
  Numbering number_over_ranks(parallel::MeshPart const& part, parallel::HaloPlan const& halo) const;
  std::vector<char> owned_blocks(parallel::MeshPart const& part) const
  {
    std::vector<char> owned;
    for (Index v : problem.operators.layout.block_vertex) owned.push_back(part.owns_vertex[v]);
    return owned;
  }
  io::Checkpoint checkpoint() const;
  std::unique_ptr<io::Checkpoint> read_restart_checkpoint() const;
  // The mesh of the configuration (given_mesh when not null, or the checkpoint's when it was
  // generated), ordered, and checked against the checkpoint's.
  mesh::Mesh load_ordered_mesh(mesh::Mesh* given_mesh, io::Checkpoint* checkpoint) const;
  void share_checkpoint(std::unique_ptr<io::Checkpoint>& checkpoint) const;
  void restore(io::Checkpoint const& checkpoint);
  void report_start(std::int64_t first_step) const;
  void report_end(std::int64_t steps_taken, RunResult const& result) const;
  RecordingPlan recording_plan(std::int64_t first_step) const;
  std::unique_ptr<io::RunWriter> open_writer(std::int64_t first_step) const;
};

RecordingPlan Simulation::Impl::recording_plan(std::int64_t first_step) const
{
  RecordingPlan p;
  p.dt = plan.dt;
  p.first_step = first_step;
  p.last_step = plan.steps;
  p.energy_every = config.output.energy_every;
  p.snapshot_every = config.output.snapshot_every;
  p.checkpoint_every = config.output.checkpoint_every;
  p.progress = config.output.progress && options.report != nullptr;
  return p;
}

// A new output with the run's attributes, mesh and probes; on a restart, the interrupted output cut
// back to the checkpoint's step.
std::unique_ptr<io::RunWriter> Simulation::Impl::open_writer(std::int64_t first_step) const
{
  auto const& problem = output_problem();
  auto const counts = whole_counts();
  io::RunAttributes attributes;
  attributes.config_text = config.text;
  attributes.dt = plan.dt;
  attributes.dt_max = plan.dt_max;
  attributes.num_vertices = counts.vertices;
  attributes.num_edges = counts.edges;
  attributes.num_faces = counts.faces;
  attributes.num_tets = counts.tets;
  attributes.formulation = solver::to_string(formulation->kind());
  attributes.backend = backend;
  if (communicator->rank() != 0) return std::make_unique<SilentWriter>();
  auto const open = options.writer ? options.writer : decltype(options.writer)(hdf5_writer);
  if (restart_step >= 0) {
    auto const energy_every = config.output.energy_every, snapshot_every = config.output.snapshot_every;
    io::ResumePoint resume;
    for (auto const& probe : config.probes) resume.probe_names.push_back(probe.name);
    // The output has a row per step only for probes (the time series is theirs).
    resume.steps = config.probes.empty() ? 0 : first_step;
    resume.energy_samples = formulation->has_energy() ? (first_step + energy_every - 1) / energy_every : 0;
    resume.snapshots = snapshot_every > 0 ? first_step / snapshot_every : 0;
    return open(output_path, attributes, &resume);
  }
  auto writer = open(output_path, attributes, nullptr);
  writer->write_mesh(problem.mesh.points, problem.mesh.tets, problem.mesh.tet_region);
  for (auto const& probe : config.probes) writer->add_probe(probe.name, probe.position);
  return writer;
}

template <class Space>
void Simulation::Impl::make_formulation_on()
{
  Space space;
  backend = Space::name();
  concurrency = space.concurrency();
  auto const kind = config.solver.formulation;
  formulation = solver::make_formulation(kind, space, problem.topology, problem.operators, config.solver.precision,
                                         config.solver.field_precision);
}

void Simulation::Impl::plan_steps(io::Checkpoint const* checkpoint)
{
  if (checkpoint) {
    // The checkpoint's dt, not a new estimate: the Lanczos iteration's reductions may round differently
    // on another thread count, and the continuation must be the same run.
    plan.dt = checkpoint->dt;
    plan.dt_max = checkpoint->dt_max;
    plan.bound_iterations = checkpoint->bound_iterations;
  } else {
    plan = plan_time_steps(config, formulation->estimate_stability());
  }
  plan.steps = steps_to_end(config, plan.dt);
  formulation->set_dt(plan.dt);
}

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
        formulation->add_matched_port(source.surface,
                                      solver::matched_te10_port_stencil(view, ops, problem.materials.eps,
                                                                        problem.materials.mu, tag, source.surface),
                                      scaled(source.waveform));
        break;
      }
      formulation->add_prescribed(solver::te10_port_stencil(view, ops.layout, tag, source.surface),
                                  scaled(source.waveform));
      break;
    }
    case io::SourceKind::dipole:
      formulation->add_current_source(solver::dipole_stencil(view, ops, name, source.position, source.direction),
                                      scaled(source.waveform));
      break;
    case io::SourceKind::edge_current:
      formulation->add_current_source(solver::edge_current_stencil(view, ops, name, source.position, source.direction),
                                      scaled(source.waveform));
      break;
    case io::SourceKind::plane_wave: {
      auto const spec = plane_wave_spec(source);
      auto const total = total_field_tets(config, source, problem.mesh, problem.mesh);
      auto const vertex_total = solver::total_field_vertices(problem.mesh, total);
      auto const surface = solver::tfsf_surface(view, problem.materials, problem.face_kinds, total, vertex_total, spec);
      auto const stencil = solver::plane_wave_stencil(view, ops, total, vertex_total, spec, surface);
      check_plane_wave_start(config, source, stencil);
      formulation->add_plane_wave(stencil);
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
    formulation->add_lumped(solver::lumped_stencil(ops, problem.materials.sheets, waveforms));
  }
  std::vector<solver::ProbeStencil> probes;
  for (auto const& probe : config.probes)
    probes.push_back(solver::probe_stencil(view, ops.layout, probe.name, probe.position));
  formulation->set_probes(probes);
  add_far_fields();
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
    formulation->add_far_field(stencil);
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
        formulation->add_matched_port(source.surface,
                                      solver::matched_te10_port_stencil(whole_view, whole.materials.eps,
                                                                        whole.materials.mu, view, ops, owned_blocks,
                                                                        tag, source.surface),
                                      scaled(source.waveform));
      else
        formulation->add_prescribed(solver::te10_port_stencil(whole_view, view, ops.layout, tag, source.surface),
                                    scaled(source.waveform));
      break;
    }
    case io::SourceKind::dipole:
      if (part.local_tet(solver::containing_tet(whole_view, name, source.position)) >= 0)
        formulation->add_current_source(solver::dipole_stencil(view, ops, name, source.position, source.direction),
                                        scaled(source.waveform));
      break;
    case io::SourceKind::edge_current:
      if (std::find(edge_global.begin(), edge_global.end(), mesh::nearest_edge(whole_view, source.position)) !=
          edge_global.end())
        formulation->add_current_source(
            solver::edge_current_stencil(view, ops, name, source.position, source.direction), scaled(source.waveform));
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
      formulation->add_plane_wave(stencil);
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
                                    scaled(source.waveform));
        continue;
      }
      auto const port_materials = materials_of(config, port, &parts->regions);
      formulation->add_matched_port(source.surface,
                                    solver::matched_te10_port_stencil(port_view, port_materials.eps, port_materials.mu,
                                                                      view, ops, owned_blocks(part), tag,
                                                                      source.surface),
                                    scaled(source.waveform));
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
      formulation->add_plane_wave(stencil);
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
        scaled(source.waveform));
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

// The halo plan, what this rank owns, and the stability bound's start field of the one-process run:
// the random value of each free unknown at its place in the whole mesh's numbering. edge_global and
// face_global: the global id of each local edge and face.
void Simulation::Impl::distribute(parallel::MeshPart const& part, std::vector<Index> const& edge_global,
                                  std::vector<Index> const& face_global)
{
  auto const& topology = problem.topology;
  auto const& layout = problem.operators.layout;
  solver::Distribution d;
  d.communicator = communicator;
  d.halo = parallel::make_halo_plan(*communicator, part, topology, layout);
  d.owned_blocks = owned_blocks(part);
  d.owned_tets = part.owns_tet;

  auto numbering = parts ? number_over_ranks(part, d.halo) : number_from_whole(part, edge_global);
  d.unknown_global = std::move(numbering.global);
  d.lanczos_start.assign(layout.size(), 0.0);
  d.owned_unknowns.assign(layout.size(), 0);
  for (Index v = 0; v < topology.num_vertices; ++v)
    for (Index h = topology.v2e_offsets[v]; h < topology.v2e_offsets[v + 1]; ++h) {
      Index const dof = layout.dof_of_half_edge[h];
      Index const global_dof = d.unknown_global[dof];
      if (global_dof < 0) continue;
      d.owned_unknowns[dof] = part.owns_vertex[v];
      if (dof < layout.num_free && global_dof < numbering.free)
        d.lanczos_start[dof] = nth_uniform_minus_one_to_one(solver::stability_seed, global_dof);
    }
  d.global_unknowns = numbering.size;
  whole_free_unknowns = numbering.free;
  d.tet_global = part.global_tet;
  for (auto const& tet : problem.mesh.tets)
    d.owned_tet_vertices.push_back(
        {part.owns_vertex[tet[0]], part.owns_vertex[tet[1]], part.owns_vertex[tet[2]], part.owns_vertex[tet[3]]});
  auto const counts = whole_counts();
  d.global_tets = counts.tets;
  d.overlap_halo = config.solver.overlap_halo;
  // An edge or face belongs to the owner of its lowest vertex, which holds every tet around it.
  for (Index e = 0; e < topology.num_edges(); ++e)
    d.owned_edge_global.push_back(part.owns_vertex[topology.edge_vertices[e][0]] ? edge_global[e] : -1);
  for (Index f = 0; f < topology.num_faces(); ++f)
    d.owned_face_global.push_back(part.owns_vertex[topology.face_vertices[f][0]] ? face_global[f] : -1);
  d.global_edges = counts.edges;
  d.global_faces = counts.faces;
  formulation->distribute(std::move(d));
}

// With the whole mesh, rank 0 averages the whole fields gathered there. From parts, each rank
// averages over its own tets with its part's fields, the rim faces' from their owners (halved, as
// the one-process average halves a face of two tets), and rank 0 gathers the tets' rows: no rank
// holds an array over the whole mesh but rank 0.
void Simulation::Impl::tet_fields(std::vector<Vec3>& e, std::vector<Vec3>& h) const
{
  e.clear();
  h.clear();
  if (!parts) {
    auto const fields = formulation->shared_fields();
    if (communicator->rank() == 0)
      solver::tet_average_fields(output_problem().view(), fields.edge_circulations, fields.face_circulations, e, h);
    return;
  }
  auto fields = formulation->part_fields();
  auto& faces = fields.face_circulations;
  auto const& rim = rim_faces_over_ranks;
  std::vector<std::vector<std::int64_t>> answers(rim.answered.size());
  for (std::size_t r = 0; r < answers.size(); ++r)
    for (Index f : rim.answered[r]) parallel::append_number(answers[r], faces[f]);
  auto const received = communicator->all_to_all(answers);
  for (std::size_t r = 0; r < received.size(); ++r)
    for (std::size_t k = 0; k < received[r].size(); ++k)
      faces[rim.asked[r][k]] = 0.5 * parallel::number_at(received[r][k]);
  std::vector<Vec3> local_e, local_h;
  solver::tet_average_fields(problem.view(), fields.edge_circulations, faces, local_e, local_h);
  auto const whole = [&](std::vector<Vec3> const& local, std::vector<Vec3>& rows) {
    std::vector<double> flat;
    for (auto const& v : local) flat.insert(flat.end(), v.begin(), v.end());
    auto const gathered = parallel::gather_owned(*communicator, flat, part_ids.tets, part_ids.owns_tet,
                                                 static_cast<std::size_t>(parts->tets), 0, 3);
    for (std::size_t t = 0; 3 * t < gathered.size(); ++t)
      rows.push_back({gathered[3 * t], gathered[3 * t + 1], gathered[3 * t + 2]});
  };
  whole(local_e, e);
  whole(local_h, h);
}

void Simulation::Impl::plan_rim_faces(parallel::MeshPart const& part)
{
  auto const& topology = problem.topology;
  auto const ranks = static_cast<std::size_t>(communicator->size());
  std::vector<std::vector<std::int64_t>> asks(ranks);
  rim_faces_over_ranks.asked.assign(ranks, {});
  for (Index f = 0; f < topology.num_faces(); ++f)
    if (part_ids.rim_face[f]) {
      auto const owner = static_cast<std::size_t>(part.vertex_owner[topology.face_vertices[f][0]]);
      asks[owner].push_back(part_ids.faces[f]);
      rim_faces_over_ranks.asked[owner].push_back(f);
    }
  auto const asked_here = communicator->all_to_all(asks);
  std::vector<std::pair<Index, Index>> by_global;
  for (Index f = 0; f < topology.num_faces(); ++f) by_global.emplace_back(part_ids.faces[f], f);
  std::sort(by_global.begin(), by_global.end());
  rim_faces_over_ranks.answered.assign(ranks, {});
  for (std::size_t r = 0; r < ranks; ++r)
    for (std::int64_t asked : asked_here[r]) {
      auto const global = static_cast<Index>(asked);
      auto const it = std::lower_bound(by_global.begin(), by_global.end(), std::make_pair(global, Index(-1)));
      if (it == by_global.end() || it->first != global)
        throw std::logic_error("a rank asked for a rim face that the part of its vertex's owner does not hold");
      rim_faces_over_ranks.answered[r].push_back(it->second);
    }
}

// Through the whole problem's layout (a run that holds the whole mesh).
Simulation::Impl::Numbering Simulation::Impl::number_from_whole(parallel::MeshPart const& part,
                                                                std::vector<Index> const& edge_global) const
{
  auto const& topology = problem.topology;
  auto const& layout = problem.operators.layout;
  auto const whole_layout = dga::dof_layout(whole.topology, whole.face_kinds);
  Numbering n;
  n.global.assign(layout.size(), -1);
  for (Index v = 0; v < topology.num_vertices; ++v)
    for (Index h = topology.v2e_offsets[v]; h < topology.v2e_offsets[v + 1]; ++h) {
      Index const dof = layout.dof_of_half_edge[h];
      if (dof == layout.zero_slot) continue;
      Index const global_dof = whole_layout.dof_of_half_edge[mesh::half_edge_of(
          whole.topology, edge_global[topology.v2e[h]], part.global_vertex[v])];
      if (global_dof != whole_layout.zero_slot) n.global[dof] = global_dof;
    }
  n.free = whole_layout.num_free;
  n.size = whole_layout.size();
  return n;
}

// Without the whole mesh: the one-process layout numbers the free half-edges block by block in vertex
// order, each block's in the order of its edges, as a part's layout numbers those of a block it owns
// (its local ids keep the global order), and then the prescribed half-edges (a prescribed port's) in
// half-edge order, by vertex and each vertex's in the order of its edges. So a vertex's first free
// and first prescribed unknowns are sums of the free and prescribed degrees of the vertices before it
// (arrays over the whole mesh's vertices, summed over the ranks). A halo block takes its numbers from
// its owner through the halo exchange. A prescribed half-edge at a vertex owned elsewhere keeps none:
// the port sets it every step, and a checkpoint takes each unknown from the owner of its vertex.
Simulation::Impl::Numbering Simulation::Impl::number_over_ranks(parallel::MeshPart const& part,
                                                                parallel::HaloPlan const& halo) const
{
  auto const& topology = problem.topology;
  auto const& layout = problem.operators.layout;
  auto const prescribed = [&](Index h) {
    Index const dof = layout.dof_of_half_edge[h];
    return dof >= layout.num_free && dof != layout.zero_slot;
  };
  std::vector<double> degrees(2 * part.global_vertex.size(), 0.0); // free, prescribed
  for (Index b = 0; b < layout.num_blocks(); ++b) degrees[2 * layout.block_vertex[b]] = layout.block_size(b);
  for (Index v = 0; v < topology.num_vertices; ++v)
    for (Index h = topology.v2e_offsets[v]; h < topology.v2e_offsets[v + 1]; ++h)
      degrees[2 * v + 1] += prescribed(h) ? 1 : 0;
  auto const whole_degrees = parallel::sum_owned(*communicator, degrees, part.global_vertex, part.owns_vertex,
                                                 static_cast<std::size_t>(part.global_vertices), 2);
  std::vector<Index> first(part.global_vertex.size(), 0), first_prescribed(part.global_vertex.size(), 0);
  Index running = 0, running_prescribed = 0;
  std::size_t local = 0;
  for (std::size_t v = 0; 2 * v < whole_degrees.size(); ++v) {
    for (; local < part.global_vertex.size() && part.global_vertex[local] == static_cast<Index>(v); ++local) {
      first[local] = running;
      first_prescribed[local] = running_prescribed;
    }
    running += static_cast<Index>(whole_degrees[2 * v]);
    running_prescribed += static_cast<Index>(whole_degrees[2 * v + 1]);
  }
  Numbering n;
  n.free = running;
  n.size = running + running_prescribed + 1;
  // As doubles (exact below 2^53) through the halo's buffers: -1 for the zero slot.
  std::vector<double> number(layout.size(), -1.0);
  for (Index b = 0; b < layout.num_blocks(); ++b) {
    Index const v = layout.block_vertex[b];
    if (!part.owns_vertex[v]) continue;
    for (Index dof = layout.block_offset[b]; dof < layout.block_offset[b + 1]; ++dof)
      number[dof] = static_cast<double>(first[v] + (dof - layout.block_offset[b]));
  }
  for (Index v = 0; v < topology.num_vertices; ++v) {
    if (!part.owns_vertex[v]) continue;
    Index next = n.free + first_prescribed[v];
    for (Index h = topology.v2e_offsets[v]; h < topology.v2e_offsets[v + 1]; ++h)
      if (prescribed(h)) number[layout.dof_of_half_edge[h]] = static_cast<double>(next++);
  }
  std::vector<double> send, receive(halo.receive_dofs.size());
  for (Index dof : halo.send_dofs) send.push_back(number[dof]);
  communicator->start_exchange(halo.neighbours, send.data(), receive.data());
  communicator->finish_exchange();
  for (std::size_t k = 0; k < receive.size(); ++k) number[halo.receive_dofs[k]] = receive[k];

  n.global.assign(number.size(), -1);
  for (std::size_t dof = 0; dof < number.size(); ++dof) n.global[dof] = static_cast<Index>(number[dof]);
  return n;
}

std::unique_ptr<io::Checkpoint> Simulation::Impl::read_restart_checkpoint() const
{
  auto const& path = options.restart_from;
  auto checkpoint = std::make_unique<io::Checkpoint>(io::read_checkpoint(path));
  if (checkpoint->config_text != config.text)
    throw Error(path, "was written by a run of another configuration than " + config.name,
                "restart with the configuration it was written with (the checkpoint's config attribute holds its "
                "text), or start the run afresh");
  return checkpoint;
}

mesh::Mesh Simulation::Impl::load_ordered_mesh(mesh::Mesh* given_mesh, io::Checkpoint* checkpoint) const
{
  // A generated or .geo mesh is not made again: the checkpoint holds the one the run stepped.
  if (checkpoint && !given_mesh && mesh_made_on_load(config)) return std::move(checkpoint->mesh);
  mesh::Mesh mesh = given_mesh ? std::move(*given_mesh) : load_mesh(config);
  mesh::order_for_locality(mesh, config.mesh.ordering);
  // The checkpoint holds the mesh as the run stepped it: ordered.
  if (checkpoint && io::mesh_fingerprint(mesh) != io::mesh_fingerprint(checkpoint->mesh))
    throw Error(options.restart_from, "was written on another mesh than " + mesh.source + " is now",
                "restart with the mesh the checkpoint was written on, or start the run afresh");
  return mesh;
}

// Over ranks, rank 0 alone reads the checkpoint: the others take what the set-up reads of it before
// the restore (the time plan and the step) from it here, and their parts of its state at the restore.
void Simulation::Impl::share_checkpoint(std::unique_ptr<io::Checkpoint>& checkpoint) const
{
  if (options.restart_from.empty()) return;
  bool const root = communicator->rank() == 0;
  std::vector<double> header;
  if (root)
    header = {checkpoint->dt, checkpoint->dt_max, static_cast<double>(checkpoint->bound_iterations),
              static_cast<double>(checkpoint->state.step), static_cast<double>(checkpoint->state.kind)};
  parallel::broadcast_numbers(*communicator, header, 0);
  if (root) return;
  checkpoint = std::make_unique<io::Checkpoint>();
  checkpoint->dt = header[0];
  checkpoint->dt_max = header[1];
  checkpoint->bound_iterations = static_cast<int>(header[2]);
  checkpoint->state.step = static_cast<std::int64_t>(header[3]);
  checkpoint->state.kind = static_cast<solver::FormulationKind>(static_cast<int>(header[4]));
}

void Simulation::Impl::restore(io::Checkpoint const& checkpoint)
{
  auto const& state = checkpoint.state;
  if (!formulation->accepts(state) || state.step > plan.steps)
    throw Error(options.restart_from, "does not fit this run (formulation, unknowns or step count differ)",
                "restart with the checkpoint this configuration wrote, or start the run afresh");
  formulation->restore(state);
  restart_step = state.step;
}

io::Checkpoint Simulation::Impl::checkpoint() const
{
  io::Checkpoint c;
  c.config_text = config.text;
  c.backend = backend;
  c.dt = plan.dt;
  c.dt_max = plan.dt_max;
  c.bound_iterations = plan.bound_iterations;
  c.state = formulation->state();
  c.mesh = output_problem().mesh;
  return c;
}

void Simulation::Impl::report_start(std::int64_t first_step) const
{
  if (!options.report) return;
  auto& out = *options.report;
  auto const& p = output_problem();
  auto const counts = whole_counts();
  out << "dgatd run: " << (parts ? parts->source : p.mesh.source) << "\n  " << counts.vertices << " vertices, "
      << counts.edges << " edges, " << counts.faces << " faces, " << counts.tets << " tets ("
      << mesh::ordering_name(config.mesh.ordering) << " ordering"
      << (parts ? ", read in " + std::to_string(parts->ranks) + " parts from " + parts->directory : std::string())
      << "); " << (over_ranks ? whole_free_unknowns : p.operators.layout.num_free) << " free half-edge and "
      << 4 * counts.tets << " dual half-edge unknowns\n"
      << "  dt_max = " << plan.dt_max << " s (Lanczos, " << plan.bound_iterations << " iterations), dt = " << plan.dt
      << " s, " << plan.steps << " steps to t = " << plan.steps * plan.dt << " s\n"
      << "  " << solver::to_string(formulation->kind()) << " formulation, "
      << (config.solver.field_precision == kernels::FieldPrecision::float32
              ? "single precision (float matrices and fields)"
          : config.solver.precision == kernels::MatrixPrecision::float32 ? "mixed precision (float matrices)"
                                                                         : "double precision")
      << ", on " << backend << " (concurrency " << concurrency << ")\n";
  if (over_ranks) {
    auto const [fewest, most] = std::minmax_element(part_tets.begin(), part_tets.end());
    double const halo = std::accumulate(part_halo_values.begin(), part_halo_values.end(), 0.0);
    out << "  " << part_tets.size() << " ranks: " << *fewest << " to " << *most
        << " tets stepped per rank (its own and one layer of ghost tets); halo exchange " << halo
        << " values per step in all (" << halo * sizeof(double) / 1024.0 << " KiB), rank 0 through "
        << formulation->halo().buffers;
    if (double const after = formulation->halo().share_after_exchange; after > 0) {
      char share[96];
      std::snprintf(share, sizeof share, "; Faraday on %.1f %% of rank 0's tets while it flies", 100 * (1 - after));
      out << share;
    }
    out << "\n";
  }
  // Every rank's problem reports the whole layers (a part's learnt them over the ranks).
  for (auto const& layer : problem.layers) {
    out << "  PML '" << layer.name << "': " << layer.num_tets << " tets, " << layer.thickness << " m thick ("
        << layer.thickness / layer.element_size << " mean edges), alpha_max = " << layer.alpha_max
        << " 1/s, alpha_max dt = " << layer.alpha_max * plan.dt;
    if (layer.shift > 0) out << ", cfs shift " << layer.shift << " 1/s (" << layer.shift / (2 * M_PI) << " Hz)";
    out << "\n";
  }
  if (auto const& modes = problem.operators.stretched_tet_modes; !modes.empty() && !over_ranks) {
    auto with = [&](int count) {
      return std::count_if(modes.begin(), modes.end(), [&](auto const& m) { return m.count == count; });
    };
    out << "  stretched tets: " << modes.size() << ", " << with(1) << " with one auxiliary per subregion, " << with(3)
        << " with three, " << with(0) << " with six (docs/method/open_regions.md, section 3)\n";
  }
  if (first_step > 0)
    out << "  restarting from " << options.restart_from << " at step " << first_step << " (t = " << first_step * plan.dt
        << " s)\n";
  out << std::flush;
}

void Simulation::Impl::report_end(std::int64_t steps_taken, RunResult const& result) const
{
  if (!options.report) return;
  auto const counts = whole_counts();
  print_stage_times(*options.report, times, steps_taken,
                    2 * static_cast<double>(counts.edges) + 4.0 * static_cast<double>(counts.tets));
  if (over_ranks && times.stepping > 0) {
    double const most = *std::max_element(part_halo_seconds.begin(), part_halo_seconds.end());
    char line[256];
    std::snprintf(line, sizeof line,
                  "  halo exchange: %.3f s of the stepping on rank 0 (%.1f %%), %.3f s on the rank that waited "
                  "longest (%.1f %%), the wait for slower neighbours included\n",
                  part_halo_seconds[0], 100 * part_halo_seconds[0] / times.stepping, most, 100 * most / times.stepping);
    *options.report << line;
  }
  if (result.complete) *options.report << "  wrote " << result.output << "\n" << std::flush;
}

Simulation::Simulation(io::Config config, SimulationOptions options) : impl_(std::make_unique<Impl>())
{
  impl_->config = std::move(config);
  impl_->options = std::move(options);
  set_up(nullptr);
}

Simulation::Simulation(io::Config config, mesh::Mesh mesh, SimulationOptions options) : impl_(std::make_unique<Impl>())
{
  impl_->config = std::move(config);
  impl_->options = std::move(options);
  set_up(&mesh);
}

// Physics reports what it cannot use in the model (a layer, a port, the time step) in the method's
// words, as a ModelError; the user reads it at the configuration line that asked for the item.
void Simulation::set_up(mesh::Mesh* given_mesh)
try {
  auto& s = *impl_;
  s.output_path = s.options.output_path.empty() ? s.config.output.file : s.options.output_path;
  s.communicator = s.options.communicator ? s.options.communicator : std::make_shared<parallel::SingleProcess>();
  if (s.communicator->size() > 1) {
    s.over_ranks = true;
    if (s.config.mesh.parts.empty())
      set_up_over_ranks(given_mesh);
    else
      set_up_from_parts();
    return;
  }
  if (!s.config.mesh.parts.empty())
    throw Error(s.config.name, "[mesh] parts = \"" + s.config.mesh.parts + "\" is for a run over several ranks",
                "run it under mpirun -n N (N as the parts were made for), or remove [mesh] parts");
  s.refuse_unsupported(nullptr);
  io::require_writable_output(s.output_path);

  Stopwatch clock;
  std::unique_ptr<io::Checkpoint> checkpoint;
  if (!s.options.restart_from.empty()) checkpoint = s.read_restart_checkpoint();
  auto mesh = s.load_ordered_mesh(given_mesh, checkpoint.get());
  // A mesh given in code is ordered as part of the set-up.
  if (checkpoint || !given_mesh)
    (checkpoint || !mesh_made_on_load(s.config) ? s.times.reading : s.times.meshing) += clock.lap();
  s.problem = make_problem(s.config, std::move(mesh));
  s.times.setup += clock.lap();

  s.make_formulation();
  s.times.setup += clock.lap();
  s.plan_steps(checkpoint.get());
  s.times.dt_bound += clock.lap();
  s.add_sources_and_probes();

  if (checkpoint) s.restore(*checkpoint);
  s.times.setup += clock.lap();
} catch (ModelError const& e) {
  throw config_error(impl_->config, e);
}

// Rank 0 reads (or generates) and orders the mesh and splits its tets; every rank builds the whole
// problem without operators, its part with operators, its formulation with its sources and the
// halo exchange, and the stability bound over all. Each stage that can fail on some ranks ends with
// all of them agreeing (parallel::together), so a user error stops every rank with one message.
void Simulation::set_up_over_ranks(mesh::Mesh* given_mesh)
{
  auto& s = *impl_;
  auto& communicator = *s.communicator;
  int const rank = communicator.rank(), ranks = communicator.size();
  auto together = [&](auto&& stage) { s.together(stage); };

  Stopwatch clock;
  std::vector<char> bytes;
  std::unique_ptr<io::Checkpoint> checkpoint;
  together([&] {
    s.refuse_unsupported(nullptr);
    if (rank != 0) return;
    if (!s.options.restart_from.empty()) checkpoint = s.read_restart_checkpoint();
    io::require_writable_output(s.output_path);
    auto mesh = s.load_ordered_mesh(given_mesh, checkpoint.get());
    s.refuse_unsupported(&mesh.groups);
    bytes = parallel::pack_mesh(mesh);
  });
  communicator.broadcast(bytes, 0);
  s.share_checkpoint(checkpoint);
  (given_mesh                                   ? s.times.setup
   : !checkpoint && mesh_made_on_load(s.config) ? s.times.meshing
                                                : s.times.reading) += clock.lap();

  std::vector<int> tet_part;
  together([&] {
    s.whole = make_problem(s.config, parallel::unpack_mesh(bytes), false);
    if (ranks > s.whole.mesh.num_tets())
      throw Error(s.whole.mesh.source,
                  std::to_string(ranks) + " ranks for " + std::to_string(s.whole.mesh.num_tets()) + " tets",
                  "run on at most " + std::to_string(s.whole.mesh.num_tets()) + " ranks");
    if (rank != 0) return;
    std::vector<int> weight(s.whole.mesh.tets.size(), 1);
    for (Index t = 0; t < s.whole.mesh.num_tets(); ++t)
      if (s.whole.materials.stretching.stretches(t)) weight[t] = stretched_tet_weight;
    tet_part = s.options.partitioner(s.whole.mesh, s.whole.topology, ranks, weight);
  });
  bytes.assign(reinterpret_cast<char const*>(tet_part.data()),
               reinterpret_cast<char const*>(tet_part.data() + tet_part.size()));
  communicator.broadcast(bytes, 0);
  tet_part.resize(bytes.size() / sizeof(int));
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(tet_part.data()));
  bytes = {};
  auto const owner = parallel::vertex_owners(s.whole.topology, tet_part, ranks);

  parallel::MeshPart part;
  together([&] {
    // A probe is read on the owner of its tet, which also steps the tets across that tet's faces:
    // their pieces are its dual edges.
    std::vector<Index> probe_tets, extra;
    for (auto const& probe : s.config.probes) {
      Index const tet = solver::containing_tet(s.whole.view(), "probe '" + probe.name + "'", probe.position);
      probe_tets.push_back(tet);
      if (parallel::tet_owner(s.whole.mesh, owner, tet) != rank) continue;
      extra.push_back(tet);
      for (Index f : s.whole.topology.tet_faces[tet])
        for (Index t : s.whole.topology.face_tets[f])
          if (t >= 0) extra.push_back(t);
    }
    part = parallel::make_mesh_part(s.whole.mesh, owner, rank, ranks, extra);
    s.problem = make_part_problem(s.whole, part);
    s.make_formulation();
    s.add_sources_and_probes(part, probe_tets, owner);
  });
  s.distribute(part, parallel::global_edges(s.problem.topology, part.global_tet, s.whole.topology.tet_edges),
               parallel::global_faces(s.problem.topology, part.global_tet, s.whole.topology.tet_faces));
  s.finish_set_up_over_ranks(part, checkpoint.get(), clock);
}

// Each rank reads the manifest and its own part (simulation/part_files.hpp), never the whole mesh:
// the set-up of set_up_over_ranks, with what it took from the whole mesh found over the ranks
// instead (where probes and sources lie, the global numbering of the unknowns) and the mesh of the
// output gathered on rank 0.
void Simulation::set_up_from_parts()
{
  auto& s = *impl_;
  auto& communicator = *s.communicator;
  int const rank = communicator.rank(), ranks = communicator.size();
  auto together = [&](auto&& stage) { s.together(stage); };

  Stopwatch clock;
  std::unique_ptr<io::Checkpoint> checkpoint;
  StoredPart stored;
  together([&] {
    s.refuse_unsupported(nullptr);
    s.parts = read_manifest(s.config.mesh.parts);
    s.refuse_unsupported(&s.parts->groups);
    check_manifest(s.config, *s.parts, ranks, rank == 0);
    if (!s.options.restart_from.empty() && rank == 0) {
      checkpoint = s.read_restart_checkpoint();
      if (io::mesh_fingerprint(checkpoint->mesh) != s.parts->mesh_fingerprint)
        throw Error(s.options.restart_from, "was written on another mesh than the parts in " + s.parts->directory,
                    "restart with the parts of the mesh the checkpoint was written on, or start the run afresh");
    }
    if (rank == 0) io::require_writable_output(s.output_path);
    stored = read_part(*s.parts, rank);
  });
  s.share_checkpoint(checkpoint);
  s.times.reading += clock.lap();

  parallel::MeshPart part;
  WholeMeshFacts facts;
  LayersOverRanks layers;
  std::vector<Index> stored_tet, probe_tets, extra, source_items(s.config.sources.size(), -1);
  together([&] {
    // The part's complex with its reserve, where the probes and point sources are looked for, held
    // only while they are.
    auto const stored_topology = mesh::build_topology(stored.mesh);
    auto const stored_geometry = mesh::build_geometry(stored.mesh, stored_topology);
    mesh::MeshView const stored_view{stored.mesh, stored_topology, stored_geometry};
    std::vector<char> owns_stored_tet;
    for (Index t = 0; t < stored.mesh.num_tets(); ++t)
      owns_stored_tet.push_back(parallel::tet_owner(stored.mesh, stored.vertex_owner, t) == rank);
    auto const located = [&](std::string const& name, Vec3 const& x) {
      Index const tet =
          parallel::containing_tet_over_ranks(communicator, stored_view, stored.global_tet, owns_stored_tet, x);
      if (tet < 0) throw solver::outside_the_mesh(name, x);
      return tet;
    };
    // A probe is read on the owner of its tet, which also steps the tets across that tet's faces
    // (their pieces are its dual edges): from its reserve.
    for (auto const& probe : s.config.probes) {
      Index const tet = located("probe '" + probe.name + "'", probe.position);
      probe_tets.push_back(tet);
      auto const it = std::lower_bound(stored.global_tet.begin(), stored.global_tet.end(), tet);
      auto const t = static_cast<Index>(it - stored.global_tet.begin());
      if (it == stored.global_tet.end() || *it != tet || !owns_stored_tet[t]) continue;
      extra.push_back(t);
      for (Index f : stored_topology.tet_faces[t])
        for (Index across : stored_topology.face_tets[f])
          if (across >= 0) extra.push_back(across);
    }
    std::vector<Index> every_tet(stored.global_tet.size());
    std::iota(every_tet.begin(), every_tet.end(), Index(0));
    auto const stored_edge_global = parallel::global_edges(stored_topology, every_tet, stored.tet_edges);
    for (std::size_t k = 0; k < s.config.sources.size(); ++k) {
      auto const& source = s.config.sources[k];
      std::string const name = "source at " + s.config.where(source.line);
      if (source.kind == io::SourceKind::dipole) source_items[k] = located(name, source.position);
      if (source.kind == io::SourceKind::edge_current)
        source_items[k] =
            parallel::nearest_edge_over_ranks(communicator, stored_view, stored_edge_global, source.position);
    }
    // The matched layers from the stored parts, where every tet a rank owns has its four neighbours.
    auto const stored_face_global = parallel::global_faces(stored_topology, every_tet, stored.tet_faces);
    layers = layers_over_ranks(s.config, stored_view, s.parts->regions,
                               {communicator, owns_stored_tet, stored.global_tet, stored_face_global});
  });

  together([&] {
    part = parallel::make_mesh_part(stored.mesh, stored.vertex_owner, rank, ranks, extra);
    // From the stored part's numbering to the whole mesh's.
    stored_tet = part.global_tet;
    for (auto& v : part.global_vertex) v = stored.global_vertex[v];
    for (auto& t : part.global_tet) t = stored.global_tet[t];
    part.global_vertices = s.parts->vertices;
    facts.regions = s.parts->regions;
    facts.layers = layers.layers;
    facts.stretching.shift = layers.stretching.shift;
    for (Index t : stored_tet) {
      facts.face_interior.push_back(stored.face_interior[t]);
      if (!layers.stretching.empty()) facts.stretching.tet_jacobian.push_back(layers.stretching.tet_jacobian[t]);
    }
    s.problem = make_part_problem(s.config, part.mesh, facts);
    s.make_formulation();
  });
  auto const edge_global = parallel::global_edges(s.problem.topology, stored_tet, stored.tet_edges);
  auto const face_global = parallel::global_faces(s.problem.topology, stored_tet, stored.tet_faces);
  together([&] { s.add_sources_and_probes_of_parts(part, edge_global, probe_tets, source_items); });
  s.distribute(part, edge_global, face_global);
  s.part_ids = {edge_global, face_global, part.global_tet, part.owns_tet,
                rim_faces(s.problem.topology, &facts.face_interior)};
  s.plan_rim_faces(part);

  // The output's and the checkpoints' mesh, on rank 0.
  for (auto& i : part.global_triangle) i = stored.global_triangle[i];
  s.whole.mesh = parallel::gather_mesh(communicator, part, 0);
  if (rank == 0) {
    s.whole.mesh.groups = s.parts->groups;
    s.whole.mesh.source = s.parts->source;
    if (io::mesh_fingerprint(s.whole.mesh) != s.parts->mesh_fingerprint)
      throw std::logic_error("the mesh gathered from the parts differs from the one they were cut from");
  }
  s.finish_set_up_over_ranks(part, checkpoint.get(), clock);
}

Simulation::~Simulation() = default;

io::Config const& Simulation::config() const { return impl_->config; }
Problem const& Simulation::problem() const { return impl_->problem; }
TimePlan const& Simulation::plan() const { return impl_->plan; }
solver::Formulation& Simulation::formulation() { return *impl_->formulation; }
std::string const& Simulation::output_path() const { return impl_->output_path; }
StageTimes const& Simulation::times() const { return impl_->times; }

// Over several ranks every rank gathers the state (in the whole mesh's numbering) and rank 0 writes.
void Simulation::write_checkpoint(std::string const& path) const
{
  auto const checkpoint = impl_->checkpoint();
  if (impl_->communicator->rank() == 0) io::write_checkpoint(path, checkpoint);
}

RunResult Simulation::run()
{
  auto& s = *impl_;
  if (s.ran) throw std::logic_error("Simulation::run called twice");
  s.ran = true;
  std::int64_t const first_step = std::max<std::int64_t>(s.restart_step, 0);
  Stopwatch clock;
  Recorder recorder(
      s.recording_plan(first_step), s.open_writer(first_step), *s.formulation,
      [&s](std::vector<Vec3>& e, std::vector<Vec3>& h) { s.tet_fields(e, h); }, io::checkpoint_path(s.output_path),
      [this](std::string const& path) { write_checkpoint(path); });
  s.times.output += clock.lap();
  s.report_start(first_step);

  // Every rank stops at the same step: a signal reaches the ranks at different moments.
  auto const stop_requested = [&] {
    bool const here = s.options.stop_requested && s.options.stop_requested->load();
    return s.over_ranks ? s.communicator->max(here ? 1 : 0) > 0 : here;
  };
  double const halo_before = s.formulation->halo().seconds;
  std::int64_t step = first_step;
  while (step < s.plan.steps && !stop_requested() && recorder.blown_up_at() < 0) {
    if (recorder.wants_energy(step))
      recorder.record_energy(step, s.formulation->step_with_energy());
    else
      s.formulation->step();
    recorder.after_step(++step);
  }
  Kokkos::fence();
  s.times.stepping += clock.lap() - recorder.output_seconds();
  s.times.output += recorder.output_seconds();
  if (s.over_ranks) {
    s.part_halo_seconds.assign(s.communicator->size(), 0.0);
    s.part_halo_seconds[s.communicator->rank()] = s.formulation->halo().seconds - halo_before;
    s.communicator->sum(s.part_halo_seconds.data(), s.part_halo_seconds.size());
  }

  RunResult result;
  result.steps = step;
  result.complete = step == s.plan.steps && recorder.blown_up_at() < 0;
  result.checkpoint = recorder.finish(step, result.complete);
  s.times.output += clock.lap();
  result.output = recorder.description();
  result.times = s.times;
  if (recorder.blown_up_at() >= 0) {
    Error const error(s.config.name,
                      "the field became infinite or NaN by step " + std::to_string(recorder.blown_up_at()) +
                          " (t = " + format_number(recorder.blown_up_at() * s.plan.dt) + " s); " + s.output_path +
                          " holds the steps before it (complete = 0)",
                      "use dt = \"auto\" or a dt below dt_max = " + format_number(s.plan.dt_max) + " s");
    // Every rank sees the same energies and probes, so all stop here together.
    if (s.over_ranks) throw parallel::CollectiveError(error.what());
    throw error;
  }
  s.report_end(step - first_step, result);
  return result;
}

void print_stage_times(std::ostream& out, StageTimes const& t, std::int64_t steps, double unknowns)
{
  double const first_step = t.meshing + t.reading + t.setup + t.dt_bound;
  double const steps_per_second = t.stepping > 0 ? steps / t.stepping : 0;
  char line[512];
  std::snprintf(line, sizeof line,
                "  time: meshing %.2f s, reading %.2f s, setup %.2f s, dt bound %.2f s (first step after %.2f s); "
                "stepping %.2f s (%lld steps, %.1f steps/s, %.3f GDoF/s); output %.2f s\n",
                t.meshing, t.reading, t.setup, t.dt_bound, first_step, t.stepping, static_cast<long long>(steps),
                steps_per_second, steps_per_second * unknowns * 1e-9, t.output);
  out << line << std::flush;
}

} // namespace dgatd::simulation
