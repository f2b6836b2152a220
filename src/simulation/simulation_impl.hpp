#pragma once
// A simulation's state and the steps of its set-up, shared by the files that implement
// Simulation (private to simulation/): simulation.cpp (the set-up in one process, the time loop),
// sources.cpp (sources, probes and far fields on the mesh or a part), over_ranks.cpp (the set-up
// over ranks, from the whole mesh or from parts), checkpoints.cpp and run_report.cpp.

#include "dgatd/simulation/simulation.hpp"

#include "dgatd/error.hpp"
#include "dgatd/io/output/checkpoint.hpp"
#include "dgatd/io/output/writer.hpp"
#include "dgatd/parallel/communicator.hpp"
#include "dgatd/parallel/decomposition.hpp"
#include "dgatd/simulation/capabilities.hpp"
#include "dgatd/simulation/config_errors.hpp"
#include "dgatd/simulation/part_files.hpp"
#include "dgatd/solver/formulation.hpp"
#include "placement.hpp"
#include "recorder.hpp"
#include "watchdog.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace dgatd::simulation {

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
  // The time loop between calls of Simulation::advance: the recorder (and through it the output)
  // is opened by the first call and closed when the run ends.
  std::unique_ptr<Recorder> recorder;
  std::unique_ptr<Watchdog> watchdog; // opened with the recorder
  std::string port_modes_report;      // the mode ports' modes and their solves, for report_start
  Vec3 plane_wave_origin{};           // where the run's plane wave's front is at its t0 (add_sources)
  // The step from which every source has peaked ([output] watchdog): the Gaussians' t0, the sines'
  // ramp, over the [[source]] tables and the capabilities' items.
  std::int64_t sources_peaked_step() const;
  // Where the electric field is largest, in words: its region and point (collective over ranks).
  std::string largest_field_place() const;
  // Why a run's energy grows, as far as the configuration and that place tell (collective).
  std::string growth_causes() const;
  std::int64_t step = 0;       // steps taken, from the start of the run (across restarts)
  std::int64_t first_step = 0; // where this process's time loop started
  double halo_seconds_before = 0;
  bool ended = false;
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
  // The mesh a run steps and where its items lie (placement.hpp), built on the way the run holds
  // it: the whole mesh in one process, over ranks a part of the whole mesh every rank holds or a
  // part read from part files. checkpoint: the restart's, read on the way; clock's laps go to times.
  std::unique_ptr<Placement> place_in_one_process(mesh::Mesh* given_mesh, std::unique_ptr<io::Checkpoint>& checkpoint,
                                                  Stopwatch& clock);
  std::unique_ptr<Placement> place_over_ranks(mesh::Mesh* given_mesh, std::unique_ptr<io::Checkpoint>& checkpoint,
                                              Stopwatch& clock);
  std::unique_ptr<Placement> place_from_parts(std::unique_ptr<io::Checkpoint>& checkpoint, Stopwatch& clock);
  // Over ranks, once the formulation is distributed: the parts' sizes for the report (collective).
  void record_part_sizes(parallel::MeshPart const& part)
  {
    int const ranks = communicator->size();
    part_tets.assign(ranks, 0.0);
    part_halo_values.assign(ranks, 0.0);
    part_tets[communicator->rank()] = static_cast<double>(part.global_tet.size());
    part_halo_values[communicator->rank()] = static_cast<double>(formulation->halo().values_sent);
    communicator->sum(part_tets.data(), ranks);
    communicator->sum(part_halo_values.data(), ranks);
  }
  // Over ranks with local steps, the values the levels' exchanges send per coarse step (collective).
  double part_local_step_values = 0;

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
  // in one line before anything is built.
  void refuse_unsupported() const
  {
    simulation::refuse_unsupported(config, run_modes(config, over_ranks, steps_on_gpu(config)));
    if (over_ranks && !options.partitioner)
      throw std::logic_error("a simulation over several ranks needs SimulationOptions::partitioner");
  }
  template <class Space>
  void make_formulation_on();
  // Over ranks, every part holds the operators' terms that any part's operators call for
  // (solver::OperatorTermsHeld), so all step the same terms; collective.
  solver::OperatorTermsHeld held_terms;
  void hold_operator_terms_of_every_part()
  {
    held_terms.losses = communicator->max(problem.operators.lossy_blocks.empty() ? 0 : 1) > 0;
    held_terms.magnetic_stretch = communicator->max(problem.operators.stretched_tets.empty() ? 0 : 1) > 0;
  }
  // part: this rank's over ranks (collective then), null in one process.
  void plan_steps(io::Checkpoint const* checkpoint, parallel::MeshPart const* part);
  // held_levels: 0 for the levels the pinned tets' own steps allow (up to [time] local_steps), or
  // that many levels held against those steps (solver::PinnedLevels::hold).
  void set_local_steps(double margin, int held_levels, parallel::MeshPart const* part);
  // Returns whether the levels were searched beyond the pins' because the driven currents are solved
  // through them (hold_pins: they were not at the levels found, so the pins' levels).
  bool choose_local_steps(solver::StabilityBound const& bound, parallel::MeshPart const* part, bool hold_pins);
  // Each tet's own step, for the levels (dga::tet_steps), and the smallest (of the whole mesh:
  // collective over ranks the first time), each computed on first use.
  std::vector<double> const& own_tet_steps();
  double smallest_own_step();
  std::vector<double> local_tet_steps;
  std::optional<double> smallest_tet_step;
  std::vector<int> local_tet_level; // of the plan set last, per tet
  void number_tets_by_level();
  // The Lanczos iteration finds the extreme ratios to about 1e-7 of the largest.
  static constexpr double local_spectrum_tolerance = 1e-6;
  static constexpr int max_local_step_attempts = 40;
  static constexpr double local_own_step_floor = 0.4; // of dt_max: the smallest own step the levels start from
  // The sources, probes, far fields and the capabilities' terms where placement puts them; collective.
  void add_sources_and_probes(Placement const& placement);
  void add_lumped_elements(Placement const& placement);
  void add_far_fields(Placement const& placement);
  void warn_outside_band(io::FarFieldConfig const& far_field) const;
  // The formulation of problem on the configured backend.
  void make_formulation();
  // The terms held on every part, the formulation and the sources and probes where placement puts them.
  void formulate(Placement const& placement)
  {
    hold_operator_terms_of_every_part();
    make_formulation();
    add_sources_and_probes(placement);
  }
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
  io::Checkpoint checkpoint() const;
  std::unique_ptr<io::Checkpoint> read_restart_checkpoint() const;
  // The mesh of the configuration (given_mesh when not null, or the checkpoint's when it was
  // generated), ordered, and checked against the checkpoint's.
  mesh::Mesh load_ordered_mesh(mesh::Mesh* given_mesh, io::Checkpoint* checkpoint) const;
  void share_checkpoint(std::unique_ptr<io::Checkpoint>& checkpoint) const;
  void restore(io::Checkpoint const& checkpoint);
  void report_start(std::int64_t first_step) const;
  void report_end(std::int64_t steps_taken, RunResult const& result) const;
  // Closes the output after `step` steps (a checkpoint when the run did not reach its end), reports
  // and, when the fields blew up, throws; collective over ranks.
  RunResult end_run(Stopwatch& clock);
  RunResult paused_result() const;
  RecordingPlan recording_plan(std::int64_t first_step) const;
  std::unique_ptr<io::RunWriter> open_writer(std::int64_t first_step) const;
};

} // namespace dgatd::simulation
