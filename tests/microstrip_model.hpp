#pragma once
// The transmission-line model of a microstrip line with an open shunt stub (zero strip thickness,
// lossless substrate), from the closed forms circuit simulators use:
// - the line: Hammerstad and Jensen's quasi-static eps_eff and Z0 (IEEE MTT-S Digest 1980, 1 % or
//   better for 0.01 <= w/h <= 100) and Kirschning and Jansen's dispersion of eps_eff (Electronics
//   Letters 18, 1982, 0.6 % up to 60 GHz mm);
// - the open end: Kirschning, Jansen and Koster's length extension (Electronics Letters 17, 1981);
// - the T-junction: Hammerstad's model (Proc. 5th European Microwave Conference, 1975), whose side
//   arm starts at the through line's centre, shortened by d2.
// The stub's input shorts the junction's node where beta (L_arm + L + Delta l) = pi / 2, L the stub's
// length from the through line's edge, L_arm = w_line / 2 - d2: that is the notch of S21, whatever
// the junction's shunt susceptance and transformers.

#include <cmath>

namespace dgatd::testing::microstrip {

constexpr double light = 299792458.0;
constexpr double eta0 = 376.730313668;

struct Line {
  double eps_eff = 0; // quasi-static
  double z0 = 0;      // ohm, quasi-static
};

// Hammerstad and Jensen, a strip of width w on a substrate of height h (any unit) and eps_r.
inline Line quasi_static(double w, double h, double eps_r)
{
  double const u = w / h;
  double const a = 1 + std::log((std::pow(u, 4) + std::pow(u / 52, 2)) / (std::pow(u, 4) + 0.432)) / 49 +
                   std::log(1 + std::pow(u / 18.1, 3)) / 18.7;
  double const b = 0.564 * std::pow((eps_r - 0.9) / (eps_r + 3), 0.053);
  Line line;
  line.eps_eff = (eps_r + 1) / 2 + (eps_r - 1) / 2 * std::pow(1 + 10 / u, -a * b);
  double const f = 6 + (2 * M_PI - 6) * std::exp(-std::pow(30.666 / u, 0.7528));
  line.z0 = eta0 / (2 * M_PI) * std::log(f / u + std::sqrt(1 + 4 / (u * u))) / std::sqrt(line.eps_eff);
  return line;
}

// Kirschning and Jansen: eps_eff at frequency (Hz), h in metres.
inline double dispersive_eps_eff(double w, double h, double eps_r, double frequency)
{
  double const u = w / h, fn = frequency * h / 1e6; // GHz mm
  double const eps0 = quasi_static(w, h, eps_r).eps_eff;
  double const p1 = 0.27488 + (0.6315 + 0.525 / std::pow(1 + 0.0157 * fn, 20)) * u - 0.065683 * std::exp(-8.7513 * u);
  double const p2 = 0.33622 * (1 - std::exp(-0.03442 * eps_r));
  double const p3 = 0.0363 * std::exp(-4.6 * u) * (1 - std::exp(-std::pow(fn / 38.7, 4.97)));
  double const p4 = 1 + 2.751 * (1 - std::exp(-std::pow(eps_r / 15.916, 8)));
  double const p = p1 * p2 * std::pow((0.1844 + p3 * p4) * fn, 1.5763);
  return eps_r - (eps_r - eps0) / (1 + p);
}

// Kirschning, Jansen and Koster: the open end's length extension (h's unit).
inline double open_end_extension(double w, double h, double eps_r, double eps_eff)
{
  double const u = w / h;
  double const q6 = std::pow(eps_eff, 0.81), q7 = std::pow(u, 0.8544);
  double const q1 = 0.434907 * (q6 + 0.26) / (q6 - 0.189) * (q7 + 0.236) / (q7 + 0.87);
  double const q2 = 1 + std::pow(u, 0.371) / (2.358 * eps_r + 1);
  double const q3 = 1 + 0.5274 * std::atan(0.084 * std::pow(u, 1.9413 / q2)) / std::pow(eps_eff, 0.9236);
  double const q4 = 1 + 0.0377 * std::atan(0.067 * std::pow(u, 1.456)) * (6 - 5 * std::exp(0.036 * (1 - eps_r)));
  double const q5 = 1 - 0.218 * std::exp(-7.5 * u);
  return h * q1 * q3 * q5 / q4;
}

// Hammerstad: how far short of the through line's centre the side arm of a T-junction starts, for a
// through line of width w_line and a side arm of width w_stub (metres) at frequency (Hz).
inline double junction_shortening(double w_line, double w_stub, double h, double eps_r, double frequency)
{
  auto const line = quasi_static(w_line, h, eps_r);
  auto const stub = quasi_static(w_stub, h, eps_r);
  double const eps_line = dispersive_eps_eff(w_line, h, eps_r, frequency);
  double const d_line = eta0 / line.z0 * h / std::sqrt(eps_line); // the parallel-plate equivalent width
  double const r = line.z0 / stub.z0;
  double const cutoff = 0.4e6 * line.z0 / h; // the line's first higher mode, Hz
  double const q = std::pow(frequency / cutoff, 2);
  return d_line * (0.5 - r * (0.05 + 0.7 * std::exp(-1.6 * r) + 0.25 * r * q - 0.17 * std::log(r)));
}

// The frequency (Hz) of the notch of S21 of a stub of length stub_length (metres, from the through
// line's edge) and width w_stub on a line of width w_line, by fixed-point iteration on
// f = c / (4 sqrt(eps_eff(f)) L_eff(f)).
inline double stub_notch(double w_line, double w_stub, double stub_length, double h, double eps_r)
{
  double f = light / (4 * stub_length * std::sqrt(quasi_static(w_stub, h, eps_r).eps_eff));
  for (int i = 0; i < 50; ++i) {
    double const eps = dispersive_eps_eff(w_stub, h, eps_r, f);
    double const length = stub_length + w_line / 2 - junction_shortening(w_line, w_stub, h, eps_r, f) +
                          open_end_extension(w_stub, h, eps_r, eps);
    f = light / (4 * length * std::sqrt(eps));
  }
  return f;
}

} // namespace dgatd::testing::microstrip
