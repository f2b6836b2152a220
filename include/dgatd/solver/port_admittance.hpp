#pragma once
// The host side of a matched TE10 port (solver/matched_port.hpp): its discrete wave admittance and
// the history of modal voltages and drives its convolution needs. Plain C++, compiled once in
// src/solver/port_admittance.cpp.
//
// The port closes the guide with the TE10 wave admittance Y(s) = Y0 sqrt(s^2 + wc^2) / s. With the
// drive s = V - 2 V_inc the modal current I = Y s enters Ampere like an impressed current c_e I on
// the port's edges, at t^(n+1/2), and the leapfrog's energy changes by -dt I^(n+1/2) (V^n + V^(n+1)) / 2.
// Y is discretised by the bilinear map s = (2 / dt) (1 - z^-1) / (1 + z^-1) acting on the half-step
// drives s^(j+1/2) = (V^j + V^(j+1)) / 2 - 2 (V_inc^j + V_inc^(j+1)) / 2:
//   I^(n+1/2) = Y0 sum_(k=0..n) y_k s^(n+1/2-k),   sum_k y_k z^-k = sqrt((1 - w)^2 + q (1 + w)^2) / (1 - w),
// w = z^-1, q = (wc dt / 2)^2. The bilinear map sends the unit circle onto the imaginary axis, so
// the discrete admittance keeps Re >= 0 and the port cannot feed the field (docs/method/open_regions.md
// section 5; the midpoint rule on the continuous kernel dipped to -0.2 % of Y0 just below cutoff
// and slowly grew a sub-cutoff field). y_0 enters time-averaged, a rank-one implicit solve:
// V^(n+1) = q.u* / (1 + dt Y0 y_0 q.Meps^-1 q / 2); the rest of the sum is explicit.

#include "dgatd/solver/formulation.hpp"

#include <cstddef>
#include <functional>
#include <vector>

namespace dgatd::solver {

class PortAdmittance {
public:
  // admittance Y0 (S), cutoff wc (rad/s), incident(t) the modal voltage the port launches.
  PortAdmittance(double admittance, double cutoff, std::function<double(double)> incident);

  // A new dt: the kernel is rebuilt and the drives recomputed from the voltages.
  void set_dt(double dt);
  // The voltages V^0..V^n after n steps (a new field: its V^0 alone).
  void restart(std::vector<double> voltage);
  std::vector<double> const& voltage() const { return voltage_; }

  // The explicit part of Y0 sum_k y_k s^(n+1/2-k) for the step after the last voltage.
  double explicit_current();
  // dt Y0 y_0 / 2: the weight of V^(n+1) in the step's current.
  double implicit_weight() const;
  // Ends the step with V^(n+1).
  void record(double voltage);

  PortSeries series(std::string name) const;

private:
  double half_step_drive(std::size_t j, double next_voltage) const;
  void extend_kernel(std::size_t size);

  double admittance_, cutoff_, dt_ = 0;
  std::function<double(double)> incident_;
  std::vector<double> voltage_;                     // V^0..V^n
  std::vector<double> drive_;                       // s^(1/2)..s^(n-1/2)
  std::vector<double> kernel_;                      // y_0, y_1, ..., grown as the run goes
  long double series_last_ = 0, series_before_ = 0; // the last two coefficients of sqrt(...)
};

} // namespace dgatd::solver
