#include "dgatd/io/analysis/spectrum_svg.hpp"

#include "dgatd/error.hpp"
#include "io/xml_escape.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace dgatd::io {

namespace {

// The figure, in SVG user units (pixels at 100 %).
constexpr double width = 900;
constexpr double height = 450;
constexpr double left = 80;
constexpr double right = 870;
constexpr double top = 50;
constexpr double bottom = 390;
// As scripts/plot_spectrum.py: a double-precision run's modes reach about seven decades below the
// top, and the floor keeps the near-zero bin at f = 0 from squashing the plot.
constexpr double decades = 7;

std::string number(double value, int significant)
{
  char text[32];
  std::snprintf(text, sizeof text, "%.*g", significant, value);
  return text;
}

// A tick spacing of 1, 2 or 5 times a power of ten giving about `count` ticks over span.
double tick_spacing(double span, int count)
{
  double const raw = span / count;
  double const power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double const step : {1.0, 2.0, 5.0})
    if (step * power >= raw) return step * power;
  return 10 * power;
}

struct Axes {
  double fmin, fmax, log_top, log_floor;
  double x(double frequency) const { return left + (right - left) * (frequency - fmin) / (fmax - fmin); }
  double y(double magnitude) const
  {
    double const log_value = std::log10(std::max(magnitude, std::pow(10.0, log_floor)));
    return bottom - (bottom - top) * (log_value - log_floor) / (log_top - log_floor);
  }
};

double interpolated_magnitude(Spectrum const& spectrum, double frequency)
{
  auto const& f = spectrum.frequency;
  auto const after = std::lower_bound(f.begin(), f.end(), frequency);
  if (after == f.begin()) return spectrum.magnitude.front();
  if (after == f.end()) return spectrum.magnitude.back();
  auto const i = static_cast<std::size_t>(after - f.begin());
  double const w = (frequency - f[i - 1]) / (f[i] - f[i - 1]);
  return (1 - w) * spectrum.magnitude[i - 1] + w * spectrum.magnitude[i];
}

} // namespace

std::string spectrum_svg(Spectrum const& spectrum, std::vector<Peak> const& peaks, std::string const& title,
                         std::string const& unit_name, double unit_hertz)
{
  if (spectrum.frequency.size() < 2)
    throw Error("spectrum plot", "the band holds fewer than two bins", "widen --fmin/--fmax");
  double const largest = *std::max_element(spectrum.magnitude.begin(), spectrum.magnitude.end());
  double const top_magnitude = largest > 0 ? largest : 1.0;
  // Half a decade of headroom above the largest value for the peak labels.
  Axes const axes{spectrum.frequency.front() / unit_hertz, spectrum.frequency.back() / unit_hertz,
                  std::log10(top_magnitude) + 0.7, std::log10(top_magnitude) - decades};

  std::ostringstream svg;
  svg << R"(<svg xmlns="http://www.w3.org/2000/svg" width=")" << width << R"(" height=")" << height
      << R"(" viewBox="0 0 )" << width << ' ' << height << R"(" font-family="sans-serif" font-size="13">)" << '\n';
  svg << R"(<rect width="100%" height="100%" fill="white"/>)" << '\n';
  svg << R"(<text x=")" << (left + right) / 2 << R"(" y="30" text-anchor="middle" font-size="15">)" << xml_escape(title)
      << "</text>\n";

  // Grid and tick labels: decades up the side, 1-2-5 steps along the bottom.
  svg << R"(<g stroke="#d9d9d9" stroke-width="1">)" << '\n';
  for (int d = static_cast<int>(std::ceil(axes.log_floor)); d <= static_cast<int>(std::floor(axes.log_top)); ++d)
    svg << R"(<line x1=")" << left << R"(" x2=")" << right << R"(" y1=")" << axes.y(std::pow(10.0, d)) << R"(" y2=")"
        << axes.y(std::pow(10.0, d)) << R"("/>)" << '\n';
  double const step = tick_spacing(axes.fmax - axes.fmin, 8);
  std::vector<double> ticks;
  for (double t = std::ceil(axes.fmin / step) * step; t <= axes.fmax + 1e-9 * step; t += step) ticks.push_back(t);
  for (double const t : ticks)
    svg << R"(<line x1=")" << axes.x(t) << R"(" x2=")" << axes.x(t) << R"(" y1=")" << top << R"(" y2=")" << bottom
        << R"("/>)" << '\n';
  svg << "</g>\n";
  for (int d = static_cast<int>(std::ceil(axes.log_floor)); d <= static_cast<int>(std::floor(axes.log_top)); ++d)
    svg << R"(<text x=")" << left - 8 << R"(" y=")" << axes.y(std::pow(10.0, d)) + 4 << R"(" text-anchor="end">1e)" << d
        << "</text>\n";
  for (double const t : ticks)
    svg << R"(<text x=")" << axes.x(t) << R"(" y=")" << bottom + 20 << R"(" text-anchor="middle">)" << number(t, 6)
        << "</text>\n";
  svg << R"(<text x=")" << (left + right) / 2 << R"(" y=")" << bottom + 45 << R"(" text-anchor="middle">frequency ()"
      << xml_escape(unit_name) << ")</text>\n";
  svg << R"(<text transform="translate(20 )" << (top + bottom) / 2
      << R"svg() rotate(-90)" text-anchor="middle">magnitude</text>)svg" << '\n';
  svg << R"(<rect x=")" << left << R"(" y=")" << top << R"(" width=")" << right - left << R"(" height=")"
      << bottom - top << R"(" fill="none" stroke="black"/>)" << '\n';

  svg << R"(<polyline fill="none" stroke="#1f77b4" stroke-width="1.2" points=")";
  for (std::size_t i = 0; i < spectrum.frequency.size(); ++i)
    svg << (i ? " " : "") << number(axes.x(spectrum.frequency[i] / unit_hertz), 6) << ','
        << number(axes.y(spectrum.magnitude[i]), 6);
  svg << R"("/>)" << '\n';

  svg << R"(<g fill="#d62728" stroke="none">)" << '\n';
  for (auto const& peak : peaks) {
    double const x = axes.x(peak.frequency / unit_hertz);
    double const y = axes.y(interpolated_magnitude(spectrum, peak.frequency));
    svg << R"(<line x1=")" << x << R"(" x2=")" << x << R"(" y1=")" << top << R"(" y2=")" << bottom
        << R"(" stroke="#d62728" stroke-opacity="0.4"/>)" << '\n';
    svg << R"(<path d="M)" << x - 5 << ' ' << y - 10 << 'L' << x + 5 << ' ' << y - 10 << 'L' << x << ' ' << y
        << R"(Z"/>)" << '\n';
    svg << R"(<text x=")" << x << R"(" y=")" << y - 14 << R"(" text-anchor="middle" font-size="11">)"
        << number(peak.frequency / unit_hertz, 4) << "</text>\n";
  }
  svg << "</g>\n</svg>\n";
  return svg.str();
}

void write_spectrum_svg(std::string const& path, Spectrum const& spectrum, std::vector<Peak> const& peaks,
                        std::string const& title, std::string const& unit_name, double unit_hertz)
{
  std::string const document = spectrum_svg(spectrum, peaks, title, unit_name, unit_hertz);
  std::string const partial = path + ".partial";
  {
    std::ofstream out(partial);
    if (!out) throw Error(path, "cannot write the plot", "check that the directory exists and is writable");
    out << document;
    if (!out.flush()) {
      out.close();
      std::filesystem::remove(partial);
      throw Error(path, "cannot write the plot", "check the free disk space");
    }
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) {
    std::filesystem::remove(partial, error);
    throw Error(path, "cannot write the plot", "check that the directory is writable");
  }
}

} // namespace dgatd::io
