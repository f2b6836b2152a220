#pragma once
// A coarse step's response to the forcing rates of the currents the leapfrog solves for through the
// local steps' levels (Term::implicit_currents; docs/method/local_time_stepping.md, section 6). Every
// operator of a step is linear, so with local steps the fields the step leaves before end_step are
// affine in those rates: per rate, the change of u^ and f^ a unit of it makes (sparse: the levels
// carry it a few tets from the current), and the change of each current, measured once by stepping
// from the zero field (solver/leapfrog.hpp).

#include "dgatd/kernels/upload.hpp"
#include "dgatd/types.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <vector>

namespace dgatd::solver {

// The entries where two fields differ, and the difference over scale there.
struct SparseDifference {
  std::vector<Index> entries;
  std::vector<double> values;
};

inline SparseDifference sparse_difference(std::vector<double> const& from, std::vector<double> const& to, double scale)
{
  SparseDifference difference;
  for (std::size_t i = 0; i < from.size(); ++i)
    if (to[i] != from[i]) {
      difference.entries.push_back(static_cast<Index>(i));
      difference.values.push_back((to[i] - from[i]) / scale);
    }
  return difference;
}

// One rate's response on the device: u^ entries and f^ values (tet times 4 plus column).
template <class MemorySpace, class FieldScalar>
struct CurrentResponse {
  Kokkos::View<Index*, MemorySpace> u_entries, f_entries;
  Kokkos::View<FieldScalar*, MemorySpace> u_values, f_values;
};

template <class MemorySpace, class FieldScalar>
CurrentResponse<MemorySpace, FieldScalar> upload_response(SparseDifference const& u, SparseDifference const& f)
{
  using Entries = Kokkos::View<Index*, MemorySpace>;
  using Values = Kokkos::View<FieldScalar*, MemorySpace>;
  return {kernels::upload_flat<Entries>("dgatd::response_u_entries", u.entries),
          kernels::upload_flat<Entries>("dgatd::response_f_entries", f.entries),
          kernels::upload_flat<Values>("dgatd::response_u", u.values),
          kernels::upload_flat<Values>("dgatd::response_f", f.values)};
}

namespace kernels_responses {

template <class MemorySpace, class FieldScalar>
struct AddToUnknowns {
  Kokkos::View<Index*, MemorySpace> entries;
  Kokkos::View<FieldScalar*, MemorySpace> values, u;
  double amount;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i) const
  {
    u(entries(i)) += static_cast<FieldScalar>(amount * values(i));
  }
};

template <class FieldView, class MemorySpace, class FieldScalar>
struct AddToTetValues {
  Kokkos::View<Index*, MemorySpace> entries;
  Kokkos::View<FieldScalar*, MemorySpace> values;
  FieldView f;
  double amount;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i) const
  {
    f(entries(i) / 4, entries(i) % 4) += static_cast<FieldScalar>(amount * values(i));
  }
};

} // namespace kernels_responses

// u^ and f^ += amount times the response.
template <class ExecutionSpace, class FieldView, class MemorySpace, class FieldScalar>
void add_response(ExecutionSpace const& space, CurrentResponse<MemorySpace, FieldScalar> const& response, double amount,
                  Kokkos::View<FieldScalar*, MemorySpace> const& u, FieldView const& f)
{
  kernels::for_each(
      "dgatd::response_u", space, response.u_entries.extent(0),
      kernels_responses::AddToUnknowns<MemorySpace, FieldScalar>{response.u_entries, response.u_values, u, amount});
  kernels::for_each("dgatd::response_f", space, response.f_entries.extent(0),
                    kernels_responses::AddToTetValues<FieldView, MemorySpace, FieldScalar>{
                        response.f_entries, response.f_values, f, amount});
}

} // namespace dgatd::solver
