// Mode ports (issue 50, acceptance 3): a 50-ohm coaxial line between two mode ports that launch and
// absorb its TEM mode, and a circular guide between two that launch and absorb its TE11 mode, each
// solved at set-up on the ports' cross-sections. Through the real executable (dgatd run, then dgatd
// sparams): the far port absorbs the wave, |S11| below -40 dB over the band, |S21| within 0.05 dB of
// 1 and its phase -beta L within 1 %; two modes on each end conserve power through a polarization
// converter; the run reports the coax's Z0 within 0.5 % of
// (eta0 / 2 pi) ln(b / a), dgatd ports lists the modes, and a TM mode is refused.
#include "run_helpers.hpp"

#include <gtest/gtest.h>

#include <array>
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
// TM01 (11.48 GHz). beta from the section's own cutoff, which dgatd ports prints. The guide is
// inputs/circular_guide.geo, extruded in layers of tets, so the sections and every layer are the same.
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
  scratch.write("guide.geo", dgatd::testing::slurp(std::string(DGATD_SOURCE_DIR) + "/inputs/circular_guide.geo"));
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

// The circular guide with a dielectric bar (eps_r 4, 12 x 3 mm, 20 mm long) across its middle third,
// turned 45 degrees about the axis: a polarization converter. Each end carries both TE11 modes (x and
// y polarized, dgatd's modes 1 and 2), four ports in all; the run drives x at the input. Below TM01 the
// pair carries all the power, so a lossless guide's S column conserves it: sum |S_k1|^2 = 1 within 2 %
// (the single-mode guide's |S21| bar of 0.05 dB is 1.2 % of power), and a good share reaches the y
// modes, which the ports must therefore absorb too.
constexpr char const* converter_geo = R"(SetFactory("OpenCASCADE");
Cylinder(1) = {0, 0, 0, 0, 0, 60, 10};
Box(2) = {-6, -1.5, 20, 12, 3, 20};
Rotate {{0, 0, 1}, {0, 0, 0}, Pi / 4} { Volume{2}; }
BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; }
e = 1e-5;
bar[] = Volume In BoundingBox{-6, -6, 20 - e, 6, 6, 40 + e};
Physical Volume("bar") = {bar[]};
all[] = Volume{:};
all[] -= bar[];
Physical Volume("guide") = {all[]};
Physical Surface("port_in") = Surface In BoundingBox{-10 - e, -10 - e, -e, 10 + e, 10 + e, e};
Physical Surface("port_out") = Surface In BoundingBox{-10 - e, -10 - e, 60 - e, 10 + e, 10 + e, 60 + e};
Mesh.MeshSizeMin = 1.2;
Mesh.MeshSizeMax = 1.2;
Mesh.Algorithm3D = 1;
)";

std::string converter_port(std::string const& surface, int mode, bool driven)
{
  return "\n[[source]]\nkind = \"mode_port\"\nsurface = \"" + surface + "\"\nmode = " + std::to_string(mode) +
         (driven ? "\n" : "\namplitude = 0\n") +
         "waveform = \"modulated_gaussian\"\nfrequency = 10.5e9\nsigma = 2e-10\nt0 = 1e-9\n";
}

TEST(ModePorts, TwoModesPerPortConservePowerThroughAPolarizationConverter)
{
  ScratchDirectory scratch("mode_ports_converter");
  scratch.write("converter.geo", converter_geo);
  std::string const head = "[mesh]\nfile = \"converter.geo\"\nscale = 1e-3\n\n[[material]]\nregion = \"bar\"\n"
                           "eps_r = 4\n";
  std::string const tail = "\n[time]\nt_end = 6e-9\n\n[output]\nfile = \"converter.h5\"\nprogress = false\n";
  std::string const config = scratch.write(
      "converter.toml", head + converter_port("port_in", 1, true) + converter_port("port_in", 2, false) +
                            converter_port("port_out", 1, false) + converter_port("port_out", 2, false) + tail);
  auto const ports = run_dgatd("ports " + config + " --modes 2", scratch.path());
  ASSERT_EQ(ports.exit_code, 0) << ports.err;
  // Each surface listed once, both of its modes launched.
  EXPECT_EQ(ports.out.find("port 'port_in'"), ports.out.rfind("port 'port_in'")) << ports.out;
  EXPECT_NE(ports.out.find("     2    TE "), std::string::npos) << ports.out;

  auto const run = run_dgatd("run " + config + " -o " + scratch.file("converter.h5"), scratch.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("mode port 'port_in:2': mode 2, TE"), std::string::npos) << run.out;
  auto const sparams = run_dgatd("sparams " + scratch.file("converter.h5") +
                                     " --fmin 9.8e9 --fmax 11.4e9 --points 9 --csv " + scratch.file("s.csv"),
                                 scratch.path());
  ASSERT_EQ(sparams.exit_code, 0) << sparams.err;
  EXPECT_NE(sparams.out.find("ports: 1 = port_in:1 (driven), 2 = port_in:2, 3 = port_out:1, 4 = port_out:2"),
            std::string::npos)
      << sparams.out;
  auto const table = dgatd::testing::read_csv(scratch.file("s.csv"));
  ASSERT_FALSE(table.rows.empty());
  double converted = 0;
  for (auto const& c : table.rows) {
    ASSERT_EQ(c.size(), 9u);
    double power = 0;
    std::array<double, 4> share{};
    for (std::size_t k = 0; k < 4; ++k) {
      share[k] = std::pow(10.0, c[1 + 2 * k] / 10);
      power += share[k];
    }
    std::printf("f = %6.3f GHz: |S11|^2 %.4f, |S21|^2 %.4f, |S31|^2 %.4f, |S41|^2 %.4f, sum %.4f\n", c[0] / 1e9,
                share[0], share[1], share[2], share[3], power);
    EXPECT_NEAR(power, 1.0, 0.02) << "at " << c[0] << " Hz";
    converted = std::max(converted, share[3]);
  }
  EXPECT_GT(converted, 0.1);

  // One mode twice on a surface is refused at the second's line.
  auto const twice = run_dgatd("run " +
                                   scratch.write("twice.toml", head + converter_port("port_in", 1, true) +
                                                                   converter_port("port_in", 1, false) + tail) +
                                   " -o " + scratch.file("twice.h5"),
                               scratch.path());
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.err.find("twice.toml:18: surface 'port_in' already carries mode 1 ("), std::string::npos)
      << twice.err;
  EXPECT_NE(twice.err.find("twice.toml:9)"), std::string::npos) << twice.err;
}

// A short coaxial line in two halves: ports at its ends, a surface between the halves.
constexpr char const* short_coax_geo = R"(SetFactory("OpenCASCADE");
Disk(1) = {0, 0, 0, 2.3};
Disk(2) = {0, 0, 0, 1};
BooleanDifference(3) = { Surface{1}; Delete; }{ Surface{2}; Delete; };
Mesh.MeshSizeMin = 0.5;
Mesh.MeshSizeMax = 0.5;
first[] = Extrude {0, 0, 2} { Surface{3}; Layers{4}; };
second[] = Extrude {0, 0, 2} { Surface{first[0]}; Layers{4}; };
Physical Surface("port_in") = {3};
Physical Surface("middle") = {first[0]};
Physical Surface("port_out") = {second[0]};
Physical Volume("line") = {first[1], second[1]};
)";

// A mode port on surface of the short coaxial line, with the [boundary] table given (or none): what
// dgatd run says. These configurations are refused before the first step.
dgatd::testing::CommandResult run_short_coax(std::string const& name, std::string const& boundary,
                                             std::string const& surface)
{
  ScratchDirectory scratch("mode_ports_" + name);
  scratch.write("coax.geo", short_coax_geo);
  std::string const config =
      scratch.write(name + ".toml", "[mesh]\nfile = \"coax.geo\"\nscale = 1e-3\n\n" + boundary +
                                        "[[source]]\nkind = \"mode_port\"\nsurface = \"" + surface +
                                        "\"\nwaveform = \"gaussian\"\nsigma = 3e-11\n\n[time]\nsteps = 10\n");
  return run_dgatd("run " + config + " -o " + scratch.file(name + ".h5"), scratch.path());
}

TEST(ModePorts, APortInsideTheMeshIsRefused)
{
  auto const run = run_short_coax("inside", "", "middle");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("inside.toml:5: matched port 'middle' lies inside the mesh"), std::string::npos) << run.err;
}

// The section's boundary loops are its conductors, so the walls around a port must be PEC: a
// [boundary] pec list that leaves them out (they are then PMC) is refused at the port's line.
TEST(ModePorts, APortOnWallsThatAreNotPecIsRefused)
{
  auto const run = run_short_coax("pmc", "[boundary]\npec = []\n\n", "port_in");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("pmc.toml:8: the edge of the port's surface at ("), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("lies on no PEC face"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("list the walls around the port in [boundary] pec"), std::string::npos) << run.err;
}

} // namespace
