#pragma once
// The HDF5 file of one run (the first RunWriter), and the XDMF description beside it that ParaView opens.
//
// Layout of <file>.h5:
//   attributes of /   dgatd_version, config (the TOML text), dt, dt_max, num_vertices, num_edges,
//                     num_faces, num_tets, formulation, backend; on close: steps, complete (1/0)
//   /mesh/points      V x 3 double (metres)     /mesh/tets  T x 4 int32    /mesh/region  T int32
//   /time             one entry per step (the time after the step), extendible
//   /energy_time, /energy                       one entry per energy sample, extendible
//   /probes/<name>/E, /probes/<name>/H          steps x 3, extendible; attribute position on the group
//   /snapshots/<k>/E, /snapshots/<k>/H          T x 3 per-tet vectors; attribute time on the group
//   /ports/<surface>/incident, /ports/<surface>/voltage
//                     a matched port's modal voltages (V) at t = m dt, m = 0..steps; attribute dt
//   /surface_currents/<name>/points, triangles, normals, areas, sides, frequencies
//                     a [[surface_current]] surface, each face a triangle of its own three points;
//                     transforms/<m>/J_s_re, J_s_im, J_s_magnitude, J_s_phase (F x 3) and rho_s_... (F)
//                     at frequency m; with two-sided faces also J_s_front_..., J_s_back_..., rho_s_...
//   /snapshots/<k>/surface_currents/<name>/J_s, rho_s (and the sides')  at snapshot k
// <file>.xdmf (same stem) describes the mesh and the snapshots as a temporal collection with
// cell-centred E, H and region, and each surface's currents: their snapshots as a temporal
// collection and their transforms' magnitudes and phases as a grid per frequency.
//
// The file is written as <file>.partial and renamed on close, so <file> only ever names a finished
// (or cleanly interrupted) run; an object destroyed without close() removes the partial file.

#include "dgatd/io/output/writer.hpp"
#include "dgatd/vec3.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dgatd::io {

class Hdf5Writer final : public RunWriter {
public:
  // Creates path + ".partial" (replacing a leftover one) and writes the run attributes; throws
  // dgatd::Error naming the path when it cannot.
  Hdf5Writer(std::string path, RunAttributes const& attributes);
  // Reopens the output of an interrupted run (path, or path + ".partial" when the run was killed
  // before it could close it) to append after `resume`: whatever it holds beyond that point is
  // dropped. Throws dgatd::Error when the file is missing or holds less than the point.
  Hdf5Writer(std::string path, ResumePoint const& resume);
  ~Hdf5Writer() override; // without close(): removes the partial file of a new output
  Hdf5Writer(Hdf5Writer const&) = delete;
  Hdf5Writer& operator=(Hdf5Writer const&) = delete;

  void write_mesh(std::vector<Vec3> const& points, std::vector<std::array<std::int32_t, 4>> const& tets,
                  std::vector<std::int32_t> const& region) override;
  // Rows are buffered and written a few thousand at a time, on flush() and on close.
  std::size_t add_probe(std::string const& name, Vec3 const& position) override;
  void append_step(double time, std::vector<ProbeSample> const& samples) override;
  void append_energy(double time, double energy) override;
  // Stored as /snapshots/<k> with k = 0, 1, ...
  void write_snapshot(double time, std::vector<Vec3> const& e, std::vector<Vec3> const& h) override;
  // Stored as /ports/<name>: incident and voltage, and for a lumped port current and its resistance.
  void write_port(solver::PortSeries const& port, double dt) override;
  // Stored as /farfield/<surface>: frequencies, the faces' centroids, outward normals and areas,
  // E and H (rows frequency-major, face by face: Re x y z, Im x y z), the medium's eps and mu, and
  // for a plane-wave run its direction, polarization and transform at its origin (Re, Im per row).
  void write_far_field(solver::FarFieldRecord const& record) override;
  void write_series(solver::TimeSeries const& series, double dt) override;
  void write_surface_snapshot(solver::SurfaceSnapshot const& snapshot) override;
  void write_surface_currents(solver::SurfaceCurrentRecord const& record) override;
  void flush() override;
  // Writes what is buffered, records steps and complete, renames the file to its final name and
  // writes the .xdmf (when a mesh was written).
  void close(bool complete) override;
  std::string description() const override;

  std::string const& path() const; // the final name
  std::string partial_path() const;
  std::string xdmf_path() const; // the final name with the extension .xdmf
  std::int64_t steps() const;    // rows appended so far

private:
  struct State;
  std::unique_ptr<State> state_;
};

// Throws dgatd::Error naming path when its directory does not exist or is not writable, or when
// path is a directory, so a run fails before it computes anything.
void require_writable_output(std::string const& path);

} // namespace dgatd::io
