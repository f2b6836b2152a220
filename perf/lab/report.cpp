#include "lab/report.hpp"

#include "dgatd/error.hpp"
#include "dgatd/solver/local_step_plan.hpp"

#include <Kokkos_Core.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>

namespace dgatd::perf {

namespace {

std::string cpu_model()
{
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      auto const colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  return "unknown CPU";
}

std::string host_name()
{
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown host";
  return name;
}

std::string utc_date()
{
  std::time_t const now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

std::string environment(char const* name)
{
  char const* value = std::getenv(name);
  return value ? value : "(unset)";
}

std::string json_string(std::string const& text)
{
  std::string quoted = "\"";
  for (char const c : text) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      quoted += escaped;
    } else {
      quoted += c;
    }
  }
  return quoted + "\"";
}

Record const* find(std::vector<Record> const& records, std::int64_t dofs, std::string const& backend,
                   std::string const& kernel, bool in_table_one)
{
  for (auto const& r : records)
    if (r.dofs == dofs && r.backend == backend && r.kernel == kernel && r.mesh.empty() &&
        (!in_table_one || r.speedup_vs_serial > 0))
      return &r;
  return nullptr;
}

std::string speedup_cell(Record const* r)
{
  if (!r) return "n/a";
  std::ostringstream cell;
  cell << std::fixed << std::setprecision(2) << r->speedup_vs_serial << " (" << std::setprecision(2)
       << r->seconds_median * 1e3 << " ms)";
  return cell.str();
}

std::size_t consecutive_runs(std::vector<Index> const& list)
{
  std::size_t count = list.empty() ? 0 : 1;
  for (std::size_t i = 1; i < list.size(); ++i) count += list[i] != list[i - 1] + 1 ? 1 : 0;
  return count;
}

double mean_run(std::size_t items, std::size_t runs)
{
  return runs > 0 ? static_cast<double>(items) / static_cast<double>(runs) : 0.0;
}

} // namespace

void print_level_runs(std::ostream& out, solver::LocalStepPlan const& plan)
{
  std::ostringstream text;
  text << std::fixed << std::setprecision(1);
  for (std::size_t k = 0; k < plan.levels.size(); ++k) {
    auto const& level = plan.levels[k];
    auto const tet_runs = consecutive_runs(level.own_tets), block_runs = consecutive_runs(level.blocks),
               unknown_runs = consecutive_runs(level.read_unknowns);
    text << "#   level " << k << ": " << level.own_tets.size() << " tets in " << tet_runs
         << " runs of consecutive numbers (" << mean_run(level.own_tets.size(), tet_runs) << " on average), "
         << level.blocks.size() << " blocks stepped in " << block_runs << " ("
         << mean_run(level.blocks.size(), block_runs) << "), " << level.read_unknowns.size() << " unknowns read in "
         << unknown_runs << " (" << mean_run(level.read_unknowns.size(), unknown_runs) << ")\n";
  }
  out << text.str();
}

std::string machine_description()
{
  std::ostringstream text;
  int const major = KOKKOS_VERSION / 10000;
  int const minor = KOKKOS_VERSION / 100 % 100;
  int const patch = KOKKOS_VERSION % 100;
  text << "# dgatd performance lab, " << utc_date() << ", host " << host_name() << "\n"
       << "# CPU: " << cpu_model() << ", " << std::thread::hardware_concurrency() << " logical CPUs\n"
       << "# Kokkos " << major << '.' << minor << '.' << patch << ", backend " << Kokkos::DefaultExecutionSpace::name()
       << " with " << Kokkos::DefaultExecutionSpace().concurrency()
       << " threads; OMP_PROC_BIND=" << environment("OMP_PROC_BIND") << " OMP_PLACES=" << environment("OMP_PLACES")
       << "\n";
  return text.str();
}

void print_table_header(std::ostream& out)
{
  out << std::left << std::setw(8) << "backend" << std::right << std::setw(4) << "thr" << std::setw(10) << "DoFs"
      << "  " << std::left << std::setw(16) << "kernel" << std::setw(36) << "layout" << std::right << std::setw(11)
      << "median ms" << std::setw(10) << "MB moved" << std::setw(7) << "B/DoF" << std::setw(8) << "GB/s" << std::setw(8)
      << "triad" << std::setw(7) << "frac" << std::setw(9) << "GDoF/s" << std::setw(8) << "vs asm" << '\n';
}

void print_row(std::ostream& out, Record const& r)
{
  std::ostringstream line;
  line << std::left << std::setw(8) << r.backend << std::right << std::setw(4) << r.threads << std::setw(10) << r.dofs
       << "  " << std::left << std::setw(16) << r.kernel << std::setw(36) << r.layout << std::right << std::fixed
       << std::setprecision(4) << std::setw(11) << r.seconds_median * 1e3 << std::setprecision(1) << std::setw(10)
       << static_cast<double>(r.bytes) * 1e-6 << std::setw(7) << r.bytes_per_dof() << std::setw(8) << r.gbps
       << std::setw(8) << r.triad_gbps << std::setprecision(2) << std::setw(7) << r.fraction_of_triad
       << std::setprecision(3) << std::setw(9) << r.dof_updates_per_second * 1e-9;
  if (r.speedup_vs_assembled > 0) line << std::setprecision(2) << std::setw(7) << r.speedup_vs_assembled << 'x';
  out << line.str() << std::endl;
}

void print_table_one(std::ostream& out, std::vector<Record> const& records)
{
  std::string const device = Kokkos::DefaultExecutionSpace::name();
  std::string const host = Kokkos::DefaultHostExecutionSpace::name();
  std::vector<std::int64_t> sizes;
  for (auto const& r : records)
    if (r.speedup_vs_serial > 0 && std::find(sizes.begin(), sizes.end(), r.dofs) == sizes.end())
      sizes.push_back(r.dofs);
  if (sizes.empty()) return;
  int const host_threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  out << "\nTable I form: speedup of one whole leapfrog step over the Serial fractioned step (median of per-round\n"
      << "ratios, all four interleaved in one round; ms per step in parentheses, each from its own round)\n";
  out << std::left << std::setw(10) << "DoFs" << std::setw(20) << "Serial" << std::setw(22)
      << (host + " x" + std::to_string(host_threads)) << std::setw(28) << ("assembled SpMV (" + device + ")")
      << std::setw(28) << ("fractioned custom (" + device + ")") << "fractioned vs assembled\n";
  for (auto const dofs : sizes) {
    Record const* serial = find(records, dofs, "Serial", "step_fractioned", false);
    Record const* fractioned = find(records, dofs, device, "step_fractioned", true);
    std::ostringstream serial_cell;
    if (serial) serial_cell << "1 (" << std::fixed << std::setprecision(2) << serial->seconds_median * 1e3 << " ms)";
    std::ostringstream ratio;
    if (fractioned) ratio << std::fixed << std::setprecision(2) << fractioned->speedup_vs_assembled << 'x';
    out << std::left << std::setw(10) << dofs << std::setw(20) << serial_cell.str() << std::setw(22)
        << speedup_cell(find(records, dofs, host, "step_fractioned", true)) << std::setw(28)
        << speedup_cell(find(records, dofs, device, "step_assembled", true)) << std::setw(28)
        << speedup_cell(fractioned) << ratio.str() << '\n';
  }
}

void print_summary(std::ostream& out, std::vector<Record> const& records, Roof const& roof)
{
  std::string const device = Kokkos::DefaultExecutionSpace::name();
  std::int64_t largest = 0;
  for (auto const& r : records)
    if (r.backend == device && r.mesh.empty()) largest = std::max(largest, r.dofs);
  if (largest == 0) return; // mesh files only: their lines came with their rounds
  out << "\nAt the largest size (" << largest << " DoFs) on " << device << ", " << roof.device.name << ":\n";
  if (Record const* triad = find(records, largest, device, "stream_triad", false))
    out << "  roof            STREAM triad " << std::fixed << std::setprecision(1) << triad->gbps
        << " GB/s on 3 arrays of " << (roof.array_bytes >> 20) << " MiB\n";
  for (std::string const kernel : {"faraday", "step_fractioned"}) {
    Record const* first = nullptr;
    Record const* best = nullptr;
    for (auto const& r : records) {
      if (r.dofs != largest || r.backend != device || r.kernel != kernel || !r.mesh.empty()) continue;
      if (!first) first = &r;
      double const score = kernel == "step_fractioned" ? r.speedup_vs_assembled : r.fraction_of_triad;
      double const best_score = !best                         ? 0
                                : kernel == "step_fractioned" ? best->speedup_vs_assembled
                                                              : best->fraction_of_triad;
      if (!best || score > best_score) best = &r;
    }
    if (!first) continue;
    auto const figure = [&](Record const* r) {
      std::ostringstream text;
      text << std::fixed << std::setprecision(2);
      if (kernel == "step_fractioned")
        text << r->speedup_vs_assembled << "x faster than the assembled step";
      else
        text << r->fraction_of_triad << " of triad (" << std::setprecision(1) << r->gbps << " GB/s)";
      return text.str() + " [" + r->layout + "]";
    };
    out << "  " << std::left << std::setw(16) << kernel << figure(first);
    if (best != first) out << "; best layout " << figure(best);
    out << '\n';
  }
  // Every block pass: the first one measured is the backend's default.
  for (auto const& r : records) {
    if (r.dofs != largest || r.backend != device || r.kernel != "ampere" || !r.mesh.empty()) continue;
    out << "  " << std::left << std::setw(16) << "ampere" << std::setw(36) << r.layout << std::right << std::fixed
        << std::setprecision(2) << std::setw(8) << r.seconds_median * 1e3 << " ms " << std::setprecision(1)
        << std::setw(7) << static_cast<double>(r.bytes) * 1e-6 << " MB " << std::setw(5) << r.bytes_per_dof()
        << " B/DoF " << std::setw(6) << r.gbps << " GB/s " << std::setprecision(2) << r.fraction_of_triad
        << " of triad\n";
  }
}

void write_json(std::string const& path, std::vector<Record> const& records, Roof const& roof)
{
  std::ofstream file(path);
  if (!file) throw Error(path, "cannot open the JSON output for writing", "check the directory exists and is writable");
  std::string const cpu = json_string(cpu_model());
  std::string const host = json_string(host_name());
  std::string const date = json_string(utc_date());
  std::string const device = json_string(roof.device.name);
  file << std::setprecision(10) << "[\n";
  for (std::size_t i = 0; i < records.size(); ++i) {
    Record const& r = records[i];
    file << "  {\"backend\": " << json_string(r.backend) << ", \"threads\": " << r.threads << ", \"cells\": " << r.cells
         << ", \"mesh\": " << json_string(r.mesh.empty() ? "box" : r.mesh)
         << ", \"ordering\": " << json_string(r.ordering) << ", \"precision\": " << json_string(r.precision)
         << ", \"dofs\": " << r.dofs << ", \"kernel\": " << json_string(r.kernel)
         << ", \"layout\": " << json_string(r.layout) << ", \"repetitions\": " << r.repetitions
         << ", \"batch\": " << r.batch << ", \"seconds_median\": " << r.seconds_median << ", \"bytes\": " << r.bytes
         << ", \"flops\": " << r.flops << ", \"arithmetic_intensity\": " << r.arithmetic_intensity()
         << ", \"gbps\": " << r.gbps << ", \"triad_gbps\": " << r.triad_gbps
         << ", \"fraction_of_triad\": " << r.fraction_of_triad << ", \"updates\": " << r.updates
         << ", \"dof_updates_per_second\": " << r.dof_updates_per_second
         << ", \"speedup_vs_assembled\": " << r.speedup_vs_assembled
         << ", \"speedup_vs_serial\": " << r.speedup_vs_serial
         << ", \"speedup_vs_unordered\": " << r.speedup_vs_unordered
         << ", \"speedup_vs_first_precision\": " << r.speedup_vs_first_precision
         << ", \"bytes_per_dof\": " << r.bytes_per_dof() << ", \"device\": " << device
         << ", \"stream_array_bytes\": " << roof.array_bytes << ", \"cpu\": " << cpu << ", \"host\": " << host
         << ", \"date\": " << date << "}" << (i + 1 < records.size() ? "," : "") << '\n';
  }
  file << "]\n";
  if (!file) throw Error(path, "writing the JSON output failed", "check free disk space");
}

} // namespace dgatd::perf
