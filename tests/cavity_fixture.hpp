#pragma once
// A closed PEC box on a jittered structured mesh in c = 1 units (eps = mu = 1), the problem the
// solver tests step, and the comparison they share.

#include "dgatd/kernels/device_operators.hpp"
#include "dgatd/simulation/problem.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace dgatd::testing {

// The per-tet layout a space does not prefer, for the tests that step both.
template <class Space>
using OtherTetLayout = std::conditional_t<std::is_same_v<kernels::DefaultTetLayout<Space>, Kokkos::LayoutRight>,
                                          Kokkos::LayoutLeft, Kokkos::LayoutRight>;

using Cavity = simulation::Problem;

inline Cavity pec_box(double a, double b, double d, int nx, int ny, int nz, double jitter,
                      dga::AssemblyOptions const& options = {})
{
  mesh::StructuredBox box;
  box.size[0] = a;
  box.size[1] = b;
  box.size[2] = d;
  box.cells[0] = nx;
  box.cells[1] = ny;
  box.cells[2] = nz;
  box.jitter = jitter;
  return simulation::pec_box(box, 1.0, 1.0, options);
}

// Largest absolute difference over the largest reference magnitude: the max-norm relative error
// the equivalence and variant tests compare with their rounding bounds.
inline double relative_difference(std::vector<double> const& a, std::vector<double> const& reference)
{
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - reference[i]));
    scale = std::max(scale, std::abs(reference[i]));
  }
  return diff / scale;
}

} // namespace dgatd::testing
