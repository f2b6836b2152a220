// The first resonance of a closed metal box, computed with dgatd used as a library, next to its
// analytic value. A user's first program: a configuration built in code (what a TOML file would
// say), a mesh, the simulation run, and the spectrum of what its probe recorded.
//
// The box is a x b x d with a > b > d, perfectly conducting walls, vacuum inside. Its lowest mode
// is TM110 (E along z, uniform in z), at f = c/2 sqrt((1/a)^2 + (1/b)^2). A current pulse in a
// small dipole rings the box; a probe records E; the lowest peak of the spectrum of E_z is the
// first mode. Exit status 1 when it misses the analytic frequency by more than 1 %.
#include "dgatd/dga/operators.hpp"
#include "dgatd/io/analysis/results.hpp"
#include "dgatd/io/analysis/spectrum.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/simulation/simulation.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

namespace {

using namespace dgatd;

int run()
{
  // Box dimensions in metres, and the analytic TM110 frequency.
  double const a = 1.0, b = 0.8, d = 0.5;
  double const f_analytic = 0.5 * dga::speed_of_light * std::sqrt(1 / (a * a) + 1 / (b * b));

  // 1. The mesh: a structured grid of 0.1 m cells, each split into six tetrahedra, interior
  // vertices moved at random by up to 10 % of a cell so the tetrahedra are irregular. (Without a
  // mesh argument the simulation reads or generates the one the configuration's [mesh] names.)
  mesh::StructuredBox box;
  box.size[0] = a;
  box.size[1] = b;
  box.size[2] = d;
  box.cells[0] = 10;
  box.cells[1] = 8;
  box.cells[2] = 5;
  box.jitter = 0.1;

  // 2. The configuration, as io::load_config("cavity.toml") would give it: vacuum everywhere
  // (no [[material]]), every wall PEC (the default), a z-directed dipole, a probe, 50 periods of
  // the first mode with dt = "auto" (0.95 of the power-iteration bound).
  io::Config config;
  config.name = "cavity_modes";
  io::Source dipole;
  dipole.kind = io::SourceKind::dipole;
  dipole.position = {0.3 * a, 0.35 * b, 0.5 * d}; // where TM110's E_z is 0.72 of its maximum
  dipole.direction = {0.0, 0.0, 1.0};
  // A pulse whose band (f_analytic / 2 to 3 f_analytic / 2) holds the first mode.
  dipole.waveform.kind = solver::WaveformKind::modulated_gaussian;
  dipole.waveform.frequency = f_analytic;
  dipole.waveform.sigma = 1 / (M_PI * f_analytic);
  dipole.waveform.t0 = 6 * dipole.waveform.sigma;
  config.sources.push_back(dipole);
  io::Probe probe;
  probe.name = "probe";
  probe.position = {0.7 * a, 0.6 * b, 0.4 * d};
  config.probes.push_back(probe);
  config.time.t_end = 50 / f_analytic;
  config.output.file = "cavity_modes.h5";
  config.output.progress = false;

  // 3. The run, on Kokkos' default execution space (OpenMP threads here, the GPU in a CUDA build).
  simulation::Simulation simulation(config, mesh::structured_box(box));
  auto const result = simulation.run();
  auto const& plan = simulation.plan();
  std::printf("mesh: %d tets; dt = %.4e s (bound %.4e s), %lld steps; wrote %s\n", simulation.problem().mesh.num_tets(),
              plan.dt, plan.dt_max, static_cast<long long>(result.steps), result.output.c_str());

  // 4. The spectrum of E_z up to twice the first mode; its lowest peak is the first mode.
  auto const e = io::read_probe(config.output.file, "probe", 'E');
  std::vector<double> ez;
  for (auto const& v : e.values) ez.push_back(v[2]);
  io::SpectrumOptions band;
  band.fmax = 2 * f_analytic;
  // The Hamming window's sidelobes of the strong modes stack to about 1 % of the largest peak in a
  // record this short; real modes here stand above 5 %.
  io::PeakOptions peak_options;
  peak_options.threshold = 0.05;
  auto const peaks = io::find_peaks(io::compute_spectrum(ez, plan.dt, band), peak_options);
  if (peaks.empty()) {
    std::printf("no resonance found in the probe's spectrum\n");
    return 1;
  }
  double const f_measured = peaks.front().frequency;
  double const error = std::abs(f_measured / f_analytic - 1);
  std::printf("first mode: %.4e Hz (analytic %.4e Hz, error %.2f %%)\n", f_measured, f_analytic, 100 * error);
  return error < 0.01 ? 0 : 1;
}

} // namespace

int main(int argc, char* argv[])
{
  // Kokkos runs from here to the end of main; --kokkos-num-threads=N (or OMP_NUM_THREADS) sets the
  // OpenMP threads. Every Kokkos object must be gone before the guard is, hence run().
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    return run();
  } catch (std::exception const& e) {
    std::fprintf(stderr, "cavity_modes: %s\n", e.what());
    return 1;
  }
}
