#pragma once
// Host arrays to device Views and the short loops around the hot kernels: what every module that
// puts data on an execution space shares.

#include "dgatd/host_parallel.hpp"
#include "dgatd/kernels/matrix_precision.hpp"
#include "dgatd/kokkos_compat.hpp"
#include "dgatd/types.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace dgatd::kernels {

// A host array (anything with size() and operator[]) as a rank-1 device View of DeviceView's type.
template <class DeviceView, class HostVector>
DeviceView upload_flat(std::string const& label, HostVector const& values)
{
  DeviceView view(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), values.size());
  auto host = compat::create_mirror_view_no_init(view);
  host_parallel_for("dgatd::upload", static_cast<std::int64_t>(values.size()),
                    [&](std::int64_t i) { host(i) = static_cast<typename DeviceView::value_type>(values[i]); });
  Kokkos::deep_copy(view, host);
  return view;
}

// Host rows (each with size() and operator[], e.g. std::array) as a rank-2 device View.
template <class DeviceView, class HostRows>
DeviceView upload_rows(std::string const& label, HostRows const& rows)
{
  DeviceView view(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), rows.size());
  auto host = compat::create_mirror_view_no_init(view);
  host_parallel_for("dgatd::upload", static_cast<std::int64_t>(rows.size()), [&](std::int64_t i) {
    for (std::size_t c = 0; c < rows[i].size(); ++c)
      host(i, c) = static_cast<typename DeviceView::value_type>(rows[i][c]);
  });
  Kokkos::deep_copy(view, host);
  return view;
}

// A flat host array of rows of N numbers each as a (rows x N) device View.
template <int N, class MemorySpace, class HostVector>
Kokkos::View<Real* [N], MemorySpace> upload_table(std::string const& label, HostVector const& values) {
  std::size_t const rows = values.size() / N;
  Kokkos::View<Real* [N], MemorySpace> view(label, rows);
  auto host = Kokkos::create_mirror_view(view);
  for (std::size_t r = 0; r < rows; ++r)
    for (int j = 0; j < N; ++j) host(r, j) = static_cast<Real>(values[N * r + j]);
  Kokkos::deep_copy(view, host);
  return view;
}

// A term's matrices as rows of N numbers (N = 0: one flat array), held in the run's precision: the
// View of that scalar is allocated and the other stays empty; kernels take view<Scalar>() inside
// with_matrix_scalar(precision(), ...).
template <int N, class MemorySpace>
class MatrixTable {
  static constexpr int width = N == 0 ? 1 : N; // numbers per row
  template <class Scalar>
  using Data = std::conditional_t<N == 0, Scalar*, Scalar* [width]>;

public:
  template <class Scalar>
  using ViewOf = Kokkos::View<Data<Scalar>, MemorySpace>;

  MatrixTable() = default;
  template <class HostVector>
  MatrixTable(std::string const& label, HostVector const& values, MatrixPrecision precision) : precision_(precision)
  {
    with_matrix_scalar(precision, [&](auto scalar) {
      using Scalar = decltype(scalar);
      ViewOf<Scalar> view(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), values.size() / width);
      auto host = compat::create_mirror_view_no_init(view);
      for (std::size_t i = 0; i < values.size(); ++i) {
        if constexpr (N == 0)
          host(i) = static_cast<Scalar>(values[i]);
        else
          host(i / width, i % width) = static_cast<Scalar>(values[i]);
      }
      Kokkos::deep_copy(view, host);
      std::get<ViewOf<Scalar>>(views_) = view;
    });
  }

  MatrixPrecision precision() const { return precision_; }
  template <class Scalar>
  ViewOf<Scalar> const& view() const
  {
    return std::get<ViewOf<Scalar>>(views_);
  }
  std::size_t rows() const
  {
    return precision_ == MatrixPrecision::float32 ? view<float>().extent(0) : view<double>().extent(0);
  }
  std::int64_t bytes() const { return static_cast<std::int64_t>(rows() * width * matrix_scalar_size(precision_)); }

private:
  MatrixPrecision precision_ = MatrixPrecision::float64;
  std::tuple<ViewOf<double>, ViewOf<float>> views_;
};

// A rank-2 View's entries row by row, appended to a host vector (checkpoints of a term's state).
template <class View>
void append_rows(View const& view, std::vector<double>& out)
{
  auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  for (std::size_t r = 0; r < host.extent(0); ++r)
    for (std::size_t c = 0; c < host.extent(1); ++c) out.push_back(host(r, c));
}

// The inverse of append_rows: the View's entries from values, row by row.
template <class View>
void fill_rows(View const& view, double const* values)
{
  auto host = Kokkos::create_mirror_view(view);
  for (std::size_t r = 0; r < host.extent(0); ++r)
    for (std::size_t c = 0; c < host.extent(1); ++c) host(r, c) = *values++;
  Kokkos::deep_copy(view, host);
}

// n work items of a short loop on space, labelled for Kokkos Tools.
template <class ExecutionSpace, class Functor>
void for_each(char const* label, ExecutionSpace const& space, std::size_t n, Functor const& functor)
{
  Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecutionSpace>(space, 0, n), functor);
}

// The sum of a functor's contributions over n work items.
template <class ExecutionSpace, class Functor>
double sum_over(char const* label, ExecutionSpace const& space, std::size_t n, Functor const& functor)
{
  double sum = 0;
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecutionSpace>(space, 0, n), functor, sum);
  return sum;
}

} // namespace dgatd::kernels
