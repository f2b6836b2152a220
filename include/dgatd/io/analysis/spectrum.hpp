#pragma once
// Resonance frequencies from a probe's time series: Hamming window, zero-padded real FFT (FFTW3),
// and spectral peaks refined between bins.

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace dgatd::io {

struct SpectrumOptions {
  double fmin = 0;                                       // Hz
  double fmax = std::numeric_limits<double>::infinity(); // Hz, clipped to the Nyquist frequency
  // The transform length is the smallest power of two >= padding * samples: interpolates the
  // spectrum on a grid `padding` times finer than the record's resolution 1/(n dt), so the peak
  // refinement works on a well-sampled main lobe.
  std::size_t padding = 8;
};

struct Spectrum {
  std::vector<double> frequency; // Hz, the bins in [fmin, fmax]
  // Scaled so that a sinusoid of amplitude A in the signal peaks at about A.
  std::vector<double> magnitude;
  double bin_width = 0;  // Hz between bins
  double resolution = 0; // 1/(n dt), Hz: what the record can separate (the Hamming main lobe is 4x that wide)
};

struct Peak {
  double frequency = 0; // Hz, refined between bins
  double magnitude = 0; // refined height, in the units of Spectrum::magnitude
  double relative = 0;  // magnitude / the largest peak's magnitude
};

struct PeakOptions {
  // Peaks below this fraction of the largest one are dropped. The Hamming window's highest
  // sidelobe is 0.0074 (-42.7 dB) of its main lobe, so 1e-2 keeps sidelobes of a strong mode from
  // being reported as modes.
  double threshold = 1e-2;
  std::size_t max_peaks = 0; // keep only the largest this many (0: all)
};

// Magnitude spectrum of signal, sampled every dt seconds. The window-weighted mean is removed first
// so a static field (a charge left by the source) does not bury the lowest modes. Throws
// std::invalid_argument for fewer than 2 samples, dt <= 0 or an empty band.
Spectrum compute_spectrum(std::vector<double> const& signal, double dt, SpectrumOptions const& options = {});

// Local maxima of the spectrum above the threshold, refined by a parabola through the logarithms
// of the three bins around each (exact for a Gaussian lobe, close for Hamming's), sorted by
// frequency.
std::vector<Peak> find_peaks(Spectrum const& spectrum, PeakOptions const& options = {});

// The sampling step of uniformly spaced times (at least 2); throws dgatd::Error naming `where`
// when they are not uniform to 1e-3 of the step (times
// accumulated step by step drift by ~n^2 rounding errors, so a tight bound would reject good runs).
double uniform_step(std::vector<double> const& time, std::string const& where);

// The unit a frequency reads best in: GHz, MHz, kHz or Hz, and its size in hertz.
struct FrequencyUnit {
  char const* name;
  double hertz;
};
FrequencyUnit frequency_unit(double frequency);

// The peaks as `dgatd spectrum` prints them, a line each after a header: number, frequency in the
// unit of the highest peak with decimals down to a hundredth of the record's resolution, relative
// amplitude; "no peaks in the band" without any. The command line and the Python package print this.
std::string peak_table(Spectrum const& spectrum, std::vector<Peak> const& peaks);

} // namespace dgatd::io
