#pragma once
// What a run leaves of a near-to-far-field surface (solver/far_field.hpp) for `dgatd farfield`.

#include "dgatd/vec3.hpp"

#include <array>
#include <complex>
#include <string>
#include <vector>

namespace dgatd::solver {

// The Fourier transforms a run accumulated on a surface: X(f) = sum_n x(t_n) exp(-i 2 pi f t_n) dt
// over its steps, e at t^n, h at t^(n-1/2) (V s/m, A s/m), per frequency and face.
struct FarFieldRecord {
  std::string name;
  std::vector<double> frequencies;
  double eps = 0, mu = 0;
  std::vector<Vec3> centroids;
  std::vector<Vec3> normals;
  std::vector<double> areas;
  std::vector<std::array<std::complex<double>, 3>> e; // [frequency * faces + face]
  std::vector<std::array<std::complex<double>, 3>> h;
  // The run's plane wave, if any (for radar cross sections): its direction, polarization and the
  // transform of its e at its origin over the same times, per frequency; the origin (m), which
  // references the incident phase for the extinction (files written before it lack it: has_origin).
  bool has_incident = false;
  Vec3 incident_direction{};
  Vec3 incident_polarization{};
  bool has_origin = false;
  Vec3 incident_origin{};
  std::vector<std::complex<double>> incident;
};

} // namespace dgatd::solver
