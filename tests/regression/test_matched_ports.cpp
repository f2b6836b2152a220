// Matched ports and S-parameters (issue 10, acceptance 2(c)): a WR-90 guide (22.86 x 10.16 mm,
// TE10 cutoff 6.557 GHz) between two matched TE10 ports, the first driven by a modulated Gaussian
// over 8-12 GHz, the second only receiving. Through the real executable (dgatd run, then dgatd
// sparams): |S11| <= -30 dB over 8-12 GHz and the phase of S21 equals -beta L within 1 %. The
// ports' powers (io::port_power, what dgatd farfield refers gain to) balance: the lossless guide
// accepts nothing of what the driven port makes available.
#include "run_helpers.hpp"

#include "dgatd/io/analysis/results.hpp"
#include "dgatd/io/analysis/sparams.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using dgatd::testing::run_dgatd;
using dgatd::testing::ScratchDirectory;

constexpr double width = 0.02286, length = 0.15, light = 299792458.0;

struct Row {
  double frequency, s11_db, s11_deg, s21_db, s21_deg;
};

std::vector<Row> read_rows(std::string const& path)
{
  auto const table = dgatd::testing::read_csv(path);
  EXPECT_EQ(table.header, (std::vector<std::string>{"frequency_hz", "S11_db", "S11_deg", "S21_db", "S21_deg"}));
  std::vector<Row> rows;
  for (auto const& cells : table.rows) {
    EXPECT_EQ(cells.size(), 5u);
    if (cells.size() == 5) rows.push_back({cells[0], cells[1], cells[2], cells[3], cells[4]});
  }
  return rows;
}

TEST(MatchedPorts, GuideBetweenTwoPortsReflectsBelowMinus30dBAndDelaysByBetaL)
{
  ScratchDirectory scratch("matched_ports");
  // The classic mesher's mesh is the same on every machine. Both ports absorb, so 6 ns hold the
  // pulse's passage (about 1 ns from port to port at 8 GHz's group velocity) and its tail.
  std::string const config = scratch.write("guide.toml", R"([mesh]
generate = "waveguide"
size = [0.02286, 0.01016, 0.15]
h = 0.0015
reproducible = true

[[source]]
kind = "port_te10"
surface = "port_in"
matched = true
waveform = "modulated_gaussian"
frequency = 10e9
sigma = 1.061e-10
t0 = 6.4e-10

[[source]]
kind = "port_te10"
surface = "port_out"
matched = true
amplitude = 0
waveform = "modulated_gaussian"
frequency = 10e9
sigma = 1.061e-10

[time]
t_end = 6e-9

[output]
file = "guide.h5"
energy_every = 100
progress = false
)");
  auto const run = run_dgatd("run " + config + " -o " + scratch.file("guide.h5"), scratch.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto const sparams = run_dgatd("sparams " + scratch.file("guide.h5") + " --fmin 8e9 --fmax 12e9 --points 17 --csv " +
                                     scratch.file("s.csv") + " --png " + scratch.file("s.png"),
                                 scratch.path());
  ASSERT_EQ(sparams.exit_code, 0) << sparams.err;
  EXPECT_NE(sparams.out.find("1 = port_in (driven), 2 = port_out"), std::string::npos) << sparams.out;
  auto const rows = read_rows(scratch.file("s.csv"));
  ASSERT_EQ(rows.size(), 17u);

  // The phase of S21 is known modulo 2 pi only: unwrap it along the band, and pick the turn at 8 GHz
  // nearest to -beta L. A wrong turn would be off by 2 pi, 44 % of beta L there, so the 1 % bar
  // cannot be met by the choice of turn.
  double const cutoff = light / (2 * width);
  auto beta = [&](double f) { return 2 * M_PI * f / light * std::sqrt(1 - std::pow(cutoff / f, 2)); };
  double unwrapped = rows[0].s21_deg * M_PI / 180;
  unwrapped += 2 * M_PI * std::round((-beta(rows[0].frequency) * length - unwrapped) / (2 * M_PI));
  double previous = rows[0].s21_deg * M_PI / 180, worst_s11 = -1e9, worst_phase = 0, worst_s21 = 0;
  for (auto const& r : rows) {
    double const phase = r.s21_deg * M_PI / 180;
    unwrapped += std::remainder(phase - previous, 2 * M_PI);
    previous = phase;
    double const expected = -beta(r.frequency) * length;
    double const error = (unwrapped - expected) / std::abs(expected);
    std::printf(
        "f = %5.2f GHz: |S11| = %6.1f dB, |S21| = %6.3f dB, arg S21 = %8.3f rad, -beta L = %8.3f rad (%+.2f %%)\n",
        r.frequency / 1e9, r.s11_db, r.s21_db, unwrapped, expected, 100 * error);
    worst_s11 = std::max(worst_s11, r.s11_db);
    worst_phase = std::max(worst_phase, std::abs(error));
    worst_s21 = std::max(worst_s21, std::abs(r.s21_db));
  }
  EXPECT_LE(worst_s11, -30.0);
  EXPECT_LT(worst_phase, 0.01);
  // A lossless guide between two matched ports passes everything: |S21|^2 = 1 - |S11|^2 (0.01 dB
  // at -30 dB). The bar is the mesh's own dispersion of the ports' admittance, well under 0.1 dB.
  EXPECT_LT(worst_s21, 0.1);

  // Each port records the TE10 wave's admittance, 1/eta0 far above cutoff, and the cutoff; with them
  // the power the guide accepts, what the driven port puts in less what both ports absorb, is
  // nothing: within 2.3 % of the available power (the 0.1 dB that |S21| may lose) plus |S11|^2.
  auto const ports = dgatd::io::read_ports(scratch.file("guide.h5"));
  ASSERT_EQ(ports.size(), 2u);
  for (auto const& port : ports) {
    EXPECT_NEAR(port.admittance, 1 / 376.730313668, 1e-9) << port.name;
    EXPECT_NEAR(port.cutoff, 2 * M_PI * cutoff, 1e-6 * 2 * M_PI * cutoff) << port.name;
  }
  for (auto const& r : rows) {
    auto const power = dgatd::io::port_power(ports, r.frequency);
    ASSERT_GT(power.available, 0) << r.frequency;
    EXPECT_LT(std::abs(power.accepted) / power.available, 0.023 + 1e-3) << r.frequency;
  }
}

} // namespace
