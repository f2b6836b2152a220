// Spectral peak finding on synthetic probe signals with known frequencies, and the source
// waveforms' time shapes.
#include "dgatd/error.hpp"
#include "dgatd/io/analysis/spectrum.hpp"
#include "dgatd/io/input/config.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace {

constexpr double pi = 3.14159265358979323846;

struct Mode {
  double frequency;
  double amplitude;
  double decay_time; // 0: undamped
  double phase;
};

// 20000 samples of 10 ps: a 200 ns record, resolution 1/T = 5 MHz, 1000+ periods of each mode.
constexpr double dt = 1e-11;
constexpr int samples = 20000;
constexpr double resolution = 1.0 / (samples * dt);

std::vector<double> signal_of(std::vector<Mode> const& modes)
{
  std::vector<double> signal(samples);
  for (int i = 0; i < samples; ++i) {
    double const t = i * dt;
    for (auto const& m : modes) {
      double const envelope = m.decay_time > 0 ? std::exp(-t / m.decay_time) : 1.0;
      signal[i] += m.amplitude * envelope * std::sin(2 * pi * m.frequency * t + m.phase);
    }
  }
  return signal;
}

std::vector<dgatd::io::Peak> peaks_of(std::vector<Mode> const& modes)
{
  dgatd::io::SpectrumOptions options;
  options.fmax = 5e9;
  auto const spectrum = dgatd::io::compute_spectrum(signal_of(modes), dt, options);
  EXPECT_DOUBLE_EQ(spectrum.resolution, resolution);
  EXPECT_LE(spectrum.bin_width, resolution / 8);
  return dgatd::io::find_peaks(spectrum);
}

// Tolerances, in units of the record's resolution 1/T. With 8x zero padding the main lobe of the
// Hamming window spans 32 bins and is close to a Gaussian near its top, so the parabola through the
// log magnitudes misses the centre by well under 1e-3 of a bin. What remains is the pull of the
// other modes: their sidelobes (at most 0.74 % of their height) or, for a close neighbour, the skirt
// of its main lobe. Well separated modes: 1 % of 1/T (observed 0.2 %); modes four resolutions
// apart: 5 % of 1/T (observed 1 %).
constexpr double separated_tolerance = 0.01 * resolution;
constexpr double close_tolerance = 0.05 * resolution;

TEST(Spectrum, RecoversWellSeparatedUndampedModes)
{
  std::vector<Mode> const modes{{1.0e9, 1.0, 0, 0.1}, {1.37e9, 0.5, 0, 0.7}, {2.2e9, 0.8, 0, 1.9}};
  auto const peaks = peaks_of(modes);
  ASSERT_EQ(peaks.size(), modes.size());
  for (std::size_t i = 0; i < modes.size(); ++i) {
    EXPECT_NEAR(peaks[i].frequency, modes[i].frequency, separated_tolerance) << "mode " << i;
    // The log-parabola also removes the window's scalloping loss from the height.
    EXPECT_NEAR(peaks[i].magnitude, modes[i].amplitude, 0.01 * modes[i].amplitude) << "mode " << i;
    EXPECT_NEAR(peaks[i].relative, modes[i].amplitude, 0.01) << "mode " << i;
  }
  // Relative error far below the 1e-3 a cavity-mode comparison needs.
  EXPECT_LT(std::abs(peaks[0].frequency / modes[0].frequency - 1), 1e-4);
}

TEST(Spectrum, SeparatesTwoCloseModesBesideADampedOne)
{
  // 2.000 and 2.020 GHz are four resolutions apart: twice the half-width of Hamming's main lobe.
  std::vector<Mode> const modes{{1.37e9, 0.5, 300e-9, 0.3}, {2.0e9, 0.8, 0, 0.0}, {2.02e9, 0.6, 1e-6, 1.1}};
  auto const peaks = peaks_of(modes);
  ASSERT_EQ(peaks.size(), modes.size());
  for (std::size_t i = 0; i < modes.size(); ++i)
    EXPECT_NEAR(peaks[i].frequency, modes[i].frequency, close_tolerance) << "mode " << i;
  EXPECT_DOUBLE_EQ(peaks[1].relative, 1.0);
}

TEST(Spectrum, BandThresholdAndPeakCountLimitTheList)
{
  std::vector<Mode> const modes{{0.3e9, 2.0, 0, 0}, {1.0e9, 1.0, 0, 0}, {1.5e9, 0.3, 0, 0}, {2.5e9, 0.05, 0, 0}};
  dgatd::io::SpectrumOptions options;
  options.fmin = 0.5e9;
  options.fmax = 3e9;
  auto const spectrum = dgatd::io::compute_spectrum(signal_of(modes), dt, options);
  EXPECT_GE(spectrum.frequency.front(), 0.5e9);
  EXPECT_LE(spectrum.frequency.back(), 3e9);
  // The 0.3 GHz mode is outside the band, so the 1 GHz one is the reference.
  auto const all = dgatd::io::find_peaks(spectrum);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_DOUBLE_EQ(all[0].relative, 1.0);
  EXPECT_NEAR(all[2].relative, 0.05, 0.001);
  dgatd::io::PeakOptions strong;
  strong.threshold = 0.1;
  EXPECT_EQ(dgatd::io::find_peaks(spectrum, strong).size(), 2u);
  dgatd::io::PeakOptions one;
  one.max_peaks = 1;
  auto const largest = dgatd::io::find_peaks(spectrum, one);
  ASSERT_EQ(largest.size(), 1u);
  EXPECT_NEAR(largest[0].frequency, 1e9, separated_tolerance);
}

TEST(Spectrum, StaticOffsetDoesNotHideTheLowestMode)
{
  auto signal = signal_of({{0.2e9, 0.01, 0, 0}});
  for (double& value : signal) value += 5.0;
  auto const peaks = dgatd::io::find_peaks(dgatd::io::compute_spectrum(signal, dt));
  ASSERT_FALSE(peaks.empty());
  EXPECT_NEAR(peaks.front().frequency, 0.2e9, separated_tolerance);
}

TEST(Spectrum, RejectsUnusableInput)
{
  EXPECT_THROW(dgatd::io::compute_spectrum({1.0}, dt), std::invalid_argument);
  EXPECT_THROW(dgatd::io::compute_spectrum({1.0, 2.0}, 0.0), std::invalid_argument);
  dgatd::io::SpectrumOptions above_nyquist;
  above_nyquist.fmin = 1e12;
  EXPECT_THROW(dgatd::io::compute_spectrum(signal_of({{1e9, 1, 0, 0}}), dt, above_nyquist), std::invalid_argument);
}

TEST(Spectrum, UniformStep)
{
  EXPECT_DOUBLE_EQ(dgatd::io::uniform_step({1e-12, 2e-12, 3e-12}, "run.h5"), 1e-12);
  EXPECT_THROW(dgatd::io::uniform_step({1e-12}, "run.h5"), dgatd::Error);
  EXPECT_THROW(dgatd::io::uniform_step({1e-12, 2e-12, 4e-12}, "run.h5"), dgatd::Error);
}

TEST(Waveform, ValuesAndEndTimes)
{
  using dgatd::solver::Waveform;
  using dgatd::solver::WaveformKind;
  Waveform gaussian;
  gaussian.kind = WaveformKind::gaussian;
  gaussian.t0 = 1e-9;
  gaussian.sigma = 2e-10;
  EXPECT_DOUBLE_EQ(gaussian.value(1e-9), 1.0);
  EXPECT_NEAR(gaussian.value(1.2e-9), std::exp(-0.5), 1e-15);
  EXPECT_NEAR(gaussian.value(0.6e-9), std::exp(-2.0), 1e-15);
  EXPECT_DOUBLE_EQ(gaussian.end_time(), 1e-9 + 6 * 2e-10);

  Waveform modulated = gaussian;
  modulated.kind = WaveformKind::modulated_gaussian;
  modulated.frequency = 1e9;
  EXPECT_NEAR(modulated.value(1e-9), 0.0, 1e-15);
  double const quarter_period = 0.25e-9;
  EXPECT_NEAR(modulated.value(1e-9 + quarter_period), std::exp(-0.5 * std::pow(quarter_period / 2e-10, 2)), 1e-12);
  EXPECT_DOUBLE_EQ(modulated.end_time(), gaussian.end_time());

  Waveform sine;
  sine.kind = WaveformKind::sine;
  sine.frequency = 1e9;
  sine.ramp = 3e-9;
  EXPECT_DOUBLE_EQ(sine.value(0.0), 0.0);
  // On the ramp the crest of the sine is scaled by the raised cosine; after it the pure sine.
  EXPECT_NEAR(sine.value(1e-9 + quarter_period), 0.5 * (1 - std::cos(pi * 1.25 / 3)), 1e-12);
  EXPECT_NEAR(sine.value(5e-9 + quarter_period), 1.0, 1e-12);
  EXPECT_NEAR(sine.value(5.5e-9), 0.0, 1e-6);
  EXPECT_EQ(sine.end_time(), std::numeric_limits<double>::infinity());
}

} // namespace
