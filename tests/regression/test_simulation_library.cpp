// The simulation as a library: the two formulations give the same probe traces, and a run cut in
// two by a checkpoint and a restart is the same run, bit for bit, on Serial and on OpenMP.
#include "graded_sphere_cavity.hpp"
#include "run_helpers.hpp"

#include "dgatd/error.hpp"
#include "dgatd/io/analysis/results.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/io/output/checkpoint.hpp"
#include "dgatd/io/output/writer.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/simulation/problem.hpp"
#include "dgatd/simulation/simulation.hpp"
#include "io/hdf5_handle.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using dgatd::testing::replaced;
using dgatd::testing::ScratchDirectory;

std::string slurp(std::string const& path)
{
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

dgatd::simulation::RunResult run(std::string const& text, std::string const& output, std::string const& restart = "",
                                 std::vector<double>* final_e = nullptr, std::vector<double>* final_h = nullptr)
{
  dgatd::simulation::SimulationOptions options;
  options.output_path = output;
  options.restart_from = restart;
  dgatd::simulation::Simulation simulation(dgatd::io::parse_config(text, "test.toml", "."), options);
  auto const result = simulation.run();
  auto const state = simulation.formulation().state();
  if (final_e) *final_e = state.e_unknowns;
  if (final_h) *final_h = state.h_unknowns;
  return result;
}

double max_abs(std::vector<dgatd::Vec3> const& values)
{
  double m = 0;
  for (auto const& v : values)
    for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// The dielectric cavity of inputs/ for 2000 steps, on the classic mesher's mesh so both runs step
// the same mesh.
TEST(Formulations, FractionedAndAssembledProbeTracesAgreeToRounding)
{
  ScratchDirectory scratch("formulations");
  std::string const text = replaced(replaced(slurp(std::string(DGATD_SOURCE_DIR) + "/inputs/cavity_dielectric.toml"),
                                             "t_end = 500e-9", "steps = 2000"),
                                    "[mesh]\n", "[mesh]\nreproducible = true\n");
  std::string const fractioned = (scratch.path() / "fractioned.h5").string();
  std::string const assembled = (scratch.path() / "assembled.h5").string();
  ASSERT_TRUE(run(text, fractioned).complete);
  ASSERT_TRUE(run(text + "\n[solver]\nformulation = \"assembled\"\n", assembled).complete);

  for (char const field : {'E', 'H'}) {
    auto const a = dgatd::io::read_probe(fractioned, "p", field);
    auto const b = dgatd::io::read_probe(assembled, "p", field);
    ASSERT_EQ(a.values.size(), 2000u);
    ASSERT_EQ(b.values.size(), a.values.size());
    double difference = 0;
    for (std::size_t i = 0; i < a.values.size(); ++i)
      for (int c = 0; c < 3; ++c) difference = std::max(difference, std::abs(a.values[i][c] - b.values[i][c]));
    double const relative = difference / max_abs(b.values);
    std::printf("%c: max difference %.3e of the largest value %.3e (relative %.2e)\n", field, difference,
                max_abs(b.values), relative);
    // Both read the same U and F, which the two formulations compute with different sums of the same
    // products: a few units of rounding per step, carried (not amplified) by the stable leapfrog over
    // 2000 steps stays near 1e-12.
    EXPECT_LT(relative, 1e-10) << field;
  }
}

// A small generated box with every kind of output: probes every step, energy, snapshots and
// checkpoints, so each must come out identical.
std::string restart_config(char const* backend)
{
  return std::string(R"([mesh]
generate = "box"
size = [1.0, 0.8, 0.6]
h = 0.12
reproducible = true

[[source]]
kind = "dipole"
position = [0.31, 0.23, 0.17]
direction = [0.5, 0.6, 0.62]
waveform = "gaussian"
t0 = 3e-9
sigma = 0.5e-9

[time]
steps = 600

[[probe]]
name = "p"
position = [0.63, 0.41, 0.29]

[[probe]]
name = "q"
position = [0.2, 0.6, 0.4]

[output]
energy_every = 7
snapshot_every = 100
checkpoint_every = 250
progress = false

[solver]
backend = ")") +
         backend + "\"\n";
}

void expect_same_output(std::string const& a, std::string const& b)
{
  for (auto const& name : {"p", "q"})
    for (char const field : {'E', 'H'}) {
      auto const x = dgatd::io::read_probe(a, name, field);
      auto const y = dgatd::io::read_probe(b, name, field);
      EXPECT_EQ(x.time, y.time);
      EXPECT_EQ(x.values, y.values) << name << ' ' << field;
    }
  auto const x = dgatd::io::read_energy(a);
  auto const y = dgatd::io::read_energy(b);
  EXPECT_EQ(x.time, y.time);
  EXPECT_EQ(x.energy, y.energy);
}

class Restart : public ::testing::TestWithParam<char const*> {};

// What a writer of the caller's receives: everything the HDF5 output of the same run holds. The
// run owns its writer and drops it when it ends, so the record outlives it.
struct MemoryRecord {
  std::vector<dgatd::Vec3> e_of_first_probe;
  std::vector<double> energy;
  int meshes = 0, probes = 0, closed_complete = -1;
};

class MemoryWriter final : public dgatd::io::NoOutput {
public:
  explicit MemoryWriter(std::shared_ptr<MemoryRecord> record) : record_(std::move(record)) {}
  void write_mesh(std::vector<dgatd::Vec3> const&, std::vector<std::array<std::int32_t, 4>> const&,
                  std::vector<std::int32_t> const&) override
  {
    ++record_->meshes;
  }
  std::size_t add_probe(std::string const&, dgatd::Vec3 const&) override { return record_->probes++; }
  void append_step(double, std::vector<dgatd::io::ProbeSample> const& samples) override
  {
    record_->e_of_first_probe.push_back(samples.at(0).e);
  }
  void append_energy(double, double value) override { record_->energy.push_back(value); }
  void close(bool complete) override { record_->closed_complete = complete; }
  std::string description() const override { return "memory"; }

private:
  std::shared_ptr<MemoryRecord> record_;
};

TEST(Recorder, AnInjectedWriterReceivesWhatTheHdf5OutputHolds)
{
  ScratchDirectory scratch("injected_writer");
  std::string const text = replaced(replaced(slurp(std::string(DGATD_SOURCE_DIR) + "/inputs/cavity_dielectric.toml"),
                                             "t_end = 500e-9", "steps = 300"),
                                    "[mesh]\n", "[mesh]\nreproducible = true\n");
  std::string const file = (scratch.path() / "file.h5").string();
  ASSERT_TRUE(run(text, file).complete);

  auto const memory = std::make_shared<MemoryRecord>();
  dgatd::simulation::SimulationOptions options;
  options.output_path = (scratch.path() / "unused.h5").string();
  options.writer = [memory](std::string const&, dgatd::io::RunAttributes const&, dgatd::io::ResumePoint const*) {
    return std::make_unique<MemoryWriter>(memory);
  };
  dgatd::simulation::Simulation simulation(dgatd::io::parse_config(text, "test.toml", "."), options);
  auto const result = simulation.run();
  EXPECT_TRUE(result.complete);
  EXPECT_EQ(result.output, "memory");
  EXPECT_FALSE(fs::exists(options.output_path));
  EXPECT_EQ(memory->meshes, 1);
  EXPECT_EQ(memory->closed_complete, 1);
  auto const e = dgatd::io::read_probe(file, "p", 'E');
  ASSERT_EQ(memory->e_of_first_probe.size(), e.values.size());
  for (std::size_t n = 0; n < e.values.size(); ++n)
    for (int c = 0; c < 3; ++c) ASSERT_EQ(memory->e_of_first_probe[n][c], e.values[n][c]) << n;
  EXPECT_EQ(memory->energy, dgatd::io::read_energy(file).energy);
  EXPECT_EQ(memory->energy.size(), 6u); // steps 0, 50, ..., 250 (energy_every = 50)
}

TEST_P(Restart, HalfRunCheckpointedAndRestartedEqualsTheWholeRunBitForBit)
{
  ScratchDirectory scratch(std::string("restart_") + GetParam());
  std::string const text = restart_config(GetParam());
  std::string const output = (scratch.path() / "run.h5").string();
  std::vector<double> whole_e, whole_h, continued_e, continued_h;
  ASSERT_TRUE(run(text, output, "", &whole_e, &whole_h).complete);
  std::string const whole = (scratch.path() / "whole.h5").string();
  fs::copy_file(output, whole);

  // Checkpoints every 250 steps: the file holds step 500's, and the output the run's 600 steps, as
  // for a run killed 100 steps past its last checkpoint; the restart drops those and redoes them.
  std::string const checkpoint = dgatd::io::checkpoint_path(output);
  ASSERT_EQ(dgatd::io::read_checkpoint(checkpoint).state.step, 500);
  auto const restarted = run(text, output, checkpoint, &continued_e, &continued_h);
  ASSERT_TRUE(restarted.complete);
  EXPECT_EQ(restarted.steps, 600);
  expect_same_output(whole, output);
  EXPECT_EQ(whole_e, continued_e);
  EXPECT_EQ(whole_h, continued_h);

  // Half the run (300 of 600 steps) then the rest from the checkpoint of step 300.
  std::string const half_text = replaced(text, "checkpoint_every = 250", "checkpoint_every = 300");
  std::string const half = (scratch.path() / "half.h5").string();
  ASSERT_TRUE(run(half_text, half).complete);
  ASSERT_EQ(dgatd::io::read_checkpoint(dgatd::io::checkpoint_path(half)).state.step, 300);
  ASSERT_TRUE(run(half_text, half, dgatd::io::checkpoint_path(half), &continued_e, &continued_h).complete);
  expect_same_output(whole, half);
  EXPECT_EQ(whole_e, continued_e);
  EXPECT_EQ(whole_h, continued_h);
}

INSTANTIATE_TEST_SUITE_P(Backends, Restart, ::testing::Values("serial", "default"));

// A run paused by advance and gone on with is the run never paused: the front ends (Python) step in
// pieces between progress updates. A paused run stopped early leaves a checkpoint that a restart
// takes to the same end.
TEST(Advance, PiecesOfARunEqualTheWholeRunBitForBit)
{
  ScratchDirectory scratch("advance_pieces");
  std::string const text = replaced(restart_config("default"), "checkpoint_every = 250", "checkpoint_every = 0");
  std::string const whole = (scratch.path() / "whole.h5").string();
  std::vector<double> whole_e, whole_h;
  ASSERT_TRUE(run(text, whole, "", &whole_e, &whole_h).complete);

  dgatd::simulation::SimulationOptions options;
  options.output_path = (scratch.path() / "pieces.h5").string();
  dgatd::simulation::Simulation pieces(dgatd::io::parse_config(text, "test.toml", "."), options);
  for (std::int64_t const until : {0, 1, 13, 13, 250, 377}) {
    auto const paused = pieces.advance(until);
    EXPECT_FALSE(paused.ended);
    EXPECT_FALSE(paused.complete);
    EXPECT_EQ(paused.steps, until);
    EXPECT_EQ(pieces.steps_taken(), until);
    EXPECT_TRUE(paused.checkpoint.empty());
  }
  auto const last = pieces.advance(1 << 20);
  EXPECT_TRUE(last.ended);
  EXPECT_TRUE(last.complete);
  EXPECT_EQ(last.steps, 600);
  EXPECT_THROW(pieces.advance(1 << 20), std::logic_error);
  expect_same_output(whole, options.output_path);
  auto const state = pieces.formulation().state();
  EXPECT_EQ(whole_e, state.e_unknowns);
  EXPECT_EQ(whole_h, state.h_unknowns);

  std::string const stopped = (scratch.path() / "stopped.h5").string();
  {
    options.output_path = stopped;
    dgatd::simulation::Simulation early(dgatd::io::parse_config(text, "test.toml", "."), options);
    early.advance(222);
    auto const end = early.stop();
    EXPECT_TRUE(end.ended);
    EXPECT_FALSE(end.complete);
    ASSERT_EQ(end.checkpoint, dgatd::io::checkpoint_path(stopped));
  }
  std::vector<double> continued_e, continued_h;
  ASSERT_TRUE(run(text, stopped, dgatd::io::checkpoint_path(stopped), &continued_e, &continued_h).complete);
  expect_same_output(whole, stopped);
  EXPECT_EQ(whole_e, continued_e);
  EXPECT_EQ(whole_h, continued_h);

  // Dropped while paused, a run closes its output as a stop would: readable, with its checkpoint.
  std::string const dropped = (scratch.path() / "dropped.h5").string();
  {
    options.output_path = dropped;
    dgatd::simulation::Simulation left(dgatd::io::parse_config(text, "test.toml", "."), options);
    left.advance(100);
  }
  EXPECT_EQ(dgatd::io::read_probe(dropped, "p", 'E').values.size(), 100u); // a row after each step
  EXPECT_EQ(dgatd::io::read_checkpoint(dgatd::io::checkpoint_path(dropped)).state.step, 100);
}

TEST(Restart, ARunWithoutProbesRestartsToo)
{
  ScratchDirectory scratch("restart_no_probes");
  std::string text = restart_config("default");
  text = replaced(replaced(text, "[[probe]]\nname = \"p\"\nposition = [0.63, 0.41, 0.29]\n", ""),
                  "[[probe]]\nname = \"q\"\nposition = [0.2, 0.6, 0.4]\n", "");
  std::string const output = (scratch.path() / "run.h5").string();
  std::vector<double> whole_e, continued_e;
  ASSERT_TRUE(run(text, output, "", &whole_e).complete);
  auto const whole = dgatd::io::read_energy(output);
  ASSERT_TRUE(run(text, output, dgatd::io::checkpoint_path(output), &continued_e).complete);
  auto const continued = dgatd::io::read_energy(output);
  EXPECT_EQ(whole.time, continued.time);
  EXPECT_EQ(whole.energy, continued.energy);
  EXPECT_EQ(whole_e, continued_e);
}

TEST(Restart, RefusesACheckpointOfAnotherConfiguration)
{
  ScratchDirectory scratch("restart_refusal");
  std::string const text = restart_config("default");
  std::string const output = (scratch.path() / "run.h5").string();
  ASSERT_TRUE(run(text, output).complete);
  try {
    run(replaced(text, "steps = 600", "steps = 700"), output, dgatd::io::checkpoint_path(output));
    FAIL() << "a checkpoint of another configuration was accepted";
  } catch (dgatd::Error const& e) {
    EXPECT_NE(std::string(e.what()).find("another configuration"), std::string::npos) << e.what();
  }
}

} // namespace

namespace {

// A matched port and a matched layer carry memory beyond the fields: the port's voltage history (its
// admittance's convolution) and the layer's auxiliary unknowns. Both go into the checkpoint, so a
// run restarted from step 300 ends where the whole run ends, port records included.
TEST(Restart, MatchedPortAndLayerContinueBitForBit)
{
  ScratchDirectory scratch("restart_open");
  std::string const text = R"([mesh]
generate = "waveguide"
size = [0.02286, 0.01016, 0.04]
h = 0.003
pml = 0.012
reproducible = true

[[pml]]
region = "pml"

[[source]]
kind = "port_te10"
surface = "port_in"
matched = true
waveform = "modulated_gaussian"
frequency = 10e9
sigma = 1.061e-10
t0 = 6.4e-10

[time]
steps = 600

[output]
energy_every = 7
checkpoint_every = 300
progress = false
)";
  std::string const whole = (scratch.path() / "whole.h5").string();
  std::vector<double> whole_e, whole_h, continued_e, continued_h;
  ASSERT_TRUE(run(text, whole, "", &whole_e, &whole_h).complete);
  std::string const half = (scratch.path() / "half.h5").string();
  ASSERT_TRUE(run(text, half).complete);
  ASSERT_EQ(dgatd::io::read_checkpoint(dgatd::io::checkpoint_path(half)).state.step, 300);
  ASSERT_TRUE(run(text, half, dgatd::io::checkpoint_path(half), &continued_e, &continued_h).complete);
  EXPECT_EQ(whole_e, continued_e);
  EXPECT_EQ(whole_h, continued_h);
  auto const a = dgatd::io::read_ports(whole), b = dgatd::io::read_ports(half);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(a[0].voltage.size(), 601u);
  EXPECT_EQ(a[0].voltage, b[0].voltage);
  EXPECT_EQ(a[0].incident, b[0].incident);
  EXPECT_EQ(dgatd::io::read_energy(whole).energy, dgatd::io::read_energy(half).energy);
  // The same checkpoint as an older dgatd would have laid out its layers' auxiliaries (state_layout
  // 3: the modal tets' magnetic auxiliaries whole) is refused before anything runs, not restored
  // into the wrong places.
  {
    using dgatd::io::hdf5::Handle;
    Handle const file(H5Fopen(dgatd::io::checkpoint_path(half).c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    ASSERT_TRUE(file.valid());
    Handle const layout(H5Aopen(file.get(), "state_layout", H5P_DEFAULT), H5Aclose);
    ASSERT_TRUE(layout.valid());
    std::int64_t const older = 3;
    ASSERT_GE(H5Awrite(layout.get(), H5T_NATIVE_INT64, &older), 0);
  }
  try {
    run(text, half, dgatd::io::checkpoint_path(half));
    FAIL() << "a checkpoint of state layout 3 was restored";
  } catch (dgatd::Error const& e) {
    EXPECT_NE(std::string(e.what()).find("in layout 3, this dgatd reads 4"), std::string::npos) << e.what();
  }
}

// The graded sphere cavity (graded_sphere_cavity.hpp) for 12 ns: local time steps ([time]
// local_steps) step it in levels.
std::string graded_sphere_config(std::string const& local_steps)
{
  return dgatd::testing::graded_sphere_cavity("", R"([time]
t_end = 12e-9
local_steps = )" + local_steps + R"(

[output]
energy_every = 10
checkpoint_every = 40
progress = false
)");
}

// The graded sphere cavity meshed finer, h_sphere = 0.01 (see SliversDoNotSetTheLevels).
std::string finer_graded_sphere_config()
{
  auto text = graded_sphere_config("\"auto\"");
  text.replace(text.find("h_sphere = 0.0125"), 17, "h_sphere = 0.01");
  return text;
}

// A run with local time steps checkpoints at coarse steps: continued from its last checkpoint it is
// the run never stopped, bit for bit (probes, energy and the final state). On the sphere meshed at
// h_sphere = 0.01 (4 levels, their lists broken every 9 tet updates in the locality order) the run
// numbers its tets by level; the restart keeps the checkpoint's numbering, whether it takes the
// checkpoint's mesh (one made on load) or reads the mesh file again (ordered for locality, so in
// another order of the tets).
void expect_local_steps_restart_bit_for_bit(std::string const& text, ScratchDirectory const& scratch)
{
  std::string const output = (scratch.path() / "run.h5").string();
  std::vector<double> whole_e, whole_h, continued_e, continued_h;
  std::int64_t steps = 0;
  {
    dgatd::simulation::SimulationOptions options;
    options.output_path = output;
    dgatd::simulation::Simulation simulation(dgatd::io::parse_config(text, "test.toml", "."), options);
    ASSERT_GE(simulation.plan().local_levels, 2) << "the graded sphere steps in levels";
    EXPECT_GT(simulation.plan().dt, simulation.plan().dt_max) << "the coarse step exceeds the leapfrog's bound";
    EXPECT_TRUE(simulation.plan().local_tets_by_level);
    steps = simulation.plan().steps;
    ASSERT_TRUE(simulation.run().complete);
    auto const state = simulation.formulation().state();
    whole_e = state.e_unknowns;
    whole_h = state.h_unknowns;
  }
  std::string const whole = (scratch.path() / "whole.h5").string();
  fs::copy_file(output, whole);
  std::string const checkpoint = dgatd::io::checkpoint_path(output);
  auto const restart_step = dgatd::io::read_checkpoint(checkpoint).state.step;
  ASSERT_GT(restart_step, 0);
  ASSERT_LT(restart_step, steps);
  ASSERT_TRUE(run(text, output, checkpoint, &continued_e, &continued_h).complete);
  expect_same_output(whole, output);
  EXPECT_EQ(whole_e, continued_e);
  EXPECT_EQ(whole_h, continued_h);
}

TEST(LocalSteps, ARestartFromACoarseStepEqualsTheWholeRunBitForBit)
{
  ScratchDirectory scratch("local_steps_restart");
  expect_local_steps_restart_bit_for_bit(finer_graded_sphere_config(), scratch);
}

TEST(LocalSteps, ARestartOnAMeshFileKeepsTheTetsNumberedByLevel)
{
  ScratchDirectory scratch("local_steps_restart_file");
  auto text = finer_graded_sphere_config();
  std::string const mesh_file = (scratch.path() / "sphere.msh").string();
  dgatd::mesh::write_mesh(dgatd::simulation::load_mesh(dgatd::io::parse_config(text, "test.toml", ".")), mesh_file);
  auto const start = text.find("[mesh]"), end = text.find("reproducible = true\n") + 20;
  text.replace(start, end - start, "[mesh]\nfile = \"" + mesh_file + "\"\n");
  expect_local_steps_restart_bit_for_bit(text, scratch);
}

// The graded sphere meshed finer (h_sphere = 0.01) holds two slivers whose own steps are 30 times
// below the tets next in line (0.025 of dt_max): the levels start from the finest tets' steps, not
// theirs, and "auto" finds levels whose scheme is stable (its spectrum certified by the Lanczos
// iteration on A_p) with a coarse step several times the leapfrog's bound. The levels anchored on
// the slivers stopped the run ("the local steps' scheme is unstable").
TEST(LocalSteps, SliversDoNotSetTheLevels)
{
  dgatd::simulation::Simulation simulation(dgatd::io::parse_config(finer_graded_sphere_config(), "test.toml", "."));
  auto const& plan = simulation.plan();
  EXPECT_FALSE(plan.local_levels_unstable);
  ASSERT_GE(plan.local_levels, 3);
  EXPECT_GT(plan.dt, 4 * plan.dt_max) << "the coarse step";
  EXPECT_GT(plan.local_spectrum_highest, 0);
  EXPECT_LT(plan.local_spectrum_highest, 1);
  EXPECT_GT(plan.local_work_ratio, 1.5) << "fewer tet updates than one global step";
  // What the run summary says the search cost: several spectra (the first margin is unstable here),
  // each at least one product with the scheme's operator.
  EXPECT_GE(plan.local_search_spectra, 2);
  EXPECT_GE(plan.local_search_products, plan.local_search_spectra);
}

// The plan and the run summary say on which level a driven current's unknowns lie, where the levels'
// steps force them (docs/method/local_time_stepping.md, section 4). The cavity's
// dipole, in a corner of the box far from the sphere (centred at 0.22, 0.22, 0.22), lies among the
// coarse tets, on level 0, which the summary leaves unsaid; moved just off the sphere, where the tets
// are finest, on the finest level, and said.
TEST(LocalSteps, ThePlanSaysOnWhichLevelTheCurrentsLie)
{
  ScratchDirectory scratch("local_steps_current_level");
  // The summary comes with the first step: one, then the run stopped.
  auto const set_up = [&](std::string const& text) {
    std::ostringstream report;
    dgatd::simulation::SimulationOptions options;
    options.report = &report;
    options.output_path = (scratch.path() / "run.h5").string();
    dgatd::simulation::Simulation simulation(dgatd::io::parse_config(text, "test.toml", "."), options);
    simulation.advance(1);
    simulation.stop();
    return std::make_pair(simulation.plan(), report.str());
  };
  auto const in_the_corner = set_up(graded_sphere_config("\"auto\""));
  ASSERT_GE(in_the_corner.first.local_levels, 2);
  EXPECT_EQ(in_the_corner.first.local_current_level, 0);
  EXPECT_EQ(in_the_corner.second.find("driven currents"), std::string::npos) << in_the_corner.second;

  auto text = graded_sphere_config("\"auto\"");
  text.replace(text.find("position = [0.05, 0.12, 0.09]"), 29, "position = [0.22, 0.22, 0.325]");
  auto const off_the_sphere = set_up(text);
  ASSERT_GE(off_the_sphere.first.local_levels, 2);
  EXPECT_EQ(off_the_sphere.first.local_current_level, off_the_sphere.first.local_levels - 1);
  EXPECT_NE(off_the_sphere.second.find("the driven currents lie on level " +
                                       std::to_string(off_the_sphere.first.local_current_level) + ", "),
            std::string::npos)
      << off_the_sphere.second;

  EXPECT_EQ(set_up(graded_sphere_config("\"off\"")).first.local_current_level, -1) << "no levels";
}

// The value at t of a trace sampled every dt from 0, by the cubic through the four nearest samples.
double cubic_at(std::vector<double> const& samples, double dt, double t)
{
  auto const i = std::clamp<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(std::floor(t / dt)), 1,
                                            static_cast<std::ptrdiff_t>(samples.size()) - 3);
  double const x = t / dt - static_cast<double>(i);
  double const a = samples[i - 1], b = samples[i], c = samples[i + 1], d = samples[i + 2];
  return b + 0.5 * x * (c - a + x * (2 * a - 5 * b + 4 * c - d + x * (3 * (b - c) + d - a)));
}

// The same problem with local time steps and with one global step: the probes see the same fields to
// the schemes' second order in time (the global run's trace taken at the local run's times by cubics,
// whose error, (w dt)^4, is far below).
TEST(LocalSteps, ProbesFollowTheGlobalStepsRun)
{
  ScratchDirectory scratch("local_steps_probes");
  std::string const local = (scratch.path() / "local.h5").string();
  std::string const global = (scratch.path() / "global.h5").string();
  ASSERT_TRUE(run(graded_sphere_config("\"auto\""), local).complete);
  ASSERT_TRUE(run(graded_sphere_config("\"off\""), global).complete);
  for (auto const& name : {"p", "q"})
    for (char const field : {'E', 'H'}) {
      auto const a = dgatd::io::read_probe(local, name, field);
      auto const b = dgatd::io::read_probe(global, name, field);
      double const dt_a = a.time.at(1) - a.time.at(0), dt_b = b.time.at(1) - b.time.at(0);
      // H is sampled half a step before /time.
      double const shift = field == 'H' ? 0.5 : 0.0;
      double const origin_b = b.time[0] - shift * dt_b;
      double difference = 0;
      for (int c = 0; c < 3; ++c) {
        std::vector<double> reference(b.values.size());
        for (std::size_t n = 0; n < reference.size(); ++n) reference[n] = b.values[n][c];
        for (std::size_t n = 0; n < a.values.size(); ++n)
          if (double const t = a.time[n] - shift * dt_a; t <= b.time.back() - 2 * dt_b)
            difference = std::max(difference, std::abs(a.values[n][c] - cubic_at(reference, dt_b, t - origin_b)));
      }
      double const relative = difference / max_abs(b.values);
      std::printf("%s %c: dt %.4g s and %.4g s, max difference %.3e of the largest value (relative %.2e)\n", name,
                  field, dt_a, dt_b, difference, relative);
      // The leapfrog's phase error at the carrier, (w dt)^2 / 24 per radian at the coarse step, over
      // the run's w t_end radians: what one global step of the coarse size would be off by.
      double const w = 2 * M_PI * 0.25e9;
      double const phase_error = w * dt_a * w * dt_a / 24 * w * 12e-9;
      std::printf("  the leapfrog's phase error at the coarse step over the run: %.2e\n", phase_error);
      EXPECT_LT(relative, phase_error) << name << ' ' << field;
    }
}

} // namespace
