#include "dgatd/simulation/simulation.hpp"

#include "dgatd/error.hpp"
#include "dgatd/io/output/checkpoint.hpp"
#include "dgatd/io/output/hdf5_writer.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/solver/formulations.hpp"
#include "dgatd/solver/stencils.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <unistd.h>
#include <utility>

namespace dgatd::simulation {
namespace {

class Stopwatch {
public:
  double lap()
  {
    auto const now = std::chrono::steady_clock::now();
    double const seconds = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return seconds;
  }

private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// A console progress line, refreshed twice a second, only when a person is watching.
class Progress {
public:
  Progress(bool enabled, std::int64_t first, std::int64_t total)
      : enabled_(enabled && isatty(fileno(stderr))), first_(first), total_(total)
  {
  }
  void update(std::int64_t step, double time)
  {
    if (!enabled_) return;
    auto const now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(500) && step != total_) return;
    last_ = now;
    double const elapsed = std::chrono::duration<double>(now - start_).count();
    double const rate = (step - first_) / std::max(elapsed, 1e-9);
    std::fprintf(stderr, "\rstep %lld/%lld  t = %.4e s  %.0f steps/s  ETA %.0f s   ", static_cast<long long>(step),
                 static_cast<long long>(total_), time, rate, (total_ - step) / std::max(rate, 1e-9));
    if (step == total_) std::fputc('\n', stderr);
  }
  void finish()
  {
    if (enabled_) std::fputc('\n', stderr);
  }

private:
  bool enabled_;
  std::int64_t first_;
  std::int64_t total_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

solver::FormulationKind formulation_kind(io::Config const& config)
{
  return config.solver.formulation == io::Formulation::assembled ? solver::FormulationKind::assembled
                                                                 : solver::FormulationKind::fractioned;
}

// dt from the stability bound and the [time] table.
TimePlan plan_time_steps(io::Config const& config, solver::PowerIterationResult const& bound)
{
  TimePlan plan;
  plan.dt_max = bound.dt_max;
  plan.power_iterations = bound.iterations;
  if (!std::isfinite(bound.dt_max) || !(bound.dt_max > 0))
    throw Error(config.name,
                "the stability bound is not a positive number (dt_max = " + format_number(bound.dt_max) + ")",
                "check the materials and the mesh quality (dgatd info)");
  // Unconverged, the Rayleigh quotient is still below the spectral radius, so dt_max would be too large.
  if (!bound.converged && !(config.time.dt && config.time.allow_unstable))
    throw Error(config.name,
                "the stability bound did not converge in " + std::to_string(bound.iterations) +
                    " power iterations (last estimate dt_max = " + format_number(bound.dt_max) + " s)",
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
};

template <class Space>
void Simulation::Impl::set_up_on(io::Checkpoint const* checkpoint, Stopwatch& clock)
{
  Space space;
  backend = Space::name();
  concurrency = space.concurrency();
  auto const kind = formulation_kind(config);
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
  formulation = solver::make_formulation(kind, space, problem.topology, problem.operators);
  times.setup += clock.lap();

  if (checkpoint) {
    // The checkpoint's dt, not a new estimate: power iteration's reductions may round differently
    // on another thread count, and the continuation must be the same run.
    plan.dt = checkpoint->dt;
    plan.dt_max = checkpoint->dt_max;
    plan.power_iterations = checkpoint->power_iterations;
  } else if (kind == solver::FormulationKind::fractioned) {
    auto& fractioned = static_cast<solver::FractionedFormulation<Space>&>(*formulation);
    plan = plan_time_steps(config, fractioned.leapfrog().estimate_stability());
  } else {
    // The assembled operator has the same spectrum; its bound comes from the fractioned one.
    solver::FractionedLeapfrog<Space> fractioned(space, problem.operators);
    plan = plan_time_steps(config, fractioned.estimate_stability());
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
        formulation->add_matched_port(solver::matched_te10_port_stencil(view, ops, problem.materials.eps,
                                                                        problem.materials.mu, tag, source.surface,
                                                                        config.where(source.line)),
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
  c.formulation = solver::to_string(formulation->kind());
  c.backend = backend;
  c.dt = plan.dt;
  c.dt_max = plan.dt_max;
  c.power_iterations = plan.power_iterations;
  auto state = formulation->state();
  c.step = state.step;
  c.e_unknowns = std::move(state.e_unknowns);
  c.h_unknowns = std::move(state.h_unknowns);
  c.auxiliary = std::move(state.auxiliary);
  c.mesh = problem.mesh;
  return c;
}

void Simulation::Impl::report_start(std::int64_t first_step) const
{
  if (!options.report) return;
  auto& out = *options.report;
  auto const& p = problem;
  out << "dgatd run: " << p.mesh.source << "\n  " << p.mesh.num_vertices() << " vertices, " << p.topology.num_edges()
      << " edges, " << p.topology.num_faces() << " faces, " << p.mesh.num_tets() << " tets; "
      << p.operators.layout.num_free << " free half-edge and " << 4 * p.mesh.num_tets() << " dual half-edge unknowns\n"
      << "  dt_max = " << plan.dt_max << " s (power iteration, " << plan.power_iterations
      << " iterations), dt = " << plan.dt << " s, " << plan.steps << " steps to t = " << plan.steps * plan.dt << " s\n"
      << "  " << solver::to_string(formulation->kind()) << " formulation on " << backend << " (concurrency "
      << concurrency << ")\n";
  for (auto const& layer : p.layers)
    out << "  PML '" << layer.name << "': " << layer.num_tets << " tets, " << layer.thickness << " m thick ("
        << layer.thickness / layer.element_size << " mean edges), alpha_max = " << layer.alpha_max
        << " 1/s, alpha_max dt = " << layer.alpha_max * plan.dt << "\n";
  if (first_step > 0)
    out << "  restarting from " << options.restart_from << " at step " << first_step << " (t = " << first_step * plan.dt
        << " s)\n";
  out << std::flush;
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

void Simulation::set_up(mesh::Mesh* given_mesh)
{
  auto& s = *impl_;
  s.output_path = s.options.output_path.empty() ? s.config.output.file : s.options.output_path;
  io::require_writable_output(s.output_path);

  Stopwatch clock;
  std::unique_ptr<io::Checkpoint> checkpoint;
  mesh::Mesh mesh;
  if (!s.options.restart_from.empty()) {
    auto const& path = s.options.restart_from;
    checkpoint = std::make_unique<io::Checkpoint>(io::read_checkpoint(path));
    if (checkpoint->config_text != s.config.text)
      throw Error(path, "was written by a run of another configuration than " + s.config.name,
                  "restart with the configuration it was written with (the checkpoint's config attribute holds its "
                  "text), or start the run afresh");
    if (given_mesh || !s.config.mesh.file.empty()) {
      mesh = given_mesh ? std::move(*given_mesh) : mesh::read_mesh(s.config.mesh.file, s.config.mesh.scale);
      if (io::mesh_fingerprint(mesh) != io::mesh_fingerprint(checkpoint->mesh))
        throw Error(path, "was written on another mesh than " + mesh.source + " is now",
                    "restart with the mesh the checkpoint was written on, or start the run afresh");
    } else {
      // A generated mesh is not generated again: the checkpoint holds the one the run stepped.
      mesh = std::move(checkpoint->mesh);
    }
    s.times.reading += clock.lap();
  } else if (given_mesh) {
    mesh = std::move(*given_mesh);
  } else {
    mesh = load_mesh(s.config);
    (s.config.mesh.file.empty() ? s.times.meshing : s.times.reading) += clock.lap();
  }
  s.problem = make_problem(s.config, std::move(mesh));
  s.times.setup += clock.lap();

  if (s.config.solver.backend == io::Backend::serial)
    s.set_up_on<Kokkos::Serial>(checkpoint.get(), clock);
  else
    s.set_up_on<Kokkos::DefaultExecutionSpace>(checkpoint.get(), clock);
  s.add_sources_and_probes();

  if (checkpoint) {
    solver::FormulationState state;
    state.kind = s.formulation->kind();
    state.step = checkpoint->step;
    state.e_unknowns = std::move(checkpoint->e_unknowns);
    state.h_unknowns = std::move(checkpoint->h_unknowns);
    state.auxiliary = std::move(checkpoint->auxiliary);
    auto const expected = s.formulation->state();
    // Each matched port keeps its voltage history, one value per step taken, besides the layers'.
    std::size_t const port_history = state.step > 0 ? s.formulation->port_series().size() * state.step : 0;
    if (checkpoint->formulation != solver::to_string(state.kind) ||
        state.e_unknowns.size() != expected.e_unknowns.size() ||
        state.h_unknowns.size() != expected.h_unknowns.size() ||
        state.auxiliary.size() != expected.auxiliary.size() + port_history || state.step < 0 ||
        state.step > s.plan.steps)
      throw Error(s.options.restart_from, "does not fit this run (formulation, unknowns or step count differ)",
                  "restart with the checkpoint this configuration wrote, or start the run afresh");
    s.formulation->restore(state);
    s.restart_step = state.step;
  }
  s.times.setup += clock.lap();
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
  auto& formulation = *s.formulation;
  auto const& config = s.config;
  auto const& plan = s.plan;
  auto const& probes = config.probes;
  bool const has_energy = formulation.has_energy();
  std::int64_t const energy_every = config.output.energy_every;
  std::int64_t const snapshot_every = config.output.snapshot_every;
  std::int64_t const checkpoint_every = config.output.checkpoint_every;
  std::int64_t const first_step = std::max<std::int64_t>(s.restart_step, 0);
  std::string const checkpoint_file = io::checkpoint_path(s.output_path);

  Stopwatch clock;
  std::unique_ptr<io::RunWriter> writer;
  if (s.restart_step >= 0) {
    io::ResumePoint resume;
    for (auto const& probe : probes) resume.probe_names.push_back(probe.name);
    // The output has a row per step only for probes (the time series is theirs).
    resume.steps = probes.empty() ? 0 : first_step;
    resume.energy_samples = has_energy ? (first_step + energy_every - 1) / energy_every : 0;
    resume.snapshots = snapshot_every > 0 ? first_step / snapshot_every : 0;
    writer = std::make_unique<io::Hdf5Writer>(s.output_path, resume);
  } else {
    io::RunAttributes attributes;
    attributes.config_text = config.text;
    attributes.dt = plan.dt;
    attributes.dt_max = plan.dt_max;
    attributes.num_vertices = s.problem.mesh.num_vertices();
    attributes.num_edges = s.problem.topology.num_edges();
    attributes.num_faces = s.problem.topology.num_faces();
    attributes.num_tets = s.problem.mesh.num_tets();
    attributes.formulation = solver::to_string(formulation.kind());
    attributes.backend = s.backend;
    writer = std::make_unique<io::Hdf5Writer>(s.output_path, attributes);
    writer->write_mesh(s.problem.mesh.points, s.problem.mesh.tets, s.problem.mesh.tet_region);
    for (auto const& probe : probes) writer->add_probe(probe.name, probe.position);
  }
  s.times.output += clock.lap();
  s.report_start(first_step);

  // Output inside the time loop is timed apart from the steps.
  double output_in_loop = 0;
  auto timed_output = [&output_in_loop](auto&& write) {
    Stopwatch watch;
    write();
    output_in_loop += watch.lap();
  };
  std::int64_t blown_up_at = -1;
  auto flush_probes = [&](std::int64_t first, std::int64_t count) {
    auto const samples = formulation.take_probe_samples();
    timed_output([&] {
      std::vector<io::ProbeSample> row(probes.size());
      for (std::int64_t r = 0; r < count; ++r) {
        for (std::size_t q = 0; q < probes.size(); ++q)
          for (int c = 0; c < 3; ++c) {
            row[q].e[c] = samples[(r * probes.size() + q) * 6 + c];
            row[q].h[c] = samples[(r * probes.size() + q) * 6 + 3 + c];
            if (blown_up_at < 0 && !(std::isfinite(row[q].e[c]) && std::isfinite(row[q].h[c])))
              blown_up_at = first + r + 1;
          }
        writer->append_step((first + r + 1) * plan.dt, row);
      }
    });
  };
  auto write_snapshot = [&](std::int64_t step) {
    auto const fields = formulation.shared_fields();
    std::vector<Vec3> e, h;
    solver::tet_average_fields(s.problem.view(), fields.edge_circulations, fields.face_circulations, e, h);
    timed_output([&] { writer->write_snapshot(step * plan.dt, e, h); });
  };

  // The output is flushed first, so that a restart from the checkpoint finds every row before it.
  auto save_checkpoint = [&] {
    writer->flush();
    write_checkpoint(checkpoint_file);
  };

  Progress progress(config.output.progress && s.options.report != nullptr, first_step, plan.steps);
  std::int64_t const flush_every = 2048;
  std::int64_t step = first_step;
  std::int64_t unflushed_from = step;
  auto stop_requested = [&] { return s.options.stop_requested && s.options.stop_requested->load(); };
  clock.lap();
  while (step < plan.steps && !stop_requested() && blown_up_at < 0) {
    if (has_energy && step % energy_every == 0) {
      double const energy = formulation.step_with_energy();
      timed_output([&] { writer->append_energy(step * plan.dt, energy); });
      if (!std::isfinite(energy)) blown_up_at = step;
    } else {
      formulation.step();
    }
    formulation.record_probes();
    ++step;
    bool const checkpoint_now = checkpoint_every > 0 && step % checkpoint_every == 0 && step < plan.steps;
    if (!probes.empty() && (step - unflushed_from == flush_every || step == plan.steps || checkpoint_now)) {
      flush_probes(unflushed_from, step - unflushed_from);
      unflushed_from = step;
    }
    if (snapshot_every > 0 && step % snapshot_every == 0) write_snapshot(step);
    if (checkpoint_now && blown_up_at < 0) timed_output(save_checkpoint);
    progress.update(step, step * plan.dt);
  }
  if (!probes.empty() && step > unflushed_from) flush_probes(unflushed_from, step - unflushed_from);
  Kokkos::fence();
  s.times.stepping += clock.lap() - output_in_loop;
  s.times.output += output_in_loop;

  RunResult result;
  result.steps = step;
  result.complete = step == plan.steps && blown_up_at < 0;
  if (!result.complete) progress.finish();
  if (!result.complete && blown_up_at < 0) {
    save_checkpoint();
    result.checkpoint = checkpoint_file;
  }
  auto const port_series = formulation.port_series();
  std::size_t next_port = 0;
  for (auto const& source : config.sources)
    if (source.matched) {
      auto const& series = port_series[next_port++];
      writer->write_port(source.surface, plan.dt, series.incident, series.voltage);
    }
  writer->close(result.complete);
  s.times.output += clock.lap();
  result.output = writer->description();
  result.times = s.times;
  if (blown_up_at >= 0)
    throw Error(config.name,
                "the field became infinite or NaN by step " + std::to_string(blown_up_at) +
                    " (t = " + format_number(blown_up_at * plan.dt) + " s); " + s.output_path +
                    " holds the steps before it (complete = 0)",
                "use dt = \"auto\" or a dt below dt_max = " + format_number(plan.dt_max) + " s");
  if (s.options.report) {
    print_stage_times(*s.options.report, s.times, step - first_step,
                      2 * static_cast<double>(s.problem.topology.num_edges()) + 4.0 * s.problem.mesh.num_tets());
    if (result.complete) *s.options.report << "  wrote " << result.output << "\n" << std::flush;
  }
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
