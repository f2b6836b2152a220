#pragma once
// The backend a backend test compares its own execution space (DGATD_TEST_EXEC_SPACE) against:
// Serial, except in the Serial test executables, where it is the default host space (OpenMP in
// both of dgatd's builds), so that no test compares a backend with itself.

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace dgatd::testing {

template <class Space>
using ReferenceSpaceFor =
    std::conditional_t<std::is_same_v<Space, Kokkos::Serial>, Kokkos::DefaultHostExecutionSpace, Kokkos::Serial>;

// False only in a Kokkos built with Serial alone, where there is no second backend to compare with.
template <class Space>
inline constexpr bool has_reference_backend = !std::is_same_v<Space, ReferenceSpaceFor<Space>>;

} // namespace dgatd::testing
