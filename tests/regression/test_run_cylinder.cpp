// README command 1's job, checked: the cylindrical resonator of the paper (Sec. IV) rings at its TM
// eigenfrequencies, and once the source has stopped the leapfrog energy is an exact invariant.
#include "run_helpers.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using dgatd::testing::run_config;
using dgatd::testing::ScratchDirectory;

TEST(CylinderResonator, TmModesAndEnergyAfterTheSource)
{
  ScratchDirectory scratch("cylinder");
  std::string const output = (scratch.path() / "cylinder.h5").string();
  ASSERT_TRUE(run_config(std::string(DGATD_SOURCE_DIR) + "/inputs/cylinder_resonator.toml", output).complete);

  auto const probe = dgatd::io::read_probe(output, "off_axis", 'E');
  double const dt = dgatd::io::uniform_step(probe.time, output);
  auto const spectrum = dgatd::io::compute_spectrum(dgatd::testing::component(probe, 2), dt, {80e6, 330e6, 8});
  auto const peaks = dgatd::io::find_peaks(spectrum);
  // Analytic TM010, TM110, TM210, TM020 for r = 1 m, h = 0.5 m (METHOD.md).
  double const expected[] = {114.74e6, 182.82e6, 245.04e6, 263.38e6};
  double matched[4] = {0, 0, 0, 0};
  for (int m = 0; m < 4; ++m) {
    double best = 1;
    for (auto const& p : peaks)
      if (std::abs(p.frequency / expected[m] - 1) < best) {
        best = std::abs(p.frequency / expected[m] - 1);
        matched[m] = p.frequency;
      }
    std::printf("mode %d: analytic %.2f MHz, computed %.2f MHz, error %.3f %%\n", m, expected[m] / 1e6,
                matched[m] / 1e6, 100 * best);
    // The acceptance bar; the mesh (h = 0.055 m, about lambda/20 at 263 MHz) gives O(h^2) errors near 0.3 %.
    EXPECT_LT(best, 5e-3) << "mode " << m;
  }
  // 245 and 263 MHz are separate peaks, not one merged lobe.
  EXPECT_GT(matched[3] - matched[2], 10e6);

  // After the pulse (cut at t0 + 6 sigma = 6 ns) no source acts: W is conserved to rounding.
  auto const energy = dgatd::io::read_energy(output);
  double reference = -1, worst = 0;
  for (std::size_t i = 0; i < energy.time.size(); ++i) {
    if (energy.time[i] <= 6.5e-9) continue;
    if (reference < 0) reference = energy.energy[i];
    worst = std::max(worst, std::abs(energy.energy[i] - reference) / reference);
  }
  ASSERT_GT(reference, 0);
  std::printf("energy after the source: %.6e J, max relative change %.3e\n", reference, worst);
  EXPECT_LT(worst, 1e-10);
}

} // namespace
