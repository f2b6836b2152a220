#pragma once
// Dispersive media (docs/method/dispersive_media.md): eps(w) = eps_inf + sum over poles of chi_p(w),
// with the time dependence e^(+j w t) of `dgatd sparams` and `dgatd farfield` (a lossy medium has
// Im eps < 0). Every pole is a small real system driven by the field e,
//   x' = A x + B e,   the polarisation current J_p = eps0 (C x + D e),
// with one state per field component (a real pole: Debye, Drude, a real pole of a fit) or two
// (a complex pair: Lorentz, a pole-residue pair), so chi_p(w) = (C (j w - A)^-1 B + D) / (j w).
// The time step takes the trapezoidal rule on x with the field's average over the step (PoleRule),
// which keeps the field's energy plus the poles' stored energy from growing for every passive model.

#include <array>
#include <cmath>
#include <complex>
#include <vector>

namespace dgatd::dga {

struct Pole {
  int order = 1; // states per field component
  std::array<double, 4> a{};
  std::array<double, 2> b{}, c{};
  double d = 0;
};

// Debye: chi = delta_eps / (1 + j w tau); x = P / eps0.
inline Pole debye_pole(double delta_eps, double tau)
{
  return {1, {-1 / tau, 0, 0, 0}, {delta_eps / tau, 0}, {-1 / tau, 0}, delta_eps / tau};
}

// Drude: chi = -omega_p^2 / (w^2 - j w gamma); x = J / eps0, J' + gamma J = eps0 omega_p^2 e.
inline Pole drude_pole(double omega_p, double gamma)
{
  return {1, {-gamma, 0, 0, 0}, {omega_p * omega_p, 0}, {1, 0}, 0};
}

// Lorentz: chi = delta_eps omega_0^2 / (omega_0^2 - w^2 + 2 j w delta); x = (P, P') / eps0.
inline Pole lorentz_pole(double delta_eps, double omega_0, double delta)
{
  return {2, {0, 1, -omega_0 * omega_0, -2 * delta}, {0, delta_eps * omega_0 * omega_0}, {0, 1}, 0};
}

// A pole-residue pair: chi = c / (j w - a) + conj(c) / (j w - conj(a)); x = (Re p, Im p) of the
// complex p' = a p + c e, P / eps0 = 2 Re p. A real a with a real c is one real pole, 2 c / (j w - a).
inline Pole pole_residue_pair(std::complex<double> a, std::complex<double> c)
{
  if (a.imag() == 0 && c.imag() == 0) return {1, {a.real(), 0, 0, 0}, {c.real(), 0}, {2 * a.real(), 0}, 2 * c.real()};
  return {
      2, {a.real(), -a.imag(), a.imag(), a.real()}, {c.real(), c.imag()}, {2 * a.real(), -2 * a.imag()}, 2 * c.real()};
}

// chi_p(w) of one pole, w > 0 in rad/s.
inline std::complex<double> susceptibility(Pole const& p, double omega)
{
  std::complex<double> const s(0, omega);
  std::complex<double> response = p.d;
  if (p.order == 1) {
    response += p.c[0] * p.b[0] / (s - p.a[0]);
  } else {
    // (s I - A)^-1 B by Cramer's rule.
    std::complex<double> const m00 = s - p.a[0], m01 = -p.a[1], m10 = -p.a[2], m11 = s - p.a[3];
    std::complex<double> const det = m00 * m11 - m01 * m10;
    std::complex<double> const x0 = (m11 * p.b[0] - m01 * p.b[1]) / det;
    std::complex<double> const x1 = (m00 * p.b[1] - m10 * p.b[0]) / det;
    response += p.c[0] * x0 + p.c[1] * x1;
  }
  return response / s;
}

// The pole with its response times factor (its drive and direct coupling scaled).
inline Pole scaled_pole(Pole p, double factor)
{
  p.b[0] *= factor;
  p.b[1] *= factor;
  p.d *= factor;
  return p;
}

// A material's model: eps_inf is the material's eps_r; the poles add to it.
struct Dispersion {
  std::vector<Pole> poles;
  std::complex<double> susceptibility(double omega) const
  {
    std::complex<double> chi = 0;
    for (auto const& p : poles) chi += dga::susceptibility(p, omega);
    return chi;
  }
};

// One pole over a step of dt, field average e_avg = (e^n + e^(n+1)) / 2:
//   x^(n+1) = advance x^n + drive e_avg,   advance = (I - dt A / 2)^-1 (I + dt A / 2),
//   drive = dt (I - dt A / 2)^-1 B,
// and the current's average over the step, (J^n + J^(n+1)) / (2 eps0) = history . x^n +
// conductance e_avg with history = C (I + advance) / 2 and conductance = C drive / 2 + D.
struct PoleRule {
  std::array<double, 4> advance{};
  std::array<double, 2> drive{}, history{};
  double conductance = 0;
  bool singular = false; // I - dt A / 2 singular: the step resonates with the pole
};

inline PoleRule pole_rule(Pole const& p, double dt)
{
  PoleRule rule;
  double const h = dt / 2;
  if (p.order == 1) {
    double const left = 1 - h * p.a[0];
    if (left == 0) return PoleRule{{}, {}, {}, 0, true};
    rule.advance[0] = (1 + h * p.a[0]) / left;
    rule.drive[0] = dt * p.b[0] / left;
    rule.history[0] = p.c[0] * (1 + rule.advance[0]) / 2;
    rule.conductance = p.c[0] * rule.drive[0] / 2 + p.d;
    return rule;
  }
  // inverse of L = I - h A
  double const l00 = 1 - h * p.a[0], l01 = -h * p.a[1], l10 = -h * p.a[2], l11 = 1 - h * p.a[3];
  double const det = l00 * l11 - l01 * l10;
  if (det == 0) return PoleRule{{}, {}, {}, 0, true};
  double const i00 = l11 / det, i01 = -l01 / det, i10 = -l10 / det, i11 = l00 / det;
  double const r00 = 1 + h * p.a[0], r01 = h * p.a[1], r10 = h * p.a[2], r11 = 1 + h * p.a[3];
  rule.advance = {i00 * r00 + i01 * r10, i00 * r01 + i01 * r11, i10 * r00 + i11 * r10, i10 * r01 + i11 * r11};
  rule.drive = {dt * (i00 * p.b[0] + i01 * p.b[1]), dt * (i10 * p.b[0] + i11 * p.b[1])};
  rule.history = {(p.c[0] * (1 + rule.advance[0]) + p.c[1] * rule.advance[2]) / 2,
                  (p.c[0] * rule.advance[1] + p.c[1] * (1 + rule.advance[3])) / 2};
  rule.conductance = (p.c[0] * rule.drive[0] + p.c[1] * rule.drive[1]) / 2 + p.d;
  return rule;
}

} // namespace dgatd::dga
