#pragma once
// The run's watchdog: a run whose energy grows past a factor of its reference, or turns infinite or
// NaN, is stopped. The reference is the largest energy sampled from the arming step (every source
// past its peak) up to the middle of the steps taken since: energy a pulse still pumps in after its
// peak raises it, the exponential growth of an unstable run does not, until it has outgrown the
// factor. Besides the energy samples the run records anyway, the watchdog asks for one every 1/64 of
// the steps since arming, so it trips within 2 % of the step at which the energy first passed.
// Private to simulation/.

#include <cstdint>
#include <vector>

namespace dgatd::simulation {

class Watchdog {
public:
  // factor 0: only infinite or NaN energies trip it.
  Watchdog(double factor, std::int64_t arm_step) : factor_(factor), arm_step_(arm_step), next_(arm_step) {}

  // Whether the energy of step (W^step) should be sampled for the watchdog.
  bool wants(std::int64_t step) const { return factor_ > 0 && step >= next_; }
  // The energy W^step, sampled in increasing steps; trips the watchdog where it must.
  void observe(std::int64_t step, double energy);

  bool tripped() const { return tripped_at_ >= 0; }
  std::int64_t tripped_at() const { return tripped_at_; }
  double factor() const { return factor_; }
  // The energy over its reference where it tripped (infinite or NaN where the energy was).
  double ratio() const { return ratio_; }

private:
  struct Sample {
    std::int64_t step;
    double energy;
  };
  double factor_;
  std::int64_t arm_step_, next_;
  std::vector<Sample> samples_; // from the arming step on
  std::size_t counted_ = 0;     // samples in the reference so far
  double reference_ = 0;
  std::int64_t tripped_at_ = -1;
  double ratio_ = 0;
};

} // namespace dgatd::simulation
