#pragma once
// The far field of a run's near-to-far-field surface (docs/method/plane_waves.md, section 5): Love's
// equivalence turns the transformed tangential fields on the closed surface into currents
// J = n x H and M = -n x E, which radiate into the homogeneous medium around them:
//   r E_theta = -i k / (4 pi) (L_phi + eta N_theta),   r E_phi = i k / (4 pi) (L_theta - eta N_phi),
//   N = sum over faces of J A exp(i k r^ . x),  L the same with M   (fields ~ exp(i w t), r E without
// exp(-i k r)). From it: the radiation intensity U = |r E|^2 / (2 eta), the radiated power (U over
// the sphere), the directivity 4 pi U / P and, for a plane-wave run, the bistatic radar cross
// section 4 pi |r E|^2 / |E_inc|^2. The transforms are spectral densities (V s/m), so powers come
// in W / Hz^2: only their ratios (directivity, cross sections, power balance) are physical as such.

#include "dgatd/solver/far_field_record.hpp"

#include <complex>
#include <string>
#include <vector>

namespace dgatd::io {

struct FarFieldSample {
  double theta = 0, phi = 0;           // degrees
  std::complex<double> e_theta, e_phi; // r E, V s (the transform's units times metres)
  double directivity = 0;              // 4 pi U / P
  double rcs = 0;                      // m^2; 0 without a plane wave
};

struct FarFieldPattern {
  std::string surface;
  double frequency = 0;
  double radiated = 0;      // U integrated over the sphere
  double flux = 0;          // 1/2 Re of (E x conj H) . n over the surface: the same power, seen on it
  FarFieldSample strongest; // of the grid, by directivity
  bool has_rcs = false;
  FarFieldSample backscatter; // towards -direction of the plane wave
  // With a plane wave, the total scattering cross section: radiated over the incident intensity
  // |E_inc|^2 / (2 eta), m^2; and, where the record holds the wave's origin, the extinction cross
  // section by the optical theorem and the absorption, extinction less scattering.
  double scattering = 0;
  bool has_extinction = false;
  double extinction = 0, absorption = 0;
  std::vector<FarFieldSample> grid;              // theta 0..180, phi 0..360 (excluded)
  std::vector<double> cut_phis;                  // degrees
  std::vector<std::vector<FarFieldSample>> cuts; // per cut: theta 0..360 by 1 degree through phi
};

// One pattern per frequency of the record, on a grid of theta_step x phi_step degrees and through the
// planes phi = cut_phis (theta past 180 reads phi + 180).
std::vector<FarFieldPattern> far_field_patterns(solver::FarFieldRecord const& record, double theta_step,
                                                double phi_step, std::vector<double> const& cut_phis);

// CSV: frequency_hz, theta_deg, phi_deg, r E_theta and r E_phi (re, im), directivity_dbi, and with
// a plane wave rcs_m2 and rcs_dbsm; the grid's rows in grid_csv, the cuts' (with cut_phi_deg first)
// in cuts_csv.
void write_far_field_csv(std::string const& grid_csv, std::string const& cuts_csv,
                         std::vector<FarFieldPattern> const& patterns);

} // namespace dgatd::io
