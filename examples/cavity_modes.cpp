// The first resonance of a closed metal box, computed with dgatd used as a library, next to its
// analytic value. A user's first program: mesh, operators, solver, source, probe, time loop,
// spectrum, in that order.
//
// The box is a x b x d with a > b > d, perfectly conducting walls, vacuum inside. Its lowest mode
// is TM110 (E along z, uniform in z), at f = c/2 sqrt((1/a)^2 + (1/b)^2). A short current pulse in
// a small dipole rings the box; a probe records E_z; the lowest peak of the probe's spectrum is the
// first mode. Exit status 1 when it misses the analytic frequency by more than 1 %.
#include "dgatd/dga/operators.hpp"
#include "dgatd/io/spectrum.hpp"
#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/mesh/topology.hpp"
#include "dgatd/solver/leapfrog.hpp"
#include "dgatd/solver/stencils.hpp"

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
  double const c = dga::speed_of_light;
  double const f_analytic = 0.5 * c * std::sqrt(1 / (a * a) + 1 / (b * b));

  // 1. The mesh: a structured grid of 0.1 m cells, each split into six tetrahedra, interior
  // vertices moved at random by up to 10 % of a cell so the tetrahedra are irregular. (A Gmsh mesh
  // works the same way: mesh::read_mesh in dgatd/mesh/gmsh_io.hpp, or mesh::generate_mesh.)
  mesh::StructuredBox box;
  box.size[0] = a;
  box.size[1] = b;
  box.size[2] = d;
  box.cells[0] = 10;
  box.cells[1] = 8;
  box.cells[2] = 5;
  box.jitter = 0.1;
  mesh::Mesh const mesh = mesh::structured_box(box);
  mesh::Topology const topology = mesh::build_topology(mesh);
  mesh::Geometry const geometry = mesh::build_geometry(mesh, topology);
  solver::MeshView const view{mesh, topology, geometry};

  // 2. The discrete operators: every boundary face is a perfect electric conductor, every tet is
  // vacuum (absolute eps and mu, SI units).
  std::vector<dga::FaceKind> face_kind(topology.num_faces(), dga::FaceKind::interior_or_pmc);
  for (auto f : topology.boundary_faces) face_kind[f] = dga::FaceKind::pec;
  dga::Materials const vacuum{std::vector<double>(mesh.tets.size(), dga::eps0),
                              std::vector<double>(mesh.tets.size(), dga::mu0)};
  dga::HostOperators const operators = dga::assemble(mesh, topology, geometry, vacuum, face_kind);

  // 3. The solver on Kokkos' default execution space (OpenMP threads here, the GPU in a CUDA
  // build), with 0.95 of the largest stable time step, estimated by power iteration.
  using Space = Kokkos::DefaultExecutionSpace;
  solver::FractionedLeapfrog<Space> leapfrog(Space(), operators);
  auto const bound = leapfrog.estimate_stability();
  leapfrog.set_dt(0.95 * bound.dt_max);
  double const dt = leapfrog.dt();

  // 4. The source: a z-directed dipole driven by the derivative of a Gaussian, whose spectrum
  // peaks at f_analytic and which moves no net charge (no static field is left behind). It sits
  // where TM110's E_z, sin(pi x/a) sin(pi y/b), is 0.72 of its maximum; the probe, reading E at
  // another such point (0.77), records the ringing.
  double const sigma = 1 / (2 * M_PI * f_analytic), t0 = 6 * sigma;
  auto const pulse = [=](double t) {
    double const x = (t - t0) / sigma;
    return -x * std::exp(-0.5 * x * x);
  };
  auto const dipole = solver::dipole_stencil(view, operators, "dipole", {0.3 * a, 0.35 * b, 0.5 * d}, {0.0, 0.0, 1.0});
  leapfrog.add_current_source(dipole, 1.0, pulse); // moment 1 A m times the pulse
  leapfrog.add_probe(solver::probe_stencil(view, operators.layout, "probe", {0.7 * a, 0.6 * b, 0.4 * d}));

  // 5. The time loop: 50 periods of the first mode, the probe sampled after every step. The
  // record resolves f_analytic / 50; refining each spectral peak between bins does much better.
  int const steps = static_cast<int>(50 / f_analytic / dt);
  for (int n = 0; n < steps; ++n) {
    leapfrog.step();
    leapfrog.record_probes();
  }
  // One row per step: Ex Ey Ez Hx Hy Hz of each probe.
  std::vector<double> const samples = leapfrog.take_probe_samples();
  std::vector<double> ez(steps);
  for (int n = 0; n < steps; ++n) ez[n] = samples[6 * n + 2];

  // 6. The spectrum of E_z up to 3 times the pulse's peak frequency, where the pulse's spectrum is
  // down to 5 % of its peak; its lowest peak is the first mode.
  io::SpectrumOptions band;
  band.fmax = 3 * f_analytic;
  auto const peaks = io::find_peaks(io::compute_spectrum(ez, dt, band));
  if (peaks.empty()) {
    std::printf("no resonance found in the probe's spectrum\n");
    return 1;
  }
  double const f_measured = peaks.front().frequency;
  double const error = std::abs(f_measured / f_analytic - 1);

  std::printf("mesh: %d tets, %d unknowns; dt = %.4e s (bound %.4e s), %d steps\n", mesh.num_tets(),
              operators.layout.size(), dt, bound.dt_max, steps);
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
