#pragma once
// The performance lab behind `dgatd bench` and perf/bench_kernels: STREAM copy and triad, the
// Faraday kernel, every Ampere block pass, a whole fractioned and a whole assembled leapfrog step,
// on generated PEC boxes of growing size and on mesh files in each locality ordering, on the
// default execution space (and Kokkos::Serial for the paper's Table I). Every kernel is timed
// interleaved with a same-process triad, so its figure of merit is the median of per-pair bandwidth
// ratios, robust to a shared, noisy machine.

#include "dgatd/device_info.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace dgatd::perf {

struct LabOptions {
  std::vector<int> sizes;          // cells per side of the unit box; DoFs ~ 38 n^3
  std::vector<std::string> meshes; // .msh files, each timed in every ordering of orderings
  // Configuration files, each timed as the run would step it: its mesh, ordering, precision,
  // losses, layers, ports and sources, every term of the step on its own.
  std::vector<std::string> configs;
  std::vector<std::string> orderings{"hilbert", "none"};
  // The fractioned step's precisions ("double", "mixed", "single"); the first is the reference the
  // others' steps are timed against in one round.
  std::vector<std::string> precisions{"double", "mixed"};
  int repetitions = 20;           // timed rounds, after warm-up
  int warmup = 3;                 // untimed rounds; the first also sizes the batches
  bool all_layouts = true;        // per-tet LayoutRight and LayoutLeft x dual blocks by degree or not
  bool serial_everywhere = false; // Kokkos::Serial at every size, not only the largest
  bool smoke = false;
  std::string json;
  // Bytes per STREAM array; 0: roof_array_bytes of the default device.
  std::size_t stream_array_bytes = 0;
  // A timed sample runs the kernel back to back until it lasts about this long, so that kernels
  // of a few microseconds are timed in the steady state a time-stepping run sees, not one launch.
  double min_sample_seconds = 2e-3;
};

// One measured kernel at one size, layout and backend (one JSON object).
struct Record {
  std::string backend;
  int threads = 1;
  int cells = 0;         // the generated box's cells per side; 0 for a mesh file
  std::string mesh;      // the mesh file; empty for a generated box
  std::string ordering;  // the mesh's locality ordering (mesh/ordering.hpp)
  std::string precision; // the fractioned step's: double, mixed (float matrices) or single; "-" for the others
  std::int64_t dofs = 0; // fractioned unknowns of the mesh, 2E + 4T
  // stream_copy, stream_triad, faraday, ampere, step_fractioned, step_assembled, or term (a
  // configured run's term, solver/term.hpp, named in layout)
  std::string kernel;
  std::string layout; // per-tet layout/dual-block order/Ampere block pass, or the term's name
  int repetitions = 0;
  int batch = 1;
  double seconds_median = 0; // per launch
  std::int64_t bytes = 0;    // the kernel's compulsory-traffic model, each array element once
  double flops = 0;
  double gbps = 0;              // bytes / seconds_median
  double triad_gbps = 0;        // the paired triad, bytes / its median time
  double fraction_of_triad = 0; // median over the rounds of (kernel GB/s) / (same round's triad GB/s)
  std::int64_t updates = 0;     // unknowns the kernel writes per launch
  double dof_updates_per_second = 0;
  // Medians of per-round time ratios from the same interleaved rounds, 0 where not measured.
  double speedup_vs_assembled = 0;       // step_fractioned: t(assembled step) / t(this step)
  double speedup_vs_serial = 0;          // steps in the Table I round: t(Serial fractioned step) / t(this)
  double speedup_vs_unordered = 0;       // mesh steps: t(step with ordering none) / t(this), in one round
  double speedup_vs_first_precision = 0; // steps: t(step in the first --precision) / t(this), in one round
  double arithmetic_intensity() const { return bytes > 0 ? flops / static_cast<double>(bytes) : 0; }
  // Modelled bytes per fractioned unknown of the mesh; 0 for STREAM, whose arrays are not the mesh's.
  double bytes_per_dof() const
  {
    bool const stream = kernel.rfind("stream_", 0) == 0;
    return dofs > 0 && !stream ? static_cast<double>(bytes) / static_cast<double>(dofs) : 0;
  }
};

// The bandwidth roof every kernel is compared with: the device it was measured on and the size of
// each of the three STREAM arrays.
struct Roof {
  DeviceInfo device;
  std::size_t array_bytes = 0;
};

// Large enough that the triad streams from memory, not cache: at least 4x the last-level cache
// (a cache could then hold at most a twelfth of the three arrays), and on GPUs at least 1 GiB, where
// a smaller triad lasts so few microseconds that launch latency would count against the roof.
std::size_t roof_array_bytes(DeviceInfo const& device);

// Five or more sizes from about 1e4 to over 3e6 DoFs; --smoke: two tiny ones.
std::vector<int> default_sizes(bool smoke);

// Registers the options shared by `dgatd bench` and perf/bench_kernels.
void add_options(CLI::App& app, LabOptions& options);

// Runs the whole lab with Kokkos initialised, printing progress and the tables to out, and writes
// the JSON file if asked. Returns the records.
std::vector<Record> run_lab(LabOptions const& options, std::ostream& out);

} // namespace dgatd::perf
