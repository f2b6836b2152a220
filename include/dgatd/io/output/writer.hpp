#pragma once
// Where a run's results go: the mesh, the probe series, the energy series and field snapshots. The
// simulation writes through this interface; Hdf5Writer (HDF5 + XDMF for ParaView) is the first
// implementation.

#include "dgatd/solver/far_field_record.hpp"
#include "dgatd/solver/port_series.hpp"
#include "dgatd/solver/surface_current_record.hpp"
#include "dgatd/solver/term_records.hpp"
#include "dgatd/vec3.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace dgatd::io {

struct RunAttributes {
  std::string config_text;
  double dt = 0;     // the time step used, seconds
  double dt_max = 0; // the estimated stability limit, seconds
  std::int64_t num_vertices = 0;
  std::int64_t num_edges = 0;
  std::int64_t num_faces = 0;
  std::int64_t num_tets = 0;
  std::string formulation; // "fractioned" or "assembled"
  std::string backend;     // the Kokkos execution space that ran
};

// How much of an interrupted run's output a resumed run keeps: its probes (in add_probe order) and
// the rows and snapshots up to its checkpoint; what lies beyond is written again.
struct ResumePoint {
  std::vector<std::string> probe_names; // in the order of the run's add_probe calls
  std::int64_t steps = 0;
  std::int64_t energy_samples = 0;
  std::int64_t snapshots = 0;
};

// The fields at one probe after one step.
struct ProbeSample {
  Vec3 e{};
  Vec3 h{};
};

class RunWriter {
public:
  virtual ~RunWriter() = default;

  // Once, before any snapshot; the sizes must agree (region: one physical tag per tet).
  virtual void write_mesh(std::vector<Vec3> const& points, std::vector<std::array<std::int32_t, 4>> const& tets,
                          std::vector<std::int32_t> const& region) = 0;
  // Registers a probe before the first append_step; returns its index in the samples of each step.
  virtual std::size_t add_probe(std::string const& name, Vec3 const& position) = 0;
  // One row per step: the time after the step and one sample per probe, in add_probe order.
  virtual void append_step(double time, std::vector<ProbeSample> const& samples) = 0;
  virtual void append_energy(double time, double energy) = 0;
  // Per-tet field vectors; both empty: a snapshot without the volume's fields (the surfaces' alone).
  virtual void write_snapshot(double time, std::vector<Vec3> const& e, std::vector<Vec3> const& h) = 0;
  // A port's record (solver::PortSeries), sample m at t = m dt (a matched port) or (m + 1/2) dt (a
  // lumped port), replacing what an earlier, interrupted run wrote for it.
  virtual void write_port(solver::PortSeries const& port, double dt) = 0;
  // A far-field surface's transforms as the run leaves them (replacing an interrupted run's).
  virtual void write_far_field(solver::FarFieldRecord const& record) = 0;
  // A series a term recorded once per step (solver::TimeSeries), replacing an interrupted run's.
  virtual void write_series(solver::TimeSeries const& series, double dt) = 0;
  // A surface's currents at the snapshot written last (write_snapshot).
  virtual void write_surface_snapshot(solver::SurfaceSnapshot const& snapshot) = 0;
  // A surface's geometry and the transforms of its currents as the run leaves them (replacing an
  // interrupted run's); the surface's snapshots are drawn on that geometry.
  virtual void write_surface_currents(solver::SurfaceCurrentRecord const& record) = 0;
  // Makes everything appended so far durable: a checkpoint taken now can resume this output.
  virtual void flush() = 0;
  // Finishes the output; complete = false records an interrupted run. Call once.
  virtual void close(bool complete) = 0;
  // What a user opens, for the run's last line (e.g. "out.h5 and out.xdmf").
  virtual std::string description() const = 0;
};

// A writer that keeps nothing: the output of the ranks other than 0 in a run over several ranks
// (rank 0 writes everything), and the base of writers that keep only part of a run (tests).
class NoOutput : public RunWriter {
public:
  void write_mesh(std::vector<Vec3> const&, std::vector<std::array<std::int32_t, 4>> const&,
                  std::vector<std::int32_t> const&) override
  {
  }
  std::size_t add_probe(std::string const&, Vec3 const&) override { return probes_++; }
  void append_step(double, std::vector<ProbeSample> const&) override {}
  void append_energy(double, double) override {}
  void write_snapshot(double, std::vector<Vec3> const&, std::vector<Vec3> const&) override {}
  void write_port(solver::PortSeries const&, double) override {}
  void write_far_field(solver::FarFieldRecord const&) override {}
  void write_series(solver::TimeSeries const&, double) override {}
  void write_surface_snapshot(solver::SurfaceSnapshot const&) override {}
  void write_surface_currents(solver::SurfaceCurrentRecord const&) override {}
  void flush() override {}
  void close(bool) override {}
  std::string description() const override { return "nothing (rank 0 writes the output)"; }

private:
  std::size_t probes_ = 0;
};

} // namespace dgatd::io
