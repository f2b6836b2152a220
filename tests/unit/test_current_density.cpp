// [[current_density]], the worked example of docs/developer/adding_a_capability.md: a uniform
// impressed current density drives the uniform field of the continuum exactly, the work it records
// is the change of the leapfrog's energy, its record survives a restart, and the modes it does not
// run in refuse it at its line (tests/ranks runs it over ranks).
#include "dgatd/dga/operators.hpp"
#include "dgatd/error.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/io/output/checkpoint.hpp"
#include "dgatd/io/output/writer.hpp"
#include "dgatd/simulation/capabilities.hpp"
#include "dgatd/simulation/simulation.hpp"
#include "dgatd/solver/waveform.hpp"
#include "run_helpers.hpp"
#include "scratch_directory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace {

using dgatd::Vec3;
using dgatd::testing::replaced;
using dgatd::testing::ScratchDirectory;

// What a run hands its writer: the first probe's samples, the energies and the series.
struct Record {
  double dt = 0;
  std::vector<Vec3> e, h;
  std::vector<double> energy;
  std::vector<dgatd::solver::TimeSeries> series;
};

class MemoryWriter final : public dgatd::io::NoOutput {
public:
  explicit MemoryWriter(std::shared_ptr<Record> record) : record_(std::move(record)) {}
  void append_step(double, std::vector<dgatd::io::ProbeSample> const& samples) override
  {
    record_->e.push_back(samples.at(0).e);
    record_->h.push_back(samples.at(0).h);
  }
  void append_energy(double, double energy) override { record_->energy.push_back(energy); }
  void write_series(dgatd::solver::TimeSeries const& series, double) override { record_->series.push_back(series); }
  std::string description() const override { return "memory"; }

private:
  std::shared_ptr<Record> record_;
};

dgatd::io::Config parsed(std::string const& text) { return dgatd::io::parse_config(text, "density.toml", "."); }

Record run(std::string const& text, std::string const& output = "", std::string const& restart_from = "")
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
  dgatd::simulation::Simulation simulation(parsed(text), options);
  EXPECT_TRUE(simulation.run().complete);
  return *record;
}

// The configuration's waveform, as the library defines it (a Gaussian cut 6 sigma from its centre).
dgatd::solver::Waveform const pulse{dgatd::solver::WaveformKind::gaussian, 5e-9, 1e-9, 0, 0, 1};

std::string const box = R"([mesh]
generate = "box"
size = [1.0, 0.8, 0.6]
h = 0.15
reproducible = true
)";

std::string density_table(std::string const& region)
{
  return "[[current_density]]\nname = \"bulk\"\nregion = \"" + region +
         "\"\ndensity = [0.5, -1.0, 2.0]\nwaveform = \"gaussian\"\nsigma = 1e-9\n";
}

// With PMC walls a uniform E is the exact solution everywhere: E(t) = -J0 / eps0 * integral of g, H = 0.
// The discrete field holds it exactly too (a uniform field is in the half-edge space, and curl-free,
// and the density's stencil gives (Meps)^-1 I = J0 / eps0 along every half-edge), so the probe reads
// the leapfrog's midpoint sum of g to rounding, step after step.
TEST(CurrentDensity, DrivesTheUniformFieldOfTheContinuumExactly)
{
  std::string const text = box + "[boundary]\npec = []\n" + density_table("domain") +
                           "[time]\nsteps = 100\n[[probe]]\nname = \"p\"\nposition = [0.31, 0.47, 0.22]\n";
  auto const record = run(text);
  double const dt = record.dt;
  ASSERT_EQ(record.e.size(), 100u);
  Vec3 const j{0.5, -1.0, 2.0};
  double integral = 0, largest = 0;
  for (std::size_t n = 0; n < record.e.size(); ++n) {
    integral += dt * pulse.value((n + 0.5) * dt);
    for (int c = 0; c < 3; ++c) {
      double const expected = -j[c] * integral / dgatd::dga::eps0;
      largest = std::max(largest, std::abs(expected));
      ASSERT_NEAR(record.e[n][c], expected, 1e-12 * largest + 1e-300) << "step " << n + 1 << ", component " << c;
      ASSERT_NEAR(record.h[n][c], 0.0, 1e-12 * largest / 376.73) << "step " << n + 1;
    }
  }
  // The run outlasts the pulse: the field holds its whole integral, sqrt(2 pi) sigma (the midpoint
  // sum of a Gaussian is exact to far below the cut's 1e-8).
  EXPECT_NEAR(integral / (std::sqrt(2 * 3.141592653589793) * 1e-9), 1.0, 1e-6);
}

// In a lossless problem the leapfrog's energy changes over a step by exactly the work the term
// records, -dt g(t^(n+1/2)) I . (u^n + u^(n+1)) / 2, to rounding: here with waves, a density in
// the inner volume of a PEC box.
TEST(CurrentDensity, ItsRecordedWorkIsTheChangeOfTheLeapfrogEnergy)
{
  std::string const text = box + "inner = { shape = \"box\", corner = [0.3, 0.2, 0.15], size = [0.4, 0.4, 0.3] }\n" +
                           density_table("inner") + "[time]\nsteps = 200\n[output]\nenergy_every = 1\n";
  auto const record = run(text);
  ASSERT_EQ(record.series.size(), 1u);
  auto const& work = record.series.front();
  EXPECT_EQ(work.name, "bulk");
  EXPECT_EQ(work.units, "J");
  ASSERT_EQ(work.values.size(), 200u);
  ASSERT_EQ(record.energy.size(), 200u); // W^0 ... W^199
  double const peak = *std::max_element(record.energy.begin(), record.energy.end());
  ASSERT_GT(peak, 0);
  for (std::size_t n = 0; n + 1 < record.energy.size(); ++n)
    ASSERT_NEAR(record.energy[n + 1] - record.energy[n], work.values[n], 1e-12 * peak) << "step " << n;
}

TEST(CurrentDensity, ItsRecordContinuesBitForBitFromACheckpoint)
{
  ScratchDirectory scratch("current_density_restart");
  std::string const text = box + density_table("domain") +
                           "[time]\nsteps = 60\n[output]\ncheckpoint_every = 25\n"
                           "[[probe]]\nname = \"p\"\nposition = [0.31, 0.47, 0.22]\n";
  std::string const output = (scratch.path() / "run.h5").string();
  auto const whole = run(text, output);
  std::string const checkpoint = dgatd::io::checkpoint_path(output);
  ASSERT_EQ(dgatd::io::read_checkpoint(checkpoint).state.step, 50);
  auto const continued = run(text, output, checkpoint);
  ASSERT_EQ(whole.series.size(), 1u);
  ASSERT_EQ(continued.series.size(), 1u);
  EXPECT_EQ(continued.series.front().values, whole.series.front().values);
}

TEST(CurrentDensity, IsRefusedAtItsLineWhereItDoesNotRun)
{
  using dgatd::simulation::refusal;
  using dgatd::simulation::run_modes;
  std::string const text = box + "[time]\nsteps = 1\n" + density_table("domain");
  auto const line = "density.toml:8: an impressed current density";
  auto const single = parsed(text + "[solver]\nprecision = \"single\"\n");
  ASSERT_TRUE(refusal(single, run_modes(single, false, false)));
  EXPECT_NE(std::string(refusal(single, run_modes(single, false, false))->what()).find(line), std::string::npos);
  auto const assembled = parsed(text + "[solver]\nformulation = \"assembled\"\n");
  auto const baseline = refusal(assembled, run_modes(assembled, false, false));
  ASSERT_TRUE(baseline);
  EXPECT_NE(std::string(baseline->what()).find("the assembled baseline has no impressed current densities"),
            std::string::npos)
      << baseline->what();
  EXPECT_FALSE(refusal(parsed(text), run_modes(parsed(text), false, true))) << "it runs on a GPU";
  EXPECT_FALSE(refusal(parsed(text), run_modes(parsed(text), true, false))) << "it runs over ranks (tests/ranks)";
  EXPECT_FALSE(
      refusal(parsed(text + "[solver]\nprecision = \"mixed\"\n"), {dgatd::simulation::RunMode::mixed_precision}));
}

// Bad items are refused in one line at the item.
TEST(CurrentDensity, BadItemsAreRefusedAtTheirLine)
{
  auto const message = [](std::string const& text) {
    try {
      dgatd::simulation::Simulation const simulation(parsed(text));
    } catch (dgatd::Error const& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string const base = box + "[time]\nsteps = 1\n";
  EXPECT_NE(message(base + "[[current_density]]\nname = \"a\"\nregion = \"domain\"\nwaveform = \"gaussian\"\n"
                           "sigma = 1e-9\n")
                .find("density.toml:8: [[current_density]] needs the key 'density'"),
            std::string::npos);
  EXPECT_NE(message(base + density_table("nowhere")).find("density.toml:8"), std::string::npos);
  EXPECT_NE(message(base + density_table("nowhere")).find("nowhere"), std::string::npos);
  EXPECT_NE(message(base + density_table("domain") + density_table("domain")).find("density.toml:14: "),
            std::string::npos);
  EXPECT_NE(message(base + density_table("domain") + density_table("domain")).find("is already used at line 8"),
            std::string::npos);
  EXPECT_NE(message(base + replaced(density_table("domain"), "name = \"bulk\"", "name = \"a/b\"")).find("without '/'"),
            std::string::npos);
  EXPECT_NE(message(base + density_table("domain") + "colour = 1\n").find("unknown key 'colour'"), std::string::npos);
}

} // namespace
