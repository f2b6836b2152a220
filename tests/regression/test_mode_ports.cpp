// Mode ports (issue 50, acceptance 3): a 50-ohm coaxial line between two mode ports that launch and
// absorb its TEM mode, and a circular guide between two that launch and absorb its TE11 mode, each
// solved at set-up on the ports' cross-sections. Through the real executable (dgatd run, then dgatd
// sparams): the far port absorbs the wave, |S11| below -40 dB over the band, |S21| within 0.05 dB of
// 1 and its phase -beta L within 1 %; the run reports the coax's Z0 within 0.5 % of
// (eta0 / 2 pi) ln(b / a), dgatd ports lists the modes, and a TM mode is refused.
#include "run_helpers.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using dgatd::testing::run_dgatd;
using dgatd::testing::ScratchDirectory;

// Millimetres: the inner and outer radii (Z0 = 60 ln 2.3 = 49.97 ohm in vacuum) and the length.
constexpr double inner = 1, outer = 2.3, length = 20, light = 299792458.0;

// The annulus meshed by Gmsh and extruded in layers of tets along z: the ports' sections are the
// line's, and the line is the same in every layer.
constexpr char const* geo = R"(SetFactory("OpenCASCADE");
Disk(1) = {0, 0, 0, 2.3};
Disk(2) = {0, 0, 0, 1};
BooleanDifference(3) = { Surface{1}; Delete; }{ Surface{2}; Delete; };
Mesh.MeshSizeMin = 0.3;
Mesh.MeshSizeMax = 0.3;
line[] = Extrude {0, 0, 20} { Surface{3}; Layers{67}; };
Physical Surface("port_in") = {3};
Physical Surface("port_out") = {line[0]};
Physical Volume("line") = {line[1]};
)";

// Checks dgatd sparams' table of a line of length (m) between two matched ports against a wave of
// phase constant beta(f): |S11| at most -40 dB, |S21| within 0.05 dB of 1, arg S21 within 1 % of
// -beta L. The phase is known modulo 2 pi only: unwrapped along the band from the turn nearest to
// -beta L at its first frequency.
template <class Beta>
void expect_matched_line(std::string const& csv, double line_length, Beta beta)
{
  auto const table = dgatd::testing::read_csv(csv);
  ASSERT_FALSE(table.rows.empty());
  double worst_s11 = -1e9, worst_s21 = 0, worst_phase = 0;
  double previous = 0, unwrapped = 0;
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    auto const& c = table.rows[i];
    ASSERT_EQ(c.size(), 5u);
    double const frequency = c[0], s11_db = c[1], s21_db = c[3], phase = c[4] * M_PI / 180;
    double const expected = -beta(frequency) * line_length;
    if (i == 0)
      unwrapped = phase + 2 * M_PI * std::round((expected - phase) / (2 * M_PI));
    else
      unwrapped += std::remainder(phase - previous, 2 * M_PI);
    previous = phase;
    double const error = (unwrapped - expected) / std::abs(expected);
    std::printf("f = %6.3f GHz: |S11| = %6.1f dB, |S21| = %7.4f dB, arg S21 = %8.4f rad, -beta L = %8.4f rad "
                "(%+.3f %%)\n",
                frequency / 1e9, s11_db, s21_db, unwrapped, expected, 100 * error);
    worst_s11 = std::max(worst_s11, s11_db);
    worst_s21 = std::max(worst_s21, std::abs(s21_db));
    worst_phase = std::max(worst_phase, std::abs(error));
  }
  EXPECT_LE(worst_s11, -40.0);
  EXPECT_LT(worst_s21, 0.05);
  EXPECT_LT(worst_phase, 0.01);
}

TEST(ModePorts, CoaxialLineBetweenTwoModePortsReflectsBelowMinus40dB)
{
  ScratchDirectory scratch("mode_ports");
  scratch.write("coax.geo", geo);
  std::string const config = scratch.write("coax.toml", R"([mesh]
file = "coax.geo"
scale = 1e-3

[[source]]
kind = "mode_port"
surface = "port_in"
waveform = "modulated_gaussian"
frequency = 7.5e9
sigma = 3e-11
t0 = 1.5e-10

[[source]]
kind = "mode_port"
surface = "port_out"
amplitude = 0
waveform = "modulated_gaussian"
frequency = 7.5e9
sigma = 3e-11

[time]
t_end = 6e-10

[output]
file = "coax.h5"
energy_every = 100
progress = false
)");
  auto const ports = run_dgatd("ports " + config, scratch.path());
  ASSERT_EQ(ports.exit_code, 0) << ports.err;
  EXPECT_NE(ports.out.find("<- launched"), std::string::npos) << ports.out;

  auto const run = run_dgatd("run " + config + " -o " + scratch.file("coax.h5"), scratch.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // "mode port 'port_in': mode 1, TEM, eps_eff 1.0000, Z0 49.9xx ohm; ..."
  auto const at = run.out.find("mode port 'port_in': mode 1, TEM");
  ASSERT_NE(at, std::string::npos) << run.out;
  double const z0 = std::stod(run.out.substr(run.out.find("Z0 ", at) + 3));
  double const analytic = 376.730313668 / (2 * M_PI) * std::log(outer / inner);
  std::printf("Z0 = %.4f ohm (analytic %.4f, %+.3f %%)\n", z0, analytic, 100 * (z0 / analytic - 1));
  EXPECT_NEAR(z0, analytic, 0.005 * analytic);

  auto const sparams = run_dgatd("sparams " + scratch.file("coax.h5") + " --fmin 2e9 --fmax 13e9 --points 12 --csv " +
                                     scratch.file("s.csv"),
                                 scratch.path());
  ASSERT_EQ(sparams.exit_code, 0) << sparams.err;
  expect_matched_line(scratch.file("s.csv"), length * 1e-3, [](double f) { return 2 * M_PI * f / light; });
}

// A circular guide of radius 10 mm, 60 mm long: TE11 (cutoff 1.8412 c / (2 pi R) = 8.786 GHz) over
// 9.8-11.4 GHz (from 1.11 times the cutoff, where the 2D and 3D discrete cutoffs differ little), below
// TM01 (11.48 GHz). beta from the section's own cutoff, which dgatd ports prints.
constexpr char const* guide_geo = R"(SetFactory("OpenCASCADE");
Disk(1) = {0, 0, 0, 10};
Mesh.MeshSizeMin = 1.2;
Mesh.MeshSizeMax = 1.2;
guide[] = Extrude {0, 0, 60} { Surface{1}; Layers{50}; };
Physical Surface("port_in") = {1};
Physical Surface("port_out") = {guide[0]};
Physical Volume("guide") = {guide[1]};
)";

std::string guide_config(int mode)
{
  return R"([mesh]
file = "guide.geo"
scale = 1e-3

[[source]]
kind = "mode_port"
surface = "port_in"
mode = )" +
         std::to_string(mode) +
         R"(
waveform = "modulated_gaussian"
frequency = 10.5e9
sigma = 2e-10
t0 = 1e-9

[[source]]
kind = "mode_port"
surface = "port_out"
mode = )" +
         std::to_string(mode) +
         R"(
amplitude = 0
waveform = "modulated_gaussian"
frequency = 10.5e9
sigma = 2e-10

[time]
t_end = 5e-9

[output]
file = "guide.h5"
energy_every = 100
progress = false
)";
}

TEST(ModePorts, CircularGuideBetweenTwoTE11PortsReflectsBelowMinus40dB)
{
  ScratchDirectory scratch("mode_ports_guide");
  scratch.write("guide.geo", guide_geo);
  std::string const config = scratch.write("guide.toml", guide_config(1));
  auto const ports = run_dgatd("ports " + config, scratch.path());
  ASSERT_EQ(ports.exit_code, 0) << ports.err;
  // "     1    TE      8.80369e+09 ..."
  auto const row = ports.out.find("     1    TE ");
  ASSERT_NE(row, std::string::npos) << ports.out;
  double const cutoff = std::stod(ports.out.substr(row + 13));
  double const analytic = 1.841183781 * light / (2 * M_PI * 0.01);
  std::printf("TE11 cutoff %.6g Hz (analytic %.6g, %+.3f %%)\n", cutoff, analytic, 100 * (cutoff / analytic - 1));
  EXPECT_NEAR(cutoff, analytic, 0.005 * analytic);

  auto const run = run_dgatd("run " + config + " -o " + scratch.file("guide.h5"), scratch.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto const sparams = run_dgatd("sparams " + scratch.file("guide.h5") +
                                     " --fmin 9.8e9 --fmax 11.4e9 --points 7 --csv " + scratch.file("s.csv"),
                                 scratch.path());
  ASSERT_EQ(sparams.exit_code, 0) << sparams.err;
  expect_matched_line(scratch.file("s.csv"), 0.06,
                      [cutoff](double f) { return 2 * M_PI / light * std::sqrt(f * f - cutoff * cutoff); });

  // Mode 3 is TM01, which a mode port does not take: refused at its line.
  auto const tm =
      run_dgatd("run " + scratch.write("tm.toml", guide_config(3)) + " -o " + scratch.file("tm.h5"), scratch.path());
  EXPECT_EQ(tm.exit_code, 1);
  EXPECT_NE(tm.err.find("tm.toml:5: mode 3 of 'port_in' is TM"), std::string::npos) << tm.err;
}

TEST(ModePorts, APortInsideTheMeshIsRefused)
{
  ScratchDirectory scratch("mode_ports_inside");
  scratch.write("coax.geo", R"(SetFactory("OpenCASCADE");
Disk(1) = {0, 0, 0, 2.3};
Disk(2) = {0, 0, 0, 1};
BooleanDifference(3) = { Surface{1}; Delete; }{ Surface{2}; Delete; };
Mesh.MeshSizeMin = 0.5;
Mesh.MeshSizeMax = 0.5;
first[] = Extrude {0, 0, 2} { Surface{3}; Layers{4}; };
second[] = Extrude {0, 0, 2} { Surface{first[0]}; Layers{4}; };
Physical Surface("middle") = {first[0]};
Physical Volume("line") = {first[1], second[1]};
)");
  std::string const config = scratch.write("inside.toml", R"([mesh]
file = "coax.geo"
scale = 1e-3

[[source]]
kind = "mode_port"
surface = "middle"
waveform = "gaussian"
sigma = 3e-11

[time]
steps = 10
)");
  auto const run = run_dgatd("run " + config + " -o " + scratch.file("inside.h5"), scratch.path());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("inside.toml:5: matched port 'middle' lies inside the mesh"), std::string::npos) << run.err;
}

} // namespace
