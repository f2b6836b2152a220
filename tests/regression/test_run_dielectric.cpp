// A PEC cavity completely filled with eps_r = 2.25: its spectrum is the vacuum one divided by 1.5.
#include "run_helpers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

using dgatd::testing::run_config;
using dgatd::testing::ScratchDirectory;

double cavity_frequency(int m, int n, int p)
{
  double const c = 299792458.0, a = 1.0, b = 0.75, d = 0.5;
  return c / 2 * std::sqrt((m / a) * (m / a) + (n / b) * (n / b) + (p / d) * (p / d));
}

TEST(DielectricCavity, LowestModesScaleWithOneOverSqrtEpsR)
{
  ScratchDirectory scratch("dielectric");
  std::string const output = (scratch.path() / "cavity.h5").string();
  ASSERT_TRUE(run_config(std::string(DGATD_SOURCE_DIR) + "/inputs/cavity_dielectric.toml", output).complete);

  // Every component sees some of the modes; together they see all three lowest.
  auto const probe = dgatd::io::read_probe(output, "p", 'E');
  double const dt = dgatd::io::uniform_step(probe.time, output);
  std::vector<double> found;
  for (int c = 0; c < 3; ++c) {
    auto const spectrum = dgatd::io::compute_spectrum(dgatd::testing::component(probe, c), dt, {100e6, 300e6, 8});
    // Hamming sidelobes are 0.74 % of their peak, and those of several strong modes add up to a few
    // percent; every mode the oblique dipole drives stands well above 5 % in some component.
    dgatd::io::PeakOptions options;
    options.threshold = 0.05;
    for (auto const& p : dgatd::io::find_peaks(spectrum, options)) found.push_back(p.frequency);
  }
  std::sort(found.begin(), found.end());
  // Peaks of the same mode seen in several components, or a degenerate pair split by the mesh,
  // lie within a fraction of a percent of each other: one distinct frequency.
  std::vector<double> distinct;
  for (double f : found)
    if (distinct.empty() || f > distinct.back() * 1.01) distinct.push_back(f);
  ASSERT_GE(distinct.size(), 3u);
  double const expected[] = {cavity_frequency(1, 1, 0) / 1.5, cavity_frequency(1, 0, 1) / 1.5,
                             cavity_frequency(0, 1, 1) / 1.5};
  for (int i = 0; i < 3; ++i) {
    double const error = std::abs(distinct[i] / expected[i] - 1);
    std::printf("mode %d: analytic %.2f MHz, computed %.2f MHz, error %.3f %%\n", i, expected[i] / 1e6,
                distinct[i] / 1e6, 100 * error);
    // O(h^2) discretisation error at about lambda/18 in the dielectric stays well inside 1 %.
    EXPECT_LT(error, 0.01);
  }
}

} // namespace
