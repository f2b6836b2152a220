// `dgatd statics` (simulation/statics.hpp) on a two-layer parallel-plate capacitor, whose potential is
// piecewise linear and so exact in the linear elements: its capacitance, a conductor's potential
// from its charge, the field in each layer, a Debye medium's static permittivity, the output file,
// and every refusal at its configuration line.
#include "dgatd/dga/operators.hpp"
#include "dgatd/error.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/simulation/simulation.hpp"
#include "dgatd/simulation/statics.hpp"
#include "io/hdf5_handle.hpp"
#include "run_helpers.hpp"
#include "scratch_directory.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using dgatd::testing::run_dgatd;
using dgatd::testing::ScratchDirectory;

// The unit cube in two layers, eps_r 2 below z = 0.4 and 5 above, between plates at z = 0 and 1;
// the four sides natural (zero normal D), as a capacitor's field without fringes has it.
constexpr double split = 0.4, eps_low = 2, eps_high = 5;
constexpr char const* geo = R"(SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 0.4};
Box(2) = {0, 0, 0.4, 1, 1, 0.6};
BooleanFragments{ Volume{1, 2}; Delete; }{}
l = 1e-6;
Physical Volume("low") = Volume In BoundingBox{-l, -l, -l, 1 + l, 1 + l, 0.4 + l};
Physical Volume("high") = Volume In BoundingBox{-l, -l, 0.4 - l, 1 + l, 1 + l, 1 + l};
Physical Surface("bottom") = Surface In BoundingBox{-l, -l, -l, 1 + l, 1 + l, l};
Physical Surface("top") = Surface In BoundingBox{-l, -l, 1 - l, 1 + l, 1 + l, 1 + l};
Physical Surface("side") = Surface In BoundingBox{-l, -l, -l, l, 1 + l, 1 + l};
Mesh.MeshSizeMax = 0.25;
Mesh.Algorithm3D = 1;
)";

// C = eps0 A / (d_low / eps_low + d_high / eps_high), A = 1.
double series_capacitance() { return dgatd::dga::eps0 / (split / eps_low + (1 - split) / eps_high); }

std::string materials(std::string const& high = "eps_r = 5")
{
  return "[[material]]\nregion = \"low\"\neps_r = 2\n\n[[material]]\nregion = \"high\"\n" + high + "\n\n";
}

std::string plates(std::string const& top)
{
  return "[[conductor]]\nname = \"top\"\nsurfaces = \"top\"\n" + top + "\n\n";
}

constexpr char const* grounded_bottom = "[[conductor]]\nname = \"bottom\"\nsurfaces = [\"bottom\"]\npotential = 0\n\n";

class Statics : public ::testing::Test {
protected:
  ScratchDirectory scratch{"statics"};
  std::string const mesh_path = scratch.write("plates.geo", geo);

  dgatd::io::Config config(std::string const& body) const
  {
    return dgatd::io::parse_config("[mesh]\nfile = \"plates.geo\"\n\n" + body, "plates.toml", scratch.path().string(),
                                   dgatd::io::ConfigUse::statics);
  }
  // The one-line message of the error solving body throws.
  std::string refusal(std::string const& body) const
  {
    try {
      dgatd::simulation::solve_statics(config(body));
    } catch (dgatd::Error const& e) {
      return e.what();
    }
    return "no error";
  }
};

TEST_F(Statics, LayeredPlatesHoldTheirSeriesCapacitanceAndPiecewiseLinearField)
{
  dgatd::simulation::StaticsOptions options;
  options.tolerance = 1e-13;
  auto const s =
      dgatd::simulation::solve_statics(config(materials() + plates("potential = 2") + grounded_bottom), options);
  double const c = series_capacitance();
  ASSERT_EQ(s.conductors.size(), 2u);
  // Exact in the elements; the solve's tolerance leaves 1e-10 and the sums over vertices rounding.
  EXPECT_NEAR(s.capacitance[0][0], c, 1e-9 * c);
  EXPECT_NEAR(s.capacitance[0][1], -c, 1e-9 * c);
  EXPECT_NEAR(s.capacitance[1][0], s.capacitance[0][1], 1e-12 * c);
  EXPECT_NEAR(s.conductors[0].charge, 2 * c, 1e-9 * c);
  EXPECT_NEAR(s.conductors[1].charge, -2 * c, 1e-9 * c);
  EXPECT_NEAR(s.energy, 0.5 * c * 4, 1e-9 * c);
  // D is continuous across the interface: E = Q / (eps A) in each layer, along -z.
  double const charge = 2 * c;
  for (std::size_t t = 0; t < s.mesh.tets.size(); ++t) {
    double const eps_r = s.eps_r[t];
    ASSERT_TRUE(eps_r == eps_low || eps_r == eps_high);
    double const expected = charge / (dgatd::dga::eps0 * eps_r);
    EXPECT_NEAR(s.field[t][2], -expected, 1e-8 * expected) << "tet " << t;
    EXPECT_NEAR(s.field[t][0], 0, 1e-8 * expected);
  }
  EXPECT_NEAR(s.largest_field, charge / (dgatd::dga::eps0 * eps_low), 1e-8 * s.largest_field);
  EXPECT_LT(s.largest_field_at[2], split);
  for (std::size_t v = 0; v < s.mesh.points.size(); ++v) {
    double const z = s.mesh.points[v][2];
    double const expected =
        z < split ? charge * z / (dgatd::dga::eps0 * eps_low) : 2 - charge * (1 - z) / (dgatd::dga::eps0 * eps_high);
    EXPECT_NEAR(s.potential[v], expected, 1e-9) << "vertex " << v;
  }
}

TEST_F(Statics, AChargedConductorTakesThePotentialItsChargeNeeds)
{
  double const c = series_capacitance();
  double const q = 3e-12;
  auto const s = dgatd::simulation::solve_statics(config(materials() + plates("charge = 3e-12") + grounded_bottom),
                                                  dgatd::simulation::StaticsOptions{1e-13, 20000});
  EXPECT_FALSE(s.conductors[0].potential_given);
  EXPECT_NEAR(s.conductors[0].potential, q / c, 1e-9 * q / c);
  EXPECT_EQ(s.conductors[0].charge, q);
  EXPECT_NEAR(s.conductors[1].charge, -q, 1e-9 * q);
}

TEST_F(Statics, ADebyeMediumTakesItsStaticPermittivity)
{
  // eps_inf = 2 and delta_eps = 3: 5 at zero frequency, as the layer of eps_r = 5.
  std::string const debye = "eps_r = 2\n[[material.pole]]\nkind = \"debye\"\ndelta_eps = 3\ntau = 1e-9";
  auto const s = dgatd::simulation::solve_statics(config(materials(debye) + plates("potential = 1") + grounded_bottom),
                                                  dgatd::simulation::StaticsOptions{1e-13, 20000});
  EXPECT_NEAR(s.capacitance[0][0], series_capacitance(), 1e-9 * series_capacitance());
}

TEST_F(Statics, TheOutputHoldsThePotentialTheFieldAndTheMatrix)
{
  auto const s = dgatd::simulation::solve_statics(config(materials() + plates("potential = 1") + grounded_bottom));
  std::string const path = scratch.file("plates.statics.h5");
  dgatd::simulation::write_statics(s, config(materials()), path);
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
  EXPECT_TRUE(std::filesystem::exists(scratch.file("plates.statics.xdmf")));
  dgatd::io::hdf5::QuietErrors const quiet;
  dgatd::io::hdf5::Handle const file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  ASSERT_TRUE(file.valid());
  hsize_t rows = 0;
  auto const potential = dgatd::io::hdf5::read_rows<double>(file.get(), "statics/potential", 0, path, rows);
  EXPECT_EQ(potential, s.potential);
  auto const field = dgatd::io::hdf5::read_rows<double>(file.get(), "statics/E", 3, path, rows);
  EXPECT_EQ(rows, s.mesh.tets.size());
  EXPECT_EQ(field[2], s.field[0][2]);
  auto const matrix = dgatd::io::hdf5::read_rows<double>(file.get(), "statics/capacitance", 2, path, rows);
  ASSERT_EQ(matrix.size(), 4u);
  EXPECT_EQ(matrix[1], s.capacitance[0][1]);
}

TEST_F(Statics, RefusesWhatItCannotSolveAtTheLine)
{
  // Lines: [mesh] 1-2, the materials 4-10, the first [[conductor]] at 12, the next at 17.
  auto const nowhere = refusal(materials() + plates("potential = 1") +
                               "[[conductor]]\nname = \"x\"\nsurfaces = \"nowhere\"\npotential = 0\n");
  EXPECT_NE(nowhere.find("plates.toml:17: "), std::string::npos) << nowhere;
  EXPECT_NE(nowhere.find("nowhere"), std::string::npos) << nowhere;
  auto const touching =
      refusal(materials() + grounded_bottom + "[[conductor]]\nname = \"side\"\nsurfaces = \"side\"\npotential = 1\n");
  EXPECT_NE(touching.find("plates.toml:17: [[conductor]] \"side\" touches \"bottom\" (line 12)"), std::string::npos)
      << touching;
  auto const charges_only = refusal(materials() + plates("charge = 1e-12") +
                                    "[[conductor]]\nname = \"bottom\"\nsurfaces = \"bottom\"\ncharge = -1e-12\n");
  EXPECT_NE(charges_only.find("plates.toml:12: no [[conductor]] has a potential"), std::string::npos) << charges_only;
  auto const twice = refusal(materials() + plates("potential = 1") + plates("potential = 0"));
  EXPECT_NE(twice.find("plates.toml:17: [[conductor]] name = \"top\" is already used at line 12"), std::string::npos)
      << twice;
  std::string const drude = "eps_r = 1\n[[material.pole]]\nkind = \"drude\"\nomega_p = 1e15\ngamma = 1e13";
  auto const metal = refusal(materials(drude) + plates("potential = 1") + grounded_bottom);
  EXPECT_NE(metal.find("plates.toml:8: [[material]] has a pole that conducts at zero frequency"), std::string::npos)
      << metal;
  EXPECT_NE(refusal(materials()).find("has no [[conductor]] table"), std::string::npos);
}

TEST_F(Statics, TheTableIsCheckedWhereItIsRead)
{
  auto const message = [&](std::string const& body) {
    try {
      config(body);
    } catch (dgatd::Error const& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("[[conductor]]\nname = \"a\"\nsurfaces = \"top\"\npotential = 1\ncharge = 1\n")
                .find("plates.toml:4: [[conductor]] needs exactly one of potential (volts) and charge (coulombs)"),
            std::string::npos);
  EXPECT_NE(message("[[conductor]]\nname = \"a\"\npotential = 1\n").find("needs the key 'surfaces'"),
            std::string::npos);
  EXPECT_NE(message("[[conductor]]\nname = \"a\"\nsurfaces = []\npotential = 1\n").find("non-empty list"),
            std::string::npos);
  // A time-domain run needs [time]; statics does not.
  EXPECT_THROW(dgatd::io::parse_config("[mesh]\nfile = \"plates.geo\"\n", "plates.toml", scratch.path().string()),
               dgatd::Error);
}

TEST_F(Statics, TheCommandLinePrintsTheMatrixAndARunRefusesConductors)
{
  std::string const body = materials() + plates("potential = 1") + grounded_bottom + "[output]\nfile = \"out.h5\"\n";
  std::string const statics_config = scratch.write("plates.toml", "[mesh]\nfile = \"plates.geo\"\n\n" + body);
  auto const solved = run_dgatd("statics " + statics_config, scratch.path());
  EXPECT_EQ(solved.exit_code, 0) << solved.err;
  EXPECT_NE(solved.out.find("capacitance matrix (pF"), std::string::npos) << solved.out;
  EXPECT_TRUE(std::filesystem::exists(scratch.file("out.statics.h5")));
  EXPECT_TRUE(std::filesystem::exists(scratch.file("out.statics.xdmf")));

  std::string const run_config =
      scratch.write("run.toml", "[mesh]\nfile = \"plates.geo\"\n\n[time]\nsteps = 10\n\n" + body);
  auto const run = run_dgatd("run " + run_config + " -o " + scratch.file("run.h5"), scratch.path());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("run.toml:15: [[conductor]] is solved by dgatd statics; dgatd run does not take conductors"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(std::filesystem::exists(scratch.file("run.h5")));

  auto const missing =
      run_dgatd("statics " + scratch.write("none.toml", "[mesh]\nfile = \"plates.geo\"\n"), scratch.path());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("none.toml: has no [[conductor]] table"), std::string::npos) << missing.err;
}

} // namespace
