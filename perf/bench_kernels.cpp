// The performance lab of `dgatd bench` as a standalone program, for profilers and for the
// perf-smoke test (--smoke: tiny meshes, every benchmark once). Same options as `dgatd bench`;
// threads from OMP_NUM_THREADS or Kokkos' own --kokkos-* options.
#include "lab/kernel_bench.hpp"

#include "dgatd/error.hpp"

#include <Kokkos_Core.hpp>

#include <exception>
#include <iostream>

int main(int argc, char* argv[])
{
  Kokkos::ScopeGuard kokkos(argc, argv);
  CLI::App app{"bench_kernels: STREAM, Faraday, Ampere and whole-step benchmarks (the engine of dgatd bench)"};
  dgatd::perf::LabOptions options;
  dgatd::perf::add_options(app, options);
  try {
    app.parse(argc, argv);
  } catch (CLI::ParseError const& e) {
    return app.exit(e);
  }
  try {
    dgatd::perf::run_lab(options, std::cout);
  } catch (std::exception const& e) {
    std::cerr << "bench_kernels: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
