#pragma once
// What the lab prints and writes: the machine header, the live table, the paper's Table I form,
// the largest-size summary and the JSON records.

#include "lab/kernel_bench.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace dgatd::solver {
struct LocalStepPlan;
}

namespace dgatd::perf {

// Comment lines (#): date, host, CPU model, backend, threads, Kokkos version, OpenMP binding.
std::string machine_description();

void print_table_header(std::ostream& out);
void print_row(std::ostream& out, Record const& r);

// DoFs | Serial | host parallel | assembled SpMV | fractioned custom, as speedups over Serial.
void print_table_one(std::ostream& out, std::vector<Record> const& records);

// The roof (device, triad GB/s, array size), Faraday's fraction of triad, every Ampere block pass
// and the step speedup at the largest size.
void print_summary(std::ostream& out, std::vector<Record> const& records, Roof const& roof);

// How far each local-step level's lists are from ranges of consecutive numbers (the kernels of a
// level read through them): its tets, its blocks and the unknowns its tets read, each as the runs
// of consecutive numbers they make in the mesh's numbering, and their mean length; a # line each.
void print_level_runs(std::ostream& out, solver::LocalStepPlan const& plan);

// Every record carries the device and the STREAM array size of the roof it was compared with.
void write_json(std::string const& path, std::vector<Record> const& records, Roof const& roof);

} // namespace dgatd::perf
