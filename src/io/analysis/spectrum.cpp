#include "dgatd/io/analysis/spectrum.hpp"

#include "dgatd/error.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>

namespace dgatd::io {

namespace {

constexpr double two_pi = 6.283185307179586476925286766559;

struct FftwFree {
  void operator()(void* p) const { fftw_free(p); }
};
struct PlanDestroy {
  void operator()(fftw_plan_s* plan) const { fftw_destroy_plan(plan); }
};

} // namespace

Spectrum compute_spectrum(std::vector<double> const& signal, double dt, SpectrumOptions const& options)
{
  std::size_t const n = signal.size();
  if (n < 2) throw std::invalid_argument("compute_spectrum: at least two samples needed");
  if (!(dt > 0)) throw std::invalid_argument("compute_spectrum: the sampling step must be positive");
  std::size_t length = 1;
  while (length < std::max<std::size_t>(options.padding, 1) * n) length *= 2;

  std::vector<double> window(n);
  double window_sum = 0;
  double weighted_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    window[i] = 0.54 - 0.46 * std::cos(two_pi * static_cast<double>(i) / static_cast<double>(n - 1));
    window_sum += window[i];
    weighted_sum += window[i] * signal[i];
  }
  double const mean = weighted_sum / window_sum;

  std::unique_ptr<double, FftwFree> in(static_cast<double*>(fftw_malloc(sizeof(double) * length)));
  std::size_t const bins = length / 2 + 1;
  std::unique_ptr<fftw_complex, FftwFree> out(static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * bins)));
  if (!in || !out) throw std::bad_alloc();
  std::unique_ptr<fftw_plan_s, PlanDestroy> plan(
      fftw_plan_dft_r2c_1d(static_cast<int>(length), in.get(), out.get(), FFTW_ESTIMATE));
  for (std::size_t i = 0; i < n; ++i) in.get()[i] = window[i] * (signal[i] - mean);
  std::fill(in.get() + n, in.get() + length, 0.0);
  fftw_execute(plan.get());

  Spectrum spectrum;
  spectrum.bin_width = 1.0 / (static_cast<double>(length) * dt);
  spectrum.resolution = 1.0 / (static_cast<double>(n) * dt);
  double const nyquist = 0.5 / dt;
  double const fmax = std::min(options.fmax, nyquist);
  // A sinusoid of amplitude A puts A/2 * sum(w) into its positive-frequency bin.
  double const scale = 2.0 / window_sum;
  for (std::size_t k = 0; k < bins; ++k) {
    double const f = static_cast<double>(k) * spectrum.bin_width;
    if (f < options.fmin || f > fmax) continue;
    spectrum.frequency.push_back(f);
    spectrum.magnitude.push_back(scale * std::hypot(out.get()[k][0], out.get()[k][1]));
  }
  if (spectrum.frequency.empty())
    throw std::invalid_argument("compute_spectrum: no frequency bin lies in [fmin, fmax]");
  return spectrum;
}

std::vector<Peak> find_peaks(Spectrum const& spectrum, PeakOptions const& options)
{
  auto const& m = spectrum.magnitude;
  std::vector<Peak> peaks;
  for (std::size_t i = 1; i + 1 < m.size(); ++i) {
    if (!(m[i] > m[i - 1] && m[i] >= m[i + 1])) continue;
    // The floor keeps the logarithm finite next to an exactly zero bin.
    double const floor = 1e-300;
    double const a = std::log(m[i - 1] + floor);
    double const b = std::log(m[i] + floor);
    double const c = std::log(m[i + 1] + floor);
    double const curvature = a - 2 * b + c;
    double const offset = curvature < 0 ? 0.5 * (a - c) / curvature : 0.0;
    Peak peak;
    peak.frequency = spectrum.frequency[i] + offset * spectrum.bin_width;
    peak.magnitude = std::exp(b - 0.25 * (a - c) * offset);
    peaks.push_back(peak);
  }
  if (peaks.empty()) return peaks;

  double largest = 0;
  for (auto const& peak : peaks) largest = std::max(largest, peak.magnitude);
  for (auto& peak : peaks) peak.relative = largest > 0 ? peak.magnitude / largest : 0.0;
  peaks.erase(std::remove_if(peaks.begin(), peaks.end(),
                             [&](Peak const& peak) { return !(peak.relative >= options.threshold); }),
              peaks.end());
  if (options.max_peaks > 0 && peaks.size() > options.max_peaks) {
    std::nth_element(peaks.begin(), peaks.begin() + static_cast<std::ptrdiff_t>(options.max_peaks), peaks.end(),
                     [](Peak const& x, Peak const& y) { return x.magnitude > y.magnitude; });
    peaks.resize(options.max_peaks);
  }
  std::sort(peaks.begin(), peaks.end(), [](Peak const& x, Peak const& y) { return x.frequency < y.frequency; });
  return peaks;
}

double uniform_step(std::vector<double> const& time, std::string const& where)
{
  if (time.size() < 2)
    throw Error(where, "has " + std::to_string(time.size()) + " time steps; a spectrum needs at least two",
                "run more steps");
  double const step = (time.back() - time.front()) / static_cast<double>(time.size() - 1);
  if (!(step > 0)) throw Error(where, "the times do not increase", "the file may be damaged");
  for (std::size_t i = 1; i < time.size(); ++i)
    if (std::abs(time[i] - time[i - 1] - step) > 1e-3 * step)
      throw Error(where, "the time step is not uniform (at step " + std::to_string(i) + ")",
                  "a spectrum needs uniformly sampled probes");
  return step;
}

FrequencyUnit frequency_unit(double frequency)
{
  if (frequency >= 1e9) return {"GHz", 1e9};
  if (frequency >= 1e6) return {"MHz", 1e6};
  if (frequency >= 1e3) return {"kHz", 1e3};
  return {"Hz", 1.0};
}

std::string peak_table(Spectrum const& spectrum, std::vector<Peak> const& peaks)
{
  if (peaks.empty()) return "no peaks in the band\n";
  FrequencyUnit const unit = frequency_unit(peaks.back().frequency);
  int const decimals =
      std::clamp(static_cast<int>(std::ceil(-std::log10(0.01 * spectrum.resolution / unit.hertz))), 0, 9);
  char line[128];
  std::snprintf(line, sizeof line, "%4s  %18s  %18s\n", "#", (std::string("frequency (") + unit.name + ")").c_str(),
                "relative amplitude");
  std::string table = line;
  for (std::size_t i = 0; i < peaks.size(); ++i) {
    std::snprintf(line, sizeof line, "%4zu  %18.*f  %18.4e\n", i + 1, decimals, peaks[i].frequency / unit.hertz,
                  peaks[i].relative);
    table += line;
  }
  return table;
}

} // namespace dgatd::io
