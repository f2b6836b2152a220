#pragma once
// One mode of a port's cross-section as solver/port_modes.hpp finds it: its kind, cutoff, effective
// permittivity, impedance and fields per triangle of the section. Apart from the solvers, so that
// what only reads modes (mode ports, `dgatd ports`) does not compile Kokkos Kernels.

#include "dgatd/vec3.hpp"

#include <string>
#include <vector>

namespace dgatd::solver {

enum class ModeKind { tem, te, tm };
std::string mode_kind_name(ModeKind kind);

// One mode. Transverse fields are per triangle of the section, vectors of space in its plane, and the
// mode travels along the section's normal.
// - TEM: scalar is the potential with the mode's voltages (1 V on a single signal conductor; for
//   several, the largest conductor voltage is 1 V), electric = -grad(scalar) (V/m), magnetic =
//   sqrt(eps_eff) / (eta0 mu_r) normal x (-grad psi) (A/m), psi the potential of the same conductor
//   voltages without the dielectric (the 1/mu_r-weighted problem of C_mu): the magnetic field of a
//   quasi-TEM mode is magnetostatic, A_z = L I on the conductors with L = mu0 eps0 C_mu^-1, so its
//   pattern is the vacuum one; in a homogeneous fill psi = scalar and this is the transverse Faraday
//   law with beta = k0 sqrt(eps_eff). A port injects its current along this pattern (sources.cpp).
// - TE / TM: scalar is the H_z / E_z pattern, the integral of its square over the section 1 (its
//   largest value positive); electric is the transverse E pattern, TE: normal x grad(H_z) / k_c, TM:
//   -grad(E_z) / k_c, so its integral of |E_t|^2 over the section is 1; magnetic = normal x
//   electric, the transverse H pattern, to be divided by the mode's wave impedance at the frequency
//   (TE: omega mu / beta, TM: beta / (omega eps)).
struct PortMode {
  ModeKind kind = ModeKind::tem;
  double cutoff_wavenumber = 0; // k_c (1/m); 0 for TEM
  double cutoff_frequency = 0;  // c0 k_c / (2 pi sqrt(eps_r mu_r)) (Hz); 0 for TEM
  double eps_eff = 0;           // (beta / k0)^2 above cut-off: TEM C / C_mu, TE/TM the fill's eps_r mu_r
  double impedance = 0;         // TEM: Z0 = V^T V / V^T I (ohm); TE/TM: 0 (it depends on the frequency)
  std::vector<double> voltages; // TEM: per signal conductor (conductor 1, 2, ...), V
  std::vector<double> scalar;   // per section vertex
  std::vector<Vec3> electric;   // per section triangle
  std::vector<Vec3> magnetic;   // per section triangle
  int iterations = 0;           // the largest count of the CG solves (TEM) or the LOBPCG iterations
  double relative_residual = 0; // the largest of the solves'
};

} // namespace dgatd::solver
