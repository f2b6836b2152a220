#pragma once
// The time shapes of the sources: a Gaussian pulse, a modulated Gaussian (a band-limited pulse
// around a carrier) and a smoothly ramped sine, and their amplitude.

#include <functional>

namespace dgatd::solver {

// A source's strength as a function of time (seconds).
using Signal = std::function<double(double)>;

enum class WaveformKind { gaussian, modulated_gaussian, sine };

struct Waveform {
  WaveformKind kind = WaveformKind::gaussian;
  double t0 = 0;        // centre of the pulse, seconds (pulses only)
  double sigma = 0;     // Gaussian width, seconds (pulses only)
  double frequency = 0; // Hz (modulated_gaussian, sine)
  double ramp = 0;      // turn-on time of the sine, seconds
  double amplitude = 1; // units of the source: A·m (dipole), V/m (port_te10), A (edge_current)

  // Dimensionless time shape, peak 1; the source strength is amplitude * value(t).
  //   gaussian            exp(-((t-t0)/sigma)^2 / 2)
  //   modulated_gaussian  the Gaussian times sin(2π f (t-t0))
  //   sine                sin(2π f t) times 0.5 (1 - cos(π t/ramp)) for t < ramp, 1 after
  double value(double t) const;
  // Pulses are zero farther than 6 sigma from t0 (cut at exp(-18) ≈ 1.5e-8 of the peak), so the
  // source has stopped after t0 + 6 sigma; infinity for sine.
  double end_time() const;
};

// The source's strength over time, amplitude * value(t), as the terms take it.
Signal strength(Waveform const& w);

char const* to_string(WaveformKind kind);

// About how strong the waveform is at frequency f (Hz), as a fraction of its strongest frequency:
// the Gaussians' spectra exactly, the ramped sine's from its switch-on (1 within 1 / ramp of the
// carrier, falling as the cube of the distance beyond).
double relative_spectrum(Waveform const& w, double f);

} // namespace dgatd::solver
