#pragma once
// The project's aliases: one scalar, the index type (index.hpp), the default spaces and the View shapes.

#include "dgatd/index.hpp"

#include <Kokkos_Core.hpp>

namespace dgatd {

using Real = double;

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;
using HostSpace = Kokkos::HostSpace;

template <class T, class Space = MemSpace>
using View1 = Kokkos::View<T*, Space>;
template <class T, class Space = MemSpace>
using View2 = Kokkos::View<T**, Space>;

} // namespace dgatd
