#include "dgatd/simulation/simulation.hpp"

#include "dgatd/error.hpp"
#include "dgatd/io/output/checkpoint.hpp"
#include "dgatd/io/output/hdf5_writer.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/mesh/ordering.hpp"
#include "dgatd/simulation/config_errors.hpp"
#include "dgatd/solver/formulations.hpp"
#include "dgatd/solver/stencils.hpp"
#include "recorder.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <ostream>
#include <sstream>
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

  template <class Space>
  void set_up_on(io::Checkpoint const* checkpoint, Stopwatch& clock);
  void add_sources_and_probes();
  io::Checkpoint checkpoint() const;
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
  io::RunAttributes attributes;
  attributes.config_text = config.text;
  attributes.dt = plan.dt;
  attributes.dt_max = plan.dt_max;
  attributes.num_vertices = problem.mesh.num_vertices();
  attributes.num_edges = problem.topology.num_edges();
  attributes.num_faces = problem.topology.num_faces();
  attributes.num_tets = problem.mesh.num_tets();
  attributes.formulation = solver::to_string(formulation->kind());
  attributes.backend = backend;
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
void Simulation::Impl::set_up_on(io::Checkpoint const* checkpoint, Stopwatch& clock)
{
  Space space;
  backend = Space::name();
  concurrency = space.concurrency();
  auto const kind = config.solver.formulation;
  if (kind == solver::FormulationKind::assembled && !config.boundary.absorbing_surfaces.empty())
    throw Error(config.where(config.boundary.line), "[boundary] absorbing needs the fractioned formulation",
                "remove [solver] formulation = \"assembled\" (the assembled baseline has no losses)");
  if (kind == solver::FormulationKind::assembled && !config.pml.empty())
    throw Error(config.where(config.pml.front().line), "[[pml]] needs the fractioned formulation",
                "remove [solver] formulation = \"assembled\" (the assembled baseline has no matched layers)");
  if (kind == solver::FormulationKind::assembled)
    for (auto const& source : config.sources)
      if (source.matched)
        throw Error(config.where(source.line), "a matched port needs the fractioned formulation",
                    "remove [solver] formulation = \"assembled\" (the assembled baseline has no matched ports)");
  if (kind == solver::FormulationKind::assembled)
    for (auto const& material : config.materials)
      if (material.sigma > 0)
        throw Error(config.where(material.line), "[[material]] sigma needs the fractioned formulation",
                    "remove [solver] formulation = \"assembled\" (the assembled baseline has no losses)");
  if (kind == solver::FormulationKind::assembled && config.solver.precision != kernels::MatrixPrecision::float64)
    throw Error(config.where(config.solver.precision_line), "precision = \"mixed\" needs the fractioned formulation",
                "remove [solver] formulation = \"assembled\" (the assembled baseline runs in double)");
  formulation = solver::make_formulation(kind, space, problem.topology, problem.operators, config.solver.precision);
  times.setup += clock.lap();

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
  times.dt_bound += clock.lap();
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
    }
  }
  std::vector<solver::ProbeStencil> probes;
  for (auto const& probe : config.probes)
    probes.push_back(solver::probe_stencil(view, ops.layout, probe.name, probe.position));
  formulation->set_probes(probes);
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
  c.mesh = problem.mesh;
  return c;
}

void Simulation::Impl::report_start(std::int64_t first_step) const
{
  if (!options.report) return;
  auto& out = *options.report;
  auto const& p = problem;
  out << "dgatd run: " << p.mesh.source << "\n  " << p.mesh.num_vertices() << " vertices, " << p.topology.num_edges()
      << " edges, " << p.topology.num_faces() << " faces, " << p.mesh.num_tets() << " tets ("
      << mesh::ordering_name(config.mesh.ordering) << " ordering); " << p.operators.layout.num_free
      << " free half-edge and " << 4 * p.mesh.num_tets() << " dual half-edge unknowns\n"
      << "  dt_max = " << plan.dt_max << " s (Lanczos, " << plan.bound_iterations << " iterations), dt = " << plan.dt
      << " s, " << plan.steps << " steps to t = " << plan.steps * plan.dt << " s\n"
      << "  " << solver::to_string(formulation->kind()) << " formulation, "
      << (config.solver.precision == kernels::MatrixPrecision::float32 ? "mixed precision (float matrices)"
                                                                       : "double precision")
      << ", on " << backend << " (concurrency " << concurrency << ")\n";
  for (auto const& layer : p.layers)
    out << "  PML '" << layer.name << "': " << layer.num_tets << " tets, " << layer.thickness << " m thick ("
        << layer.thickness / layer.element_size << " mean edges), alpha_max = " << layer.alpha_max
        << " 1/s, alpha_max dt = " << layer.alpha_max * plan.dt << "\n";
  if (auto const& modes = p.operators.stretched_tet_modes; !modes.empty()) {
    auto with = [&](int count) {
      return std::count_if(modes.begin(), modes.end(), [&](auto const& m) { return m.count == count; });
    };
    out << "  stretched tets: " << modes.size() << ", " << with(1) << " with one auxiliary per subregion, " << with(3)
        << " with three, " << with(0) << " with six (docs/open_regions.md, section 3)\n";
  }
  if (first_step > 0)
    out << "  restarting from " << options.restart_from << " at step " << first_step << " (t = " << first_step * plan.dt
        << " s)\n";
  out << std::flush;
}

void Simulation::Impl::report_end(std::int64_t steps_taken, RunResult const& result) const
{
  if (!options.report) return;
  print_stage_times(*options.report, times, steps_taken,
                    2 * static_cast<double>(problem.topology.num_edges()) + 4.0 * problem.mesh.num_tets());
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
  io::require_writable_output(s.output_path);

  Stopwatch clock;
  std::unique_ptr<io::Checkpoint> checkpoint;
  if (!s.options.restart_from.empty()) {
    auto const& path = s.options.restart_from;
    checkpoint = std::make_unique<io::Checkpoint>(io::read_checkpoint(path));
    if (checkpoint->config_text != s.config.text)
      throw Error(path, "was written by a run of another configuration than " + s.config.name,
                  "restart with the configuration it was written with (the checkpoint's config attribute holds its "
                  "text), or start the run afresh");
  }
  mesh::Mesh mesh;
  if (checkpoint && !given_mesh && s.config.mesh.file.empty()) {
    // A generated mesh is not generated again: the checkpoint holds the one the run stepped.
    mesh = std::move(checkpoint->mesh);
  } else {
    mesh = given_mesh ? std::move(*given_mesh) : load_mesh(s.config);
    mesh::order_for_locality(mesh, s.config.mesh.ordering);
    // The checkpoint holds the mesh as the run stepped it: ordered.
    if (checkpoint && io::mesh_fingerprint(mesh) != io::mesh_fingerprint(checkpoint->mesh))
      throw Error(s.options.restart_from, "was written on another mesh than " + mesh.source + " is now",
                  "restart with the mesh the checkpoint was written on, or start the run afresh");
  }
  // A mesh given in code is ordered as part of the set-up.
  if (checkpoint || !given_mesh)
    (checkpoint || !s.config.mesh.file.empty() ? s.times.reading : s.times.meshing) += clock.lap();
  s.problem = make_problem(s.config, std::move(mesh));
  s.times.setup += clock.lap();

  if (s.config.solver.backend == io::Backend::serial)
    s.set_up_on<Kokkos::Serial>(checkpoint.get(), clock);
  else
    s.set_up_on<Kokkos::DefaultExecutionSpace>(checkpoint.get(), clock);
  s.add_sources_and_probes();

  if (checkpoint) {
    auto const& state = checkpoint->state;
    if (!s.formulation->accepts(state) || state.step > s.plan.steps)
      throw Error(s.options.restart_from, "does not fit this run (formulation, unknowns or step count differ)",
                  "restart with the checkpoint this configuration wrote, or start the run afresh");
    s.formulation->restore(state);
    s.restart_step = state.step;
  }
  s.times.setup += clock.lap();
} catch (ModelError const& e) {
  throw config_error(impl_->config, e);
}

Simulation::~Simulation() = default;

io::Config const& Simulation::config() const { return impl_->config; }
Problem const& Simulation::problem() const { return impl_->problem; }
TimePlan const& Simulation::plan() const { return impl_->plan; }
solver::Formulation& Simulation::formulation() { return *impl_->formulation; }
std::string const& Simulation::output_path() const { return impl_->output_path; }
StageTimes const& Simulation::times() const { return impl_->times; }

void Simulation::write_checkpoint(std::string const& path) const { io::write_checkpoint(path, impl_->checkpoint()); }

RunResult Simulation::run()
{
  auto& s = *impl_;
  if (s.ran) throw std::logic_error("Simulation::run called twice");
  s.ran = true;
  std::int64_t const first_step = std::max<std::int64_t>(s.restart_step, 0);
  Stopwatch clock;
  Recorder recorder(s.recording_plan(first_step), s.open_writer(first_step), *s.formulation, s.problem.view(),
                    io::checkpoint_path(s.output_path), [this](std::string const& path) { write_checkpoint(path); });
  s.times.output += clock.lap();
  s.report_start(first_step);

  auto const stop_requested = [&] { return s.options.stop_requested && s.options.stop_requested->load(); };
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

  RunResult result;
  result.steps = step;
  result.complete = step == s.plan.steps && recorder.blown_up_at() < 0;
  result.checkpoint = recorder.finish(step, result.complete);
  s.times.output += clock.lap();
  result.output = recorder.description();
  result.times = s.times;
  if (recorder.blown_up_at() >= 0)
    throw Error(s.config.name,
                "the field became infinite or NaN by step " + std::to_string(recorder.blown_up_at()) +
                    " (t = " + format_number(recorder.blown_up_at() * s.plan.dt) + " s); " + s.output_path +
                    " holds the steps before it (complete = 0)",
                "use dt = \"auto\" or a dt below dt_max = " + format_number(s.plan.dt_max) + " s");
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
