// The far field of the z-dipole of inputs/dipole_pml_box.toml (issue 23, acceptance 4): a closed
// surface 0.1 m (a third of a wavelength) around it, the inner box's, takes the transforms of e
// and h at the carrier during the run; Love's equivalence then gives the Hertzian dipole's
// directivity 1.5 (1.76 dBi) within 0.1 dB, its pattern sin^2 theta within 0.3 dB over 20-160
// degrees, and a radiated power equal to the flux through the surface within 1 %. `dgatd farfield`
// writes the same as CSV.
#include "run_helpers.hpp"

#include "dgatd/io/analysis/far_field.hpp"
#include "dgatd/io/analysis/results.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

namespace {

using dgatd::testing::replaced;

TEST(DipoleFarField, DirectivityPatternAndPower)
{
  dgatd::testing::ScratchDirectory scratch("dipole_far_field");
  std::string const example = dgatd::testing::slurp(std::string(DGATD_SOURCE_DIR) + "/inputs/dipole_pml_box.toml");
  auto const output_table = example.find("\n[output]");
  ASSERT_NE(output_table, std::string::npos);
  auto const text = replaced(example.substr(0, output_table + 1), "reproducible = true",
                             "reproducible = true\ninner = { shape = \"box\", corner = [0.04, 0.04, 0.04], size = "
                             "[0.2, 0.2, 0.2] }") +
                    "[[farfield]]\nsurface = \"inner_surface\"\nfrequencies = [1e9]\n"
                    "[output]\nfile = \"dipole.h5\"\nprogress = false\n";
  auto const config = scratch.write("dipole.toml", text);
  std::string const output = scratch.file("dipole.h5");
  auto const run = dgatd::testing::run_dgatd("run " + config + " -o " + output, scratch.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;

  auto const records = dgatd::io::read_far_fields(output);
  ASSERT_EQ(records.size(), 1u);
  auto const patterns = dgatd::io::far_field_patterns(records[0], 5, 10, {});
  ASSERT_EQ(patterns.size(), 1u);
  auto const& p = patterns[0];
  EXPECT_NEAR(p.radiated / p.flux, 1.0, 0.01);
  EXPECT_NEAR(10 * std::log10(p.strongest.directivity), 10 * std::log10(1.5), 0.1);
  double worst = 0;
  for (auto const& s : p.grid) {
    if (s.theta < 20 || s.theta > 160) continue;
    double const sine = std::sin(s.theta * M_PI / 180);
    double const deviation = 10 * std::log10(s.directivity / (1.5 * sine * sine));
    if (std::abs(deviation) > std::abs(worst)) worst = deviation;
    EXPECT_LT(std::abs(deviation), 0.3) << "at theta " << s.theta << ", phi " << s.phi;
  }
  std::printf("far field / flux %.4f, D max %.3f dBi, pattern off sin^2 theta by %+.3f dB at most\n",
              p.radiated / p.flux, 10 * std::log10(p.strongest.directivity), worst);

  auto const command = dgatd::testing::run_dgatd("farfield " + output + " --theta 10 --phi 30", scratch.path());
  ASSERT_EQ(command.exit_code, 0) << command.err;
  EXPECT_NE(command.out.find("far-field surface 'inner_surface'"), std::string::npos) << command.out;
  EXPECT_TRUE(std::filesystem::exists(scratch.file("dipole_farfield_inner_surface.csv")));
  EXPECT_TRUE(std::filesystem::exists(scratch.file("dipole_farfield_inner_surface_cuts.csv")));
}

} // namespace
