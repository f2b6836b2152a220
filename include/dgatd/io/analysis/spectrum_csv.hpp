#pragma once
// A magnitude spectrum as a CSV file, the form scripts/plot_spectrum.py and spreadsheets read: the
// header line "frequency_hz,magnitude", then one line per bin, both with 10 significant digits.

#include "dgatd/io/analysis/spectrum.hpp"

#include <string>

namespace dgatd::io {

// Writes spectrum's frequencies and magnitudes to path (replacing it); throws dgatd::Error naming
// path when it cannot be written completely.
void write_spectrum_csv(std::string const& path, Spectrum const& spectrum);

// Where dgatd spectrum puts the CSV of `series` (e.g. "Ez") of probe `probe` of the run output at
// output_path unless told otherwise: <stem>_<probe>_<series>_spectrum.csv beside it.
std::string spectrum_csv_path(std::string const& output_path, std::string const& probe, std::string const& series);

} // namespace dgatd::io
