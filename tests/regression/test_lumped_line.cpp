// Lumped ports and elements on a parallel-plate line (issue "antennas", acceptance 1 and 2;
// inputs/parallel_plate_line.toml, run by the real executable): PEC plates and PMC sides make the
// TEM mode exact, Z0 = eta0 H / W, and the port at z = 0 sees S11 = Gamma_L exp(-2 j beta L) with
// Gamma_L = (Z_L - Z0) / (Z_L + Z0) of the load at z = L. Over the pulse's band (1.5 to 4.5 GHz):
//   Z_L = Z0:     |S11| <= -30 dB;
//   Z_L = 3 Z0:   |S11| = 0.5 within 0.02, its phase turning as -2 beta L within 2 %;
//   shorted end:  |S11| = 1 within 0.02;
//   a capacitor, an inductor, and R, L and C in series and in parallel: S11 within 0.03 of the
//   analytic value (the whole complex number, not only its magnitude);
//   a receiving port of 2 Z0: |S11| = 1/3 and |S11|^2 + |S21|^2 = 1, each within 0.01.
#include "run_helpers.hpp"

#include "dgatd/io/analysis/results.hpp"
#include "dgatd/io/analysis/sparams.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

using Complex = std::complex<double>;
using dgatd::testing::replaced;
using dgatd::testing::run_dgatd;
using dgatd::testing::ScratchDirectory;

constexpr double z0 = 376.730313, length = 0.1, light = 299792458.0, two_pi = 6.283185307179586;
constexpr double fmin = 1.5e9, fmax = 4.5e9;
// Reactances of Z0 at the band's centre, 3 GHz.
double const capacitance = 1 / (two_pi * 3e9 * z0), inductance = z0 / (two_pi * 3e9);

std::string const example = std::string(DGATD_SOURCE_DIR) + "/inputs/parallel_plate_line.toml";
std::string const load_table = "[[lumped]]\nkind = \"resistor\"\nsurface = \"load\"\ndirection = [0, 1, 0]\n"
                               "resistance = 376.730313\n";

// Runs the example with its [[lumped]] load replaced by `load` (and `pec` as [boundary] pec) and
// returns the S-parameters of its port over the band.
dgatd::io::SParameters run_line(ScratchDirectory const& scratch, std::string const& name, std::string const& load,
                                std::string const& pec = "[\"plates\"]")
{
  auto text = dgatd::testing::slurp(example);
  text = replaced(text, "file = \"parallel_plate_line.geo\"",
                  "file = \"" + std::string(DGATD_SOURCE_DIR) + "/inputs/parallel_plate_line.geo\"");
  text = replaced(text, load_table, load);
  text = replaced(text, "pec = [\"plates\"]", "pec = " + pec);
  text = replaced(text, "file = \"parallel_plate_line.h5\"", "file = \"" + name + ".h5\"");
  std::string const config = scratch.file(name + ".toml");
  std::ofstream(config) << text;
  auto const run = run_dgatd("run " + config, scratch.path());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  std::string const output = scratch.file(name + ".h5");
  return dgatd::io::s_parameters(dgatd::io::read_ports(output), output, fmin, fmax, 31);
}

// The largest |S11 - Gamma_L(f) exp(-2 j beta L)| over the band.
double largest_error(dgatd::io::SParameters const& s, std::function<Complex(double)> const& load_impedance)
{
  double worst = 0;
  for (std::size_t i = 0; i < s.frequency.size(); ++i) {
    double const f = s.frequency[i];
    Complex const z = load_impedance(f);
    Complex const expected = (z - z0) / (z + z0) * std::polar(1.0, -2 * two_pi * f / light * length);
    worst = std::max(worst, std::abs(s.s[0][i] - expected));
  }
  return worst;
}

// A value as TOML reads it back exactly.
std::string exact(double value)
{
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string element(std::string const& body)
{
  return "[[lumped]]\nsurface = \"load\"\ndirection = [0, 1, 0]\n" + body + "\n";
}

TEST(LumpedLine, MatchedLoadReflectsBelowMinus30dB)
{
  ScratchDirectory scratch("lumped_line_matched");
  auto const s = run_line(scratch, "matched", load_table);
  double worst = -400;
  for (auto const& s11 : s.s[0]) worst = std::max(worst, 20 * std::log10(std::abs(s11)));
  std::printf("matched load: largest |S11| %.1f dB\n", worst);
  EXPECT_LE(worst, -30.0);
  for (auto const& z : s.impedance) EXPECT_NEAR(std::abs(z - Complex(z0, 0)), 0.0, 0.03 * z0) << z;
}

TEST(LumpedLine, ThreeZ0LoadReflectsHalfWithPhaseTurningAsTwiceBetaL)
{
  ScratchDirectory scratch("lumped_line_3z0");
  auto const s =
      run_line(scratch, "three_z0", replaced(load_table, "resistance = 376.730313", "resistance = " + exact(3 * z0)));
  double worst = 0;
  for (auto const& s11 : s.s[0]) worst = std::max(worst, std::abs(std::abs(s11) - 0.5));
  // The phase's slope against frequency by least squares on the unwrapped phase.
  std::vector<double> phase;
  for (auto const& s11 : s.s[0]) {
    double p = std::arg(s11);
    if (!phase.empty()) p += two_pi * std::round((phase.back() - p) / two_pi);
    phase.push_back(p);
  }
  double mean_f = 0, mean_p = 0;
  for (std::size_t i = 0; i < phase.size(); ++i)
    mean_f += s.frequency[i] / phase.size(), mean_p += phase[i] / phase.size();
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < phase.size(); ++i) {
    sxy += (s.frequency[i] - mean_f) * (phase[i] - mean_p);
    sxx += (s.frequency[i] - mean_f) * (s.frequency[i] - mean_f);
  }
  double const slope = sxy / sxx, expected = -2 * two_pi * length / light;
  std::printf("3 Z0 load: largest ||S11| - 0.5| %.4f, phase slope %.4f of -2 beta L\n", worst, slope / expected);
  EXPECT_LE(worst, 0.02);
  EXPECT_NEAR(slope / expected, 1.0, 0.02);
  EXPECT_LE(largest_error(s, [](double) { return Complex(3 * z0, 0); }), 0.03);
}

TEST(LumpedLine, ShortedEndReflectsEverything)
{
  ScratchDirectory scratch("lumped_line_short");
  auto const s = run_line(scratch, "short", "", "[\"plates\", \"load\"]");
  double worst = 0;
  for (auto const& s11 : s.s[0]) worst = std::max(worst, std::abs(std::abs(s11) - 1));
  std::printf("shorted end: largest ||S11| - 1| %.4f\n", worst);
  EXPECT_LE(worst, 0.02);
  EXPECT_LE(largest_error(s, [](double) { return Complex(0, 0); }), 0.03);
}

TEST(LumpedLine, ReactiveLoadsReflectAsTheirImpedances)
{
  ScratchDirectory scratch("lumped_line_reactive");
  Complex const j(0, 1);
  struct Case {
    std::string name, table;
    std::function<Complex(double)> impedance;
  };
  auto const c = exact(capacitance), l = exact(inductance), r = exact(z0 / 2);
  std::vector<Case> const cases{
      {"capacitor", element("kind = \"capacitor\"\ncapacitance = " + c),
       [&](double f) { return 1.0 / (j * two_pi * f * capacitance); }},
      {"inductor", element("kind = \"inductor\"\ninductance = " + l),
       [&](double f) { return j * two_pi * f * inductance; }},
      {"series_rlc",
       element("kind = \"rlc\"\ncircuit = \"series\"\nresistance = " + r + "\ncapacitance = " + c +
               "\ninductance = " + l),
       [&](double f) { return z0 / 2 + j * two_pi * f * inductance + 1.0 / (j * two_pi * f * capacitance); }},
      {"parallel_rlc",
       element("kind = \"rlc\"\ncircuit = \"parallel\"\nresistance = " + r + "\ncapacitance = " + c +
               "\ninductance = " + l),
       [&](double f) { return 1.0 / (2 / z0 + j * two_pi * f * capacitance + 1.0 / (j * two_pi * f * inductance)); }},
  };
  for (auto const& load : cases) {
    double const error = largest_error(run_line(scratch, load.name, load.table), load.impedance);
    std::printf("%s load: largest |S11 - analytic| %.4f\n", load.name.c_str(), error);
    EXPECT_LE(error, 0.03) << load.name;
  }
}

// Two lumped ports: the load becomes a receiving port (amplitude 0) of resistance 2 Z0. Referred to
// each port's resistance, S11 = Gamma e^(-2 j beta L) with Gamma = 1/3 and the lossless line passes
// the rest, |S11|^2 + |S21|^2 = 1.
TEST(LumpedLine, TwoPortsOfUnequalResistanceConservePower)
{
  ScratchDirectory scratch("lumped_line_two_ports");
  std::string const receiver = "[[source]]\nkind = \"lumped_port\"\nsurface = \"load\"\ndirection = [0, 1, 0]\n"
                               "resistance = " +
                               exact(2 * z0) +
                               "\namplitude = 0\nwaveform = \"gaussian\"\n"
                               "sigma = 1e-10\n";
  auto const s = run_line(scratch, "two_ports", receiver);
  ASSERT_EQ(s.s.size(), 2u);
  EXPECT_EQ(s.ports[0], "port");
  double worst_power = 0, worst_reflection = 0;
  for (std::size_t i = 0; i < s.frequency.size(); ++i) {
    worst_power = std::max(worst_power, std::abs(std::norm(s.s[0][i]) + std::norm(s.s[1][i]) - 1));
    worst_reflection = std::max(worst_reflection, std::abs(std::abs(s.s[0][i]) - 1.0 / 3));
  }
  std::printf("two ports: largest ||S11|^2 + |S21|^2 - 1| %.4f, largest ||S11| - 1/3| %.4f\n", worst_power,
              worst_reflection);
  EXPECT_LE(worst_power, 0.01);
  EXPECT_LE(worst_reflection, 0.01);
}

// The command a user runs: dgatd sparams on a lumped port prints Z_in and writes it in the CSV.
TEST(LumpedLine, SparamsCommandReportsTheInputImpedance)
{
  ScratchDirectory scratch("lumped_line_sparams");
  run_line(scratch, "matched", load_table);
  std::string const csv = scratch.file("matched.csv");
  auto const r =
      run_dgatd("sparams " + scratch.file("matched.h5") + " --csv " + csv + " --png " + scratch.file("matched.png"),
                scratch.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Re Z_in (ohm)"), std::string::npos) << r.out;
  auto const table = dgatd::testing::read_csv(csv);
  std::size_t const re = table.column("zin_re_ohm"), im = table.column("zin_im_ohm");
  ASSERT_LT(im, table.header.size());
  for (auto const& row : table.rows) {
    EXPECT_NEAR(row[re], z0, 0.03 * z0);
    EXPECT_NEAR(row[im], 0.0, 0.03 * z0);
  }
}

} // namespace
