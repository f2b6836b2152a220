// Every malformed run configuration ends in one clear line and a non-zero exit, and leaves no
// output file behind.
#include "graded_sphere_cavity.hpp"
#include "run_helpers.hpp"

#include "dgatd/io/analysis/results.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

namespace {

using dgatd::testing::run_dgatd;
using dgatd::testing::ScratchDirectory;

std::string const base_mesh = "[mesh]\ngenerate = \"box\"\nsize = [1, 1, 1]\nh = 0.3\n";
std::string const base_tail = "[time]\nsteps = 20\n[output]\nfile = \"out.h5\"\n";

struct Case {
  std::string name;
  std::string config;
  std::string expected; // must appear in the message
  bool names_fix = true;
};

// DGATD_LIST_RUN_ERROR_CASES=DIR writes each case as DIR/NAME.toml and the words its message must
// hold as DIR/NAME.expected instead of running it: the Python front end's test
// (tests/python/test_errors.py) runs the same cases through dgatd.Simulation.
bool listed(Case const& c)
{
  char const* directory = std::getenv("DGATD_LIST_RUN_ERROR_CASES");
  if (directory == nullptr) return false;
  std::ofstream(std::filesystem::path(directory) / (c.name + ".toml")) << c.config;
  std::ofstream(std::filesystem::path(directory) / (c.name + ".expected")) << c.expected;
  return true;
}

void expect_clean_failure(Case const& c)
{
  if (listed(c)) return;
  ScratchDirectory scratch("run_error_" + c.name);
  auto const config = scratch.write("bad.toml", c.config);
  auto const r = run_dgatd("run " + config, scratch.path());
  EXPECT_NE(r.exit_code, 0) << c.name;
  // One line on stderr, starting with the program's error prefix and naming the file at fault.
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << ": " << r.err;
  EXPECT_EQ(r.err.rfind("dgatd: error: ", 0), 0u) << c.name << ": " << r.err;
  EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.name << ": " << r.err;
  // Configuration errors say what is allowed in the message itself; the others spell out a fix.
  if (c.names_fix) {
    EXPECT_NE(r.err.find("(fix: "), std::string::npos) << c.name << ": " << r.err;
  }
  for (auto const& entry : std::filesystem::directory_iterator(scratch.path())) {
    auto const file = entry.path().filename().string();
    EXPECT_TRUE(file == "bad.toml") << c.name << " left " << file;
  }
}

TEST(RunErrors, UnknownKey)
{
  expect_clean_failure({"unknown_key", base_mesh + "[time]\nsteps = 20\nfoo = 1\n[output]\nfile = \"out.h5\"\n",
                        "bad.toml:7: unknown key 'foo' in [time] (known keys:", false});
}

TEST(RunErrors, WrongType)
{
  expect_clean_failure(
      {"wrong_type", base_mesh + "[time]\nsteps = \"many\"\n", "bad.toml:6: [time] steps must be an integer", false});
}

TEST(RunErrors, NegativePermittivity)
{
  expect_clean_failure({"negative_eps", base_mesh + "[[material]]\nregion = \"domain\"\neps_r = -2\n" + base_tail,
                        "bad.toml:7: [[material]] eps_r = -2 must be positive", false});
}

TEST(RunErrors, ProbeOutsideTheMesh)
{
  expect_clean_failure({"probe_outside", base_mesh + "[[probe]]\nname = \"p\"\nposition = [2, 0.5, 0.5]\n" + base_tail,
                        "probe 'p': position (2, 0.5, 0.5) lies outside the mesh"});
}

TEST(RunErrors, MissingMeshFile)
{
  expect_clean_failure({"missing_mesh", "[mesh]\nfile = \"nowhere.msh\"\n" + base_tail, "nowhere.msh"});
}

TEST(RunErrors, TimeStepAboveTheStabilityBound)
{
  expect_clean_failure({"unstable_dt", base_mesh + "[time]\nsteps = 20\ndt = 1e-6\n[output]\nfile = \"out.h5\"\n",
                        "exceeds the stability bound dt_max"});
}

TEST(RunErrors, LocalStepsOutOfRange)
{
  expect_clean_failure(
      {"local_steps_range", base_mesh + "[time]\nsteps = 20\nlocal_steps = 9\n[output]\nfile = \"out.h5\"\n",
       "bad.toml:7: [time] local_steps must be \"auto\", \"off\" or a number of levels from 1 to 8", false});
}

TEST(RunErrors, AbsurdPermittivity)
{
  expect_clean_failure({"absurd_eps", base_mesh + "[[material]]\nregion = \"domain\"\neps_r = 1e300\n" + base_tail,
                        "bad.toml:7: [[material]] eps_r = 1e+300 is outside the physical range", false});
}

TEST(RunErrors, ConfigurationPathIsADirectory)
{
  ScratchDirectory scratch("run_error_directory");
  auto const r = run_dgatd("run " + scratch.path().string(), scratch.path());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("is a directory, not a configuration file"), std::string::npos) << r.err;
}

// Forced past the stability bound, the field overflows: the run must stop there with one line, not
// finish with NaN fields and exit 0. What it wrote before stays, marked incomplete.
TEST(RunErrors, BlowUpStopsTheRun)
{
  ScratchDirectory scratch("run_error_blow_up");
  auto const config =
      scratch.write("unstable.toml", base_mesh + "[[source]]\nkind = \"dipole\"\n"
                                                 "position = [0.4, 0.45, 0.55]\ndirection = [0, 0, 1]\n"
                                                 "waveform = \"gaussian\"\nt0 = 1e-9\nsigma = 3e-10\n"
                                                 "[time]\nsteps = 100000\ndt = 3e-9\nallow_unstable = true\n"
                                                 "[output]\nfile = \"out.h5\"\nprogress = false\nwatchdog = 0\n");
  auto const r = run_dgatd("run " + config, scratch.path());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("the field became infinite or NaN by step "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(fix: "), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(scratch.path() / "out.h5"));
}

// The watchdog (issue 49, acceptance 6). A run forced just past the stability bound grows from
// rounding. With the watchdog off it runs on to NaN, its energy recorded every step: that record
// gives the first step whose energy exceeds 100 times the plateau the pulse left. With the watchdog
// at 100 and the energy recorded only every 5000 steps, the run must stop at or after that step and
// within 5 % of it, in one line naming the step, the region and dt as the cause, and leave a
// readable file of the steps before it.
TEST(RunErrors, WatchdogStopsAGrowingRunWithinFivePercentOfItsStep)
{
  ScratchDirectory scratch("run_error_watchdog");
  std::string const source = "[[source]]\nkind = \"dipole\"\nposition = [0.4, 0.45, 0.55]\ndirection = [0, 0, 1]\n"
                             "waveform = \"gaussian\"\nt0 = 1e-9\nsigma = 3e-10\n"
                             "[[probe]]\nname = \"centre\"\nposition = [0.5, 0.5, 0.5]\n";
  std::string const mesh = base_mesh + "reproducible = true\n"; // one mesh, so one dt_max, for every run
  auto const stable = run_dgatd("run " + scratch.write("stable.toml", mesh + source + base_tail), scratch.path());
  ASSERT_EQ(stable.exit_code, 0) << stable.err;
  auto const at = stable.out.find("dt_max = ");
  ASSERT_NE(at, std::string::npos) << stable.out;
  char dt[32];
  std::snprintf(dt, sizeof dt, "%.17g", 1.0002 * std::stod(stable.out.substr(at + 9)));
  auto const unstable = [&](std::string const& name, std::string const& output) {
    return scratch.write(name, mesh + source + "[time]\nsteps = 200000\ndt = " + std::string(dt) +
                                   "\nallow_unstable = true\n[output]\nfile = \"" + name + ".h5\"\nprogress = false\n" +
                                   output);
  };
  auto const unwatched = run_dgatd("run " + unstable("unwatched", "watchdog = 0\nenergy_every = 1\n"), scratch.path());
  ASSERT_NE(unwatched.err.find("infinite or NaN"), std::string::npos) << unwatched.err;
  auto const energy = dgatd::io::read_energy((scratch.path() / "unwatched.h5").string());
  // The pulse is over by t0 + 6 sigma = 2.8e-9 s; the plateau is the largest energy up to twice that.
  double plateau = 0;
  std::size_t first_past = 0;
  for (std::size_t n = 0; n < energy.energy.size() && first_past == 0; ++n) {
    if (energy.time[n] <= 5.6e-9) plateau = std::max(plateau, energy.energy[n]);
    if (energy.time[n] > 5.6e-9 && energy.energy[n] > 100 * plateau) first_past = n;
  }
  ASSERT_GT(first_past, 0u);

  auto const watched = run_dgatd("run " + unstable("watched", "energy_every = 5000\n"), scratch.path());
  EXPECT_NE(watched.exit_code, 0);
  EXPECT_EQ(std::count(watched.err.begin(), watched.err.end(), '\n'), 1) << watched.err;
  auto const by = watched.err.find("times its reference, past [output] watchdog = 100 by step ");
  ASSERT_NE(by, std::string::npos) << watched.err;
  auto const stopped = static_cast<std::size_t>(std::stoll(watched.err.substr(by + 58)));
  std::printf("energy first past 100 x the plateau at step %zu; the watchdog stopped the run at step %zu\n", first_past,
              stopped);
  EXPECT_GE(stopped, first_past);
  EXPECT_LE(static_cast<double>(stopped), 1.05 * static_cast<double>(first_past));
  EXPECT_NE(watched.err.find("E is largest in region 'domain' near ("), std::string::npos) << watched.err;
  EXPECT_NE(watched.err.find("is above the stability bound dt_max"), std::string::npos) << watched.err;
  auto const kept = dgatd::io::read_probe((scratch.path() / "watched.h5").string(), "centre", 'E');
  EXPECT_GE(kept.time.size() + 1, stopped);
}

// With local steps the coarse step exceeds dt_max by design: a run that blows up points to the
// levels and to dt = "auto", whose coarse step the scheme's spectrum checks, not to dt_max.
TEST(RunErrors, AGrowingRunWithLocalStepsNamesTheLevels)
{
  ScratchDirectory scratch("run_error_local_steps");
  auto const config =
      scratch.write("levels.toml", dgatd::testing::graded_sphere_cavity(
                                       "", "[time]\nsteps = 2000\ndt = 1e-10\nlocal_steps = 2\nallow_unstable = true\n"
                                           "[output]\nfile = \"out.h5\"\nprogress = false\n"));
  auto const r = run_dgatd("run " + config, scratch.path());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("the field became infinite or NaN by step "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fewer levels in [time] local_steps"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("dt_max"), std::string::npos) << r.err;
}

TEST(RunErrors, UnknownMaterialRegion)
{
  expect_clean_failure({"unknown_region", base_mesh + "[[material]]\nregion = \"teflon\"\neps_r = 2\n" + base_tail,
                        "'teflon' is not a physical volume"});
}

} // namespace

namespace {

TEST(RunErrors, NegativeConductivity)
{
  expect_clean_failure({"negative_sigma", base_mesh + "[[material]]\nregion = \"domain\"\nsigma = -1\n" + base_tail,
                        "bad.toml:7: [[material]] sigma = -1 must not be negative", false});
}

TEST(RunErrors, AbsorbingSurfaceTheMeshLacks)
{
  expect_clean_failure({"absorbing_unknown", base_mesh + "[boundary]\nabsorbing = [\"nowhere\"]\n" + base_tail,
                        "bad.toml:5: 'nowhere' is not a physical surface of"});
}

TEST(RunErrors, LossesNeedTheFractionedFormulation)
{
  expect_clean_failure({"sigma_assembled",
                        base_mesh +
                            "[[material]]\nregion = \"domain\"\nsigma = 0.1\n[solver]\nformulation = \"assembled\"\n" +
                            base_tail,
                        "[[material]] sigma needs the fractioned formulation"});
}

TEST(RunErrors, MixedPrecisionNeedsTheFractionedFormulation)
{
  expect_clean_failure({"mixed_assembled",
                        base_mesh + "[solver]\nformulation = \"assembled\"\nprecision = \"mixed\"\n" + base_tail,
                        "bad.toml:7: precision = \"mixed\" needs the fractioned formulation"});
}

} // namespace

namespace {

// A waveguide with a flat layer behind its far end.
std::string const flat_layer_mesh =
    "[mesh]\ngenerate = \"waveguide\"\nsize = [0.02286, 0.01016, 0.05]\nh = 0.004\npml = 0.012\n";

TEST(RunErrors, PmlRegionTheMeshLacks)
{
  expect_clean_failure({"pml_unknown", base_mesh + "[[pml]]\nregion = \"absorber\"\n" + base_tail,
                        "bad.toml:5: [[pml]] region 'absorber' is not a physical volume"});
}

TEST(RunErrors, PmlThatTouchesNothing)
{
  expect_clean_failure({"pml_alone", base_mesh + "[[pml]]\nregion = \"domain\"\n" + base_tail,
                        "bad.toml:5: [[pml]] region 'domain' touches no other region"});
}

TEST(RunErrors, PmlProfileOutOfRange)
{
  expect_clean_failure({"pml_reflection", base_mesh + "[[pml]]\nregion = \"domain\"\nreflection = 2\n" + base_tail,
                        "bad.toml:7: [[pml]] reflection = 2 must lie between 0 and 1", false});
}

TEST(RunErrors, PmlShiftOutOfRange)
{
  expect_clean_failure({"pml_shift", base_mesh + "[[pml]]\nregion = \"domain\"\ncfs_frequency = -5\n" + base_tail,
                        "bad.toml:7: [[pml]] cfs_frequency = -5 must be a frequency >= 0 in Hz", false});
}

// A shifted layer carries the shift through its blocks' loss matrices, which must be its own: a
// conductor that shares a vertex with it is refused, at the layer's line.
TEST(RunErrors, ShiftedPmlBesideAConductor)
{
  expect_clean_failure({"pml_shift_sigma",
                        flat_layer_mesh +
                            "[[material]]\nregion = \"domain\"\nsigma = 0.05\n[[pml]]\nregion = "
                            "\"pml\"\ncfs_frequency = 1e9\n" +
                            base_tail,
                        "bad.toml:9: [[pml]] region 'pml' has cfs_frequency and touches conductivity"});
}

// Single precision steps lossless problems: a layer, a conductor or the assembled formulation is
// refused at its own line, before the mesh is built, and the fix names mixed precision.
TEST(RunErrors, SinglePrecisionRefusesALayer)
{
  expect_clean_failure({"single_pml",
                        flat_layer_mesh + "[[pml]]\nregion = \"pml\"\n[solver]\nprecision = \"single\"\n" + base_tail,
                        "bad.toml:6: [[pml]] needs double fields"});
}

TEST(RunErrors, SinglePrecisionRefusesConductivity)
{
  expect_clean_failure({"single_sigma",
                        base_mesh +
                            "[[material]]\nregion = \"domain\"\nsigma = 0.05\n[solver]\nprecision = "
                            "\"single\"\n" +
                            base_tail,
                        "bad.toml:5: [[material]] sigma needs double fields"});
}

TEST(RunErrors, SinglePrecisionNeedsTheFractionedFormulation)
{
  expect_clean_failure({"single_assembled",
                        base_mesh + "[solver]\nformulation = \"assembled\"\nprecision = \"single\"\n" + base_tail,
                        "bad.toml:7: precision = \"single\" needs the fractioned formulation"});
}

TEST(RunErrors, PmlNeedsTheFractionedFormulation)
{
  expect_clean_failure(
      {"pml_assembled",
       flat_layer_mesh + "[[pml]]\nregion = \"pml\"\n[solver]\nformulation = \"assembled\"\n" + base_tail,
       "[[pml]] needs the fractioned formulation"});
}

TEST(RunErrors, SteepPmlProfileAroundCorners)
{
  // A shell around a cube of eight cells per side (0.37 of the side off any plane) bends; there a
  // cubic profile is unstable (docs/method/open_regions.md, section 3), so asking for one is refused.
  expect_clean_failure({"pml_bends_steep",
                        "[mesh]\ngenerate = \"box\"\nsize = [1, 1, 1]\nh = 0.12\npml = 0.3\n[[pml]]\nregion = "
                        "\"pml\"\norder = 3\n" +
                            base_tail,
                        "bad.toml:6: [[pml]] region 'pml' bends around the domain (a shell), where a profile of "
                        "order 3 is unstable"});
}

} // namespace

namespace {

std::string matched_port(std::string const& surface)
{
  return "[[source]]\nkind = \"port_te10\"\nsurface = \"" + surface +
         "\"\nmatched = true\nwaveform = \"gaussian\"\nsigma = 1e-9\n";
}

// The capabilities table refuses what local time steps cannot run yet, at the line that asks for it.
TEST(RunErrors, LocalStepsWithAMatchedPort)
{
  expect_clean_failure({"local_steps_matched_port",
                        base_mesh + matched_port("boundary") +
                            "[time]\nsteps = 20\nlocal_steps = \"auto\"\n[output]\nfile = \"out.h5\"\n",
                        "a matched port runs with one global time step only (for now) (fix: set [time] "
                        "local_steps = \"off\")"});
}

TEST(RunErrors, MatchedPortOnASurfaceThatIsNotPlanar)
{
  expect_clean_failure({"port_not_planar", base_mesh + matched_port("boundary") + base_tail,
                        "bad.toml:5: matched port 'boundary' is not planar"});
}

TEST(RunErrors, MatchedPortInsideTheMesh)
{
  expect_clean_failure({"port_inside", base_mesh + "pml = 0.6\n" + matched_port("pml_interface") + base_tail,
                        "bad.toml:6: matched port 'pml_interface' lies inside the mesh"});
}

TEST(RunErrors, MatchedPortNeedsTheFractionedFormulation)
{
  expect_clean_failure({"port_assembled",
                        base_mesh + matched_port("boundary") + "[solver]\nformulation = \"assembled\"\n" + base_tail,
                        "bad.toml:5: a matched port needs the fractioned formulation"});
}

TEST(RunErrors, MatchedIsForPortsOnly)
{
  expect_clean_failure({"matched_dipole",
                        base_mesh +
                            "[[source]]\nkind = \"dipole\"\nposition = [0.5, 0.5, 0.5]\ndirection = [0, 0, "
                            "1]\nmatched = true\nwaveform = \"gaussian\"\nsigma = 1e-9\n" +
                            base_tail,
                        "matched", false});
}

} // namespace

namespace {

// dgatd sparams needs a run with matched or lumped ports: a run without them, or no file, gets one line.
TEST(SparamsErrors, ARunWithoutPortsOrNoFile)
{
  ScratchDirectory scratch("sparams_errors");
  auto const config = scratch.write("box.toml", base_mesh + base_tail);
  ASSERT_EQ(run_dgatd("run " + config, scratch.path()).exit_code, 0);
  for (auto const& [file, expected] :
       {std::pair<std::string, std::string>{scratch.file("out.h5"), "the run has no ports"},
        std::pair<std::string, std::string>{scratch.file("missing.h5"), "no such file"}}) {
    auto const r = run_dgatd("sparams " + file, scratch.path());
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("dgatd: error: " + file + ": " + expected), std::string::npos) << r.err;
  }
}

// dgatd does not span ranks yet: under an MPI launcher every rank would run the whole problem and
// write the same output. Each rank of `mpirun -n 2` (Open MPI's variables) or of an MPICH launcher
// (PMI_*) fails before touching anything, and only rank 0 says why, in one line.
TEST(RunErrors, StartedByAnMpiLauncher)
{
  ScratchDirectory scratch("run_error_mpirun");
  auto const config = scratch.write("run.toml", base_mesh + base_tail);
  // An MPI build runs `dgatd run` over the ranks (tests/ranks) and refuses every other command; a
  // build without MPI refuses them all. The launcher's variables are faked here: the refusal comes
  // before MPI would be started.
  std::string const command = DGATD_MPI_BUILD ? "info " + config : "run " + config;
  std::string const fix = DGATD_MPI_BUILD ? "(fix: run this command as one process, without mpirun)"
                                          : "or run it as one process, without mpirun)";
  for (std::string const launcher : {"OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=", "PMI_SIZE=2 PMI_RANK="})
    for (int rank : {0, 1}) {
      auto const r = run_dgatd(command, scratch.path(), launcher + std::to_string(rank));
      EXPECT_NE(r.exit_code, 0) << launcher << rank;
      if (rank == 0) {
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(r.err.rfind("dgatd: error: mpirun: started as 2 ranks (", 0), 0u) << r.err;
        EXPECT_NE(r.err.find(fix), std::string::npos) << r.err;
      } else {
        EXPECT_EQ(r.err, "") << launcher << rank;
      }
      for (auto const& entry : std::filesystem::directory_iterator(scratch.path()))
        EXPECT_EQ(entry.path().filename().string(), "run.toml") << launcher << rank;
    }
  // A launcher's single rank runs as usual.
  auto const one = run_dgatd("run " + config + " -o " + scratch.file("out.h5"), scratch.path(),
                             "OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_RANK=0");
  EXPECT_EQ(one.exit_code, 0) << one.err;
}

} // namespace

namespace {

// A box with an inner box (physical volume "inner") that a plane wave takes as its total-field region.
std::string const inner_box_mesh =
    base_mesh + "inner = { shape = \"box\", corner = [0.3, 0.3, 0.3], size = [0.4, 0.4, 0.4] }\n";

std::string plane_wave(std::string const& region, std::string const& extra = "",
                       std::string const& polarization = "[0, 1, 0]")
{
  return "[[source]]\nkind = \"plane_wave\"\nregion = " + region +
         "\ndirection = [0, 0, -1]\npolarization = " + polarization + "\nwaveform = \"gaussian\"\nsigma = 1e-9\n" +
         extra;
}

TEST(RunErrors, PlaneWavePolarizationAlongItsDirection)
{
  expect_clean_failure(
      {"plane_wave_polarization", inner_box_mesh + plane_wave("\"inner\"", "", "[0, 1, -1]") + base_tail,
       "[[source]] polarization is not perpendicular to direction (they are 45 degrees apart)", false});
}

TEST(RunErrors, PlaneWaveIntoARegionTheMeshLacks)
{
  expect_clean_failure({"plane_wave_region", inner_box_mesh + plane_wave("[\"inner\", \"total\"]") + base_tail,
                        "bad.toml:6: [[source]] plane_wave region 'total' is not a physical volume"});
}

TEST(RunErrors, PlaneWaveRegionFillingTheMesh)
{
  expect_clean_failure({"plane_wave_fills", base_mesh + plane_wave("\"domain\"") + base_tail,
                        "bad.toml:5: plane wave: total-field region 'domain' has no surface with the rest"});
}

TEST(RunErrors, PlaneWaveSurfaceBetweenTwoMaterials)
{
  expect_clean_failure(
      {"plane_wave_materials",
       inner_box_mesh + "[[material]]\nregion = \"inner\"\neps_r = 2\n" + plane_wave("\"inner\"") + base_tail,
       "bad.toml:9: plane wave: total-field region 'inner' meets more than one material"});
}

// Most often the second material is a scatterer the region leaves out: the fix says to list it.
TEST(RunErrors, PlaneWaveSurfaceBetweenTwoMaterialsNamesTheScattererFix)
{
  expect_clean_failure(
      {"plane_wave_materials_fix",
       inner_box_mesh + "[[material]]\nregion = \"inner\"\neps_r = 2\n" + plane_wave("\"inner\"") + base_tail,
       "(fix: list every volume inside the total-field surface in the source's region, a dielectric scatterer too "
       "(region = [\"inner\", \"scatterer\"])"});
}

TEST(RunErrors, PlaneWaveSurfaceInAMatchedLayer)
{
  expect_clean_failure({"plane_wave_layer",
                        base_mesh + "pml = 0.6\n[[pml]]\nregion = \"pml\"\n" + plane_wave("\"domain\"") + base_tail,
                        "bad.toml:8: plane wave: total-field region 'domain' has its surface in a matched layer"});
}

TEST(RunErrors, PlaneWaveSurfaceOnAnAbsorbingSurface)
{
  expect_clean_failure(
      {"plane_wave_absorbing",
       base_mesh +
           "inner = { shape = \"box\", corner = [0, 0, 0], size = [0.5, 1, 1] }\n[boundary]\nabsorbing = "
           "[\"boundary\"]\n" +
           plane_wave("\"inner\"") + base_tail,
       "plane wave: total-field region 'inner' has its surface on an absorbing surface or a port"});
}

TEST(RunErrors, PlaneWaveAlreadyOnAtTheStart)
{
  expect_clean_failure({"plane_wave_start", inner_box_mesh + plane_wave("\"inner\"", "t0 = 1e-9\n") + base_tail,
                        "bad.toml:6: the plane wave is already at"});
}

TEST(RunErrors, PlaneWaveNeedsTheFractionedFormulation)
{
  expect_clean_failure(
      {"plane_wave_assembled",
       inner_box_mesh + plane_wave("\"inner\"") + "[solver]\nformulation = \"assembled\"\n" + base_tail,
       "bad.toml:6: a plane wave needs the fractioned formulation"});
}

} // namespace

namespace {

TEST(RunErrors, CutsOfABox)
{
  expect_clean_failure({"cuts_of_a_box", base_mesh + "cuts = [0.5]\n" + base_tail,
                        "bad.toml:5: [mesh] cuts only applies to generate = \"cell\"", false});
}

TEST(RunErrors, GradingWithoutASizeOnTheSphere)
{
  expect_clean_failure(
      {"grading_without_h_sphere",
       "[mesh]\ngenerate = \"sphere\"\nradius = 0.1\ntfsf = 0.28\nsize = 0.44\nh = 0.1\ngrading = 0.2\n" + base_tail,
       "bad.toml:7: [mesh] grading grades from h_sphere, which is not given"});
}

TEST(RunErrors, CutsOutOfOrder)
{
  expect_clean_failure({"cuts_out_of_order",
                        "[mesh]\ngenerate = \"cell\"\nsize = [0.2, 0.2, 1]\nh = 0.1\ncuts = [0.6, 0.3]\n" + base_tail,
                        "cut z = 0.3 is not between 0 and L = 1 above the one before it"});
}

} // namespace

namespace {

std::string far_field(std::string const& surface)
{
  return "[[farfield]]\nsurface = \"" + surface + "\"\nfrequencies = [3e8]\n";
}

TEST(RunErrors, FarFieldOnTheMeshBoundary)
{
  expect_clean_failure({"far_field_boundary", base_mesh + far_field("boundary") + base_tail,
                        "bad.toml:5: [[farfield]] surface 'boundary' lies on the boundary of"});
}

TEST(RunErrors, FarFieldAcrossMaterials)
{
  expect_clean_failure(
      {"far_field_materials",
       inner_box_mesh + "[[material]]\nregion = \"inner\"\neps_r = 2\n" + far_field("inner_surface") + base_tail,
       "bad.toml:9: [[farfield]] surface 'inner_surface' crosses materials"});
}

TEST(RunErrors, FarFieldOnASurfaceTheMeshLacks)
{
  expect_clean_failure({"far_field_missing", base_mesh + far_field("nf2ff") + base_tail,
                        "bad.toml:5: 'nf2ff' is not a physical surface"});
}

TEST(FarFieldErrors, ARunWithoutFarFieldData)
{
  ScratchDirectory scratch("far_field_errors");
  auto const config = scratch.write("box.toml", base_mesh + base_tail);
  ASSERT_EQ(run_dgatd("run " + config, scratch.path()).exit_code, 0);
  auto const r = run_dgatd("farfield " + scratch.file("out.h5"), scratch.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("dgatd: error: " + scratch.file("out.h5") + ": the run has no far-field data (fix: "),
            std::string::npos)
      << r.err;
}

} // namespace

namespace {

// The parallel-plate line of inputs/ (plates y = 0, H PEC; sides x = 0, W; port z = 0; load z = L).
std::string const line_mesh = "[mesh]\nfile = \"" + std::string(DGATD_SOURCE_DIR) +
                              "/inputs/parallel_plate_line.geo\"\n[boundary]\npec = [\"plates\"]\n";

std::string lumped_port(std::string const& surface, std::string const& direction, std::string const& resistance)
{
  return "[[source]]\nkind = \"lumped_port\"\nsurface = \"" + surface + "\"\ndirection = " + direction +
         "\nresistance = " + resistance + "\nwaveform = \"gaussian\"\nsigma = 1e-10\n";
}

TEST(RunErrors, LumpedPortWithoutResistance)
{
  expect_clean_failure({"lumped_resistance", line_mesh + lumped_port("port", "[0, 1, 0]", "0") + base_tail,
                        "bad.toml:9: [[source]] resistance = 0 must be positive", false});
}

TEST(RunErrors, LumpedPortOnTwoPlanes)
{
  expect_clean_failure({"lumped_not_planar", line_mesh + lumped_port("sides", "[0, 1, 0]", "50") + base_tail,
                        "bad.toml:5: lumped port surface 'sides' is not planar"});
}

TEST(RunErrors, LumpedPortDirectionOutOfItsPlane)
{
  expect_clean_failure({"lumped_direction", line_mesh + lumped_port("port", "[0, 1, 1]", "50") + base_tail,
                        "bad.toml:5: direction is not in the plane of lumped port surface 'port' (it leaves the "
                        "plane at 45 degrees)"});
}

TEST(RunErrors, LumpedPortNotBetweenConductors)
{
  expect_clean_failure({"lumped_conductors", line_mesh + lumped_port("port", "[1, 0, 0]", "50") + base_tail,
                        "bad.toml:5: lumped port surface 'port' does not end on a conductor"});
}

TEST(RunErrors, LumpedElementOnAPecSurface)
{
  expect_clean_failure(
      {"lumped_on_pec",
       line_mesh + "[[lumped]]\nkind = \"resistor\"\nsurface = \"plates\"\ndirection = [1, 0, 0]\nresistance = 50\n" +
           base_tail,
       "bad.toml:5: surface 'plates' is PEC in [boundary] and cannot carry a lumped port or element"});
}

TEST(RunErrors, LumpedElementWithAnotherElementsValue)
{
  expect_clean_failure(
      {"lumped_mixed",
       line_mesh +
           "[[lumped]]\nkind = \"resistor\"\nsurface = \"load\"\ndirection = [0, 1, 0]\nresistance = 50\n"
           "capacitance = 1e-12\n" +
           base_tail,
       "bad.toml:10: [[lumped]] key 'capacitance' does not apply to kind = \"resistor\"", false});
}

TEST(RunErrors, LumpedPortWithTheAssembledFormulation)
{
  expect_clean_failure(
      {"lumped_assembled",
       line_mesh + lumped_port("port", "[0, 1, 0]", "50") + "[solver]\nformulation = \"assembled\"\n" + base_tail,
       "bad.toml:5: a lumped port needs the fractioned formulation"});
}

} // namespace
