#include "lab/kernel_bench.hpp"

#include "lab/bench_members.hpp"
#include "lab/harness.hpp"
#include "lab/report.hpp"
#include "lab/stream.hpp"

#include "dgatd/dga/assembled.hpp"
#include "dgatd/dga/operators.hpp"
#include "dgatd/error.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/kernels/ampere.hpp"
#include "dgatd/kernels/assembled.hpp"
#include "dgatd/kernels/faraday.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/mesh/ordering.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/simulation/problem.hpp"
#include "dgatd/simulation/simulation.hpp"
#include "dgatd/solver/formulations.hpp"
#include "dgatd/solver/leapfrog.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dgatd::perf {

namespace kernel_bench_detail {

class Lab {
public:
  Lab(LabOptions const& options, std::ostream& out) : options_(options), out_(out) {}

  std::vector<Record> const& records() const { return records_; }

  void run()
  {
    int const largest = options_.sizes.empty() ? 0 : *std::max_element(options_.sizes.begin(), options_.sizes.end());
    default_stream_ = stream_members<Default>(options_.stream_array_bytes);
    if constexpr (separate_host_parallel) host_stream_ = stream_members<HostParallel>(options_.stream_array_bytes);
    if constexpr (!std::is_same_v<Default, Kokkos::Serial>)
      serial_stream_ = stream_members<Kokkos::Serial>(options_.stream_array_bytes);
    print_table_header(out_);
    for (int cells : options_.sizes) run_size(cells, options_.serial_everywhere || cells == largest);
    for (auto const& file : options_.meshes) run_mesh(file);
    for (auto const& file : options_.configs) run_config(file);
    compare_configured_steps();
  }

private:
  static constexpr bool separate_host_parallel =
      !std::is_same_v<HostParallel, Default> && !std::is_same_v<HostParallel, Kokkos::Serial>;
  static constexpr kernels::AmpereBlockPass default_pass = kernels::default_block_pass<Default>();

  void run_size(int cells, bool with_serial)
  {
    auto const start = std::chrono::steady_clock::now();
    Problem problem = make_problem(cells, false);
    auto host = std::move(problem.operators);
    double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    cells_ = cells;
    mesh_.clear();
    ordering_ = "-";
    dofs_ = dofs(problem);
    out_ << "# " << cells << "^3 cells x 6: " << problem.topology.num_tets() << " tets, " << dofs_
         << " DoFs, mesh and operators built in " << seconds << " s\n";

    auto unknowns = random_unknowns(host);
    Timed assembled;
    {
      auto const global = dga::assemble_global(problem.topology, host);
      auto const edge_values = dga::sum_to_edges(problem.topology, host.layout, unknowns);
      assembled = assembled_step<Default>(global, edge_values, bench_dt(cells));

      stream_round(*default_stream_);
      set_precision(options_.precisions.front());
      auto const main =
          fractioned_members<Default, DefaultLayout>(host, unknowns, bench_dt(cells), false, default_pass, precision_);
      std::size_t const step_record = fractioned_rounds(main, default_stream_->triad, &assembled, true, true);

      if (with_serial && serial_stream_) {
        auto const serial = fractioned_members<Kokkos::Serial, kernels::DefaultTetLayout<Kokkos::Serial>>(
            host, unknowns, bench_dt(cells), false, kernels::default_block_pass<Kokkos::Serial>(), precision_);
        stream_round(*serial_stream_);
        auto const serial_assembled = assembled_step<Kokkos::Serial>(global, edge_values, bench_dt(cells));
        fractioned_rounds(serial, serial_stream_->triad, &serial_assembled, true, true);
        // Table I: the Serial fractioned step against the parallel steps, interleaved in one round.
        std::vector<Timed const*> members{&serial.step};
        std::vector<std::size_t> targets;
        std::optional<FractionedMembers> host_parallel;
        if constexpr (separate_host_parallel) {
          host_parallel = fractioned_members<HostParallel, kernels::DefaultTetLayout<HostParallel>>(
              host, unknowns, bench_dt(cells), false, kernels::default_block_pass<HostParallel>(), precision_);
          stream_round(*host_stream_);
          auto const host_assembled = assembled_step<HostParallel>(global, edge_values, bench_dt(cells));
          targets.push_back(fractioned_rounds(*host_parallel, host_stream_->triad, &host_assembled, true, true));
          members.push_back(&host_parallel->step);
        }
        members.push_back(&assembled);
        targets.push_back(step_record + 1); // the assembled step's record follows the fractioned one
        members.push_back(&main.step);
        targets.push_back(step_record);
        auto const samples = measure(members);
        for (std::size_t k = 1; k < samples.size(); ++k)
          records_[targets[k - 1]].speedup_vs_serial = median_ratio(samples[0].seconds, samples[k].seconds);
      }
    }
    // Faraday does not depend on the block pass: the others time Ampere and the whole step only.
    double const dt = bench_dt(cells);
    other_block_passes(host, unknowns, dt, false, &assembled);
    other_precisions(host, unknowns, dt, &assembled);
    if (!options_.all_layouts) return;
    set_precision(options_.precisions.front());
    fractioned_rounds(fractioned_members<Default, OtherLayout>(host, unknowns, dt, false, default_pass, precision_),
                      default_stream_->triad, &assembled, false, true);
    host = assemble_operators(problem, true);
    unknowns = random_unknowns(host);
    fractioned_rounds(fractioned_members<Default, DefaultLayout>(host, unknowns, dt, true, default_pass, precision_),
                      default_stream_->triad, &assembled, false, true);
    other_block_passes(host, unknowns, dt, true, &assembled);
    fractioned_rounds(fractioned_members<Default, OtherLayout>(host, unknowns, dt, true, default_pass, precision_),
                      default_stream_->triad, &assembled, false, true);
  }

  // The default pass's step in every precision after the first, each with its Faraday, Ampere and
  // other block passes, then all the precisions' steps in one round with the triad, for the
  // speed-up over the first precision as a median of same-round ratios.
  void other_precisions(dga::HostOperators const& host, std::vector<double> const& unknowns, double dt,
                        Timed const* assembled, std::string const& prefix = "")
  {
    if (options_.precisions.size() < 2) return;
    struct Stepped {
      FractionedMembers members;
      std::size_t step_record;
    };
    std::vector<Stepped> runs;
    for (auto const& name : options_.precisions) {
      set_precision(name);
      auto members =
          fractioned_members<Default, DefaultLayout>(host, unknowns, dt, false, default_pass, precision_, prefix);
      std::size_t const step = name == options_.precisions.front()
                                   ? records_.size() // timed again in the round below only
                                   : fractioned_rounds(members, default_stream_->triad, assembled, false, true);
      if (name != options_.precisions.front()) other_block_passes(host, unknowns, dt, false, assembled, prefix);
      runs.push_back({std::move(members), step});
    }
    std::vector<Timed const*> members{&default_stream_->triad};
    for (auto const& r : runs) members.push_back(&r.members.step);
    auto const samples = measure(members);
    for (std::size_t k = 1; k < runs.size(); ++k) {
      auto& record = records_[runs[k].step_record];
      record.speedup_vs_first_precision = median_ratio(samples[1].seconds, samples[k + 1].seconds);
      out_ << "# the step in " << options_.precisions[k] << " precision runs " << std::fixed << std::setprecision(2)
           << record.speedup_vs_first_precision << "x as fast as in " << options_.precisions.front() << " ("
           << median(samples[k + 1].seconds) * 1e3 << " against " << median(samples[1].seconds) * 1e3
           << " ms in that round), " << record.bytes_per_dof() << " against "
           << static_cast<double>(runs[0].members.step.bytes) / static_cast<double>(dofs_) << " B/DoF\n";
    }
    set_precision(options_.precisions.front());
  }

  void set_precision(std::string const& name)
  {
    precision_name_ = name;
    precision_ = kernels::step_precision_named(name);
  }

  // A mesh file in every ordering asked for: Faraday, Ampere and the step of each against the
  // triad, then all the steps in one round with it, so each ordering's speed-up over the file's own
  // numbering is a median of same-round ratios.
  void run_mesh(std::string const& file)
  {
    struct Ordered {
      std::string name;
      FractionedMembers members;
      std::size_t step_record;
    };
    std::vector<Ordered> runs;
    mesh_ = file;
    cells_ = 0;
    for (auto const& name : options_.orderings) {
      auto const start = std::chrono::steady_clock::now();
      Problem problem = make_problem(file, *mesh::ordering_named(name)); // --ordering checked the names
      double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      dofs_ = dofs(problem);
      ordering_ = name;
      out_ << "# " << file << " ordered by " << name << ": " << problem.topology.num_tets() << " tets, " << dofs_
           << " DoFs, read, ordered and assembled in " << seconds << " s\n";
      auto const unknowns = random_unknowns(problem.operators);
      double const dt = mesh_dt(problem);
      set_precision(options_.precisions.front());
      auto members = fractioned_members<Default, DefaultLayout>(problem.operators, unknowns, dt, false, default_pass,
                                                                precision_, name + "/");
      std::size_t const step = fractioned_rounds(members, default_stream_->triad, nullptr, false, true);
      // Every other block pass and precision, as on the boxes; with --layouts all the dual blocks by
      // degree too, each degree's blocks still in the ordering's sequence.
      other_block_passes(problem.operators, unknowns, dt, false, nullptr, name + "/");
      other_precisions(problem.operators, unknowns, dt, nullptr, name + "/");
      if (options_.all_layouts) {
        auto const by_degree = assemble_operators(problem, true);
        auto const by_degree_unknowns = random_unknowns(by_degree);
        fractioned_rounds(fractioned_members<Default, DefaultLayout>(by_degree, by_degree_unknowns, dt, true,
                                                                     default_pass, precision_, name + "/"),
                          default_stream_->triad, nullptr, false, true);
        other_block_passes(by_degree, by_degree_unknowns, dt, true, nullptr, name + "/");
      }
      runs.push_back({name, std::move(members), step});
    }
    auto const unordered = std::find_if(runs.begin(), runs.end(), [](Ordered const& r) { return r.name == "none"; });
    if (runs.size() < 2 || unordered == runs.end()) return;
    // Each member once per round, after the triad: a member timed twice in a row would find its own
    // data still in cache.
    std::vector<Timed const*> members{&default_stream_->triad};
    for (auto const& r : runs) members.push_back(&r.members.step);
    auto const samples = measure(members);
    auto const& none = samples[1 + static_cast<std::size_t>(unordered - runs.begin())];
    for (std::size_t k = 0; k < runs.size(); ++k) {
      auto& record = records_[runs[k].step_record];
      record.speedup_vs_unordered = median_ratio(none.seconds, samples[k + 1].seconds);
      out_ << "# " << file << ": the step ordered by " << runs[k].name << " runs " << std::fixed << std::setprecision(2)
           << record.speedup_vs_unordered << "x as fast as in the file's order ("
           << median(samples[k + 1].seconds) * 1e3 << " against " << median(none.seconds) * 1e3
           << " ms in that round), at " << record.fraction_of_triad << " of the same-run triad\n";
    }
  }

  // A configured run as `dgatd run` sets it up (mesh, ordering, materials, boundaries, layers, ports,
  // sources, dt, on the default backend), without its output, in each precision of --precision:
  // Faraday, Ampere, each of its terms' points of a step on their own and the whole step, each
  // against the same-run triad.
  void run_config(std::string const& file)
  {
    for (auto const& precision : options_.precisions) {
      io::Config config = io::load_config(file);
      auto const named = kernels::step_precision_named(precision);
      config.solver.precision = named.matrices;
      config.solver.field_precision = named.fields;
      run_configured(file, config, precision);
    }
  }

  void run_configured(std::string const& file, io::Config const& config, std::string const& precision)
  {
    if (config.solver.backend != io::Backend::default_space)
      throw Error(file, "dgatd bench times the default backend, this configuration asks for Serial",
                  "remove [solver] backend = \"serial\" from a copy to bench it");
    if (config.solver.formulation != solver::FormulationKind::fractioned)
      throw Error(file, "dgatd bench --config times the fractioned formulation",
                  "remove [solver] formulation = \"assembled\" from a copy to bench it");
    auto const start = std::chrono::steady_clock::now();
    auto run = std::make_unique<simulation::Simulation>(config);
    double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    set_precision(precision);
    Timed step;
    if (precision_.fields == kernels::FieldPrecision::float32)
      step = bench_configured(
          file, config, *run,
          dynamic_cast<solver::FractionedFormulation<Default, float>&>(run->formulation()).leapfrog(), seconds);
    else
      step = bench_configured(file, config, *run,
                              dynamic_cast<solver::FractionedFormulation<Default>&>(run->formulation()).leapfrog(),
                              seconds);
    if (config.time.local_steps > 1) {
      if (precision_.fields == kernels::FieldPrecision::float32)
        compare_local_steps<solver::FractionedFormulation<Default, float>>(file, config, *run, step);
      else
        compare_local_steps<solver::FractionedFormulation<Default>>(file, config, *run, step);
    }
    configured_.push_back({file, precision, std::move(run), std::move(step)});
  }

  // A configuration with local time steps against itself with one global step: the time each takes
  // per simulated second, in the same rounds (the median of the rounds' ratios), beside what the
  // levels predict from the tet updates.
  template <class Formulation>
  void compare_local_steps(std::string const& file, io::Config config, simulation::Simulation& local,
                           Timed const& local_step)
  {
    if (local.plan().local_levels == 1) {
      out_ << "# " << file << " (" << precision_name_
           << "): its local steps left one level, the global step (`dgatd run` says why)\n";
      return;
    }
    config.time.local_steps = 1;
    simulation::Simulation global(config);
    auto& leapfrog = dynamic_cast<Formulation&>(global.formulation()).leapfrog();
    Timed global_step = base_member(leapfrog.space(), "step_fractioned", "one global step");
    global_step.launch = [&leapfrog] { leapfrog.step(); };
    auto const samples = measure({&local_step, &global_step});
    double const coarse_dt = local.plan().dt, global_dt = global.plan().dt;
    auto ratios = round_ratios(samples[1].seconds, samples[0].seconds);
    for (double& ratio : ratios) ratio *= coarse_dt / global_dt;
    auto const [low, high] = std::minmax_element(ratios.begin(), ratios.end());
    int const levels = local.plan().local_levels;
    double const predicted =
        coarse_dt / global_dt * local.plan().local_work_ratio / static_cast<double>(std::int64_t{1} << (levels - 1));
    std::ostringstream line;
    line << std::setprecision(4) << "# " << file << " (" << precision_name_ << "): local steps (" << levels
         << " levels, dt " << coarse_dt << " s) against one global step (dt " << global_dt << " s): " << std::fixed
         << std::setprecision(2) << median(ratios) << "x less time per simulated second (" << *low << "-" << *high
         << ", median of " << ratios.size() << " same-round ratios); the tet updates predict " << predicted << "x\n";
    out_ << line.str();
    print_level_runs(out_, dynamic_cast<Formulation&>(local.formulation()).leapfrog().local_steps()->plan());
  }

  // Two or more configured runs (each file in each precision): their whole steps once more, all in
  // the same rounds, so that the ratio of two of them is the median of same-round ratios, never of
  // times taken at different moments of a shared machine: two files in one precision (an open run
  // against the same mesh without its layer), or one file in two precisions.
  void compare_configured_steps()
  {
    if (configured_.size() < 2) return;
    std::vector<Timed const*> steps;
    for (auto const& c : configured_) steps.push_back(&c.step);
    auto const samples = measure(steps);
    for (std::size_t i = 0; i < configured_.size(); ++i)
      for (std::size_t j = i + 1; j < configured_.size(); ++j) {
        auto const& a = configured_[i];
        auto const& b = configured_[j];
        if (a.file != b.file && a.precision != b.precision) continue;
        auto const ratios = round_ratios(samples[i].seconds, samples[j].seconds);
        auto const [low, high] = std::minmax_element(ratios.begin(), ratios.end());
        out_ << "# step of " << a.file << " (" << a.precision << ") / step of " << b.file << " (" << b.precision
             << "): " << std::fixed << std::setprecision(3) << median(ratios) << " (" << *low << "-" << *high
             << ") over " << ratios.size() << " rounds that ran every configured step in turn\n"
             << std::defaultfloat;
      }
  }

  // Returns the whole step, for compare_configured_steps.
  template <class Leapfrog>
  Timed bench_configured(std::string const& file, io::Config const& config, simulation::Simulation const& run,
                         Leapfrog& leapfrog, double seconds)
  {
    auto const& problem = run.problem();
    mesh_ = file;
    cells_ = 0;
    ordering_ = mesh::ordering_name(config.mesh.ordering);
    dofs_ = dofs(problem);
    out_ << "# " << file << " in " << precision_name_ << " precision: " << problem.topology.num_tets() << " tets, "
         << dofs_ << " DoFs, " << leapfrog.terms().size() << " terms, set up in " << seconds << " s\n";
    // The simulation owns the leapfrog and outlives the members.
    std::shared_ptr<Leapfrog> const shared(&leapfrog, [](auto*) {});
    auto const members = members_of(shared, precision_label(precision_) + layout_label<DefaultLayout>(false));
    std::vector<Timed> terms;
    for (std::size_t i = 0; i < leapfrog.terms().size(); ++i) {
      Timed t = base_member(leapfrog.space(), "term", leapfrog.terms()[i].name());
      t.launch = [&leapfrog, i] { leapfrog.run_term_points(i); };
      t.bytes = leapfrog.terms()[i].bytes_per_step();
      terms.push_back(std::move(t));
    }
    Timed step = members.step;
    for (auto const& t : terms) step.bytes += t.bytes;
    // The terms' flops are not modelled: a step with terms has no arithmetic intensity to plot.
    if (!terms.empty()) step.flops = 0;
    auto const& triad = default_stream_->triad;
    for (Timed const* member : {&members.faraday, &members.ampere}) {
      auto const samples = measure({&triad, member});
      add_record(*member, samples[1], triad, samples[0]);
    }
    std::vector<std::size_t> term_records;
    for (auto const& t : terms) {
      auto const samples = measure({&triad, &t});
      term_records.push_back(add_record(t, samples[1], triad, samples[0]));
    }
    auto const samples = measure({&triad, &step});
    std::size_t const step_record = add_record(step, samples[1], triad, samples[0]);
    print_row(out_, records_[step_record]);
    double const step_seconds = records_[step_record].seconds_median;
    for (std::size_t k = 0; k < terms.size(); ++k) {
      auto const& r = records_[term_records[k]];
      out_ << "# term " << r.layout << ": " << std::fixed << std::setprecision(1)
           << 100.0 * static_cast<double>(r.bytes) / static_cast<double>(step.bytes) << " % of the step's bytes, "
           << 100.0 * r.seconds_median / step_seconds << " % of its time (medians of separate rounds)\n";
    }
    return step;
  }

  void other_block_passes(dga::HostOperators const& host, std::vector<double> const& unknowns, double dt,
                          bool by_degree, Timed const* assembled, std::string const& prefix = "")
  {
    for (auto const pass : kernels::all_block_passes)
      if (pass != default_pass)
        fractioned_rounds(
            fractioned_members<Default, DefaultLayout>(host, unknowns, dt, by_degree, pass, precision_, prefix),
            default_stream_->triad, assembled, false, false);
  }

  template <class Space>
  void stream_round(StreamMembers<Space> const& stream)
  {
    auto const samples = measure({&stream.triad, &stream.copy});
    add_record(stream.triad, samples[0], stream.triad, samples[0]);
    add_record(stream.copy, samples[1], stream.triad, samples[0]);
  }

  // Faraday and Ampere each against the triad, then both whole steps (the assembled one where given)
  // in one round with it. Returns the index of the fractioned step's record; with record_assembled
  // the assembled step's follows.
  std::size_t fractioned_rounds(FractionedMembers const& m, Timed const& triad, Timed const* assembled,
                                bool record_assembled, bool with_faraday)
  {
    std::vector<Samples> samples;
    if (with_faraday) {
      samples = measure({&triad, &m.faraday});
      add_record(m.faraday, samples[1], triad, samples[0]);
    }
    samples = measure({&triad, &m.ampere});
    add_record(m.ampere, samples[1], triad, samples[0]);
    samples = assembled ? measure({&triad, &m.step, assembled}) : measure({&triad, &m.step});
    std::size_t const step = add_record(m.step, samples[1], triad, samples[0]);
    if (assembled) records_[step].speedup_vs_assembled = median_ratio(samples[2].seconds, samples[1].seconds);
    print_row(out_, records_[step]);
    if (assembled && record_assembled) print_row(out_, records_[add_record(*assembled, samples[2], triad, samples[0])]);
    return step;
  }

  std::vector<Samples> measure(std::vector<Timed const*> const& members) const
  {
    return interleave(members, options_.repetitions, options_.warmup, options_.min_sample_seconds);
  }

  std::size_t add_record(Timed const& t, Samples const& s, Timed const& triad, Samples const& triad_samples)
  {
    Record r;
    r.backend = t.backend;
    r.threads = t.threads;
    r.cells = cells_;
    r.mesh = mesh_;
    r.ordering = ordering_;
    bool const fractioned = t.kernel == "faraday" || t.kernel == "ampere" || t.kernel == "step_fractioned";
    r.precision = fractioned ? precision_name_ : "-";
    r.dofs = dofs_;
    r.kernel = t.kernel;
    r.layout = t.layout;
    r.repetitions = static_cast<int>(s.seconds.size());
    r.batch = s.batch;
    r.seconds_median = median(s.seconds);
    r.bytes = t.bytes;
    r.flops = t.flops;
    r.gbps = static_cast<double>(t.bytes) / r.seconds_median * 1e-9;
    r.triad_gbps = static_cast<double>(triad.bytes) / median(triad_samples.seconds) * 1e-9;
    std::vector<double> ratios;
    for (std::size_t k = 0; k < s.seconds.size(); ++k)
      ratios.push_back((static_cast<double>(t.bytes) / s.seconds[k]) /
                       (static_cast<double>(triad.bytes) / triad_samples.seconds[k]));
    r.fraction_of_triad = median(ratios);
    r.updates = t.updates;
    r.dof_updates_per_second = static_cast<double>(t.updates) / r.seconds_median;
    records_.push_back(r);
    if (r.kernel != "step_fractioned" && r.kernel != "step_assembled") print_row(out_, r);
    return records_.size() - 1;
  }

  LabOptions const& options_;
  std::ostream& out_;
  std::vector<Record> records_;
  std::optional<StreamMembers<Default>> default_stream_;
  std::optional<StreamMembers<HostParallel>> host_stream_;
  std::optional<StreamMembers<Kokkos::Serial>> serial_stream_;
  int cells_ = 0;
  std::string mesh_;
  std::string ordering_ = "-";
  std::string precision_name_ = "double";
  kernels::StepPrecision precision_;
  std::int64_t dofs_ = 0;
  // Each configured run kept alive with its whole step (compare_configured_steps).
  struct Configured {
    std::string file, precision;
    std::unique_ptr<simulation::Simulation> run;
    Timed step;
  };
  std::vector<Configured> configured_;
};

} // namespace kernel_bench_detail

using namespace kernel_bench_detail;

std::vector<int> default_sizes(bool smoke)
{
  if (smoke) return {2, 3};
  return {6, 10, 16, 24, 32, 44};
}

void add_options(CLI::App& app, LabOptions& options)
{
  app.add_option(
         "--sizes", options.sizes,
         "Cells per side of the generated unit boxes, comma separated (DoFs ~ 38 n^3); default 6,10,16,24,32,44 "
         "(1e4 to 3.2e6 DoFs)")
      ->delimiter(',')
      ->check(CLI::Range(1, 400));
  app.add_option("--mesh", options.meshes,
                 "A .msh file to time as a closed PEC cavity (c = 1), in every ordering of --ordering; repeatable")
      ->check(CLI::ExistingFile);
  app.add_option("--config", options.configs,
                 "A run configuration to time as `dgatd run` would step it (its mesh, ordering, precision, losses, "
                 "layers, ports and sources): Faraday, Ampere, each term of the step and the whole step; repeatable "
                 "(the whole steps of two files in one precision, and of one file in two precisions, are then timed "
                 "against each other in the same rounds)")
      ->check(CLI::ExistingFile);
  app.add_option("--ordering", options.orderings,
                 "Locality orderings of the --mesh files, comma separated; default hilbert,none (the step of each is "
                 "also timed against none in one round)")
      ->delimiter(',')
      ->check(CLI::IsMember(mesh::ordering_names()));
  app.add_option("--precision", options.precisions,
                 "Precisions of the fractioned step, comma separated: double, mixed (float matrices, double "
                 "fields), single (float matrices and fields); default double,mixed (each step after the first is "
                 "also timed against the first in one round)")
      ->delimiter(',')
      ->check(CLI::IsMember({"double", "mixed", "single"}));
  app.add_option("--reps", options.repetitions, "Timed interleaved rounds per measurement (median reported)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--warmup", options.warmup, "Untimed rounds first (the first one always runs: it sizes the batches)")
      ->check(CLI::Range(0, 1000));
  app.add_option("--json", options.json, "Write the records as a JSON list to this file");
  app.add_option_function<std::string>(
         "--layouts", [&options](std::string const& value) { options.all_layouts = value == "all"; },
         "all: per-tet LayoutRight/LayoutLeft x dual blocks by degree or in vertex order; default: the backend's "
         "default per-tet layout, blocks in vertex order. Every Ampere block pass is timed either way")
      ->check(CLI::IsMember({"all", "default"}));
  app.add_flag("--serial", options.serial_everywhere,
               "Also run Kokkos::Serial at every size (always done at the largest, for Table I)");
  app.add_flag("--smoke", options.smoke, "Tiny meshes and arrays, three rounds: checks that every benchmark runs");
}

std::size_t roof_array_bytes(DeviceInfo const& device)
{
  constexpr std::size_t mib = std::size_t{1} << 20;
  // 64 MiB where the cache size is unknown (0).
  std::size_t bytes = std::max(64 * mib, 4 * static_cast<std::size_t>(device.last_level_cache_bytes));
  if (device.is_gpu) bytes = std::max(bytes, 1024 * mib);
  return (bytes + mib - 1) / mib * mib;
}

std::vector<Record> run_lab(LabOptions const& given, std::ostream& out)
{
  LabOptions options = given;
  Roof roof;
  roof.device = describe_default_device();
  if (options.sizes.empty() && options.meshes.empty() && options.configs.empty())
    options.sizes = default_sizes(options.smoke);
  if (options.stream_array_bytes == 0) options.stream_array_bytes = roof_array_bytes(roof.device);
  if (options.smoke) {
    options.repetitions = std::min(options.repetitions, 3);
    options.warmup = std::min(options.warmup, 1);
    options.stream_array_bytes = std::size_t{1} << 20;
    options.min_sample_seconds = 1e-4;
  }
  roof.array_bytes = options.stream_array_bytes;
  out << machine_description();
  out << "# device: " << roof.device.name << (roof.device.is_gpu ? " (GPU" : " (CPU") << ", last-level cache "
      << (roof.device.last_level_cache_bytes >> 20) << " MiB); roof: STREAM triad on 3 arrays of "
      << (roof.array_bytes >> 20) << " MiB each\n";
  out << "# " << options.repetitions << " interleaved rounds after " << std::max(options.warmup, 1)
      << " warm-up; fraction = median over rounds of kernel GB/s / same-round triad GB/s; layout = per-tet "
         "layout/dual-block order/Ampere block pass\n";
  Lab lab(options, out);
  lab.run();
  print_table_one(out, lab.records());
  print_summary(out, lab.records(), roof);
  if (!options.json.empty()) {
    write_json(options.json, lab.records(), roof);
    out << "# wrote " << options.json << '\n';
  }
  return lab.records();
}

} // namespace dgatd::perf
