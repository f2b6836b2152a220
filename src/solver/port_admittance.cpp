#include "dgatd/solver/port_admittance.hpp"

#include <cmath>
#include <utility>

namespace dgatd::solver {

PortAdmittance::PortAdmittance(double admittance, double cutoff, std::function<double(double)> incident)
    : admittance_(admittance), cutoff_(cutoff), incident_(std::move(incident))
{
}

void PortAdmittance::set_dt(double dt)
{
  dt_ = dt;
  kernel_.clear();
  restart(std::move(voltage_));
}

void PortAdmittance::restart(std::vector<double> voltage)
{
  voltage_ = std::move(voltage);
  drive_.clear();
  for (std::size_t j = 0; j + 1 < voltage_.size(); ++j) drive_.push_back(half_step_drive(j, voltage_[j + 1]));
}

double PortAdmittance::half_step_drive(std::size_t j, double next_voltage) const
{
  return 0.5 * (voltage_[j] + next_voltage) - (incident_(j * dt_) + incident_((j + 1) * dt_));
}

// y_k up to k = size - 1. With P(w) = (1 - w)^2 + q (1 + w)^2 = a + b w + a w^2, the series S of
// sqrt(P) obeys P S' = P' S / 2, so (n + 1) a S_(n+1) = b (1/2 - n) S_n + a (2 - n) S_(n-1); y_k is
// the running sum of S (the division by 1 - w).
void PortAdmittance::extend_kernel(std::size_t size)
{
  long double const x = cutoff_ * dt_, q = x * x / 4, a = 1 + q, b = -2 * (1 - q);
  while (kernel_.size() < size) {
    std::size_t const n = kernel_.size();
    long double next;
    if (n == 0) {
      series_last_ = 0; // S_(-1)
      next = std::sqrt(a);
    } else {
      long double const m = static_cast<long double>(n - 1);
      next = (b * (0.5L - m) * series_last_ + a * (2 - m) * series_before_) / (a * (m + 1));
    }
    series_before_ = series_last_;
    series_last_ = next;
    kernel_.push_back(static_cast<double>((n == 0 ? 0.0L : kernel_.back()) + next));
  }
}

double PortAdmittance::explicit_current()
{
  std::size_t const n = voltage_.size() - 1;
  extend_kernel(n + 1);
  double history = 0;
  for (std::size_t k = 1; k <= n; ++k) history += kernel_[k] * drive_[n - k];
  return admittance_ * (kernel_[0] * (0.5 * voltage_[n] - incident_(n * dt_) - incident_((n + 1) * dt_)) + history);
}

double PortAdmittance::implicit_weight() const { return 0.5 * dt_ * admittance_ * kernel_[0]; }

void PortAdmittance::record(double voltage)
{
  drive_.push_back(half_step_drive(voltage_.size() - 1, voltage));
  voltage_.push_back(voltage);
}

PortSeries PortAdmittance::series(std::string name) const
{
  PortSeries series;
  series.name = std::move(name);
  series.voltage = voltage_;
  series.admittance = admittance_;
  series.cutoff = cutoff_;
  for (std::size_t m = 0; m < voltage_.size(); ++m) series.incident.push_back(incident_(m * dt_));
  return series;
}

} // namespace dgatd::solver
