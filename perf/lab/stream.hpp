#pragma once
// STREAM copy and triad as Kokkos kernels on the benchmarked execution space: the bandwidth roof
// each kernel is compared with, measured in the same process with the same runtime. Counted the
// STREAM way: copy 2 x 8 bytes, triad 3 x 8 bytes per element (no write-allocate traffic).

#include "dgatd/kokkos_compat.hpp"
#include "dgatd/types.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

namespace dgatd::perf {

template <class ExecutionSpace>
struct StreamArrays {
  using memory_space = typename ExecutionSpace::memory_space;
  using view_type = Kokkos::View<Real*, memory_space>;
  using const_view_type = Kokkos::View<Real const*, memory_space>;
  using policy_type = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;

  // Work item i takes the elements i, i + q, i + 2 q, .. (q = the item count), loading all of them
  // before storing any, so that each GPU thread keeps several loads in flight; one element per
  // thread left an H200's triad at 2.5 TB/s, below what dgatd's own kernels moved. On CPU cores one
  // element per item, the classic STREAM loop.
  static constexpr int elements_per_item =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible ? 1 : 4;

  struct Copy {
    view_type c;
    const_view_type a;
    std::int64_t n;
    std::int64_t stride;
    KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const
    {
      Real value[elements_per_item] = {};
      for (int k = 0; k < elements_per_item; ++k)
        if (i + k * stride < n) value[k] = a(i + k * stride);
      for (int k = 0; k < elements_per_item; ++k)
        if (i + k * stride < n) c(i + k * stride) = value[k];
    }
  };

  struct Triad {
    view_type a;
    const_view_type b;
    const_view_type c;
    Real scalar;
    std::int64_t n;
    std::int64_t stride;
    KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const
    {
      Real value[elements_per_item] = {};
      for (int k = 0; k < elements_per_item; ++k)
        if (i + k * stride < n) value[k] = b(i + k * stride) + scalar * c(i + k * stride);
      for (int k = 0; k < elements_per_item; ++k)
        if (i + k * stride < n) a(i + k * stride) = value[k];
    }
  };

  // First touch by the benchmarked space, so pages land where its threads run.
  StreamArrays(ExecutionSpace const& s, std::size_t array_bytes)
      : space(s), a(Kokkos::view_alloc(Kokkos::WithoutInitializing, "dgatd::stream_a"), array_bytes / sizeof(Real)),
        b(Kokkos::view_alloc(Kokkos::WithoutInitializing, "dgatd::stream_b"), array_bytes / sizeof(Real)),
        c(Kokkos::view_alloc(Kokkos::WithoutInitializing, "dgatd::stream_c"), array_bytes / sizeof(Real))
  {
    Kokkos::deep_copy(space, a, 1.0);
    Kokkos::deep_copy(space, b, 2.0);
    Kokkos::deep_copy(space, c, 0.5);
    compat::fence(space, "dgatd::stream_init");
  }

  std::int64_t size() const { return static_cast<std::int64_t>(a.extent(0)); }
  std::int64_t copy_bytes() const { return 2 * size() * static_cast<std::int64_t>(sizeof(Real)); }
  std::int64_t triad_bytes() const { return 3 * size() * static_cast<std::int64_t>(sizeof(Real)); }

  std::int64_t items() const { return (size() + elements_per_item - 1) / elements_per_item; }

  void copy() const
  {
    Kokkos::parallel_for("dgatd::stream_copy", policy_type(space, 0, items()), Copy{c, a, size(), items()});
  }
  void triad() const
  {
    Kokkos::parallel_for("dgatd::stream_triad", policy_type(space, 0, items()), Triad{a, b, c, 3.0, size(), items()});
  }

  ExecutionSpace space;
  view_type a;
  view_type b;
  view_type c;
};

} // namespace dgatd::perf
