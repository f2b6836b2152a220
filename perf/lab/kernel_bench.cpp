#include "lab/kernel_bench.hpp"

#include "lab/harness.hpp"
#include "lab/report.hpp"
#include "lab/stream.hpp"

#include "dgatd/dga/assembled.hpp"
#include "dgatd/dga/operators.hpp"
#include "dgatd/kernels/ampere.hpp"
#include "dgatd/kernels/assembled.hpp"
#include "dgatd/kernels/faraday.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/simulation/problem.hpp"
#include "dgatd/solver/leapfrog.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dgatd::perf {

// Named, not anonymous: nvcc rejects extended device lambdas whose enclosing function or template
// arguments have internal linkage.
namespace kernel_bench_detail {

using Default = Kokkos::DefaultExecutionSpace;
using HostParallel = Kokkos::DefaultHostExecutionSpace;
using DefaultLayout = kernels::DefaultTetLayout<Default>;
using OtherLayout =
    std::conditional_t<std::is_same_v<DefaultLayout, Kokkos::LayoutRight>, Kokkos::LayoutLeft, Kokkos::LayoutRight>;

// c = 1 units on the unit box. Power iteration on jittered (0.2) Kuhn boxes of 3 to 12 cells per
// side gives dt_max = 0.36 to 0.44 h; 0.1 h keeps thousands of back-to-back benchmark steps bounded,
// so no timing ever runs on overflowing or denormal numbers.
double bench_dt(int cells) { return 0.1 / cells; }

using simulation::Problem;

std::int64_t dofs(Problem const& p)
{
  return 2 * static_cast<std::int64_t>(p.topology.num_edges()) + 4 * static_cast<std::int64_t>(p.topology.num_tets());
}

// The closed PEC unit box in c = 1 units: the same system the solver tests step.
Problem make_problem(int cells, bool by_degree)
{
  mesh::StructuredBox box;
  box.cells[0] = box.cells[1] = box.cells[2] = cells;
  box.jitter = 0.2;
  dga::AssemblyOptions options;
  options.group_blocks_by_degree = by_degree;
  return simulation::pec_box(box, 1.0, 1.0, options);
}

// The same problem's operators with the dual blocks in another order.
dga::HostOperators assemble_operators(Problem const& p, bool by_degree)
{
  dga::AssemblyOptions options;
  options.group_blocks_by_degree = by_degree;
  return dga::assemble(p.mesh, p.topology, p.geometry, p.materials, p.face_kinds, options);
}

// Random free unknowns, zero elsewhere: every mode present, as in a running simulation.
std::vector<double> random_unknowns(dga::HostOperators const& host)
{
  std::vector<double> u(host.layout.size(), 0.0);
  std::uint64_t state = 12345;
  for (Index i = 0; i < host.layout.num_free; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    u[i] = static_cast<double>(state >> 11) / static_cast<double>(1ULL << 53) - 0.5;
  }
  return u;
}

// Per-tet layout / dual-block order; Ampere and whole-step labels add the block pass.
template <class Layout>
std::string layout_label(bool by_degree)
{
  std::string const tet = std::is_same_v<Layout, Kokkos::LayoutRight> ? "right" : "left";
  return tet + (by_degree ? "/by-degree" : "/vertex-order");
}

template <class Space>
Timed base_member(Space const& space, std::string kernel, std::string layout)
{
  Timed t;
  t.kernel = std::move(kernel);
  t.layout = std::move(layout);
  t.backend = Space::name();
  t.threads = space.concurrency();
  t.fence = [space] { compat::fence(space, "dgatd::bench"); };
  return t;
}

template <class Space>
struct StreamMembers {
  Timed copy;
  Timed triad;
};

template <class Space>
StreamMembers<Space> stream_members(std::size_t array_bytes)
{
  Space const space;
  auto const arrays = std::make_shared<StreamArrays<Space>>(space, array_bytes);
  StreamMembers<Space> m{base_member(space, "stream_copy", "-"), base_member(space, "stream_triad", "-")};
  m.copy.launch = [arrays] { arrays->copy(); };
  m.copy.bytes = arrays->copy_bytes();
  m.copy.updates = arrays->size();
  m.triad.launch = [arrays] { arrays->triad(); };
  m.triad.bytes = arrays->triad_bytes();
  m.triad.flops = 2.0 * static_cast<double>(arrays->size());
  m.triad.updates = arrays->size();
  return m;
}

// One SpMV y <- y + a A x: a multiply-add per stored entry, a scale and an add per row.
template <class Matrix>
double spmv_flops(Matrix const& a)
{
  return 2.0 * static_cast<double>(a.nnz()) + 2.0 * static_cast<double>(a.numRows());
}

template <class Space>
Timed assembled_step(dga::AssembledOperators const& global, std::vector<double> const& edge_values, int cells)
{
  Space const space;
  using Leapfrog = kernels::AssembledLeapfrog<Space>;
  auto const leapfrog = std::make_shared<Leapfrog>(space, global);
  leapfrog->set_dt(bench_dt(cells));
  leapfrog->set_initial_field(edge_values);
  Timed t = base_member(space, "step_assembled", "csr");
  t.launch = [leapfrog] { leapfrog->step(); };
  t.bytes = Leapfrog::spmv_bytes(leapfrog->faraday_matrix()) + Leapfrog::spmv_bytes(leapfrog->ampere_matrix());
  t.flops = spmv_flops(leapfrog->faraday_matrix()) + spmv_flops(leapfrog->ampere_matrix());
  t.updates = leapfrog->faraday_matrix().numRows() + leapfrog->ampere_matrix().numRows();
  return t;
}

struct FractionedMembers {
  Timed faraday;
  Timed ampere;
  Timed step;
};

template <class Space, class Layout>
FractionedMembers fractioned_members(dga::HostOperators const& host, std::vector<double> const& unknowns, int cells,
                                     bool by_degree, kernels::AmpereBlockPass pass)
{
  Space const space;
  using Leapfrog = solver::FractionedLeapfrog<Space, Layout>;
  using Faraday = kernels::FaradayKernel<Space, Layout, Real, Real>;
  std::string const layout = layout_label<Layout>(by_degree);
  std::string const with_pass = layout + "/" + kernels::block_pass_name(pass);
  auto const leapfrog = std::make_shared<Leapfrog>(space, host, pass);
  leapfrog->set_dt(bench_dt(cells));
  leapfrog->set_initial_field(unknowns);
  auto const& ops = leapfrog->operators();
  auto const curl_entries = static_cast<double>(ops.edge_curl_pieces.extent(0));

  FractionedMembers m{base_member(space, "faraday", layout), base_member(space, "ampere", with_pass),
                      base_member(space, "step_fractioned", with_pass)};
  m.faraday.launch = [leapfrog] {
    kernels::faraday_update(leapfrog->space(), leapfrog->operators(), leapfrog->fields(), leapfrog->dt());
  };
  m.faraday.bytes = Faraday::bytes_moved(ops.num_tets, ops.num_unknowns);
  // Per tet: 6 adds for the full-edge circulations, the 4 x 6 product (24 multiply-adds), f^ -= dt s
  // (a multiply and a subtraction per row), two signed products and an add per edge piece.
  m.faraday.flops = 80.0 * ops.num_tets;
  m.faraday.updates = 4 * static_cast<std::int64_t>(ops.num_tets);

  m.ampere.launch = [leapfrog] {
    kernels::ampere_update(leapfrog->space(), leapfrog->operators(), leapfrog->fields(), leapfrog->dt());
  };
  m.ampere.bytes = kernels::ampere_bytes_moved(ops);
  // An add per (edge, tet) curl entry, dt x per row and a multiply-add per block entry.
  m.ampere.flops =
      curl_entries + 2.0 * static_cast<double>(ops.block_matrix_entries) + static_cast<double>(ops.num_free);
  m.ampere.updates = ops.num_free;

  m.step.launch = [leapfrog] { leapfrog->step(); };
  m.step.bytes = m.faraday.bytes + m.ampere.bytes;
  m.step.flops = m.faraday.flops + m.ampere.flops;
  m.step.updates = m.faraday.updates + m.ampere.updates;
  return m;
}

class Lab {
public:
  Lab(LabOptions const& options, std::ostream& out) : options_(options), out_(out) {}

  std::vector<Record> const& records() const { return records_; }

  void run()
  {
    int const largest = *std::max_element(options_.sizes.begin(), options_.sizes.end());
    default_stream_ = stream_members<Default>(options_.stream_array_bytes);
    if constexpr (separate_host_parallel) host_stream_ = stream_members<HostParallel>(options_.stream_array_bytes);
    if constexpr (!std::is_same_v<Default, Kokkos::Serial>)
      serial_stream_ = stream_members<Kokkos::Serial>(options_.stream_array_bytes);
    print_table_header(out_);
    for (int cells : options_.sizes) run_size(cells, options_.serial_everywhere || cells == largest);
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
    dofs_ = dofs(problem);
    out_ << "# " << cells << "^3 cells x 6: " << problem.topology.num_tets() << " tets, " << dofs_
         << " DoFs, mesh and operators built in " << seconds << " s\n";

    auto unknowns = random_unknowns(host);
    Timed assembled;
    {
      auto const global = dga::assemble_global(problem.topology, host);
      auto const edge_values = dga::sum_to_edges(problem.topology, host.layout, unknowns);
      assembled = assembled_step<Default>(global, edge_values, cells);

      stream_round(*default_stream_);
      auto const main = fractioned_members<Default, DefaultLayout>(host, unknowns, cells, false, default_pass);
      std::size_t const step_record = fractioned_rounds(main, default_stream_->triad, assembled, true, true);

      if (with_serial && serial_stream_) {
        auto const serial = fractioned_members<Kokkos::Serial, kernels::DefaultTetLayout<Kokkos::Serial>>(
            host, unknowns, cells, false, kernels::default_block_pass<Kokkos::Serial>());
        stream_round(*serial_stream_);
        fractioned_rounds(serial, serial_stream_->triad, assembled_step<Kokkos::Serial>(global, edge_values, cells),
                          true, true);
        // Table I: the Serial fractioned step against the parallel steps, interleaved in one round.
        std::vector<Timed const*> members{&serial.step};
        std::vector<std::size_t> targets;
        std::optional<FractionedMembers> host_parallel;
        if constexpr (separate_host_parallel) {
          host_parallel = fractioned_members<HostParallel, kernels::DefaultTetLayout<HostParallel>>(
              host, unknowns, cells, false, kernels::default_block_pass<HostParallel>());
          stream_round(*host_stream_);
          targets.push_back(fractioned_rounds(*host_parallel, host_stream_->triad,
                                              assembled_step<HostParallel>(global, edge_values, cells), true, true));
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
    other_block_passes(host, unknowns, cells, false, assembled);
    if (!options_.all_layouts) return;
    fractioned_rounds(fractioned_members<Default, OtherLayout>(host, unknowns, cells, false, default_pass),
                      default_stream_->triad, assembled, false, true);
    host = assemble_operators(problem, true);
    unknowns = random_unknowns(host);
    fractioned_rounds(fractioned_members<Default, DefaultLayout>(host, unknowns, cells, true, default_pass),
                      default_stream_->triad, assembled, false, true);
    other_block_passes(host, unknowns, cells, true, assembled);
    fractioned_rounds(fractioned_members<Default, OtherLayout>(host, unknowns, cells, true, default_pass),
                      default_stream_->triad, assembled, false, true);
  }

  void other_block_passes(dga::HostOperators const& host, std::vector<double> const& unknowns, int cells,
                          bool by_degree, Timed const& assembled)
  {
    for (auto const pass : kernels::all_block_passes)
      if (pass != default_pass)
        fractioned_rounds(fractioned_members<Default, DefaultLayout>(host, unknowns, cells, by_degree, pass),
                          default_stream_->triad, assembled, false, false);
  }

  template <class Space>
  void stream_round(StreamMembers<Space> const& stream)
  {
    auto const samples = measure({&stream.triad, &stream.copy});
    add_record(stream.triad, samples[0], stream.triad, samples[0]);
    add_record(stream.copy, samples[1], stream.triad, samples[0]);
  }

  // Faraday and Ampere each against the triad, then both whole steps in one round with it. Returns
  // the index of the fractioned step's record; with record_assembled the assembled step's follows.
  std::size_t fractioned_rounds(FractionedMembers const& m, Timed const& triad, Timed const& assembled,
                                bool record_assembled, bool with_faraday)
  {
    std::vector<Samples> samples;
    if (with_faraday) {
      samples = measure({&triad, &m.faraday});
      add_record(m.faraday, samples[1], triad, samples[0]);
    }
    samples = measure({&triad, &m.ampere});
    add_record(m.ampere, samples[1], triad, samples[0]);
    samples = measure({&triad, &m.step, &assembled});
    std::size_t const step = add_record(m.step, samples[1], triad, samples[0]);
    records_[step].speedup_vs_assembled = median_ratio(samples[2].seconds, samples[1].seconds);
    print_row(out_, records_[step]);
    if (record_assembled) print_row(out_, records_[add_record(assembled, samples[2], triad, samples[0])]);
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
  std::int64_t dofs_ = 0;
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
  if (options.sizes.empty()) options.sizes = default_sizes(options.smoke);
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
