#include "simulation.hpp"

#include "dgatd/dga/assembled.hpp"
#include "dgatd/dga/operators.hpp"
#include "dgatd/error.hpp"
#include "dgatd/io/config.hpp"
#include "dgatd/io/output.hpp"
#include "dgatd/kernels/assembled.hpp"
#include "dgatd/mesh/generators.hpp"
#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/mesh/topology.hpp"
#include "dgatd/solver/leapfrog.hpp"
#include "dgatd/solver/stencils.hpp"
#include "dgatd/version.hpp"

#include <Kokkos_Core.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <unistd.h>

namespace dgatd::app {
namespace {

std::atomic<bool> interrupt_requested{false};
extern "C" void request_interrupt(int) { interrupt_requested = true; }

// Ctrl-C during the time loop ends it cleanly; outside it the default behaviour stays.
class InterruptGuard {
public:
  InterruptGuard() : previous_(std::signal(SIGINT, request_interrupt)) { interrupt_requested = false; }
  ~InterruptGuard() { std::signal(SIGINT, previous_); }
  InterruptGuard(InterruptGuard const&) = delete;
  InterruptGuard& operator=(InterruptGuard const&) = delete;

private:
  void (*previous_)(int);
};

std::string format_number(double value)
{
  std::ostringstream text;
  text << value;
  return text.str();
}

std::string where(io::Config const& config, int line) { return config.name + ":" + std::to_string(line); }

std::string known_groups(mesh::Mesh const& m, int dim)
{
  std::string names;
  for (auto const& g : m.groups)
    if (g.dim == dim) names += (names.empty() ? "" : ", ") + g.name;
  return names.empty() ? "none" : names;
}

int surface_tag(io::Config const& config, mesh::Mesh const& m, std::string const& name, int line)
{
  for (auto const& g : m.groups)
    if (g.dim == 2 && g.name == name) return g.tag;
  throw Error(where(config, line), "'" + name + "' is not a physical surface of " + m.source,
              "use one of: " + known_groups(m, 2));
}

struct Problem {
  mesh::Mesh mesh;
  mesh::Topology topology;
  mesh::Geometry geometry;
  dga::HostOperators operators;
  solver::MeshView view() const { return {mesh, topology, geometry}; }
};

// Wall-clock seconds of each stage of a run, printed at its end: on a GPU the steps can take a
// fraction of the time spent around them, so a user must see where the time goes.
struct StageTimes {
  double meshing = 0;  // Gmsh generating the mesh ([mesh] generate)
  double reading = 0;  // reading and validating a mesh file ([mesh] file)
  double setup = 0;    // materials, topology, geometry, operators, upload, sources, probes
  double dt_bound = 0; // power iteration
  double stepping = 0; // the time loop, less the output inside it
  double output = 0;   // HDF5/XDMF writing
};

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

Problem build_problem(io::Config const& config, StageTimes& times)
{
  Problem p;
  Stopwatch clock;
  p.mesh = config.mesh.file.empty() ? mesh::generate_mesh(config.mesh.generate, config.mesh.output)
                                    : mesh::read_mesh(config.mesh.file, config.mesh.scale);
  (config.mesh.file.empty() ? times.meshing : times.reading) = clock.lap();

  dga::Materials materials{std::vector<double>(p.mesh.tets.size(), dga::eps0),
                           std::vector<double>(p.mesh.tets.size(), dga::mu0)};
  for (auto const& material : config.materials) {
    int tag = material.region_tag;
    if (!material.region_name.empty()) {
      tag = -1;
      for (auto const& g : p.mesh.groups)
        if (g.dim == 3 && g.name == material.region_name) tag = g.tag;
      if (tag < 0)
        throw Error(where(config, material.line),
                    "[[material]] region '" + material.region_name + "' is not a physical volume of " + p.mesh.source,
                    "use one of: " + known_groups(p.mesh, 3));
    }
    bool used = false;
    for (std::size_t t = 0; t < p.mesh.tets.size(); ++t)
      if (p.mesh.tet_region[t] == tag) {
        materials.eps[t] = dga::eps0 * material.eps_r;
        materials.mu[t] = dga::mu0 * material.mu_r;
        used = true;
      }
    if (!used)
      throw Error(where(config, material.line),
                  "[[material]] region " + std::to_string(tag) + " has no tetrahedra in " + p.mesh.source,
                  "use one of: " + known_groups(p.mesh, 3));
  }

  p.topology = mesh::build_topology(p.mesh);
  p.geometry = mesh::build_geometry(p.mesh, p.topology);

  std::vector<dga::FaceKind> kinds(p.topology.num_faces(), dga::FaceKind::interior_or_pmc);
  std::vector<int> pec_tags;
  for (auto const& name : config.boundary.pec_surfaces) pec_tags.push_back(surface_tag(config, p.mesh, name, 0));
  if (config.boundary.pec_everywhere)
    for (auto f : p.topology.boundary_faces) kinds[f] = dga::FaceKind::pec;
  for (Index f = 0; f < p.topology.num_faces(); ++f)
    for (int tag : pec_tags)
      if (p.topology.face_tag[f] == tag) kinds[f] = dga::FaceKind::pec;
  for (auto const& source : config.sources)
    if (source.kind == io::SourceKind::port_te10) {
      int const tag = surface_tag(config, p.mesh, source.surface, source.line);
      for (Index f = 0; f < p.topology.num_faces(); ++f)
        if (p.topology.face_tag[f] == tag) kinds[f] = dga::FaceKind::port;
    }
  p.operators = dga::assemble(p.mesh, p.topology, p.geometry, materials, kinds);
  times.setup = clock.lap();
  return p;
}

// A console progress line, refreshed twice a second, only when a person is watching.
class Progress {
public:
  Progress(bool enabled, std::int64_t total) : enabled_(enabled && isatty(fileno(stderr))), total_(total) {}
  void update(std::int64_t step, double time)
  {
    if (!enabled_) return;
    auto const now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(500) && step != total_) return;
    last_ = now;
    double const elapsed = std::chrono::duration<double>(now - start_).count();
    double const rate = step / std::max(elapsed, 1e-9);
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
  std::int64_t total_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

template <class V>
std::vector<double> to_host_vector(V const& v)
{
  auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(host.data(), host.data() + host.size());
}

template <class V>
std::vector<double> per_tet_to_host(V const& f)
{
  auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);
  std::vector<double> out(4 * host.extent(0));
  for (std::size_t t = 0; t < host.extent(0); ++t)
    for (int j = 0; j < 4; ++j) out[4 * t + j] = host(t, j);
  return out;
}

solver::Waveform scaled(io::Waveform const& w)
{
  return [w](double t) { return w.amplitude * w.value(t); };
}

// Fields of an assembled state in the fractioned layout: each edge circulation split half and
// half, each face circulation shared equally by its tets (the assembled unknowns do not say more).
void assembled_to_fractioned(Problem const& p, std::vector<double> const& U, std::vector<double> const& F,
                             std::vector<double>& u, std::vector<double>& f)
{
  auto const& layout = p.operators.layout;
  u.assign(layout.size(), 0.0);
  for (Index e = 0; e < p.topology.num_edges(); ++e)
    for (Index h : p.topology.edge_half_edges[e]) {
      Index const dof = layout.dof_of_half_edge[h];
      if (dof != layout.zero_slot) u[dof] = 0.5 * U[e];
    }
  f.assign(4 * static_cast<std::size_t>(p.topology.num_tets()), 0.0);
  for (Index t = 0; t < p.topology.num_tets(); ++t)
    for (int j = 0; j < 4; ++j) {
      Index const face = p.topology.tet_faces[t][j];
      f[4 * t + j] = F[face] / (p.topology.face_tets[face][1] < 0 ? 1.0 : 2.0);
    }
}

std::vector<io::ProbeSample> probe_values_on_host(std::vector<solver::ProbeStencil> const& probes,
                                                  std::vector<double> const& u, std::vector<double> const& f)
{
  std::vector<io::ProbeSample> samples(probes.size());
  for (std::size_t p = 0; p < probes.size(); ++p)
    for (int k = 0; k < 12; ++k)
      for (int c = 0; c < 3; ++c) {
        samples[p].e[c] += u[probes[p].dofs[k]] * probes[p].w[k][c];
        samples[p].h[c] += f[4 * static_cast<std::size_t>(probes[p].tet) + probes[p].faces[k]] * probes[p].w_dual[k][c];
      }
  return samples;
}

struct Plan {
  double dt = 0;
  double dt_max = 0;
  std::int64_t steps = 0;
  int power_iterations = 0;
};

template <class Space>
Plan plan_time_steps(io::Config const& config, solver::FractionedLeapfrog<Space>& fractioned)
{
  Plan plan;
  auto const bound = fractioned.estimate_stability();
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
    if (plan.dt > plan.dt_max && !config.time.allow_unstable) {
      std::ostringstream message;
      message << "[time] dt = " << plan.dt << " s exceeds the stability bound dt_max = " << plan.dt_max << " s";
      throw Error(config.name, message.str(),
                  "set dt below the bound, dt = \"auto\", or allow_unstable = true for experiments");
    }
  } else {
    plan.dt = config.time.safety * plan.dt_max;
  }
  plan.steps = config.time.steps ? *config.time.steps
                                 : static_cast<std::int64_t>(std::ceil(*config.time.t_end / plan.dt - 1e-9));
  return plan;
}

void print_stage_times(StageTimes const& t, std::int64_t steps, double unknowns)
{
  double const first_step = t.meshing + t.reading + t.setup + t.dt_bound;
  double const steps_per_second = t.stepping > 0 ? steps / t.stepping : 0;
  std::printf("  time: meshing %.2f s, reading %.2f s, setup %.2f s, dt bound %.2f s (first step after %.2f s); "
              "stepping %.2f s (%lld steps, %.1f steps/s, %.3f GDoF/s); output %.2f s\n",
              t.meshing, t.reading, t.setup, t.dt_bound, first_step, t.stepping, static_cast<long long>(steps),
              steps_per_second, steps_per_second * unknowns * 1e-9, t.output);
  std::fflush(stdout);
}

template <class Space>
int run_on(io::Config const& config, Problem const& p, std::string const& output_path, StageTimes times)
{
  Stopwatch clock;
  Space space;
  auto const& ops = p.operators;
  solver::FractionedLeapfrog<Space> fractioned(space, ops);
  times.setup += clock.lap();
  Plan const plan = plan_time_steps(config, fractioned);
  fractioned.set_dt(plan.dt);
  times.dt_bound = clock.lap();

  std::vector<solver::ProbeStencil> probes;
  for (auto const& probe : config.probes)
    probes.push_back(solver::probe_stencil(p.view(), ops.layout, probe.name, probe.position));

  bool const assembled_formulation = config.solver.formulation == io::Formulation::assembled;
  std::unique_ptr<kernels::AssembledLeapfrog<Space>> assembled;
  if (assembled_formulation) {
    assembled = std::make_unique<kernels::AssembledLeapfrog<Space>>(space, dga::assemble_global(p.topology, ops));
    assembled->set_dt(plan.dt);
  }
  for (auto const& source : config.sources) {
    std::string const name = "source at " + where(config, source.line);
    if (source.kind == io::SourceKind::port_te10) {
      if (assembled_formulation)
        throw Error(where(config, source.line), "port_te10 sources are not available with formulation = \"assembled\"",
                    "use formulation = \"fractioned\"");
      int const tag = surface_tag(config, p.mesh, source.surface, source.line);
      fractioned.add_prescribed(solver::te10_port_stencil(p.view(), ops.layout, tag, source.surface), 1.0,
                                scaled(source.waveform));
      continue;
    }
    auto const stencil = source.kind == io::SourceKind::dipole
                             ? solver::dipole_stencil(p.view(), ops, name, source.position, source.direction)
                             : solver::edge_current_stencil(p.view(), ops, name, source.position, source.direction);
    if (assembled_formulation)
      assembled->add_current_source(dga::half_edge_rows_to_edges(p.topology, ops.layout, stencil.rows, stencil.weights),
                                    1.0, scaled(source.waveform));
    else
      fractioned.add_current_source(stencil, 1.0, scaled(source.waveform));
  }
  if (!assembled_formulation)
    for (auto const& probe : probes) fractioned.add_probe(probe);

  times.setup += clock.lap();

  io::RunAttributes attributes;
  attributes.config_text = config.text;
  attributes.dt = plan.dt;
  attributes.dt_max = plan.dt_max;
  attributes.num_vertices = p.mesh.num_vertices();
  attributes.num_edges = p.topology.num_edges();
  attributes.num_faces = p.topology.num_faces();
  attributes.num_tets = p.mesh.num_tets();
  attributes.formulation = io::to_string(config.solver.formulation);
  attributes.backend = Space::name();
  io::OutputFile output(output_path, attributes);
  output.write_mesh(p.mesh.points, p.mesh.tets, p.mesh.tet_region);
  for (auto const& probe : config.probes) output.add_probe(probe.name, probe.position);
  times.output += clock.lap();

  std::cout << "dgatd run: " << p.mesh.source << "\n  " << p.mesh.num_vertices() << " vertices, "
            << p.topology.num_edges() << " edges, " << p.topology.num_faces() << " faces, " << p.mesh.num_tets()
            << " tets; " << ops.layout.num_free << " free half-edge and " << 4 * p.mesh.num_tets()
            << " dual half-edge unknowns\n"
            << "  dt_max = " << plan.dt_max << " s (power iteration, " << plan.power_iterations
            << " iterations), dt = " << plan.dt << " s, " << plan.steps << " steps to t = " << plan.steps * plan.dt
            << " s\n"
            << "  " << attributes.formulation << " formulation on " << Space::name() << " (concurrency "
            << space.concurrency() << ")\n"
            << std::flush;

  // Output inside the time loop is timed apart from the steps.
  double output_in_loop = 0;
  auto timed_output = [&output_in_loop](auto&& write) {
    Stopwatch watch;
    write();
    output_in_loop += watch.lap();
  };
  auto write_snapshot = [&](double time) {
    std::vector<double> u, f;
    if (assembled_formulation)
      assembled_to_fractioned(p, to_host_vector(assembled->edge_circulations()),
                              to_host_vector(assembled->face_circulations()), u, f);
    else {
      u = to_host_vector(fractioned.fields().u);
      f = per_tet_to_host(fractioned.fields().f);
    }
    std::vector<io::Vec3> e, h;
    solver::tet_average_fields(p.view(), ops.layout, u, f, e, h);
    timed_output([&] { output.write_snapshot(time, e, h); });
  };
  auto flush_probes = [&](std::int64_t first_step, std::int64_t count) {
    auto const samples = fractioned.take_probe_samples();
    for (std::int64_t r = 0; r < count; ++r) {
      std::vector<io::ProbeSample> row(probes.size());
      for (std::size_t q = 0; q < probes.size(); ++q)
        for (int c = 0; c < 3; ++c) {
          row[q].e[c] = samples[(r * probes.size() + q) * 6 + c];
          row[q].h[c] = samples[(r * probes.size() + q) * 6 + 3 + c];
        }
      timed_output([&] { output.append_step((first_step + r + 1) * plan.dt, row); });
    }
  };

  InterruptGuard interrupt_guard;
  Progress progress(config.output.progress, plan.steps);
  std::int64_t const energy_every = config.output.energy_every;
  std::int64_t const snapshot_every = config.output.snapshot_every;
  std::int64_t const flush_every = 2048;
  std::int64_t step = 0;
  std::int64_t unflushed_from = 0;
  std::int64_t blown_up_at = -1;
  clock.lap();
  while (step < plan.steps && !interrupt_requested) {
    double const time = step * plan.dt;
    if (assembled_formulation) {
      assembled->step();
      std::vector<double> u, f;
      if (!probes.empty()) {
        assembled_to_fractioned(p, to_host_vector(assembled->edge_circulations()),
                                to_host_vector(assembled->face_circulations()), u, f);
        auto const values = probe_values_on_host(probes, u, f);
        timed_output([&] { output.append_step(time + plan.dt, values); });
      }
    } else {
      if (step % energy_every == 0) {
        double const energy = fractioned.step_with_energy();
        timed_output([&] { output.append_energy(time, energy); });
        if (!std::isfinite(energy)) {
          blown_up_at = step;
          break;
        }
      } else
        fractioned.step();
      fractioned.record_probes();
    }
    ++step;
    if (!assembled_formulation && !probes.empty() && (step - unflushed_from == flush_every || step == plan.steps)) {
      flush_probes(unflushed_from, step - unflushed_from);
      unflushed_from = step;
    }
    if (snapshot_every > 0 && step % snapshot_every == 0) write_snapshot(step * plan.dt);
    progress.update(step, step * plan.dt);
  }
  if (!assembled_formulation && !probes.empty() && step > unflushed_from)
    flush_probes(unflushed_from, step - unflushed_from);
  Kokkos::fence();
  times.stepping = clock.lap() - output_in_loop;
  times.output += output_in_loop;
  bool const complete = step == plan.steps;
  if (!complete) progress.finish();
  output.close(complete);
  times.output += clock.lap();
  if (blown_up_at >= 0)
    throw Error(config.name,
                "the field became infinite or NaN by step " + std::to_string(blown_up_at) +
                    " (t = " + format_number(blown_up_at * plan.dt) + " s); " + output.path() +
                    " holds the steps before it (complete = 0)",
                "use dt = \"auto\" or a dt below dt_max = " + format_number(plan.dt_max) + " s");
  print_stage_times(times, step, 2 * static_cast<double>(p.topology.num_edges()) + 4.0 * p.mesh.num_tets());
  if (!complete) {
    std::cerr << "dgatd: interrupted after " << step << " of " << plan.steps << " steps; " << output.path()
              << " holds the results so far (attribute complete = 0)\n";
    return 130;
  }
  std::cout << "  wrote " << output.path() << " and " << output.xdmf_path() << "\n";
  return 0;
}

} // namespace

int run_simulation(RunOptions const& options)
{
  io::Config const config = io::load_config(options.config_path);
  std::string const output_path = options.output_override.empty() ? config.output.file : options.output_override;
  io::require_writable_output(output_path);
  StageTimes times;
  Problem const problem = build_problem(config, times);
  if (config.solver.backend == io::Backend::serial) return run_on<Kokkos::Serial>(config, problem, output_path, times);
  return run_on<Kokkos::DefaultExecutionSpace>(config, problem, output_path, times);
}

} // namespace dgatd::app
