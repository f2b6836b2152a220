#pragma once
// The run configuration: one TOML file that says which mesh, which materials, boundaries, sources
// and probes, how long to run and where to write. Loading is strict: an unknown table or key, a
// wrong type or a value out of range is a dgatd::Error naming the file, the line and the key, so a
// typo never silently falls back to a default.
//
// Units: every length in Config is in metres. Lengths written in the file ([mesh] size, radius,
// height, h, inner; source and probe positions) are in mesh units and are multiplied by
// [mesh] scale on load; only the coordinates read from [mesh] file still need MeshConfig::scale.

#include "dgatd/dga/dispersion.hpp"
#include "dgatd/dga/lumped.hpp"
#include "dgatd/dga/pml.hpp"
#include "dgatd/kernels/matrix_precision.hpp"
#include "dgatd/mesh/generators.hpp"
#include "dgatd/mesh/ordering.hpp"
#include "dgatd/solver/formulation_kind.hpp"
#include "dgatd/solver/waveform.hpp"
#include "dgatd/vec3.hpp"

#include <any>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dgatd::io {

struct MeshConfig {
  // Exactly one of file (absolute or relative to the working directory, resolved from the config
  // file's directory) and generate.shape ("box", "cylinder", "waveguide") is set.
  std::string file;
  mesh::GeneratorSpec generate; // in metres; shape empty when the mesh comes from a file
  double scale = 1.0;           // mesh units to metres
  std::string output;           // where to write the generated mesh (resolved), empty for none
  // How the mesh is renumbered for locality when it is loaded (mesh/ordering.hpp).
  mesh::Ordering ordering = mesh::Ordering::hilbert;
  // The folder `dgatd partition file -o` wrote (resolved), empty for none: a run over ranks then
  // reads one part per rank instead of the file (simulation/part_files.hpp).
  std::string parts;
};

struct Material {
  // The physical volume by name, or by tag when region_name is empty.
  std::string region_name;
  int region_tag = 0;
  double eps_r = 1.0; // eps_inf where the material has poles
  double mu_r = 1.0;
  double sigma = 0.0;           // conductivity, S/m
  std::vector<dga::Pole> poles; // [[material.pole]]: a dispersive medium (dga/dispersion.hpp)
  int line = 0;                 // of the [[material]] header, for messages about regions the mesh lacks
};

// A perfectly matched layer: a physical volume meshed as its own region, stretched along its depth
// d (from the surface where it meets the rest of the mesh) with the profile
// alpha(d) = alpha_max (d / L)^order, L its thickness, alpha_max such that a wave crossing it at
// normal incidence and back returns with amplitude `reflection` (docs/method/open_regions.md, section 3).
// order 0 (the default) takes 3 for a flat layer and 1 for one that bends around a box.
struct Pml {
  std::string region_name; // the physical volume by name, or by tag when empty
  int region_tag = 0;
  // The layer's own defaults (dga::PmlProfile).
  int order = dga::PmlProfile{}.order;
  double reflection = dga::PmlProfile{}.reflection;
  double cfs_frequency = 0; // Hz: the complex frequency shift a = 2 pi cfs_frequency
  int line = 0;             // of the [[pml]] header
};

struct BoundaryConfig {
  // PEC on the whole exterior boundary not listed elsewhere (absorbing, ports), or only on the
  // listed physical surfaces (PMC elsewhere).
  bool pec_everywhere = true;
  std::vector<std::string> pec_surfaces;
  // First-order absorbing (Silver-Mueller) surfaces: n x h = Y n x (n x e).
  std::vector<std::string> absorbing_surfaces;
  int line = 0; // of the [boundary] table, for messages about surfaces the mesh lacks
};

enum class SourceKind { dipole, port_te10, edge_current, plane_wave, lumped_port, mode_port };

struct Source {
  SourceKind kind = SourceKind::dipole;
  Vec3 position{};      // metres (dipole; edge_current drives the edge nearest to it)
  Vec3 direction{};     // unit vector (dipole, edge_current; plane_wave: of propagation; lumped_port: of its voltage)
  std::string surface;  // physical surface of the port (port_te10, lumped_port, mode_port)
  bool matched = false; // port_te10: launch TE10 and absorb the TE10 wave coming back (docs/method/open_regions.md §4)
  // mode_port (docs/method/port_modes.md): the mode it launches and absorbs, 1 for the lowest of the
  // port's cross-section (TEM modes first, then by increasing cutoff).
  int mode = 1;
  static constexpr int max_port_modes = 16;
  // plane_wave (docs/method/plane_waves.md): the physical volumes of the total-field region, the unit
  // vector of e (perpendicular to direction), and where the front is at the waveform's t0 (metres;
  // none: the first point of the total-field surface it reaches).
  std::vector<std::string> regions;
  Vec3 polarization{};
  std::optional<Vec3> origin;
  // lumped_port (docs/method/antennas.md): a voltage source (waveform amplitude: its open-circuit voltage,
  // volts) in series with this resistance, ohms, across a sheet between two conductors.
  double resistance = 0;
  solver::Waveform waveform;
  int line = 0; // of the [[source]] header
};

// A lumped element on a sheet between two conductors (docs/method/antennas.md): a resistor, capacitor,
// inductor, or R, L and C in series or in parallel (those given; circuit.series).
enum class LumpedKind { resistor, capacitor, inductor, rlc };
struct LumpedConfig {
  LumpedKind kind = LumpedKind::resistor;
  std::string surface;
  Vec3 direction{};
  dga::LumpedCircuit circuit;
  int line = 0; // of the [[lumped]] header
};

struct TimeConfig {
  // Exactly one of t_end and steps is set.
  std::optional<double> t_end;       // seconds
  std::optional<std::int64_t> steps; // > 0
  std::optional<double> dt;          // seconds; empty for "auto" (safety * the stability limit)
  double safety = 0.95;              // 0 < safety < 1
  bool allow_unstable = false;       // let an explicit dt above the stability limit run
  // Local time steps (docs/method/local_time_stepping.md): at most this many levels of halving steps,
  // 1 for one global step ("off"); "auto" is max_local_step_levels.
  int local_steps = 1;
  int local_steps_line = 0;
  static constexpr int max_local_step_levels = 8;
};

struct Probe {
  std::string name; // unique, [A-Za-z0-9_]+ (it becomes an HDF5 group name)
  Vec3 position{};  // metres
  int line = 0;
};

// A near-to-far-field surface (docs/method/plane_waves.md, section 5): a closed physical surface inside
// the mesh, in one medium, and the frequencies (Hz) at which the run transforms e and h on it.
struct FarFieldConfig {
  std::string surface;
  std::vector<double> frequencies;
  int line = 0; // of the [[farfield]] header
};

struct OutputConfig {
  std::string file;                // resolved from the config file's directory
  std::int64_t snapshot_every = 0; // steps between field snapshots, 0 for none
  // Whether a snapshot holds the volume's E and H per tet; false: only what terms show in it (the
  // surface currents), for runs whose volume is too large to write often.
  bool snapshot_volume = true;
  std::int64_t energy_every = 10; // steps between energy samples, > 0
  // Steps between checkpoints (<file stem>.checkpoint.h5, replaced each time), 0 for none; a run
  // stopped by Ctrl-C or SIGTERM writes one whatever this says.
  std::int64_t checkpoint_every = 0;
  bool progress = true;
  // The run stops when its energy exceeds this factor times its reference (simulation/watchdog.hpp),
  // or turns infinite or NaN; 0: only the latter.
  double watchdog = 100;
  int line = 0; // of the [output] table (0 without one)
};

enum class Backend { default_space, serial };

struct SolverConfig {
  solver::FormulationKind formulation = solver::FormulationKind::fractioned;
  int formulation_line = 0; // for messages about what the formulation cannot take
  // "double", "mixed" (float local matrices, double fields and sums) or "single" (float matrices
  // and fields: lossless problems in one process).
  kernels::MatrixPrecision precision = kernels::MatrixPrecision::float64;
  kernels::FieldPrecision field_precision = kernels::FieldPrecision::float64;
  int precision_line = 0; // for messages about a precision the run cannot take
  Backend backend = Backend::default_space;
  // Over several ranks: step Faraday on the tets that read no other rank's unknowns while the halo
  // messages fly (docs/method/parallel.md); false waits for them at the end of each step.
  bool overlap_halo = true;
};

// An item of a capability's own table (io/input/capability_tables.hpp): its line and what the
// capability read from it (std::any_cast to the capability's type).
struct CapabilityItem {
  int line = 0;
  std::any value;
};

struct Config {
  std::string name;     // the config file as the user named it, used in messages
  std::string base_dir; // directory relative paths in the file are resolved from
  std::string text;     // the whole file, recorded in the output for reproducibility
  MeshConfig mesh;
  std::vector<Material> materials; // empty: vacuum everywhere
  std::vector<Pml> pml;
  BoundaryConfig boundary;
  std::vector<Source> sources;
  std::vector<LumpedConfig> lumped;
  TimeConfig time;
  std::vector<Probe> probes;
  std::vector<FarFieldConfig> farfields;
  OutputConfig output;
  SolverConfig solver;
  // The capabilities' own tables (src/capabilities/), by table name; a table the file lacks is absent.
  std::map<std::string, std::vector<CapabilityItem>> capability_items;

  // "file:line", where a message about an item of the file points.
  std::string where(int line) const { return name + ":" + std::to_string(line); }
};

// What a configuration is read for: a time-domain run needs [time]; `dgatd statics` reads the mesh,
// the materials, the [[conductor]] tables and [output], and takes a file without [time].
enum class ConfigUse { run, statics };

// Reads and validates the TOML file at path; throws dgatd::Error ("path:line: ...") on any problem.
Config load_config(std::string const& path, ConfigUse use = ConfigUse::run);
// The same from text already in memory: name is used in messages, base_dir resolves relative paths.
Config parse_config(std::string const& text, std::string const& name, std::string const& base_dir,
                    ConfigUse use = ConfigUse::run);

char const* to_string(SourceKind kind);
char const* to_string(Backend backend); // "default" or "serial", as written in the file

} // namespace dgatd::io
