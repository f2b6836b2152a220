#pragma once
// Loops of the set-up stages (topology, geometry, operator assembly) on the host's threads: Kokkos'
// default host execution space, OpenMP in every shipped build (the CUDA one included), so the work
// around the GPU kernels does not run on one core. The bodies are plain host lambdas.

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace dgatd {

using HostRange = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<std::int64_t>>;

template <class Body>
void host_parallel_for(char const* label, std::int64_t count, Body const& body)
{
  Kokkos::parallel_for(label, HostRange(0, count), body);
}

// The smallest i in [0, count) for which body(i) returns false, or count when it never does: the
// loop body cannot throw across threads, so failures are found first and reported afterwards, the
// same item whatever the thread count.
template <class Body>
std::int64_t host_first_failure(char const* label, std::int64_t count, Body const& body)
{
  std::int64_t first = count;
  Kokkos::parallel_reduce(
      label, HostRange(0, count),
      [&body](std::int64_t i, std::int64_t& earliest) {
        if (!body(i) && i < earliest) earliest = i;
      },
      Kokkos::Min<std::int64_t>(first));
  return first < count ? first : count; // the reducer starts from the type's largest value
}

} // namespace dgatd
