// Open regions: a WR-90 guide (22.86 x 10.16 mm, TE10 cutoff 6.557 GHz) driven by a TE10 port with a
// modulated Gaussian over 8-12 GHz and ended by a perfectly matched layer a quarter guide
// wavelength thick at 8 GHz (16 mm): |S11| <= -30 dB over the band (issue 10, acceptance 2(b)).
#include "run_helpers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace {

using dgatd::testing::run_config;
using dgatd::testing::ScratchDirectory;

constexpr double z_first = 0.055, probe_spacing = 0.010;

std::complex<double> dft(std::vector<double> const& x, double dt, double f)
{
  std::complex<double> sum = 0;
  for (std::size_t n = 0; n < x.size(); ++n) sum += x[n] * std::polar(1.0, -2 * M_PI * f * (n + 1) * dt);
  return sum;
}

struct Reflection {
  double frequency;
  double measured; // |R| from the two probes
};

// Runs the guide with the given [boundary] table and returns |R| of its far end over 8-12 GHz.
std::vector<Reflection> reflection(std::string const& tag, std::string const& ending)
{
  ScratchDirectory scratch("open_waveguide_" + tag);
  // Band 8-12 GHz: carrier 10 GHz, spectral width sigma_f = 1.5 GHz (sigma_t = 1/(2 pi sigma_f)).
  // The port is a hard source: it sends back whatever returns to it, so the field rings between port
  // and end until the end has taken it; 14 ns leave nothing of it.
  std::string const config = scratch.write("guide.toml", R"([mesh]
generate = "waveguide"
size = [0.02286, 0.01016, 0.15]
h = 0.0015
)" + ending + R"(

[[source]]
kind = "port_te10"
surface = "port_in"
waveform = "modulated_gaussian"
frequency = 10e9
sigma = 1.061e-10
t0 = 6.4e-10

[time]
t_end = 14e-9

[[probe]]
name = "z0"
position = [0.01143, 0.00508, 0.055]

[[probe]]
name = "z1"
position = [0.01143, 0.00508, 0.065]

[[probe]]
name = "z2"
position = [0.01143, 0.00508, 0.075]

[output]
file = "guide.h5"
energy_every = 100
progress = false
)");
  std::string const output = scratch.file("guide.h5");
  EXPECT_TRUE(run_config(config, output).complete);

  std::vector<std::vector<double>> e_y;
  for (auto const* name : {"z0", "z1", "z2"})
    e_y.push_back(dgatd::testing::component(dgatd::io::read_probe(output, name, 'E'), 1));
  double const dt = dgatd::io::uniform_step(dgatd::io::read_probe(output, "z0", 'E').time, output);
  std::vector<Reflection> result;
  for (double f = 8e9; f <= 12e9 + 1; f += 0.25e9) {
    // E_y(z) = A exp(-j beta z) + B exp(j beta z) at three probes spaced by d: E_0 + E_2 = 2 cos(beta d) E_1
    // whatever A and B, which gives the mesh's own beta (0.5 % off the analytic one, enough to
    // misplace a few percent of A into B); then A and B from E_0 and E_2. |B / A| is |R| of the end.
    std::complex<double> e[3];
    for (int k = 0; k < 3; ++k) e[k] = dft(e_y[k], dt, f);
    double const beta = std::acos(std::real((e[0] + e[2]) / (2.0 * e[1]))) / probe_spacing;
    std::complex<double> const p1 = std::polar(1.0, -beta * z_first),
                               p2 = std::polar(1.0, -beta * (z_first + 2 * probe_spacing));
    // [p1 1/p1; p2 1/p2] [A; B] = [e0; e2]
    std::complex<double> const det = p1 / p2 - p2 / p1;
    std::complex<double> const forward = (e[0] / p2 - e[2] / p1) / det;
    std::complex<double> const backward = (p1 * e[2] - p2 * e[0]) / det;
    result.push_back({f, std::abs(backward / forward)});
  }
  return result;
}

TEST(OpenWaveguide, MatchedLayerEndReflectsBelowMinus30dB)
{
  double worst = -std::numeric_limits<double>::infinity();
  for (auto const& r : reflection("pml", "pml = 0.016\n\n[[pml]]\nregion = \"pml\"")) {
    double const db = 20 * std::log10(r.measured);
    std::printf("f = %5.2f GHz: |S11| = %.2e (%.1f dB)\n", r.frequency / 1e9, r.measured, db);
    worst = std::max(worst, db);
  }
  EXPECT_LT(worst, -30.0);
}

} // namespace
