#pragma once
// The HDF5 file of one run, and the XDMF description beside it that ParaView opens.
//
// Layout of <file>.h5:
//   attributes of /   dgatd_version, config (the TOML text), dt, dt_max, num_vertices, num_edges,
//                     num_faces, num_tets, formulation, backend; on close: steps, complete (1/0)
//   /mesh/points      V x 3 double (metres)     /mesh/tets  T x 4 int32    /mesh/region  T int32
//   /time             one entry per step (the time after the step), extendible
//   /energy_time, /energy                       one entry per energy sample, extendible
//   /probes/<name>/E, /probes/<name>/H          steps x 3, extendible; attribute position on the group
//   /snapshots/<k>/E, /snapshots/<k>/H          T x 3 per-tet vectors; attribute time on the group
// <file>.xdmf (same stem) describes the mesh and the snapshots as a temporal collection with
// cell-centred E, H and region.
//
// The file is written as <file>.partial and renamed on close, so <file> only ever names a finished
// (or cleanly interrupted) run; an object destroyed without close() removes the partial file.

#include "dgatd/vec3.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dgatd::io {

using dgatd::Vec3; // spelled io::Vec3 by callers

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

// The fields at one probe after one step.
struct ProbeSample {
  Vec3 e{};
  Vec3 h{};
};

class OutputFile {
public:
  // Creates path + ".partial" (replacing a leftover one) and writes the run attributes; throws
  // dgatd::Error naming the path when it cannot.
  OutputFile(std::string path, RunAttributes const& attributes);
  ~OutputFile(); // without close(): removes the partial file
  OutputFile(OutputFile const&) = delete;
  OutputFile& operator=(OutputFile const&) = delete;

  // Once, before any snapshot; the sizes must agree (region: one physical tag per tet).
  void write_mesh(std::vector<Vec3> const& points, std::vector<std::array<std::int32_t, 4>> const& tets,
                  std::vector<std::int32_t> const& region);

  // Registers a probe before the first append_step; returns its index in the samples of each step.
  std::size_t add_probe(std::string const& name, Vec3 const& position);

  // One row per step: time after the step and one sample per probe, in add_probe order. Rows are
  // buffered and written a few thousand at a time, and on close.
  void append_step(double time, std::vector<ProbeSample> const& samples);

  void append_energy(double time, double energy);

  // Per-tet field vectors (num_tets of each), stored as /snapshots/<k> with k = 0, 1, ...
  void write_snapshot(double time, std::vector<Vec3> const& e, std::vector<Vec3> const& h);

  // Writes what is buffered, records steps and complete (false: the run was interrupted), renames
  // the file to its final name and writes the .xdmf (when a mesh was written). Call once.
  void close(bool complete);

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
