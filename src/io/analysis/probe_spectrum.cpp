#include "dgatd/io/analysis/probe_spectrum.hpp"

#include "dgatd/error.hpp"
#include "dgatd/io/analysis/results.hpp"

#include <algorithm>

namespace dgatd::io {

ProbeSpectrum probe_spectrum(std::string const& path, std::string const& probe, char field, char component,
                             SpectrumOptions const& spectrum_options, PeakOptions const& peak_options)
{
  auto const record = read_probe(path, probe, field);
  std::string const where = path + ": probe '" + probe + "'";
  ProbeSpectrum result;
  result.dt = uniform_step(record.time, where);
  std::vector<double> const signal = probe_component(record, component);
  result.samples = signal.size();
  double const nyquist = 0.5 / result.dt;
  if (!(spectrum_options.fmin < std::min(spectrum_options.fmax, nyquist)))
    throw Error(where, "the band [fmin, fmax] is empty (the Nyquist frequency is " + std::to_string(nyquist) + " Hz)",
                "choose --fmin below --fmax and the Nyquist frequency");
  result.spectrum = compute_spectrum(signal, result.dt, spectrum_options);
  result.peaks = find_peaks(result.spectrum, peak_options);
  return result;
}

} // namespace dgatd::io
