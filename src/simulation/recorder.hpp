#pragma once
// What a run records while it steps: probe series, energy, snapshots, checkpoints, the matched
// ports' voltages and the progress line, through an io::RunWriter. Simulation::run steps the
// formulation and tells the recorder after each step; the recorder owns the writer's lifecycle.

#include "dgatd/io/output/writer.hpp"
#include "dgatd/mesh/mesh.hpp"
#include "dgatd/solver/formulation.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dgatd::simulation {

class Stopwatch {
public:
  // Seconds since the last lap (or the start).
  double lap();

private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// The run's progress on stderr: a line refreshed in place twice a second on a terminal, and a new
// line every half minute when stderr goes to a file or a pipe (a batch job's log).
class Progress {
public:
  Progress(bool enabled, std::int64_t first, std::int64_t total);
  void update(std::int64_t step, double time);
  void finish();

private:
  bool enabled_;
  bool terminal_;
  std::int64_t first_;
  std::int64_t total_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

struct RecordingPlan {
  double dt = 0;
  std::int64_t first_step = 0; // where the run starts (a restart's checkpoint step)
  std::int64_t last_step = 0;  // the configured end
  std::int64_t energy_every = 0;
  std::int64_t snapshot_every = 0;   // 0: none
  bool snapshot_volume = true;       // false: snapshots without the volume's E and H
  std::int64_t checkpoint_every = 0; // 0: none
  bool progress = false;
};

class Recorder {
public:
  // write_checkpoint writes the run's whole state to a path; the recorder calls it once the output
  // is flushed, so that a restart from that checkpoint finds every row before it. An empty
  // checkpoint_file: the run writes none, not even when it is stopped. tet_fields gives a snapshot's
  // E and H per tet of the whole mesh (on every rank of a run over ranks: it may be collective).
  using TetFields = std::function<void(std::vector<Vec3>& e, std::vector<Vec3>& h)>;
  Recorder(RecordingPlan const& plan, std::unique_ptr<io::RunWriter> writer, solver::Formulation& formulation,
           TetFields tet_fields, std::string checkpoint_file, std::function<void(std::string const&)> write_checkpoint);

  // Whether the step from t^step records the energy W^step.
  bool wants_energy(std::int64_t step) const;
  void record_energy(std::int64_t step, double energy);
  // After the formulation has taken its step-th step.
  void after_step(std::int64_t step);
  // The step after which a field became infinite or NaN, -1 while none did.
  std::int64_t blown_up_at() const { return blown_up_at_; }
  // Seconds spent writing inside the time loop so far.
  double output_seconds() const { return output_seconds_; }

  // Writes what was recorded up to `step` to the output and flushes it, for a reader of its .partial
  // file while the run is paused (Simulation::flush).
  void flush(std::int64_t step);

  // Ends the record after `step` steps: the probes' last rows, a checkpoint if the run was stopped
  // (not blown up), the ports' voltages; closes the output marked complete or not. Returns the
  // checkpoint written then, empty when none was.
  std::string finish(std::int64_t step, bool complete);
  std::string description() const { return writer_->description(); }

private:
  template <class Write>
  void timed(Write const& write);
  void flush_probes(std::int64_t step);
  void write_snapshot(std::int64_t step);
  void save_checkpoint();

  RecordingPlan plan_;
  std::unique_ptr<io::RunWriter> writer_;
  solver::Formulation& formulation_;
  TetFields tet_fields_;
  std::string checkpoint_file_;
  std::function<void(std::string const&)> write_checkpoint_;
  Progress progress_;
  std::int64_t unflushed_from_;
  std::int64_t blown_up_at_ = -1;
  double output_seconds_ = 0;
  // The output written so far reaches the disk every half minute, so that its .partial file can be
  // read while the run goes on.
  std::chrono::steady_clock::time_point last_flush_ = std::chrono::steady_clock::now();
};

} // namespace dgatd::simulation
