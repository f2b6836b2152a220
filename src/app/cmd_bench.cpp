// dgatd bench: the performance lab (perf/lab) on the backend this binary was built for, with the
// thread count Kokkos was given: STREAM, Faraday, Ampere and whole steps over a sweep of mesh sizes.
#include "commands.hpp"

#include "lab/kernel_bench.hpp"

#include <iostream>
#include <memory>

namespace dgatd::app {

void add_bench_command(CLI::App& app, Action* action)
{
  auto* bench = app.add_subcommand(
      "bench", "Benchmark STREAM, the Faraday and Ampere kernels and whole fractioned and assembled steps on "
               "generated PEC boxes; prints tables (and the paper's Table I form), optionally JSON for "
               "perf/plot_roofline.py. Threads: --kokkos-num-threads=N or OMP_NUM_THREADS.");
  auto options = std::make_shared<perf::LabOptions>();
  perf::add_options(*bench, *options);
  bench->callback([action, options] {
    *action = [options] {
      perf::run_lab(*options, std::cout);
      return 0;
    };
  });
}

} // namespace dgatd::app
