#pragma once
// What a run leaves of the surface currents on named PEC surfaces ([[surface_current]],
// docs/method/surface_currents.md): per face of the surface and per side of it that the mesh fills,
// the surface current density J_s = n x h (A/m) and charge density rho_s = n . d (C/m^2), n the
// side's unit normal out of the conductor. A face on the mesh's boundary has one side (its front);
// a sheet inside the mesh has two, its front being the side its triangle's normal (the mesh file's
// vertex order) points to. In snapshots and transforms alike a face's values are eight numbers:
// J_s (three) and rho_s on its front, then on its back (zero where no tet lies).

#include "dgatd/vec3.hpp"

#include <array>
#include <complex>
#include <cstddef>
#include <string>
#include <vector>

namespace dgatd::solver {

inline constexpr std::size_t surface_values = 8; // per face: J_s front (3), rho_s front, J_s back (3), rho_s back

// The surface as the output draws it: a triangle per face, each with its own three corners.
struct SurfaceGeometry {
  std::vector<std::array<Vec3, 3>> corners;
  std::vector<Vec3> normals; // the front's unit normal
  std::vector<double> areas;
  std::vector<int> sides; // 1 or 2
  bool two_sided = false; // whether any face has two sides
  std::size_t faces() const { return areas.size(); }
};

// The values of one snapshot: J_s from h^(n-1/2), rho_s from e^n, at the snapshot's step n.
struct SurfaceSnapshot {
  std::string name;
  bool two_sided = false;
  std::vector<double> values; // surface_values per face
};

// The Fourier transforms a run accumulated, X(f) = sum_n x(t_n) exp(-i 2 pi f t_n) dt, J_s at
// t^(n+1/2) and rho_s at t^(n+1) over the steps n (A s/m, C s/m^2).
struct SurfaceCurrentRecord {
  std::string name;
  std::vector<double> frequencies;
  SurfaceGeometry geometry;
  // [frequency * faces + face][value], value as in surface_values.
  std::vector<std::array<std::complex<double>, surface_values>> transforms;
};

} // namespace dgatd::solver
