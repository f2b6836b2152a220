#pragma once
// A spectrum plot that dgatd draws itself, as SVG (any browser or ParaView-free desktop opens it):
// the magnitude on a log scale seven decades deep, as scripts/plot_spectrum.py draws it, with the
// peaks marked and labelled. Needs no Python, so the first run on a new machine has its figure.

#include "dgatd/io/analysis/spectrum.hpp"

#include <string>
#include <vector>

namespace dgatd::io {

// The SVG document of spectrum with peaks marked, frequencies in unit_name (unit_hertz Hz each).
std::string spectrum_svg(Spectrum const& spectrum, std::vector<Peak> const& peaks, std::string const& title,
                         std::string const& unit_name, double unit_hertz);

// Writes spectrum_svg(...) to path, whole or not at all (through path.partial).
void write_spectrum_svg(std::string const& path, Spectrum const& spectrum, std::vector<Peak> const& peaks,
                        std::string const& title, std::string const& unit_name, double unit_hertz);

} // namespace dgatd::io
