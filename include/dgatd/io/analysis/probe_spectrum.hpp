#pragma once
// The resonances seen by one probe of a finished run (dgatd spectrum): one component of its recorded
// series (results.hpp), checked for uniform sampling, its spectrum and peaks (spectrum.hpp).

#include "dgatd/io/analysis/spectrum.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace dgatd::io {

struct ProbeSpectrum {
  std::size_t samples = 0; // steps recorded
  double dt = 0;           // s, the sampling step
  Spectrum spectrum;
  std::vector<Peak> peaks;
};

// The spectrum and peaks of component 'x', 'y' or 'z' of the field 'E' or 'H' of probe `probe` in
// the output file at path. Throws dgatd::Error naming the file and the probe when the probe is
// missing, its times are not uniform, or no frequency of [fmin, fmax] lies below the Nyquist
// frequency 1/(2 dt).
ProbeSpectrum probe_spectrum(std::string const& path, std::string const& probe, char field, char component,
                             SpectrumOptions const& spectrum_options = {}, PeakOptions const& peak_options = {});

} // namespace dgatd::io
