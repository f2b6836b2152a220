#pragma once
// The project's aliases: one scalar, one index type, the default spaces and the View shapes.

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace dgatd {

using Real = double;
// 32-bit indices: meshes up to two billion entities, half the index traffic of 64-bit ones.
using Index = std::int32_t;

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;
using HostSpace = Kokkos::HostSpace;

template <class T, class Space = MemSpace>
using View1 = Kokkos::View<T*, Space>;
template <class T, class Space = MemSpace>
using View2 = Kokkos::View<T**, Space>;

} // namespace dgatd
