// A centre-fed half-wave strip dipole (inputs/strip_dipole.toml, run by the real executable; issue
// "antennas", acceptance 3): a PEC strip inside the mesh, fed by a lumped port across its gap, in a
// matched shell, with a far-field box around it.
//   - the resonance (X_in = 0) falls between 0.45 and 0.5 free-space wavelengths of arm-to-arm length,
//     with R_in there between 60 and 80 ohms;
//   - the directivity at the resonance is 1.64 (2.15 dBi) within 0.15 dB;
//   - the power the port puts in equals the power the far field carries within 2 % (the dipole and
//     the air are lossless: everything accepted is radiated).
#include "run_helpers.hpp"

#include "dgatd/io/analysis/far_field.hpp"
#include "dgatd/io/analysis/results.hpp"
#include "dgatd/io/analysis/sparams.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace {

using dgatd::testing::run_dgatd;
using dgatd::testing::ScratchDirectory;

constexpr double light = 299792458.0;
constexpr double length = 0.47 * 0.2998; // arm to arm, as inputs/strip_dipole.geo builds it

// The frequency where X_in changes sign from negative to positive over the band, 0 where none does;
// the resistance there by resistance.
double resonance_of(dgatd::io::SParameters const& s, double* resistance = nullptr)
{
  for (std::size_t i = 0; i + 1 < s.frequency.size(); ++i) {
    double const x0 = s.impedance[i].imag(), x1 = s.impedance[i + 1].imag();
    if (x0 < 0 && x1 >= 0) {
      double const w = x0 / (x0 - x1);
      if (resistance) *resistance = s.impedance[i].real() + w * (s.impedance[i + 1].real() - s.impedance[i].real());
      return s.frequency[i] + w * (s.frequency[i + 1] - s.frequency[i]);
    }
  }
  return 0;
}

TEST(StripDipole, ResonatesNearHalfAWavelengthAndRadiatesWhatItAccepts)
{
  ScratchDirectory scratch("strip_dipole");
  std::string const config = dgatd::testing::shipped_example(scratch, "strip_dipole", "dipole");
  auto const run = run_dgatd("run " + config, scratch.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::string const output = scratch.file("dipole.h5");

  // The input impedance over 0.85 to 1.15 GHz and where its reactance changes sign.
  auto const ports = dgatd::io::read_ports(output);
  auto const s = dgatd::io::s_parameters(ports, output, 0.85e9, 1.15e9, 301);
  ASSERT_EQ(s.impedance.size(), s.frequency.size());
  double resistance = 0;
  double const resonance = resonance_of(s, &resistance);
  ASSERT_GT(resonance, 0) << "no resonance between 0.85 and 1.15 GHz";
  double const electrical_length = length * resonance / light;
  std::printf("resonance %.4f GHz: arm to arm %.4f wavelengths, R_in %.1f ohm\n", resonance / 1e9, electrical_length,
              resistance);
  EXPECT_GE(electrical_length, 0.45);
  EXPECT_LE(electrical_length, 0.5);
  EXPECT_GE(resistance, 60.0);
  EXPECT_LE(resistance, 80.0);

  // The far field at the frequency of the [[farfield]] table nearest the resonance.
  auto const records = dgatd::io::read_far_fields(output);
  ASSERT_EQ(records.size(), 1u);
  auto const patterns = dgatd::io::far_field_patterns(records.front(), 2.0, 5.0, {});
  for (auto const& p : patterns) {
    auto const power = dgatd::io::port_power(ports, p.frequency);
    double const directivity_db = 10 * std::log10(p.strongest.directivity);
    std::printf("%.3f GHz: directivity %.3f dBi (half-wave dipole 2.15), far field / accepted %.4f, far field / "
                "flux %.4f\n",
                p.frequency / 1e9, directivity_db, p.radiated / power.accepted, p.radiated / p.flux);
    EXPECT_NEAR(p.radiated / power.accepted, 1.0, 0.02) << p.frequency;
    if (std::abs(p.frequency - resonance) < 0.03e9) {
      EXPECT_NEAR(directivity_db, 2.15, 0.15) << p.frequency;
    }
  }

  // What a user reads: dgatd farfield refers the pattern to the port's powers.
  auto const far = run_dgatd("farfield " + output + " -o " + scratch.file("pattern"), scratch.path());
  ASSERT_EQ(far.exit_code, 0) << far.err;
  EXPECT_NE(far.out.find("far field / accepted  gain (dBi)  realized gain (dBi)"), std::string::npos) << far.out;
  // -o names the files as the default does, its stem in place of the output's.
  EXPECT_NE(far.out.find("wrote " + scratch.file("pattern") + "_farfield_"), std::string::npos) << far.out;

  // With local steps (the tets' four levels on this mesh, the feed on the finest) the levels' steps are forced by the
  // port's current, solved through them, so the feed's near field answers it as with one global step: the
  // resonance within 0.1 % and |S11| within 0.01 of this run's (issue 47; measured +0.010 % and 0.001; without
  // the forcing the resonance was 0.87 % low, docs/method/local_time_stepping.md, section 5; with the
  // current extrapolated four levels grew, section 6).
  auto const local_config = scratch.write(
      "local.toml", dgatd::testing::replaced(dgatd::testing::replaced(dgatd::testing::slurp(config), "t_end = 12e-9",
                                                                      "t_end = 12e-9\nlocal_steps = \"auto\""),
                                             "file = \"dipole.h5\"", "file = \"local.h5\""));
  auto const local_run = run_dgatd("run " + local_config, scratch.path());
  ASSERT_EQ(local_run.exit_code, 0) << local_run.err;
  ASSERT_NE(local_run.out.find("the driven currents lie on level"), std::string::npos)
      << "the feed on a finer level: " << local_run.out;
  EXPECT_NE(local_run.out.find("the lumped ports' currents solved through the levels"), std::string::npos)
      << local_run.out;
  auto const local = dgatd::io::s_parameters(dgatd::io::read_ports(scratch.file("local.h5")), scratch.file("local.h5"),
                                             0.85e9, 1.15e9, 301);
  double const local_resonance = resonance_of(local);
  double s11_difference = 0;
  for (std::size_t i = 0; i < s.frequency.size(); ++i)
    s11_difference = std::max(s11_difference, std::abs(std::abs(local.s[0][i]) - std::abs(s.s[0][i])));
  std::printf("local steps: resonance %.5f GHz against %.5f, |S11| within %.5f\n", local_resonance / 1e9,
              resonance / 1e9, s11_difference);
  EXPECT_NEAR(local_resonance / resonance, 1.0, 1e-3);
  EXPECT_LT(s11_difference, 0.01);
}

} // namespace
