// Issue 10, acceptance 4: with conductivity, an absorbing surface and a matched layer together,
// dt = "auto" stays at or below the lossless bound, and 1e5 steps show no growth. A coarse WR-90
// section (h = 3 mm) with sigma in the guide, an absorbing end behind the source and a 12 mm layer
// at the other end, driven by a dipole pulse: the energy must fall from its peak to rounding and
// stay there to the 100000th step.
//
// "Stay there" has one allowance, the method's. Rounding leaves a static (gradient) field of
// relative size eps_machine each step, and a uniaxial layer integrates a static field's normal part
// (docs/method/open_regions.md section 3, known limits), so its amplitude may drift at most linearly, to
// N eps_machine = 1e5 x 1.1e-16 ~ 1e-11 of the pulse's, energy 1e-22 of its peak: the bound below is
// 1e-20, and between steps 50000 and 100000 the energy may grow at most as t^2 (a factor 4, 4.4 with
// the sampling's slack). Any instability, even a slow exponential one, breaks one or the other.
#include "run_helpers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using dgatd::testing::run_dgatd;
using dgatd::testing::ScratchDirectory;

// The largest energy sample from index `from` on (samples every 100 steps).
double largest(std::vector<double> const& energy, std::size_t from)
{
  return *std::max_element(energy.begin() + static_cast<std::ptrdiff_t>(from), energy.end());
}

// Every 10000th step's energy and the last one, relative to the peak.
void print_record(std::vector<double> const& energy, double peak)
{
  for (std::size_t i = 0; i < energy.size(); i += 100)
    std::printf("  step %6zu: W / peak = %.3e\n", 100 * i, energy[i] / peak);
  std::printf("  step  99900: W / peak = %.3e\n", energy.back() / peak);
}

TEST(LongRunOpen, HundredThousandStepsWithLossesAbsorbingSurfaceAndLayerDoNotGrow)
{
  ScratchDirectory scratch("long_run_open");
  std::string const config = scratch.write("open.toml", R"([mesh]
generate = "waveguide"
size = [0.02286, 0.01016, 0.06]
h = 0.003
pml = 0.012
reproducible = true

[[material]]
region = "domain"
sigma = 0.05

[[pml]]
region = "pml"

[boundary]
absorbing = ["port_in"]

[[source]]
kind = "dipole"
position = [0.0081, 0.0052, 0.021]
direction = [0.2, 1.0, 0.3]
waveform = "modulated_gaussian"
frequency = 10e9
sigma = 1.061e-10
t0 = 6.4e-10

[time]
steps = 100000

[output]
file = "open.h5"
energy_every = 100
progress = false
)");
  auto const run = run_dgatd("run " + config + " -o " + scratch.file("open.h5"), scratch.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;

  // The run's report: "dt_max = <bound> s (Lanczos, ...), dt = <dt> s, ..."
  auto number_after = [&](std::string const& key) {
    auto const at = run.out.find(key);
    EXPECT_NE(at, std::string::npos) << run.out;
    return at == std::string::npos ? 0.0 : std::stod(run.out.substr(at + key.size()));
  };
  double const dt_max = number_after("dt_max = "), dt = number_after("), dt = ");
  std::printf("dt = %.6e s, lossless bound dt_max = %.6e s\n", dt, dt_max);
  EXPECT_LE(dt, dt_max);

  auto const record = dgatd::io::read_energy(scratch.file("open.h5"));
  ASSERT_EQ(record.energy.size(), 1000u);
  double const peak = largest(record.energy, 0);
  std::printf("energy peak %.3e J\n", peak);
  print_record(record.energy, peak);
  double const at_50k = record.energy[500], at_100k = record.energy.back();
  double const later_max = largest(record.energy, 100);
  std::printf("largest W after step 10000 / peak = %.3e; W(99900) / W(50000) = %.3f\n", later_max / peak,
              at_100k / at_50k);
  EXPECT_LT(later_max, 1e-20 * peak);
  EXPECT_LT(at_100k, 4.4 * at_50k);
  EXPECT_LT(record.energy.back(), 1e-6 * peak);
}

} // namespace

namespace {

// The matched ports' memory (their admittance's convolution) must not feed the field either: a
// coarse WR-90 section between two matched ports, 1e5 steps. What the pulse leaves behind (modes
// the ports do not match: evanescent TE10 below cutoff, TE20 above 13 GHz) may only decay. A port
// whose discrete admittance dipped below zero just under cutoff grew it by 17 % over these steps.
TEST(LongRunOpen, HundredThousandStepsBetweenMatchedPortsDoNotGrow)
{
  ScratchDirectory scratch("long_run_ports");
  std::string const config = scratch.write("ports.toml", R"([mesh]
generate = "waveguide"
size = [0.02286, 0.01016, 0.06]
h = 0.003
reproducible = true

[[source]]
kind = "port_te10"
surface = "port_in"
matched = true
waveform = "modulated_gaussian"
frequency = 10e9
sigma = 1.061e-10
t0 = 6.4e-10

[[source]]
kind = "port_te10"
surface = "port_out"
matched = true
amplitude = 0
waveform = "modulated_gaussian"
frequency = 10e9
sigma = 1.061e-10

[time]
steps = 100000

[output]
file = "ports.h5"
energy_every = 100
progress = false
)");
  auto const run = run_dgatd("run " + config + " -o " + scratch.file("ports.h5"), scratch.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto const record = dgatd::io::read_energy(scratch.file("ports.h5"));
  ASSERT_EQ(record.energy.size(), 1000u);
  double peak = 0, early_max = 0, late_max = 0;
  for (std::size_t i = 0; i < record.energy.size(); ++i) {
    peak = std::max(peak, record.energy[i]);
    if (i >= 100 && i < 500) early_max = std::max(early_max, record.energy[i]);
    if (i >= 500) late_max = std::max(late_max, record.energy[i]);
  }
  std::printf("W / peak: step 10000 %.3e, largest over 10000-50000 %.3e, over 50000-100000 %.3e, at the end %.3e\n",
              record.energy[100] / peak, early_max / peak, late_max / peak, record.energy.back() / peak);
  EXPECT_LE(late_max, early_max);
  EXPECT_LT(record.energy.back(), record.energy[100]);
}

} // namespace

namespace {

// The coarse box shell of the tests below: a dipole pulse in a 0.1 m cube inside a 0.1 m shell,
// `layer` added to its [[pml]] table and `solver` before [time].
std::string box_shell_config(std::string const& layer, std::string const& solver, int steps)
{
  return R"([mesh]
generate = "box"
size = [0.1, 0.1, 0.1]
h = 0.05
pml = 0.1
reproducible = true

[[pml]]
region = "pml"
)" + layer +
         R"(

[[source]]
kind = "dipole"
position = [0.045, 0.055, 0.05]
direction = [0.3, 0.2, 1.0]
waveform = "modulated_gaussian"
frequency = 1e9
sigma = 2e-9
t0 = 12e-9

)" + solver +
         R"([time]
steps = )" +
         std::to_string(steps) + R"(

[output]
file = "shell.h5"
energy_every = 100
progress = false
)";
}

// A box shell bends around the domain's edges and corners, where the stretch acts along two and
// three axes at once (docs/method/open_regions.md section 3, "Shells"). A coarse one (h = 0.05 m, 0.1 m:
// two cells) around a 0.1 m cube, a dipole pulse (sigma f = 2), 1e5 steps: once the pulse has left
// (by step 10000) what stays is the static field of the pulse's truncated start, 3e-19 of the
// peak's energy, and it may not grow beyond the allowance explained at the top. Every construction
// tried before this one grew in such shells within a few thousand steps, most within a hundred.
TEST(LongRunOpen, HundredThousandStepsInABoxShellDoNotGrow)
{
  ScratchDirectory scratch("long_run_shell");
  std::string const config = scratch.write("shell.toml", box_shell_config("", "", 100000));
  auto const run = run_dgatd("run " + config + " -o " + scratch.file("shell.h5"), scratch.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto const record = dgatd::io::read_energy(scratch.file("shell.h5"));
  ASSERT_EQ(record.energy.size(), 1000u);
  double const peak = largest(record.energy, 0);
  print_record(record.energy, peak);
  double const at_50k = record.energy[500];
  double const later_max = largest(record.energy, 100);
  std::printf("largest W after step 10000 / peak = %.3e\n", later_max / peak);
  double const late_max = largest(record.energy, 500);
  std::printf("largest W over steps 50000-100000 / W(50000) = %.3f\n", late_max / at_50k);
  EXPECT_LT(later_max, 1e-12 * peak);
  EXPECT_LT(late_max, 4.4 * at_50k);
}

// 30000 steps of the coarse box shell in mixed precision with `layer` in its [[pml]] table: what the
// pulse leaves (the static field of its truncated start, by step 10000) must stay as it is.
void expect_flat_in_mixed_precision(std::string const& name, std::string const& layer)
{
  ScratchDirectory scratch(name);
  std::string const config =
      scratch.write("shell.toml", box_shell_config(layer, "[solver]\nprecision = \"mixed\"\n\n", 30000));
  auto const run = run_dgatd("run " + config + " -o " + scratch.file("shell.h5"), scratch.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto const record = dgatd::io::read_energy(scratch.file("shell.h5"));
  ASSERT_EQ(record.energy.size(), 300u);
  double const peak = largest(record.energy, 0);
  double const at_10k = record.energy[100];
  double const later_max = largest(record.energy, 100);
  std::printf("W(10000) / peak = %.3e; largest W over steps 10000-30000 / W(10000) = %.6f\n", at_10k / peak,
              later_max / at_10k);
  EXPECT_LT(later_max, 1e-12 * peak);
  EXPECT_LT(later_max, 1.001 * at_10k);
}

// precision = "mixed" stores a layer's matrices in float only where the layer is shifted
// (cfs_frequency): a plain layer answers a static field with an integrator, a Jordan block at 1,
// that float rounding (6e-8) splits into growth at about its square root per step, and this shell
// with plain float matrices grew 16 times per 10000 steps from step 20000 on. Shifted, nothing is
// integrated.
TEST(LongRunOpen, ThirtyThousandStepsInAShiftedShellWithFloatMatricesDoNotGrow)
{
  expect_flat_in_mixed_precision("long_run_shifted_shell", "cfs_frequency = 1e8\n");
}

// A plain layer in mixed precision keeps its own matrices in double, but its modal tets' step matrix
// on Faraday's side, (Mmu + dt S' / 2)^-1, sits among the lossless kernel's float matrices. Rounded
// symmetrically it is the exact step of a slightly different Mmu, so the integrator's Jordan block
// stays whole and the static remainder does not grow (1e5 steps: flat at 2.9e-19 of the peak, as in
// double).
TEST(LongRunOpen, ThirtyThousandStepsInAPlainShellWithAFloatStepMatrixDoNotGrow)
{
  expect_flat_in_mixed_precision("long_run_plain_shell_mixed", "");
}

} // namespace
