#include "dgatd/solver/waveform.hpp"

#include <cmath>
#include <limits>

namespace dgatd::solver {

double Waveform::value(double t) const
{
  constexpr double two_pi = 6.283185307179586476925286766559;
  constexpr double pi = two_pi / 2;
  // Pulses are cut at 6 sigma (1.5e-8 of the peak) so that a source really stops: after end_time()
  // the run is source-free and its energy is an exact invariant.
  if (kind != WaveformKind::sine && std::abs(t - t0) > 6 * sigma) return 0;
  switch (kind) {
  case WaveformKind::gaussian: {
    double const x = (t - t0) / sigma;
    return std::exp(-0.5 * x * x);
  }
  case WaveformKind::modulated_gaussian: {
    double const x = (t - t0) / sigma;
    return std::exp(-0.5 * x * x) * std::sin(two_pi * frequency * (t - t0));
  }
  case WaveformKind::sine: {
    if (t <= 0) return 0;
    double const envelope = t < ramp ? 0.5 * (1 - std::cos(pi * t / ramp)) : 1.0;
    return envelope * std::sin(two_pi * frequency * t);
  }
  }
  return 0;
}

double Waveform::end_time() const
{
  return kind == WaveformKind::sine ? std::numeric_limits<double>::infinity() : t0 + 6 * sigma;
}

char const* to_string(WaveformKind kind)
{
  switch (kind) {
  case WaveformKind::gaussian:
    return "gaussian";
  case WaveformKind::modulated_gaussian:
    return "modulated_gaussian";
  case WaveformKind::sine:
    return "sine";
  }
  return "";
}

} // namespace dgatd::solver
