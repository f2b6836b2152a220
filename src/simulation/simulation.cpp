#include "simulation_impl.hpp"

#include "dgatd/dga/local_steps.hpp"
#include "dgatd/io/output/hdf5_writer.hpp"
#include "dgatd/mesh/ordering.hpp"
#include "dgatd/solver/formulations.hpp"
#include "dgatd/solver/local_step_plan.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <optional>
#include <ostream>
#include <utility>

namespace dgatd::simulation {
namespace {

// plan with dt from the stability bound and the [time] table; with local steps dt is the coarse step,
// whose limit is coarse_limit times dt_max (the plan holds the levels already).
TimePlan plan_time_steps(io::Config const& config, solver::StabilityBound const& bound, double coarse_limit,
                         TimePlan plan = {})
{
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
  double const limit = coarse_limit * plan.dt_max;
  std::string const bound_name = coarse_limit == 1 ? "the stability bound dt_max" : "the local steps' coarse limit";
  if (config.time.dt) {
    plan.dt = *config.time.dt;
    if (plan.dt > limit && !config.time.allow_unstable)
      throw Error(config.name,
                  "[time] dt = " + format_number(plan.dt) + " s exceeds " + bound_name + " = " + format_number(limit) +
                      " s",
                  "set dt below the bound, dt = \"auto\", or allow_unstable = true for experiments");
  } else {
    plan.dt = config.time.safety * limit;
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

} // namespace

RecordingPlan Simulation::Impl::recording_plan(std::int64_t first_step) const
{
  RecordingPlan p;
  p.dt = plan.dt;
  p.first_step = first_step;
  p.last_step = plan.steps;
  p.energy_every = config.output.energy_every;
  p.snapshot_every = config.output.snapshot_every;
  p.snapshot_volume = config.output.snapshot_volume;
  p.checkpoint_every = config.output.checkpoint_every;
  p.progress = config.output.progress && options.report != nullptr && options.progress;
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
  if (communicator->rank() != 0) return std::make_unique<io::NoOutput>();
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
                                         config.solver.field_precision, held_terms, config.time.local_steps > 1);
}

void Simulation::Impl::make_formulation()
{
  if (config.solver.backend == io::Backend::serial)
    make_formulation_on<Kokkos::Serial>();
  else
    make_formulation_on<Kokkos::DefaultExecutionSpace>();
}

std::vector<double> const& Simulation::Impl::own_tet_steps()
{
  if (local_tet_steps.empty())
    local_tet_steps = dga::tet_steps(problem.view(), problem.materials.eps, problem.materials.mu);
  return local_tet_steps;
}

double Simulation::Impl::smallest_own_step()
{
  if (smallest_tet_step) return *smallest_tet_step;
  auto const& own = own_tet_steps();
  std::vector<double> const smallest{own.empty() ? std::numeric_limits<double>::infinity()
                                                 : *std::min_element(own.begin(), own.end())};
  auto const everyone = over_ranks ? parallel::all_gathered(*communicator, smallest) : smallest;
  smallest_tet_step = *std::min_element(everyone.begin(), everyone.end());
  return *smallest_tet_step;
}

// The levels from each tet's own step in its materials (dga::tet_steps, dga::step_levels) with a
// margin: a tet steps 2^j times the finest level's step where its own step is margin times 2^j the
// smallest; the tets the terms need on the coarse level stay there (solver::local_step_plan_for_steps),
// the levels dropping until their own steps allow it or, held_levels > 0, held at that many.
// Over ranks (part not null) the part's levels are the whole mesh's (solver::LocalStepRanks).
void Simulation::Impl::set_local_steps(double margin, int held_levels, parallel::MeshPart const* part)
{
  // Each own step over the margin, the smallest kept: the tets below it are the finest level.
  auto const& own = own_tet_steps();
  double const smallest = smallest_own_step();
  std::vector<double> steps(own.size());
  for (std::size_t t = 0; t < steps.size(); ++t) steps[t] = std::max(smallest, own[t] / margin);
  std::optional<solver::LocalStepRanks> over_ranks;
  if (part) over_ranks.emplace(solver::LocalStepRanks{*communicator, *part});
  auto const* ranks = over_ranks ? &*over_ranks : nullptr;
  auto const doublings = solver::step_doublings(problem.topology, steps, smallest, config.time.local_steps, ranks);
  auto const local = solver::local_step_plan_for_steps(
      problem.operators, doublings, held_levels > 0 ? held_levels : config.time.local_steps,
      formulation->local_step_coarse_tets(), ranks,
      held_levels > 0 ? solver::PinnedLevels::hold : solver::PinnedLevels::drop);
  formulation->set_local_steps(local);
  plan.local_levels = static_cast<int>(local.levels.size());
  plan.local_work_ratio = local.work_ratio();
  plan.local_levels_of_the_steps = local.levels_of_the_steps;
  plan.local_pinned_tets = local.pinned_tets;
  plan.local_limiting_tets = local.limiting_tets;
  plan.local_step_margin = margin;
  plan.local_levels_held = held_levels;
  local_tet_level = local.tet_level;
  int current_level = -1;
  auto const& layout = problem.operators.layout;
  for (Index const row : formulation->local_step_current_rows())
    if (row < layout.num_free) current_level = std::max(current_level, local.block_level[layout.block_of(row)]);
  plan.local_current_level = static_cast<int>(communicator->max(current_level));
  plan.local_level_imbalance.clear();
  if (!part) return;
  std::vector<std::int64_t> owned(local.levels.size(), 0);
  for (std::size_t k = 0; k < owned.size(); ++k)
    for (Index const t : local.levels[k].own_tets) owned[k] += part->owns_tet[t] ? 1 : 0;
  auto const everyone = parallel::all_gathered(*communicator, owned);
  for (std::size_t k = 0; k < owned.size(); ++k) {
    double most = 0, total = 0;
    for (std::size_t r = k; r < everyone.size(); r += owned.size()) {
      most = std::max(most, static_cast<double>(everyone[r]));
      total += static_cast<double>(everyone[r]);
    }
    plan.local_level_imbalance.push_back(total > 0 ? most * static_cast<double>(communicator->size()) / total : 1);
  }
}

// The levels against the scheme's own spectrum: each tet's own step ranks it, but its ratio to the
// finest level's step is right for the tet alone, not for the steps of its neighbours' levels
// together (measured on the strip dipole's mesh: three levels at their limit had dt^2 lambda / 4 of
// A_p from -2.1 to 1.6). So the margin grows by 1 / safety, moving the tets nearest a level's bound
// to the finer one, until every ratio lies in [0, 1) at the coarse step's limit; a dt given is
// refused where it is unstable.
//
// The margin starts where the smallest own step stands for the finest level's tets: a well-shaped
// tet's own step is about half its step in the whole operator (0.43 to 0.55 of the Lanczos dt_max at
// the finest tets, docs/method/local_time_stepping.md), so the smallest own step is taken as no less
// than local_own_step_floor dt_max. A sliver's own step, far below (its subregion masses are tiny
// beside its vertices' blocks), would otherwise anchor the levels: on the graded sphere of the tests
// meshed at h_sphere = 0.01 (smallest own step 0.025 dt_max, two slivers 30 times below the tets next
// in line) the levels stayed unstable up to a margin of 25, beyond the reach of the attempts (7.8),
// and the run stopped.
//
// The tets the terms pin to the coarse level stay there whatever the margin, so the levels their own
// steps allow at the first margin are held while the margin grows (with the drop the margin's growth
// took every level from the patch antenna: its pins allowed 2, the spectrum asked for a margin of 1.69
// and a pinned tet's own step fell below it at 1.41). Where the margin stops moving the highest
// ratio, the mode is one the coarse level keeps (a pinned tet's): the coarse step shrinks to fit it
// and one level fewer is weighed against it (solver::search_local_steps). Where no number of levels
// is stable, one global step, which the run summary says.
bool Simulation::Impl::choose_local_steps(solver::StabilityBound const& bound, parallel::MeshPart const* part,
                                          bool hold_pins)
{
  double const first_margin = std::max(1.0, local_own_step_floor * bound.dt_max / smallest_own_step());
  set_local_steps(first_margin, 0, part);
  int const pinned_allow = plan.local_levels;
  if (config.time.dt) {
    plan = plan_time_steps(config, bound, solver::coarse_step_limit(pinned_allow), plan);
    if (pinned_allow == 1 || config.time.allow_unstable) return false;
    auto const spectrum = formulation->local_step_spectrum(plan.dt, local_spectrum_tolerance, local_spectrum_tolerance);
    plan.local_spectrum_highest = spectrum.highest;
    plan.local_search_spectra = 1;
    plan.local_search_products = spectrum.iterations;
    if (spectrum.stable(local_spectrum_tolerance)) return false;
    throw Error(config.name,
                "the local steps' scheme is unstable at dt = " + format_number(plan.dt) +
                    " s (dt^2 lambda / 4 of its operator from " + format_number(spectrum.lowest) + " to " +
                    format_number(spectrum.highest) + ")",
                "set [time] dt = \"auto\", fewer levels in [time] local_steps, or local_steps = \"off\"");
  }
  // Without currents driven in the run, or with currents that the levels solve for (a lumped port's),
  // the pins' levels are only where the search starts: from the tets' own levels it may find more,
  // the pinned tets judged by the spectrum with the rest. The spectrum does not see a current's
  // forcing, which an extrapolation feeds back (docs/method/local_time_stepping.md, section 6).
  bool const drives_currents = communicator->max(formulation->local_step_drives_currents() ? 1 : 0) > 0;
  bool const solvable = communicator->max(formulation->local_step_currents_solvable() ? 0 : 1) == 0;
  bool const beyond_pins = drives_currents && solvable && !hold_pins;
  int const most_levels = drives_currents && !beyond_pins ? pinned_allow : plan.local_levels_of_the_steps;
  if (most_levels == 1) {
    plan = plan_time_steps(config, bound, 1, plan);
    return false;
  }
  solver::LocalStepSearch search;
  search.first_margin = first_margin;
  search.safety = config.time.safety;
  search.dt_max = bound.dt_max;
  search.max_attempts = max_local_step_attempts;
  search.tolerance = local_spectrum_tolerance;
  search.plan = [&](double margin, int levels) {
    // The plan in place has as many levels at this margin (the first margin's, where the pins allowed
    // them): held at that count the tets wish the same levels, so it is not made again.
    if (margin != plan.local_step_margin || levels != plan.local_levels)
      set_local_steps(margin, levels, part);
    else
      plan.local_levels_held = levels;
    // A coarsest level that owns no tet steps the same tets as the levels below it at half the step,
    // with the passes of one level more: it counts as one level fewer, so the search tries those
    // (a graded sphere with a dipole: 4 levels with the coarsest empty stepped 1.03-1.06x faster than
    // one global step, the 3 levels found instead 1.31x; perf/results/2026-12-02-tets-by-level.md).
    bool const coarsest_owns_tets =
        communicator->max(
            std::find(local_tet_level.begin(), local_tet_level.end(), 0) != local_tet_level.end() ? 1 : 0) > 0;
    return std::make_pair(plan.local_levels - (coarsest_owns_tets ? 0 : 1), plan.local_work_ratio);
  };
  int spectra = 0;
  std::int64_t products = 0;
  search.spectrum = [&](double dt) {
    auto const spectrum = formulation->local_step_spectrum(dt, local_spectrum_tolerance, local_spectrum_tolerance);
    ++spectra;
    products += spectrum.iterations;
    return spectrum;
  };
  auto const choice = solver::search_local_steps(search, most_levels);
  if (choice) {
    if (choice->margin != plan.local_step_margin || choice->levels != plan.local_levels_held)
      set_local_steps(choice->margin, choice->levels, part);
    plan = plan_time_steps(config, bound, solver::coarse_step_limit(choice->levels), plan);
    plan.dt = choice->dt;
    plan.local_spectrum_highest = choice->highest;
  } else {
    // No levels stable: one global step, said in the run's summary.
    set_local_steps(std::numeric_limits<double>::infinity(), 0, part);
    plan = plan_time_steps(config, bound, solver::coarse_step_limit(plan.local_levels), plan);
    plan.local_levels_unstable = true;
  }
  plan.local_search_spectra = spectra;
  plan.local_search_products = products;
  return beyond_pins && plan.local_levels > pinned_allow;
}

// The levels' passes read their tets through lists; with each level's tets consecutive those lists
// stream (perf/results/2026-12-02-local-steps-passes.md: the cycle 1.08-1.10x faster on 2 threads, a
// thin level's Faraday pass 1.8x). The levels come from the operators and the terms, so the set-up
// is made again on the mesh with its tets grouped by level, coarsest first, the locality order kept
// within each. The vertices keep theirs, and with them the blocks, edges, faces and electric unknowns
// (so each tet's gathers stay local: numbering the vertices by level too was 0.91-0.94x). The margin
// and levels are not searched again: on any numbering of the tets they give the same levels.
//
// Done where it pays (perf/results/2026-12-02-tets-by-level.md): the whole step gained 10 % where
// the levels' lists broke every 13 tet updates (a graded sphere), nothing where every 45 (the patch
// antenna), and the set-up made again costs what 400 to 1,000 tet updates per tet do (1.7 s on the
// graded sphere's 225 k tets, 4 s on the patch antenna's 203 k with its port, far field and layer).
void Simulation::Impl::number_tets_by_level()
{
  // Each level steps 2^k times per coarse step, and each run of its tets in the numbering is a break
  // in the list its passes read.
  double breaks = 0, updates = 0;
  for (std::size_t t = 0; t < local_tet_level.size(); ++t) {
    double const times = std::ldexp(1.0, local_tet_level[t]);
    updates += times;
    if (t == 0 || local_tet_level[t] != local_tet_level[t - 1]) breaks += times;
  }
  plan.local_updates_per_break = updates / breaks;
  double const updates_per_tet =
      static_cast<double>(plan.steps) * updates / static_cast<double>(local_tet_level.size());
  if (plan.local_updates_per_break > 20 || updates_per_tet < 500) return;
  mesh::Renumbering renumbering;
  renumbering.new_vertex.resize(static_cast<std::size_t>(problem.mesh.num_vertices()));
  std::iota(renumbering.new_vertex.begin(), renumbering.new_vertex.end(), Index{0});
  renumbering.new_tet = mesh::stable_ranks(local_tet_level);

  plan.local_tets_by_level = true;
  auto const chosen = plan;
  formulation.reset(); // it holds the problem's operators
  auto mesh = std::move(problem.mesh);
  problem = Problem{};
  mesh::renumber(mesh, renumbering);
  problem = make_problem(config, std::move(mesh));
  local_tet_steps.clear();
  formulate(*whole_mesh_placement(problem));
  set_local_steps(chosen.local_step_margin, chosen.local_levels_held, nullptr);
  if (plan.local_levels != chosen.local_levels || plan.local_work_ratio != chosen.local_work_ratio ||
      plan.local_pinned_tets != chosen.local_pinned_tets)
    throw std::logic_error("the tets numbered by level gave other levels than the search chose");
  formulation->set_dt(plan.dt);
  // The currents' responses are measured here, before any step, as plan_steps measured them.
  plan.local_currents_solved = chosen.local_current_level >= 0 && formulation->local_step_currents_solved();
  if (plan.local_currents_solved != chosen.local_currents_solved)
    throw std::logic_error("the tets numbered by level solve the ports' currents where the search's did not, or "
                           "the other way round");
}

void Simulation::Impl::plan_steps(io::Checkpoint const* checkpoint, parallel::MeshPart const* part)
{
  if (checkpoint) {
    // The checkpoint's dt and levels, not a new estimate: the Lanczos iterations' reductions may
    // round differently on another thread count, and the continuation must be the same run.
    if (config.time.local_steps > 1)
      set_local_steps(checkpoint->local_step_margin, checkpoint->local_levels_held, part);
    plan.dt = checkpoint->dt;
    plan.dt_max = checkpoint->dt_max;
    plan.bound_iterations = checkpoint->bound_iterations;
  } else if (config.time.local_steps > 1) {
    auto const bound = formulation->estimate_stability();
    // Levels beyond the pins' need the currents solved at the step found; where the step's response
    // to them reaches another term's state they are not, and the pins' levels hold.
    if (choose_local_steps(bound, part, false)) {
      formulation->set_dt(plan.dt);
      if (!formulation->local_step_currents_solved()) choose_local_steps(bound, part, true);
    }
  } else {
    plan = plan_time_steps(config, formulation->estimate_stability(), 1);
  }
  plan.steps = steps_to_end(config, plan.dt);
  formulation->set_dt(plan.dt);
  plan.local_currents_solved =
      plan.local_levels > 1 && plan.local_current_level >= 0 && formulation->local_step_currents_solved();
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

// The mesh of one process: the configuration's (given_mesh when not null), or the checkpoint's.
std::unique_ptr<Placement> Simulation::Impl::place_in_one_process(mesh::Mesh* given_mesh,
                                                                  std::unique_ptr<io::Checkpoint>& checkpoint,
                                                                  Stopwatch& clock)
{
  if (!config.mesh.parts.empty())
    throw Error(config.name, "[mesh] parts = \"" + config.mesh.parts + "\" is for a run over several ranks",
                "run it under mpirun -n N (N as the parts were made for), or remove [mesh] parts");
  refuse_unsupported();
  io::require_writable_output(output_path);
  if (!options.restart_from.empty()) checkpoint = read_restart_checkpoint();
  auto mesh = load_ordered_mesh(given_mesh, checkpoint.get());
  // A mesh given in code is ordered as part of the set-up.
  if (checkpoint || !given_mesh)
    (checkpoint || !mesh_made_on_load(config) ? times.reading : times.meshing) += clock.lap();
  problem = make_problem(config, std::move(mesh));
  return whole_mesh_placement(problem);
}

// One path whichever way the mesh is held (placement.hpp): the formulation with its terms where the
// placement puts them, the halo over ranks, then dt. Physics reports what it cannot use in the model
// (a layer, a port, the time step) in the method's words, as a ModelError; the user reads it at the
// configuration line that asked for the item.
void Simulation::set_up(mesh::Mesh* given_mesh)
try {
  auto& s = *impl_;
  s.output_path = s.options.output_path.empty() ? s.config.output.file : s.options.output_path;
  s.communicator = s.options.communicator ? s.options.communicator : std::make_shared<parallel::SingleProcess>();
  s.over_ranks = s.communicator->size() > 1;

  Stopwatch clock;
  std::unique_ptr<io::Checkpoint> checkpoint;
  auto const placement = !s.over_ranks                 ? s.place_in_one_process(given_mesh, checkpoint, clock)
                         : s.config.mesh.parts.empty() ? s.place_over_ranks(given_mesh, checkpoint, clock)
                                                       : s.place_from_parts(checkpoint, clock);
  s.together([&] { s.formulate(*placement); });
  if (auto const* part = placement->part()) {
    s.distribute(*part, placement->edge_global(), placement->face_global());
    s.record_part_sizes(*part);
  }
  s.times.setup += clock.lap();
  s.together([&] { s.plan_steps(checkpoint.get(), placement->part()); });
  if (s.over_ranks) {
    s.part_local_step_values = static_cast<double>(s.formulation->halo().local_step_values_sent);
    s.communicator->sum(&s.part_local_step_values, 1);
  }
  s.times.dt_bound += clock.lap();
  // A restart steps in its checkpoint's numbering (load_ordered_mesh), a run over ranks in the whole
  // mesh's.
  if (!s.over_ranks && s.plan.local_levels > 1) {
    if (checkpoint) {
      s.plan.local_tets_by_level = std::is_sorted(s.local_tet_level.begin(), s.local_tet_level.end());
    } else {
      s.together([&] { s.number_tets_by_level(); });
      s.times.setup += clock.lap();
    }
  }
  if (checkpoint) {
    s.together([&] { s.restore(*checkpoint); });
    s.times.setup += clock.lap();
  }
} catch (ModelError const& e) {
  throw config_error(impl_->config, e);
}

Simulation::~Simulation()
{
  // Over ranks the others may not be here to close the output with this one.
  if (!impl_ || impl_->over_ranks || !impl_->recorder || impl_->ended) return;
  try {
    stop();
  } catch (std::exception const&) {
    // A destructor cannot report: the output is left as its writer's destructor leaves it.
  }
}

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

RunResult Simulation::run() { return advance(impl_->plan.steps); }

RunResult Simulation::advance(std::int64_t last_step)
{
  auto& s = *impl_;
  if (s.ended) throw std::logic_error("Simulation::advance after the run has ended");
  last_step = std::min(last_step, s.plan.steps);
  Stopwatch clock;
  if (!s.recorder) {
    s.first_step = s.step = std::max<std::int64_t>(s.restart_step, 0);
    s.recorder = std::make_unique<Recorder>(
        s.recording_plan(s.first_step), s.open_writer(s.first_step), *s.formulation,
        [&s](std::vector<Vec3>& e, std::vector<Vec3>& h) { s.tet_fields(e, h); }, io::checkpoint_path(s.output_path),
        [this](std::string const& path) { write_checkpoint(path); });
    bool const watched = s.config.output.watchdog > 0 && s.formulation->has_energy();
    s.watchdog = std::make_unique<Watchdog>(watched ? s.config.output.watchdog : 0.0,
                                            std::max(s.sources_peaked_step(), s.first_step));
    s.times.output += clock.lap();
    s.report_start(s.first_step);
    s.halo_seconds_before = s.formulation->halo().seconds;
  }
  auto& recorder = *s.recorder;
  // Every rank stops at the same step: a signal reaches the ranks at different moments.
  auto const stop_requested = [&] {
    bool const here = s.options.stop_requested && s.options.stop_requested->load();
    return s.over_ranks ? s.communicator->max(here ? 1 : 0) > 0 : here;
  };
  double const output_before = recorder.output_seconds();
  bool stopped = false;
  auto& watchdog = *s.watchdog;
  while (s.step < last_step && recorder.blown_up_at() < 0 && !watchdog.tripped() && !(stopped = stop_requested())) {
    bool const record = recorder.wants_energy(s.step);
    if (record || watchdog.wants(s.step)) {
      double const energy = s.formulation->step_with_energy();
      if (record) recorder.record_energy(s.step, energy);
      watchdog.observe(s.step, energy);
    } else {
      s.formulation->step();
    }
    recorder.after_step(++s.step);
  }
  Kokkos::fence();
  double const written = recorder.output_seconds() - output_before;
  s.times.stepping += clock.lap() - written;
  s.times.output += written;
  if (s.step < s.plan.steps && !stopped && recorder.blown_up_at() < 0 && !watchdog.tripped()) return s.paused_result();
  return s.end_run(clock);
}

RunResult Simulation::stop()
{
  auto& s = *impl_;
  if (s.recorder && !s.ended) {
    Stopwatch clock;
    return s.end_run(clock);
  }
  auto result = s.paused_result();
  result.ended = s.ended;
  return result;
}

void Simulation::flush()
{
  auto& s = *impl_;
  if (!s.recorder || s.ended) return;
  Stopwatch clock;
  s.recorder->flush(s.step);
  s.times.output += clock.lap();
}

std::int64_t Simulation::steps_taken() const
{
  return impl_->recorder ? impl_->step : std::max<std::int64_t>(impl_->restart_step, 0);
}

RunResult Simulation::Impl::paused_result() const
{
  RunResult result;
  result.steps = step;
  result.output = recorder ? recorder->description() : std::string();
  result.times = times;
  return result;
}

namespace {

std::string three_digits(double value)
{
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

} // namespace

RunResult Simulation::Impl::end_run(Stopwatch& clock)
{
  ended = true;
  if (over_ranks) {
    part_halo_seconds.assign(communicator->size(), 0.0);
    part_halo_seconds[communicator->rank()] = formulation->halo().seconds - halo_seconds_before;
    communicator->sum(part_halo_seconds.data(), part_halo_seconds.size());
  }
  RunResult result;
  result.steps = step;
  result.ended = true;
  bool const grew = watchdog && watchdog->tripped() && std::isfinite(watchdog->ratio());
  std::int64_t blown_up_at = recorder->blown_up_at();
  if (blown_up_at < 0 && watchdog && watchdog->tripped() && !grew) blown_up_at = watchdog->tripped_at();
  result.complete = step == plan.steps && blown_up_at < 0 && !grew;
  // Where the field is largest, before the output is closed (collective over ranks).
  std::string const place = blown_up_at >= 0 || grew ? largest_field_place() : std::string();
  std::string const causes = grew ? growth_causes() : std::string();
  result.checkpoint = recorder->finish(step, result.complete);
  times.output += clock.lap();
  result.output = recorder->description();
  result.times = times;
  if (blown_up_at >= 0 || grew) {
    std::int64_t const stopped_at = grew ? watchdog->tripped_at() : blown_up_at;
    std::string const when = " by step " + std::to_string(stopped_at) + " (t = " + format_number(stopped_at * plan.dt) +
                             " s)" + place + "; " + output_path + " holds the steps before it (complete = 0)";
    Error const error =
        grew ? Error(config.name,
                     "the energy grew to " + three_digits(watchdog->ratio()) +
                         " times its reference, past [output] watchdog = " + format_number(watchdog->factor()) + when,
                     causes)
             : Error(config.name, "the field became infinite or NaN" + when,
                     plan.local_levels > 1
                         ? "use dt = \"auto\" (the local steps' coarse step is then one their spectrum checks), "
                           "fewer levels in [time] local_steps, or local_steps = \"off\""
                         : "use dt = \"auto\" or a dt below dt_max = " + format_number(plan.dt_max) + " s");
    // Every rank sees the same energies and probes, so all stop here together.
    if (over_ranks) throw parallel::CollectiveError(error.what());
    throw error;
  }
  report_end(step - first_step, result);
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
