// The bistatic radar cross section of a PEC sphere (inputs/sphere_rcs.toml, run by the real
// executable; issue 23, acceptance 2): a plane wave through a total-field cube, the scattered field
// transformed on a far-field cube, at ka = 1.2 and 1.8. The E-plane and H-plane cuts equal the Mie
// series within 1 dB at every angle, the backscatter within 0.5 dB, and the total scattering cross
// section (dgatd farfield's, the far field's power over the incident intensity) and the extinction
// (the optical theorem's) within 3 %.
#include "mie_series.hpp"
#include "run_helpers.hpp"

#include "dgatd/io/analysis/far_field.hpp"
#include "dgatd/io/analysis/results.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr double c0 = 299792458.0;
constexpr double pi = 3.14159265358979323846;
constexpr double radius = 0.1;

double decibels(double x) { return 10 * std::log10(x); }

TEST(SphereRcs, EqualsTheMieSeries)
{
  dgatd::testing::ScratchDirectory scratch("sphere_rcs");
  std::string const output = scratch.file("sphere.h5");
  auto const run = dgatd::testing::run_dgatd(
      "run " + std::string(DGATD_SOURCE_DIR) + "/inputs/sphere_rcs.toml -o " + output, scratch.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto const records = dgatd::io::read_far_fields(output);
  ASSERT_EQ(records.size(), 1u);
  ASSERT_TRUE(records[0].has_incident);
  auto const patterns = dgatd::io::far_field_patterns(records[0], 30, 30, {0, 90});
  ASSERT_EQ(patterns.size(), 2u);
  for (auto const& p : patterns) {
    double const k = 2 * pi * p.frequency / c0;
    dgatd::testing::PecMieSeries const mie(k * radius);
    ASSERT_TRUE(p.has_rcs);
    // The wave runs up z with e along x: theta is the scattering angle, phi = 0 the E-plane.
    double worst = 0;
    for (std::size_t cut = 0; cut < 2; ++cut)
      for (auto const& s : p.cuts[cut]) {
        if (s.theta > 180) continue;
        auto const [s1, s2] = mie.amplitudes(s.theta * pi / 180);
        double const exact = 4 * pi * std::norm(cut == 0 ? s2 : s1) / (k * k);
        double const deviation = decibels(s.rcs) - decibels(exact);
        if (std::abs(deviation) > std::abs(worst)) worst = deviation;
        EXPECT_LT(std::abs(deviation), 1.0)
            << "ka " << k * radius << ", phi " << p.cut_phis[cut] << ", theta " << s.theta;
      }
    auto const [s1, s2] = mie.amplitudes(pi);
    double const backscatter = 4 * pi * std::norm(s1) / (k * k);
    EXPECT_NEAR(decibels(p.backscatter.rcs), decibels(backscatter), 0.5) << "ka " << k * radius;
    double const scattering = mie.scattering_efficiency() * pi * radius * radius;
    EXPECT_NEAR(p.scattering / scattering, 1.0, 0.03) << "ka " << k * radius;
    // A PEC sphere absorbs nothing: the optical theorem's extinction is the scattering.
    ASSERT_TRUE(p.has_extinction);
    EXPECT_NEAR(p.extinction / scattering, 1.0, 0.03) << "ka " << k * radius;
    std::printf("ka %.2f: extinction %.5f m^2, absorption %.5f m^2\n", k * radius, p.extinction, p.absorption);
    std::printf("ka %.2f: backscatter %.2f dBsm (Mie %.2f), cuts within %+.2f dB, scattering cross section %.5f "
                "m^2 (Mie %.5f)\n",
                k * radius, decibels(p.backscatter.rcs), decibels(backscatter), worst, p.scattering, scattering);
  }
}

} // namespace
