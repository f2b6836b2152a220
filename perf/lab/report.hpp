#pragma once
// What the lab prints and writes: the machine header, the live table, the paper's Table I form,
// the largest-size summary and the JSON records.

#include "lab/kernel_bench.hpp"

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

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

// How many runs of consecutive numbers a list makes: the separate ranges a kernel over it reads.
std::size_t consecutive_runs(std::vector<Index> const& list);

// Every record carries the device and the STREAM array size of the roof it was compared with.
void write_json(std::string const& path, std::vector<Record> const& records, Roof const& roof);

} // namespace dgatd::perf
