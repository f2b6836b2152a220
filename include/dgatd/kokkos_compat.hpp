#pragma once
// Every difference between Kokkos 3.4 and 5.x that dgatd touches, and nothing else.

#include <Kokkos_Core.hpp>

#include <string>

// Kokkos's math functions moved from Kokkos::Experimental to Kokkos in 3.7 (the aliases went in 4.3).
namespace dgatd::kmath {
#if KOKKOS_VERSION >= 30700
using Kokkos::cos;
using Kokkos::exp;
using Kokkos::fabs;
using Kokkos::sin;
#else
using Kokkos::Experimental::cos;
using Kokkos::Experimental::exp;
using Kokkos::Experimental::fabs;
using Kokkos::Experimental::sin;
#endif
} // namespace dgatd::kmath

namespace dgatd::compat {

template <class ExecutionSpace>
void fence(ExecutionSpace const& space, [[maybe_unused]] std::string const& label)
{
#if KOKKOS_VERSION >= 30500
  space.fence(label);
#else
  space.fence();
#endif
}

// Kokkos::Profiling::ScopedRegion exists only from 4.1.
class ScopedRegion {
public:
  explicit ScopedRegion(std::string const& name) { Kokkos::Profiling::pushRegion(name); }
  ~ScopedRegion() { Kokkos::Profiling::popRegion(); }
  ScopedRegion(ScopedRegion const&) = delete;
  ScopedRegion& operator=(ScopedRegion const&) = delete;
};

template <class V>
auto create_mirror_view_no_init(V const& v)
{
#if KOKKOS_VERSION >= 30600
  return Kokkos::create_mirror_view(Kokkos::WithoutInitializing, v);
#else
  return Kokkos::create_mirror_view(Kokkos::HostSpace(), v, Kokkos::WithoutInitializing);
#endif
}

} // namespace dgatd::compat

namespace dgatd::compat {

// Names of the execution spaces this Kokkos was built with, default first.
std::string enabled_execution_spaces();

// The thread-count option: --kokkos-num-threads from 3.7, --kokkos-threads before.
std::string translate_kokkos_argument(std::string const& argument);

// The option that picks GPU id: --kokkos-device-id from 3.7, --kokkos-device before.
std::string device_id_argument(int id);

} // namespace dgatd::compat
