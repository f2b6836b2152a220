// TE10 in a 5 x 2.5 cm rectangular waveguide, 60 cm long, driven at a port at z = 0 and shorted at
// the far end: the field has the TE10 shape, propagates with the analytic propagation constant
// above cutoff, and is evanescent below it.
#include "run_helpers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

namespace {

using dgatd::testing::component;
using dgatd::testing::run_config;
using dgatd::testing::ScratchDirectory;

constexpr double c0 = 299792458.0;
constexpr double width = 0.05; // a
constexpr double cutoff = c0 / (2 * width);

std::string number(double x)
{
  std::ostringstream s;
  s << std::setprecision(17) << x;
  return s.str();
}

std::string waveguide_config(std::string const& waveform, double t_end)
{
  // The classic mesher's mesh is the same on every run; HXT's varies, and with it this guide's phase
  // error, between 0.2 and 2.2 %.
  return R"([mesh]
generate = "waveguide"
size = [0.05, 0.025, 0.6]
h = 0.004
reproducible = true

[boundary]
pec = "*"

[[source]]
kind = "port_te10"
surface = "port_in"
amplitude = 1.0
)" + waveform +
         R"(

[time]
t_end = )" +
         number(t_end) +
         R"(

[[probe]]
name = "axis_10"
position = [0.025, 0.0125, 0.10]

[[probe]]
name = "axis_11"
position = [0.025, 0.0125, 0.11]

[[probe]]
name = "axis_20"
position = [0.025, 0.0125, 0.20]

[[probe]]
name = "quarter_10"
position = [0.0125, 0.0125, 0.10]

[output]
file = "waveguide.h5"
energy_every = 100
)";
}

double peak(std::vector<double> const& v, std::size_t end)
{
  double m = 0;
  for (std::size_t i = 0; i < std::min(end, v.size()); ++i) m = std::max(m, std::abs(v[i]));
  return m;
}

std::complex<double> dft(std::vector<double> const& x, std::vector<double> const& t, double window_end, double f)
{
  std::complex<double> sum = 0;
  for (std::size_t i = 0; i < x.size() && t[i] <= window_end; ++i) sum += x[i] * std::polar(1.0, -2 * M_PI * f * t[i]);
  return sum;
}

TEST(Waveguide, Te10PulseShapeAndPropagationConstant)
{
  ScratchDirectory scratch("waveguide_pulse");
  // Modulated Gaussian at 4.5 GHz, spectral width sigma_f = 0.5 GHz: sigma_t = 1/(2 pi sigma_f).
  double const sigma = 1.0 / (2 * M_PI * 0.5e9);
  std::string const waveform =
      "waveform = \"modulated_gaussian\"\nfrequency = 4.5e9\nsigma = " + number(sigma) + "\nt0 = " + number(5 * sigma);
  auto const config = scratch.write("pulse.toml", waveguide_config(waveform, 5.5e-9));
  std::string const output = (scratch.path() / "pulse.h5").string();
  ASSERT_TRUE(run_config(config, output).complete);

  auto const axis = dgatd::io::read_probe(output, "axis_10", 'E');
  auto const near = dgatd::io::read_probe(output, "axis_11", 'E');
  auto const far = dgatd::io::read_probe(output, "axis_20", 'E');
  auto const quarter = dgatd::io::read_probe(output, "quarter_10", 'E');
  auto const ey = component(axis, 1);
  double const peak_y = peak(ey, ey.size());
  double const peak_x = peak(component(axis, 0), ey.size()), peak_z = peak(component(axis, 2), ey.size());
  double const quarter_ratio = peak(component(quarter, 1), ey.size()) / peak_y;
  std::printf(
      "axis z = 10 cm: peak |Ey| %.4f, |Ex|/|Ey| %.4f, |Ez|/|Ey| %.4f; quarter/axis %.4f (sin(pi/4) = 0.7071)\n",
      peak_y, peak_x / peak_y, peak_z / peak_y, quarter_ratio);
  EXPECT_LT(peak_x, 0.05 * peak_y);
  EXPECT_LT(peak_z, 0.05 * peak_y);
  // Probes read the piecewise-uniform field of one subregion, which is why 10 % is allowed.
  EXPECT_NEAR(quarter_ratio, std::sin(M_PI / 4), 0.1 * std::sin(M_PI / 4));

  // The pulse has passed z = 20 cm (group velocity >= 0.66 c from 4 GHz up) by about 3.6 ns; the
  // reflection from z = 60 cm cannot be back there before about 4.5 ns even at 6 GHz.
  double const window_end = 4.3e-9;
  for (double f = 4.0e9; f <= 5.0e9 + 1; f += 0.1e9) {
    auto const x10 = dft(ey, axis.time, window_end, f);
    auto const x11 = dft(component(near, 1), near.time, window_end, f);
    auto const x20 = dft(component(far, 1), far.time, window_end, f);
    // e^{i(wt - beta z)}: the phase falls by beta dz along the guide. One centimetre gives less than
    // pi, fixing the branch of the ten-centimetre difference, which is what is measured.
    double const coarse = std::arg(x10 / x11) / 0.01;
    double const wrapped = std::arg(x10 / x20);
    double const turns = std::round((coarse * 0.10 - wrapped) / (2 * M_PI));
    double const beta = (wrapped + 2 * M_PI * turns) / 0.10;
    double const exact = 2 * M_PI * f / c0 * std::sqrt(1 - (cutoff / f) * (cutoff / f));
    std::printf("f = %.2f GHz: beta = %.3f rad/m, analytic %.3f, error %.2f %%\n", f / 1e9, beta, exact,
                100 * (beta / exact - 1));
    EXPECT_NEAR(beta / exact, 1.0, 0.02) << "at " << f / 1e9 << " GHz";
  }
}

TEST(Waveguide, EvanescentBelowCutoff)
{
  ScratchDirectory scratch("waveguide_sine");
  // A 2 GHz sine (cutoff 3 GHz) switched on over 3 ns so little of its spectrum reaches the cutoff.
  auto const config =
      scratch.write("sine.toml", waveguide_config("waveform = \"sine\"\nfrequency = 2e9\nramp = 3e-9", 8e-9));
  std::string const output = (scratch.path() / "sine.h5").string();
  ASSERT_TRUE(run_config(config, output).complete);
  auto const axis = dgatd::io::read_probe(output, "axis_10", 'E');
  auto const ey = component(axis, 1);
  double steady = 0;
  for (std::size_t i = 0; i < ey.size(); ++i)
    if (axis.time[i] > 5e-9) steady = std::max(steady, std::abs(ey[i]));
  // The port imposes E_y = E0 sin(pi x / a) with E0 = 1 V/m: amplitude 1 on the axis. The analytic
  // decay exp(-alpha z), alpha = 2 pi sqrt(fc^2 - f^2)/c, is 0.9 % at 10 cm.
  std::printf("steady |Ey| at z = 10 cm: %.4e of the port amplitude (analytic %.4e)\n", steady,
              std::exp(-2 * M_PI * std::sqrt(cutoff * cutoff - 4e18) / c0 * 0.10));
  EXPECT_LT(steady, 0.02);
  EXPECT_GT(steady, 0.0);
}

// Single precision drives the port (a prescribed field, written into the float fields at the end of
// every step) as double does: the traces differ by the float fields' rounding alone, 6e-8 of each
// value a step, at most 6e-5 of the peak even if it added up over this run's 1000-odd steps
// (measured: 7e-7 to 1e-6), where a port not written, or written at the wrong step, errs by order 1.
TEST(Waveguide, SinglePrecisionDrivesThePortLikeDouble)
{
  ScratchDirectory scratch("waveguide_single");
  double const sigma = 1.0 / (2 * M_PI * 0.5e9);
  std::string const waveform =
      "waveform = \"modulated_gaussian\"\nfrequency = 4.5e9\nsigma = " + number(sigma) + "\nt0 = " + number(5 * sigma);
  std::string const text = waveguide_config(waveform, 3e-9);
  auto const in_double = scratch.write("double.toml", text);
  auto const in_single = scratch.write("single.toml", text + "\n[solver]\nprecision = \"single\"\n");
  ASSERT_TRUE(run_config(in_double, scratch.file("double.h5")).complete);
  ASSERT_TRUE(run_config(in_single, scratch.file("single.h5")).complete);
  for (char const* probe : {"axis_10", "axis_20", "quarter_10"}) {
    auto const reference = component(dgatd::io::read_probe(scratch.file("double.h5"), probe, 'E'), 1);
    auto const tested = component(dgatd::io::read_probe(scratch.file("single.h5"), probe, 'E'), 1);
    ASSERT_EQ(tested.size(), reference.size());
    double const scale = peak(reference, reference.size());
    double difference = 0;
    for (std::size_t i = 0; i < reference.size(); ++i)
      difference = std::max(difference, std::abs(tested[i] - reference[i]));
    std::printf("%s: peak |Ey| %.4f, single - double %.2e of it\n", probe, scale, difference / scale);
    ASSERT_GT(scale, 0.1);
    EXPECT_LT(difference, 1e-4 * scale) << probe;
  }
}

} // namespace
