#pragma once
// Reading back what Hdf5Writer wrote: the probe time series of a run, for post-processing
// (dgatd spectrum) and tests.

#include "dgatd/solver/far_field_record.hpp"
#include "dgatd/solver/surface_current_record.hpp"
#include "dgatd/vec3.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dgatd::io {

struct ProbeRecord {
  std::string name;
  char field = 'E';         // 'E' or 'H'
  Vec3 position{};          // metres
  std::vector<double> time; // /time, one entry per step
  std::vector<Vec3> values; // one field vector per step
};

// Where what is derived from the run output at output_path goes by default: beside it, its stem
// followed by suffix ("out.h5", "_sparams.csv": "out_sparams.csv"). The output of a run still being
// written, NAME.h5.partial, gives the finished NAME.h5's.
std::string beside_output(std::string const& output_path, std::string const& suffix);

// Names of the probes in the output file at path, sorted. Throws dgatd::Error when the file is
// missing, not HDF5 or not a dgatd output file.
std::vector<std::string> probe_names(std::string const& path);

// The E or H series of one probe; a missing probe is a dgatd::Error listing the available ones.
ProbeRecord read_probe(std::string const& path, std::string const& probe, char field);

// Component 'x', 'y' or 'z' of a probe's series, one value per step; any other letter is a
// std::invalid_argument.
std::vector<double> probe_component(ProbeRecord const& record, char component);

struct EnergyRecord {
  std::vector<double> time;   // /energy_time
  std::vector<double> energy; // /energy, joules
};

// The energy samples of the run at path.
EnergyRecord read_energy(std::string const& path);

// A matched port's modal voltages (/ports/<name>), at t = m dt, m = 0, 1, ...
struct PortRecord {
  std::string name;
  double dt = 0;
  std::vector<double> incident; // what the port launched
  std::vector<double> voltage;  // the total: voltage - incident left through the port
  // A lumped port's reference resistance (ohms) and the current it drives into the structure; 0 and
  // empty for a matched port (solver::PortSeries).
  double resistance = 0;
  std::vector<double> current;
  // A matched port's wave admittance far above cutoff (S) and cutoff (rad/s) (solver::PortSeries); 0
  // for a lumped port and in files written before they were recorded.
  double admittance = 0;
  double cutoff = 0;
};

// The mesh the run at path stepped (/mesh), in its locality ordering.
struct MeshRecord {
  std::vector<Vec3> points;                      // metres
  std::vector<std::array<std::int32_t, 4>> tets; // vertex ids, from 0
  std::vector<std::int32_t> region;              // physical volume tag per tet (0: none)
};
MeshRecord read_mesh(std::string const& path);

// Snapshot `index` (0, 1, ...) of the run at path: E and H averaged over each tet of its mesh.
struct SnapshotRecord {
  double time = 0; // s
  std::vector<Vec3> e, h;
};
// How many snapshots the run at path wrote (0 without [output] snapshot_every).
std::size_t snapshot_count(std::string const& path);
SnapshotRecord read_snapshot(std::string const& path, std::size_t index);

// The matched ports of the run at path (possibly none), sorted by name.
std::vector<PortRecord> read_ports(std::string const& path);

// The far-field surfaces of the run at path (possibly none), sorted by name.
std::vector<solver::FarFieldRecord> read_far_fields(std::string const& path);
// The same for what needs one (dgatd farfield): a run without any is a dgatd::Error naming path.
std::vector<solver::FarFieldRecord> require_far_fields(std::string const& path);

// The [[surface_current]] records of the run at path (possibly none), sorted by name: their geometry
// and transforms, each face's two sides apart (the back zero on one-sided faces).
std::vector<solver::SurfaceCurrentRecord> read_surface_currents(std::string const& path);

} // namespace dgatd::io
