#pragma once
// A whole simulation as a library object: from a configuration (parsed from TOML or built in code)
// to the problem, the formulation with its sources and probes, the time step, the time loop and the
// output, with checkpoints and restarts. `dgatd run` is this class behind a command line.
//
//   dgatd::io::Config config = dgatd::io::load_config("cavity.toml");
//   dgatd::simulation::Simulation simulation(config);
//   auto const result = simulation.run();      // writes config.output.file
//
// Kokkos must be initialised for the lifetime of the object.

#include "dgatd/io/input/config.hpp"
#include "dgatd/io/output/writer.hpp"
#include "dgatd/parallel/communicator.hpp"
#include "dgatd/simulation/problem.hpp"
#include "dgatd/solver/formulation.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace dgatd::simulation {

// Wall-clock seconds of each stage of a run: on a GPU the steps can take a fraction of the time
// spent around them, so a user must see where the time goes.
struct StageTimes {
  double meshing = 0;  // Gmsh generating the mesh ([mesh] generate)
  double reading = 0;  // reading and validating a mesh file ([mesh] file) or a checkpoint
  double setup = 0;    // materials, topology, geometry, operators, upload, sources, probes
  double dt_bound = 0; // the Lanczos estimate of the stability bound
  double stepping = 0; // the time loop, less the output inside it
  double output = 0;   // results and checkpoints written
};

struct TimePlan {
  double dt = 0;
  double dt_max = 0;
  std::int64_t steps = 0; // to the configured end
  int bound_iterations = 0;
  // Local time steps ([time] local_steps; docs/method/local_time_stepping.md): the levels stepped (1:
  // one global step, dt) and dt the coarse step; the tet updates they save against one global step
  // at the finest level's; the levels the tets' own steps allowed before the terms that need theirs
  // on the coarse level took that many tets there; the highest dt^2 lambda / 4 of the scheme at dt.
  int local_levels = 1;
  double local_work_ratio = 1;
  int local_levels_of_the_steps = 1;
  std::int64_t local_pinned_tets = 0;
  std::int64_t local_limiting_tets = 0; // of those, the ones whose own steps allow fewer levels
  double local_spectrum_highest = 0;
  // The margin of the levels on the tets' own steps (Simulation::Impl::choose_local_steps), which a
  // checkpoint keeps.
  double local_step_margin = 1;
  // The levels held against the pinned tets' own steps (0: as many as those allow), which a
  // checkpoint keeps with the margin.
  int local_levels_held = 0;
  bool local_levels_unstable = false; // no margin or coarse step made levels stable: one global step
  // What the search for the levels cost: the spectra it took and their products with the scheme's
  // operator, each a coarse step's work (the set-up's "dt bound" time).
  int local_search_spectra = 0;
  std::int64_t local_search_products = 0;
  // Over ranks, per level from the coarsest: the most tets of that level a rank owns over the mean
  // (each level's steps end in an exchange every rank waits for, so each level's balance counts).
  std::vector<double> local_level_imbalance;
  // In one process, the tets numbered by level (coarsest first, the locality order kept within each),
  // so that each level's passes stream: the mesh of the output and of the checkpoints is numbered so.
  // Done where the locality order broke the levels' lists of tets more often than every 20 tet
  // updates (local_updates_per_break) and the run is long enough to repay the set-up made again.
  bool local_tets_by_level = false;
  double local_updates_per_break = 0;
  // The finest level of the blocks that the driven currents (sources, lumped ports) enter, -1 where
  // none does: on a finer level the levels' steps force their rows (docs/method/local_time_stepping.md,
  // section 4).
  int local_current_level = -1;
  // Whether the levels solve for the lumped ports' currents (Term::implicit_currents), rather than
  // extrapolate their forcing.
  bool local_currents_solved = false;
};

struct SimulationOptions {
  std::string output_path;  // empty: [output] file of the configuration
  std::string restart_from; // a checkpoint to continue from, empty for a fresh run
  // Where the run summary and the stage times go; nullptr for a silent run.
  std::ostream* report = nullptr;
  // The progress line on stderr beside the report ([output] progress); a front end that draws its
  // own (the Python module) turns it off.
  bool progress = true;
  // Checked between steps: when it becomes true the run writes a checkpoint, closes its output as
  // interrupted and returns (what a signal handler sets on Ctrl-C or SIGTERM).
  std::atomic<bool> const* stop_requested = nullptr;
  // Opens what the run records through: a new output at path with the run's attributes (resume is
  // nullptr), or on a restart the interrupted output, to be continued after resume. Empty: HDF5 +
  // XDMF (io::Hdf5Writer).
  std::function<std::unique_ptr<io::RunWriter>(std::string const& path, io::RunAttributes const& attributes,
                                               io::ResumePoint const* resume)>
      writer;
  // A run over several ranks (docs/method/parallel.md): every rank builds its Simulation from the same
  // configuration and options, with its own communicator; nullptr, or one rank, runs this process
  // alone. Rank 0 reads the mesh, splits its tets with partitioner (weight: each tet's relative work,
  // constraints values per tet, each to be balanced: one per level of local steps) and writes the
  // output; the others' report and writer are not used.
  std::shared_ptr<parallel::Communicator> communicator;
  std::function<std::vector<int>(mesh::Mesh const& mesh, mesh::Topology const& topology, int parts,
                                 std::vector<int> const& weight, int constraints)>
      partitioner;
};

struct RunResult {
  bool complete = false;  // reached the configured end (false: stopped, blown up, or paused)
  bool ended = false;     // the output is closed: complete, stopped by stop_requested or stop()
  std::int64_t steps = 0; // steps taken in total (from the start of the run, across restarts)
  std::string output;     // what the writer wrote, e.g. "out.h5 and out.xdmf"
  std::string checkpoint; // the checkpoint written at the stop, empty when none was
  StageTimes times;
};

// What a tet inside a matched layer weighs against a plain one in the partition of a run over
// several ranks: about the bytes its step moves (docs/method/open_regions.md, section 3: 640 B plain,
// 640 + 2143 B in the dipole's shell) and its time (on 2 cores, 4.0 times a plain tet's).
inline constexpr int stretched_tet_weight = 4;

class Simulation {
public:
  // Builds everything up to the first step: the mesh (or the checkpoint's), the problem, the
  // formulation on the configured backend, dt (Lanczos estimate, or the checkpoint's), sources and
  // probes. Throws dgatd::Error, naming the file and the fix, on anything it cannot do, and before
  // any output is created.
  explicit Simulation(io::Config config, SimulationOptions options = {});
  // The same on a mesh built in code: of the configuration's [mesh] only ordering is used, to
  // renumber it (a Config built in code may leave the rest empty). Its physical groups name the
  // regions and surfaces the configuration uses.
  Simulation(io::Config config, mesh::Mesh mesh, SimulationOptions options = {});
  // A run paused by advance (in one process) is stopped as by stop(), so its output is readable.
  ~Simulation();
  Simulation(Simulation const&) = delete;
  Simulation& operator=(Simulation const&) = delete;

  io::Config const& config() const;
  Problem const& problem() const;
  TimePlan const& plan() const;
  solver::Formulation& formulation();
  std::string const& output_path() const;
  StageTimes const& times() const;

  // Steps to the configured end (or until stop_requested), writing probes, energy, snapshots and
  // checkpoints as configured. A field that becomes infinite stops the run with a dgatd::Error
  // after its output is closed (complete = 0). The same as advance(plan().steps).
  RunResult run();
  // Steps on to step last_step (at most the configured end) and pauses there with the output open
  // (ended = false); the next call goes on from it, as if the run had not paused. Reaching the end,
  // or stop_requested, ends the run as run() does. Throws std::logic_error once the run has ended.
  // Over ranks every rank calls it with the same last_step.
  RunResult advance(std::int64_t last_step);
  // Ends a paused run before its end as stop_requested would: a checkpoint to continue from and the
  // output closed as incomplete. Nothing when the run has ended or not started.
  RunResult stop();
  // Writes what a paused run recorded so far to its output (NAME.h5.partial until the run ends), so
  // that a reader sees every step taken; nothing before the first step or after the end. Collective.
  void flush();
  // Steps taken from the start of the run (a restart counts the checkpoint's).
  std::int64_t steps_taken() const;

  // Writes the checkpoint of the current state to path (atomically).
  void write_checkpoint(std::string const& path) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  void set_up(mesh::Mesh* given_mesh);
};

// Prints "time: meshing ..., stepping ... (steps/s, GDoF/s); output ..." for a run of `steps` steps
// over `unknowns` unknowns.
void print_stage_times(std::ostream& out, StageTimes const& times, std::int64_t steps, double unknowns);

} // namespace dgatd::simulation
