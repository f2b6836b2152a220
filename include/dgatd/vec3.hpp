#pragma once
// A point or vector of R^3 on the host (mesh coordinates, geometric factors, configuration, output)
// and the few operations on it the code uses. A plain std::array and no Kokkos, so the mesh and io
// headers that spell it stay light.

#include <array>
#include <cmath>

namespace dgatd {

using Vec3 = std::array<double, 3>;

inline Vec3 add(Vec3 const& x, Vec3 const& y) { return {x[0] + y[0], x[1] + y[1], x[2] + y[2]}; }
inline Vec3 sub(Vec3 const& x, Vec3 const& y) { return {x[0] - y[0], x[1] - y[1], x[2] - y[2]}; }
inline Vec3 scaled(Vec3 const& x, double s) { return {s * x[0], s * x[1], s * x[2]}; }
inline double dot(Vec3 const& x, Vec3 const& y) { return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]; }
inline Vec3 cross(Vec3 const& x, Vec3 const& y)
{
  return {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]};
}
inline double norm(Vec3 const& x) { return std::sqrt(dot(x, x)); }
inline double squared_distance(Vec3 const& x, Vec3 const& y)
{
  return (x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) + (x[2] - y[2]) * (x[2] - y[2]);
}

} // namespace dgatd
