#pragma once
// The time shape of a waveform (solver/waveform.hpp), callable on the device: a term that evaluates
// a source at many points of space per step (a plane wave's delays) does it there.

#include "dgatd/kokkos_compat.hpp"
#include "dgatd/solver/waveform.hpp"

namespace dgatd::solver {

KOKKOS_INLINE_FUNCTION double waveform_shape(Waveform const& w, double t)
{
  constexpr double two_pi = 6.283185307179586476925286766559;
  constexpr double pi = two_pi / 2;
  // Pulses are cut at 6 sigma (1.5e-8 of the peak) so that a source really stops: after end_time()
  // the run is source-free and its energy is an exact invariant.
  if (w.kind != WaveformKind::sine && kmath::fabs(t - w.t0) > 6 * w.sigma) return 0;
  switch (w.kind) {
  case WaveformKind::gaussian: {
    double const x = (t - w.t0) / w.sigma;
    return kmath::exp(-0.5 * x * x);
  }
  case WaveformKind::modulated_gaussian: {
    double const x = (t - w.t0) / w.sigma;
    return kmath::exp(-0.5 * x * x) * kmath::sin(two_pi * w.frequency * (t - w.t0));
  }
  case WaveformKind::sine: {
    if (t <= 0) return 0;
    double const envelope = t < w.ramp ? 0.5 * (1 - kmath::cos(pi * t / w.ramp)) : 1.0;
    return envelope * kmath::sin(two_pi * w.frequency * t);
  }
  }
  return 0;
}

} // namespace dgatd::solver
