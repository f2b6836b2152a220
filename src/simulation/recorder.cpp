#include "recorder.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unistd.h>
#include <utility>
#include <vector>

namespace dgatd::simulation {
namespace {

// Probe rows stay on the device until this many steps, a checkpoint or the end.
constexpr std::int64_t probe_flush_every = 2048;

bool finite(Vec3 const& v) { return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]); }

} // namespace

double Stopwatch::lap()
{
  auto const now = std::chrono::steady_clock::now();
  double const seconds = std::chrono::duration<double>(now - last_).count();
  last_ = now;
  return seconds;
}

Progress::Progress(bool enabled, std::int64_t first, std::int64_t total)
    : enabled_(enabled), terminal_(isatty(fileno(stderr)) != 0), first_(first), total_(total),
      last_(std::chrono::steady_clock::now())
{
}

void Progress::update(std::int64_t step, double time)
{
  if (!enabled_) return;
  // A log gets no line for the last step: the run's report follows it.
  if (!terminal_ && step == total_) return;
  auto const now = std::chrono::steady_clock::now();
  auto const every = terminal_ ? std::chrono::milliseconds(500) : std::chrono::milliseconds(30000);
  if (now - last_ < every && step != total_) return;
  last_ = now;
  double const elapsed = std::chrono::duration<double>(now - start_).count();
  double const rate = (step - first_) / std::max(elapsed, 1e-9);
  std::fprintf(stderr, "%sstep %lld/%lld  t = %.4e s  %.0f steps/s  ETA %.0f s%s", terminal_ ? "\r" : "",
               static_cast<long long>(step), static_cast<long long>(total_), time, rate,
               (total_ - step) / std::max(rate, 1e-9), terminal_ ? "   " : "\n");
  if (terminal_ && step == total_) std::fputc('\n', stderr);
  std::fflush(stderr);
}

void Progress::finish()
{
  if (enabled_ && terminal_) std::fputc('\n', stderr);
}

Recorder::Recorder(RecordingPlan const& plan, std::unique_ptr<io::RunWriter> writer, solver::Formulation& formulation,
                   TetFields tet_fields, std::string checkpoint_file,
                   std::function<void(std::string const&)> write_checkpoint)
    : plan_(plan), writer_(std::move(writer)), formulation_(formulation), tet_fields_(std::move(tet_fields)),
      checkpoint_file_(std::move(checkpoint_file)), write_checkpoint_(std::move(write_checkpoint)),
      progress_(plan.progress, plan.first_step, plan.last_step), unflushed_from_(plan.first_step)
{
}

template <class Write>
void Recorder::timed(Write const& write)
{
  Stopwatch watch;
  write();
  output_seconds_ += watch.lap();
}

bool Recorder::wants_energy(std::int64_t step) const
{
  return formulation_.has_energy() && step % plan_.energy_every == 0;
}

void Recorder::record_energy(std::int64_t step, double energy)
{
  timed([&] { writer_->append_energy(step * plan_.dt, energy); });
  if (!std::isfinite(energy)) blown_up_at_ = step;
}

void Recorder::after_step(std::int64_t step)
{
  formulation_.record_probes();
  bool const checkpoint_now =
      plan_.checkpoint_every > 0 && step % plan_.checkpoint_every == 0 && step < plan_.last_step;
  bool const flush_now = std::chrono::steady_clock::now() - last_flush_ > std::chrono::seconds(30);
  if (step - unflushed_from_ == probe_flush_every || step == plan_.last_step || checkpoint_now || flush_now)
    flush_probes(step);
  if (flush_now) {
    timed([&] { writer_->flush(); });
    last_flush_ = std::chrono::steady_clock::now();
  }
  if (plan_.snapshot_every > 0 && step % plan_.snapshot_every == 0) write_snapshot(step);
  if (checkpoint_now && blown_up_at_ < 0) timed([&] { save_checkpoint(); });
  progress_.update(step, step * plan_.dt);
}

void Recorder::flush(std::int64_t step)
{
  if (step > unflushed_from_) flush_probes(step);
  timed([&] { writer_->flush(); });
  last_flush_ = std::chrono::steady_clock::now();
}

// The rows of the steps after unflushed_from_ up to step.
void Recorder::flush_probes(std::int64_t step)
{
  auto const samples = formulation_.take_probe_samples();
  timed([&] {
    std::vector<io::ProbeSample> row(samples.probes());
    for (std::size_t r = 0; r < samples.rows(); ++r) {
      std::int64_t const after = unflushed_from_ + static_cast<std::int64_t>(r) + 1;
      for (std::size_t q = 0; q < row.size(); ++q) {
        row[q] = {samples.e(r, q), samples.h(r, q)};
        if (blown_up_at_ < 0 && !(finite(row[q].e) && finite(row[q].h))) blown_up_at_ = after;
      }
      writer_->append_step(after * plan_.dt, row);
    }
  });
  unflushed_from_ = step;
}

void Recorder::write_snapshot(std::int64_t step)
{
  std::vector<Vec3> e, h;
  if (plan_.snapshot_volume) tet_fields_(e, h);
  auto const snapshots = formulation_.snapshots();
  timed([&] {
    writer_->write_snapshot(step * plan_.dt, e, h);
    for (auto const& surface : snapshots.surfaces) writer_->write_surface_snapshot(surface);
  });
}

void Recorder::save_checkpoint()
{
  writer_->flush();
  write_checkpoint_(checkpoint_file_);
}

std::string Recorder::finish(std::int64_t step, bool complete)
{
  if (step > unflushed_from_) flush_probes(step);
  std::string checkpoint;
  if (!complete) progress_.finish();
  if (!complete && blown_up_at_ < 0 && !checkpoint_file_.empty()) {
    save_checkpoint();
    checkpoint = checkpoint_file_;
  }
  auto const records = formulation_.records();
  for (auto const& port : records.ports) writer_->write_port(port, plan_.dt);
  for (auto const& far_field : records.far_fields) writer_->write_far_field(far_field);
  for (auto const& series : records.series) writer_->write_series(series, plan_.dt);
  for (auto const& surface : records.surface_currents) writer_->write_surface_currents(surface);
  writer_->close(complete);
  return checkpoint;
}

} // namespace dgatd::simulation
