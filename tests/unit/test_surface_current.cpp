// [[surface_current]]: J_s = n x h and rho_s = n . d on PEC surfaces. A sheet that splits a box
// carries nothing on the side the source does not reach, every step; the transforms are the
// Fourier sums of the very values the snapshots show; a checkpoint continues them bit for bit; and
// bad items and the modes it does not run in are refused at its line. The PEC sphere against the
// Mie series is tests/regression/test_sphere_mie.cpp, the runs over ranks tests/ranks.
#include "dgatd/error.hpp"
#include "dgatd/io/analysis/results.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/io/output/checkpoint.hpp"
#include "dgatd/io/output/writer.hpp"
#include "dgatd/simulation/capabilities.hpp"
#include "dgatd/simulation/simulation.hpp"
#include "run_helpers.hpp"
#include "scratch_directory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <string>
#include <vector>

namespace {

using dgatd::solver::surface_values;
using dgatd::testing::replaced;
using dgatd::testing::ScratchDirectory;

struct Record {
  double dt = 0;
  std::vector<dgatd::solver::SurfaceSnapshot> snapshots;
  std::vector<double> snapshot_times;
  std::vector<dgatd::solver::SurfaceCurrentRecord> surfaces;
};

class MemoryWriter final : public dgatd::io::NoOutput {
public:
  explicit MemoryWriter(std::shared_ptr<Record> record) : record_(std::move(record)) {}
  void write_snapshot(double time, std::vector<dgatd::Vec3> const&, std::vector<dgatd::Vec3> const&) override
  {
    record_->snapshot_times.push_back(time);
  }
  void write_surface_snapshot(dgatd::solver::SurfaceSnapshot const& snapshot) override
  {
    record_->snapshots.push_back(snapshot);
  }
  void write_surface_currents(dgatd::solver::SurfaceCurrentRecord const& record) override
  {
    record_->surfaces.push_back(record);
  }
  std::string description() const override { return "memory"; }

private:
  std::shared_ptr<Record> record_;
};

dgatd::io::Config parsed(std::string const& text, std::string const& directory = ".")
{
  return dgatd::io::parse_config(text, "surface.toml", directory);
}

Record run(std::string const& text, std::string const& directory, std::string const& output = "",
           std::string const& restart_from = "")
{
  auto record = std::make_shared<Record>();
  dgatd::simulation::SimulationOptions options;
  options.writer = [record](std::string const&, dgatd::io::RunAttributes const& attributes,
                            dgatd::io::ResumePoint const*) {
    record->dt = attributes.dt;
    return std::make_unique<MemoryWriter>(record);
  };
  options.output_path = output;
  options.restart_from = restart_from;
  dgatd::simulation::Simulation simulation(parsed(text, directory), options);
  EXPECT_TRUE(simulation.run().complete);
  return *record;
}

// A Gmsh script of a box 0.4 x 0.4 x 0.6 with a square sheet of side size at z = 0.3 in its middle:
// from wall to wall (0.4), splitting it, or a plate (0.2).
std::string box_with_sheet(double size)
{
  double const corner = (0.4 - size) / 2;
  return R"(SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 0.4, 0.4, 0.6};
Rectangle(100) = {)" +
         std::to_string(corner) + ", " + std::to_string(corner) + ", 0.3, " + std::to_string(size) + ", " +
         std::to_string(size) + R"(};
BooleanFragments{ Volume{1}; Delete; }{ Surface{100}; Delete; }
e = 1e-6;
Physical Volume("air") = {Volume{:}};
Physical Surface("sheet") = {Surface In BoundingBox{-e, -e, 0.3 - e, 0.4 + e, 0.4 + e, 0.3 + e}};
Physical Surface("walls") = {CombinedBoundary{ Volume{:}; }};
Mesh.MeshSizeMax = 0.06;
Mesh.Algorithm3D = 1;
)";
}

// The run's configuration on the Gmsh script geo: a dipole below the sheet, the sheet and the walls
// PEC, their currents recorded.
std::string sheet_run(std::string const& geo, std::string const& tail)
{
  return "[mesh]\nfile = \"" + geo + "\"\n[boundary]\npec = [\"walls\", \"sheet\"]\n" + R"([[source]]
kind = "dipole"
position = [0.17, 0.22, 0.15]
direction = [0.3, 0.2, 1]
waveform = "modulated_gaussian"
frequency = 5e8
sigma = 1e-9
t0 = 3e-9
[[surface_current]]
name = "metal"
surfaces = ["sheet", "walls"]
frequencies = [4e8, 6e8]
)" + tail;
}

// A sheet from wall to wall leaves the upper half of the box without field: its upper side (normal
// +z out of the conductor) reads zero exactly at every snapshot and in the transforms, while its lower
// side and the walls below carry the dipole's currents. The front of each sheet face is the side its
// triangle's normal points to, and the sheet's faces have two sides, the walls' one.
TEST(SurfaceCurrent, ASheetThatSplitsTheBoxCarriesNothingOnItsDarkSide)
{
  ScratchDirectory const scratch("surface_split");
  auto const geo = scratch.write("split.geo", box_with_sheet(0.4));
  auto const record =
      run(sheet_run(geo, "[time]\nsteps = 120\n[output]\nsnapshot_every = 30\n"), scratch.path().string());
  ASSERT_EQ(record.surfaces.size(), 1u);
  auto const& surface = record.surfaces.front();
  auto const& g = surface.geometry;
  ASSERT_TRUE(g.two_sided);
  ASSERT_EQ(record.snapshots.size(), 4u);
  std::size_t sheet_faces = 0;
  double lit = 0;
  for (std::size_t k = 0; k < g.faces(); ++k) {
    bool const on_sheet = std::all_of(g.corners[k].begin(), g.corners[k].end(),
                                      [](dgatd::Vec3 const& corner) { return std::abs(corner[2] - 0.3) < 1e-9; });
    if (!on_sheet) {
      EXPECT_EQ(g.sides[k], 1);
      continue;
    }
    ++sheet_faces;
    ASSERT_EQ(g.sides[k], 2);
    ASSERT_NEAR(std::abs(g.normals[k][2]), 1.0, 1e-12);
    // The dark side: the front where the normal points up, else the back.
    std::size_t const dark = g.normals[k][2] > 0 ? 0 : 4, bright = 4 - dark;
    for (auto const& snapshot : record.snapshots)
      for (std::size_t i = 0; i < 4; ++i) {
        ASSERT_EQ(snapshot.values[surface_values * k + dark + i], 0.0) << "face " << k;
        lit = std::max(lit, std::abs(snapshot.values[surface_values * k + bright + i]));
      }
    for (std::size_t m = 0; m < surface.frequencies.size(); ++m)
      for (std::size_t i = 0; i < 4; ++i)
        ASSERT_EQ(surface.transforms[m * g.faces() + k][dark + i], 0.0) << "face " << k;
  }
  EXPECT_GT(sheet_faces, 20u);
  EXPECT_GT(lit, 0);
}

// With a snapshot every step, the transform of each value is the sum over the snapshots of the value
// times exp(-i 2 pi f t) dt: J_s of snapshot n (h at t^(n-1/2)) is the transform's term of step n - 1,
// rho_s (e at t^n) that of the step ending at t^n. To rounding, on a plate with two lit sides.
TEST(SurfaceCurrent, ItsTransformsAreTheFourierSumsOfItsSnapshots)
{
  ScratchDirectory const scratch("surface_sums");
  auto const geo = scratch.write("plate.geo", box_with_sheet(0.2));
  auto const record =
      run(sheet_run(geo, "[time]\nsteps = 80\n[output]\nsnapshot_every = 1\n"), scratch.path().string());
  ASSERT_EQ(record.surfaces.size(), 1u);
  auto const& surface = record.surfaces.front();
  std::size_t const faces = surface.geometry.faces();
  ASSERT_EQ(record.snapshots.size(), 80u);
  double const dt = record.dt;
  double largest = 0, difference = 0;
  for (std::size_t m = 0; m < surface.frequencies.size(); ++m) {
    double const omega = 2 * 3.14159265358979323846 * surface.frequencies[m];
    for (std::size_t k = 0; k < faces; ++k)
      for (std::size_t i = 0; i < surface_values; ++i) {
        bool const current = i % 4 != 3;
        std::complex<double> sum = 0;
        for (std::size_t n = 1; n <= record.snapshots.size(); ++n) {
          double const time = current ? (n - 0.5) * dt : n * dt;
          sum += record.snapshots[n - 1].values[surface_values * k + i] * std::polar(dt, -omega * time);
        }
        auto const transform = surface.transforms[m * faces + k][i];
        largest = std::max(largest, std::abs(sum));
        difference = std::max(difference, std::abs(sum - transform));
      }
  }
  ASSERT_GT(largest, 0);
  EXPECT_LT(difference, 1e-12 * largest);
  // Both sides of the plate are lit.
  std::size_t two_sided_lit = 0;
  for (std::size_t k = 0; k < faces; ++k)
    if (surface.geometry.sides[k] == 2 && std::abs(surface.transforms[k][0]) > 0 &&
        std::abs(surface.transforms[k][4]) > 0)
      ++two_sided_lit;
  EXPECT_GT(two_sided_lit, 5u);
}

TEST(SurfaceCurrent, ItsTransformsContinueBitForBitFromACheckpoint)
{
  ScratchDirectory const scratch("surface_restart");
  auto const geo = scratch.write("plate.geo", box_with_sheet(0.2));
  auto const text = sheet_run(geo, "[time]\nsteps = 60\n[output]\ncheckpoint_every = 25\nsnapshot_every = 20\n");
  std::string const output = scratch.file("run.h5");
  auto const whole = run(text, scratch.path().string(), output);
  std::string const checkpoint = dgatd::io::checkpoint_path(output);
  ASSERT_EQ(dgatd::io::read_checkpoint(checkpoint).state.step, 50);
  auto const continued = run(text, scratch.path().string(), output, checkpoint);
  ASSERT_EQ(whole.surfaces.size(), 1u);
  ASSERT_EQ(continued.surfaces.size(), 1u);
  EXPECT_EQ(continued.surfaces.front().transforms, whole.surfaces.front().transforms);
  ASSERT_EQ(continued.snapshots.size(), 1u); // step 60
  EXPECT_EQ(continued.snapshots.front().values, whole.snapshots.back().values);
}

// [output] snapshot_volume = false: the snapshots hold the surfaces' currents without the volume's
// fields, and the XDMF draws the surfaces in time over the bare mesh.
TEST(SurfaceCurrent, SnapshotsOfTheSurfacesAloneLeaveTheVolumeOut)
{
  ScratchDirectory const scratch("surface_alone");
  auto const geo = scratch.write("plate.geo", box_with_sheet(0.2));
  dgatd::simulation::SimulationOptions options;
  options.output_path = scratch.file("run.h5");
  dgatd::simulation::Simulation simulation(
      parsed(sheet_run(geo, "[time]\nsteps = 40\n[output]\nsnapshot_every = 20\nsnapshot_volume = false\n"),
             scratch.path().string()),
      options);
  ASSERT_TRUE(simulation.run().complete);
  ASSERT_EQ(dgatd::io::snapshot_count(options.output_path), 2u);
  try {
    dgatd::io::read_snapshot(options.output_path, 1);
    ADD_FAILURE() << "a snapshot without the volume's fields was read";
  } catch (dgatd::Error const& e) {
    EXPECT_NE(std::string(e.what()).find("/snapshots/1 holds no E and H"), std::string::npos) << e.what();
  }
  auto const xdmf = dgatd::testing::slurp(scratch.file("run.xdmf"));
  EXPECT_EQ(xdmf.find("snapshot_0"), std::string::npos);
  EXPECT_NE(xdmf.find("<Grid Name=\"mesh\""), std::string::npos);
  EXPECT_NE(xdmf.find("run.h5:/snapshots/1/surface_currents/metal/J_s_front"), std::string::npos);
  EXPECT_NE(xdmf.find("run.h5:/surface_currents/metal/transforms/1/rho_s_back_phase"), std::string::npos);
  auto const surfaces = dgatd::io::read_surface_currents(options.output_path);
  ASSERT_EQ(surfaces.size(), 1u);
  EXPECT_TRUE(surfaces.front().geometry.two_sided);
}

TEST(SurfaceCurrent, IsRefusedAtItsLineWhereItDoesNotRun)
{
  using dgatd::simulation::refusal;
  using dgatd::simulation::run_modes;
  std::string const text = sheet_run("plate.geo", "[time]\nsteps = 1\n");
  auto const line = "surface.toml:13: [[surface_current]]";
  auto const single = parsed(text + "[solver]\nprecision = \"single\"\n");
  ASSERT_TRUE(refusal(single, run_modes(single, false, false)));
  EXPECT_NE(std::string(refusal(single, run_modes(single, false, false))->what()).find(line), std::string::npos)
      << refusal(single, run_modes(single, false, false))->what();
  auto const assembled = parsed(text + "[solver]\nformulation = \"assembled\"\n");
  auto const baseline = refusal(assembled, run_modes(assembled, false, false));
  ASSERT_TRUE(baseline);
  EXPECT_NE(std::string(baseline->what()).find("the assembled baseline has no surface currents"), std::string::npos)
      << baseline->what();
  EXPECT_FALSE(refusal(parsed(text), run_modes(parsed(text), false, true))) << "it runs on a GPU";
  EXPECT_FALSE(refusal(parsed(text), run_modes(parsed(text), true, false))) << "it runs over ranks (tests/ranks)";
}

// Bad items are refused in one line at the item.
TEST(SurfaceCurrent, BadItemsAreRefusedAtTheirLine)
{
  ScratchDirectory const scratch("surface_bad");
  auto const geo = scratch.write("plate.geo", box_with_sheet(0.2));
  auto const message = [&scratch](std::string const& text) {
    try {
      dgatd::simulation::Simulation const simulation(parsed(text, scratch.path().string()));
    } catch (dgatd::Error const& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string const text = sheet_run(geo, "[time]\nsteps = 1\n");
  auto const refused = [&](std::string const& bad, std::string const& expected) {
    auto const what = message(bad);
    EXPECT_NE(what.find(expected), std::string::npos) << what;
  };
  refused(replaced(text, "pec = [\"walls\", \"sheet\"]", "pec = [\"walls\"]"),
          "surface.toml:13: [[surface_current]] surface 'sheet' is not PEC");
  refused(replaced(text, "surfaces = [\"sheet\", \"walls\"]", "surfaces = [\"sheet\", \"roof\"]"), "roof");
  refused(replaced(text, "surfaces = [\"sheet\", \"walls\"]", "surfaces = []"),
          "surface.toml:15: [[surface_current]] surfaces must be a physical surface name or a non-empty list");
  refused(replaced(text, "frequencies = [4e8, 6e8]", "frequencies = [4e8, -6e8]"), "must be positive frequencies");
  refused(replaced(text, "name = \"metal\"", "name = \"a/b\""), "without '/'");
  refused(replaced(text, "name = \"metal\"\n", ""), "[[surface_current]] needs the key 'name'");
  refused(text + "[[surface_current]]\nname = \"metal\"\nsurfaces = \"walls\"\n",
          "surface.toml:19: [[surface_current]] name = \"metal\" is already used at line 13");
  refused(replaced(text, "frequencies = [4e8, 6e8]", "frequency = 4e8"), "unknown key 'frequency'");
}

} // namespace
