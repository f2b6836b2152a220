#include "dgatd/solver/waveform.hpp"

#include "dgatd/solver/waveform_shape.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dgatd::solver {

double Waveform::value(double t) const { return waveform_shape(*this, t); }

Signal strength(Waveform const& w)
{
  return [w](double t) { return w.amplitude * w.value(t); };
}

double Waveform::end_time() const
{
  return kind == WaveformKind::sine ? std::numeric_limits<double>::infinity() : t0 + 6 * sigma;
}

double relative_spectrum(Waveform const& w, double f)
{
  constexpr double two_pi = 6.283185307179586476925286766559;
  auto gaussian = [&](double frequency) {
    double const x = two_pi * frequency * w.sigma;
    return std::exp(-0.5 * x * x);
  };
  switch (w.kind) {
  case WaveformKind::gaussian:
    return gaussian(f);
  case WaveformKind::modulated_gaussian:
    // sin(2 pi f0 t) splits the Gaussian's spectrum into two lobes at -f0 and +f0.
    return std::min(1.0,
                    std::abs(gaussian(f - w.frequency) - gaussian(f + w.frequency)) / (1 - gaussian(2 * w.frequency)));
  case WaveformKind::sine: {
    double const beyond = std::abs(f - w.frequency) * w.ramp;
    return beyond <= 1 ? 1.0 : 1 / (beyond * beyond * beyond);
  }
  }
  return 0;
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
