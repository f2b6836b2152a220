// `dgatd run` stopped by SIGTERM (a batch scheduler's time limit) or Ctrl-C writes a checkpoint and
// a valid output marked incomplete, and `dgatd run --restart` continues it to the same result, bit
// for bit, as a run never stopped; so does a run continued from a periodic checkpoint, with each
// term's state (matched layers, plane waves and far fields, lumped circuits, single precision). A
// checkpoint that does not belong to the run is refused in one line.
#include "run_helpers.hpp"

#include "dgatd/io/analysis/results.hpp"
#include "dgatd/io/output/checkpoint.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>
#include <thread>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using dgatd::testing::run_dgatd;
using dgatd::testing::ScratchDirectory;

// Long enough (thousands of steps on a small box) that a signal sent once the time loop has begun
// arrives inside it.
std::string const config = R"([mesh]
generate = "box"
size = [1.0, 0.8, 0.6]
h = 0.15
reproducible = true

[[source]]
kind = "dipole"
position = [0.31, 0.23, 0.17]
direction = [0.5, 0.6, 0.62]
waveform = "modulated_gaussian"
frequency = 300e6
t0 = 6e-9
sigma = 1e-9

[time]
steps = 60000

[[probe]]
name = "p"
position = [0.63, 0.41, 0.29]

[output]
file = "run.h5"
energy_every = 13
progress = false
)";

// Starts dgatd, waits until its time loop runs (its output's partial file exists), sends signal,
// and returns the exit status.
int run_and_stop(std::string const& arguments, fs::path const& directory, std::string const& partial, int signal)
{
  pid_t const child = fork();
  if (child == 0) {
    if (chdir(directory.c_str()) != 0) _exit(126);
    std::string const command = std::string(DGATD_EXECUTABLE) + " " + arguments + " > stopped.out 2> stopped.err";
    execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  auto const deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  while (!fs::exists(partial) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  kill(child, signal);
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void expect_same_results(std::string const& a, std::string const& b)
{
  for (char const field : {'E', 'H'}) {
    auto const x = dgatd::io::read_probe(a, "p", field);
    auto const y = dgatd::io::read_probe(b, "p", field);
    EXPECT_EQ(x.time, y.time);
    EXPECT_EQ(x.values, y.values) << field;
  }
  auto const x = dgatd::io::read_energy(a);
  auto const y = dgatd::io::read_energy(b);
  EXPECT_EQ(x.time, y.time);
  EXPECT_EQ(x.energy, y.energy);
}

// The configuration's generated box as a mesh file: a restart reads it again, renumbers it
// ([mesh] ordering) and must find the mesh the checkpoint holds.
std::string with_mesh_file(ScratchDirectory const& scratch)
{
  auto const meshed =
      run_dgatd("mesh box --size 1.0 0.8 0.6 --h 0.15 --reproducible -o " + scratch.file("box.msh"), scratch.path());
  EXPECT_EQ(meshed.exit_code, 0) << meshed.err;
  std::string const generated = "generate = \"box\"\nsize = [1.0, 0.8, 0.6]\nh = 0.15\nreproducible = true\n";
  return std::string(config).replace(config.find(generated), generated.size(),
                                     "file = \"" + scratch.file("box.msh") + "\"\n");
}

// A plane wave through the inner box, whose surface also takes a far field: the plane wave keeps no
// state, the far field's transforms go through the checkpoint.
std::string with_plane_wave_and_far_field()
{
  std::string text = config;
  std::string const dipole = text.substr(text.find("[[source]]"), text.find("[time]") - text.find("[[source]]"));
  text.replace(text.find(dipole), dipole.size(),
               "[[source]]\nkind = \"plane_wave\"\nregion = \"inner\"\ndirection = [0.6, 0, -0.8]\n"
               "polarization = [0, 1, 0]\nwaveform = \"modulated_gaussian\"\nfrequency = 300e6\nsigma = 1e-9\n\n"
               "[[farfield]]\nsurface = \"inner_surface\"\nfrequencies = [250e6, 300e6]\n\n");
  std::string const box = "reproducible = true\n";
  return text.replace(text.find(box), box.size(),
                      box + "inner = { shape = \"box\", corner = [0.3, 0.2, 0.15], size = [0.4, 0.4, 0.3] }\n");
}

// A short coaxial line between two mode ports (their TEM mode solved at set-up): each port's
// history of modal voltages and drives goes through the checkpoint.
std::string coax_between_mode_ports(ScratchDirectory const& scratch)
{
  scratch.write("coax.geo", R"(SetFactory("OpenCASCADE");
Disk(1) = {0, 0, 0, 2.3};
Disk(2) = {0, 0, 0, 1};
BooleanDifference(3) = { Surface{1}; Delete; }{ Surface{2}; Delete; };
Mesh.MeshSizeMin = 0.4;
Mesh.MeshSizeMax = 0.4;
line[] = Extrude {0, 0, 4} { Surface{3}; Layers{10}; };
Physical Surface("port_in") = {3};
Physical Surface("port_out") = {line[0]};
Physical Volume("line") = {line[1]};
)");
  return "[mesh]\nfile = \"" + scratch.file("coax.geo") +
         "\"\nscale = 1e-3\n\n[[source]]\nkind = \"mode_port\"\nsurface = \"port_in\"\n"
         "waveform = \"modulated_gaussian\"\nfrequency = 7.5e9\nsigma = 3e-11\nt0 = 1.5e-10\n\n"
         "[[source]]\nkind = \"mode_port\"\nsurface = \"port_out\"\namplitude = 0\n"
         "waveform = \"modulated_gaussian\"\nfrequency = 7.5e9\nsigma = 3e-11\n\n[time]\nsteps = 100\n\n"
         "[output]\nfile = \"run.h5\"\nprogress = false\n\n[[probe]]\nname = \"p\"\nposition = [0, 1.6, 2]\n";
}

// A parallel-plate line (inputs/parallel_plate_line.geo) fed by a lumped port and ended by a series
// RLC: the kites' circuit states and the port's record go through the checkpoint.
std::string lumped_line()
{
  return "[mesh]\nfile = \"" + std::string(DGATD_SOURCE_DIR) +
         "/inputs/parallel_plate_line.geo\"\n\n[boundary]\npec = [\"plates\"]\n\n"
         "[[source]]\nkind = \"lumped_port\"\nsurface = \"port\"\ndirection = [0, 1, 0]\nresistance = 300\n"
         "waveform = \"modulated_gaussian\"\nfrequency = 3e9\nsigma = 0.2e-9\n\n"
         "[[lumped]]\nkind = \"rlc\"\ncircuit = \"series\"\nsurface = \"load\"\ndirection = [0, 1, 0]\n"
         "resistance = 100\ninductance = 2e-8\ncapacitance = 1e-13\n\n"
         "[time]\nsteps = 3000\n\n[[probe]]\nname = \"p\"\nposition = [0.005, 0.005, 0.05]\n\n"
         "[output]\nfile = \"run.h5\"\nenergy_every = 13\nprogress = false\n";
}

// The box in a matched shell with a complex frequency shift, in mixed precision (its matrices in
// float): each lossy row's and each stretched tet's p go through the checkpoint with the layer's
// auxiliaries.
std::string shifted_shell()
{
  std::string text = config;
  std::string const box = "reproducible = true\n";
  text.replace(text.find(box), box.size(),
               box +
                   "pml = 0.3\n\n[[pml]]\nregion = \"pml\"\ncfs_frequency = 1e8\n\n[solver]\nprecision = \"mixed\"\n");
  return text;
}

// The box in single precision: its float fields go through the checkpoint's double arrays, which hold
// every float exactly.
std::string in_single_precision() { return config + "\n[solver]\nprecision = \"single\"\n"; }

// The whole run's far fields and ports against the continued run's, bit for bit.
void expect_same_far_fields_and_ports(std::string const& whole, std::string const& continued, std::size_t far_fields,
                                      std::size_t ports)
{
  auto const whole_far = dgatd::io::read_far_fields(whole);
  auto const continued_far = dgatd::io::read_far_fields(continued);
  ASSERT_EQ(whole_far.size(), far_fields);
  ASSERT_EQ(continued_far.size(), whole_far.size());
  for (std::size_t k = 0; k < whole_far.size(); ++k) {
    EXPECT_TRUE(whole_far[k].has_incident);
    EXPECT_EQ(whole_far[k].e, continued_far[k].e);
    EXPECT_EQ(whole_far[k].h, continued_far[k].h);
    EXPECT_EQ(whole_far[k].incident, continued_far[k].incident);
  }
  auto const whole_ports = dgatd::io::read_ports(whole);
  auto const continued_ports = dgatd::io::read_ports(continued);
  ASSERT_EQ(whole_ports.size(), ports);
  ASSERT_EQ(continued_ports.size(), whole_ports.size());
  for (std::size_t k = 0; k < whole_ports.size(); ++k) {
    EXPECT_EQ(whole_ports[k].incident, continued_ports[k].incident);
    EXPECT_EQ(whole_ports[k].voltage, continued_ports[k].voltage);
    EXPECT_EQ(whole_ports[k].current, continued_ports[k].current);
  }
}

// The signal's path: the box run stopped inside its time loop writes a checkpoint and an output
// marked incomplete, and continues to the uninterrupted run's results.
void stop_and_restart(int signal, int expected_status)
{
  ScratchDirectory scratch("restart_signal_" + std::to_string(signal));
  auto const path = scratch.write("run.toml", config);
  auto const whole = run_dgatd("run " + path + " -o " + scratch.file("whole.h5"), scratch.path());
  ASSERT_EQ(whole.exit_code, 0) << whole.err;

  int const status = run_and_stop("run " + path, scratch.path(), scratch.file("run.h5.partial"), signal);
  ASSERT_EQ(status, expected_status) << dgatd::testing::slurp(scratch.path() / "stopped.err");
  auto const message = dgatd::testing::slurp(scratch.path() / "stopped.err");
  EXPECT_NE(message.find("--restart " + scratch.file("run.checkpoint.h5")), std::string::npos) << message;
  ASSERT_TRUE(fs::exists(scratch.file("run.h5")));
  ASSERT_TRUE(fs::exists(scratch.file("run.checkpoint.h5")));
  EXPECT_FALSE(fs::exists(scratch.file("run.h5.partial")));
  auto const stopped_steps = dgatd::io::read_probe(scratch.file("run.h5"), "p", 'E').values.size();
  EXPECT_LT(stopped_steps, 60000u) << "the signal came after the run had finished";

  auto const restarted = run_dgatd("run " + path + " --restart " + scratch.file("run.checkpoint.h5"), scratch.path());
  ASSERT_EQ(restarted.exit_code, 0) << restarted.err;
  expect_same_results(scratch.file("whole.h5"), scratch.file("run.h5"));
}

// The state each term keeps: a run with `checkpoint_every` continued from its last checkpoint (the
// output past it dropped) equals the whole run. The checkpoint's step is known, so the runs can be
// short (the plane wave's checkpoint falls inside its pulse), where a signal needs a run long enough
// to arrive inside its time loop.
void checkpoint_and_restart(std::string const& name, std::string text, int steps, int every, std::size_t far_fields = 0,
                            std::size_t ports = 0)
{
  auto const steps_at = text.find("steps = ");
  text.replace(steps_at, text.find('\n', steps_at) - steps_at, "steps = " + std::to_string(steps));
  text.replace(text.find("[output]\n"), 9, "[output]\ncheckpoint_every = " + std::to_string(every) + "\n");
  ScratchDirectory scratch("restart_checkpoint_" + name);
  auto const path = scratch.write("run.toml", text);
  auto const whole = run_dgatd("run " + path, scratch.path());
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  fs::copy_file(scratch.file("run.h5"), scratch.file("whole.h5"));
  ASSERT_EQ(dgatd::io::read_checkpoint(scratch.file("run.checkpoint.h5")).state.step, (steps - 1) / every * every);

  auto const restarted = run_dgatd("run " + path + " --restart " + scratch.file("run.checkpoint.h5"), scratch.path());
  ASSERT_EQ(restarted.exit_code, 0) << restarted.err;
  expect_same_results(scratch.file("whole.h5"), scratch.file("run.h5"));
  expect_same_far_fields_and_ports(scratch.file("whole.h5"), scratch.file("run.h5"), far_fields, ports);
}

TEST(RunRestart, StoppedBySigtermContinuesBitForBit) { stop_and_restart(SIGTERM, 128 + SIGTERM); }

TEST(RunRestart, StoppedByCtrlCContinuesBitForBit) { stop_and_restart(SIGINT, 128 + SIGINT); }

TEST(RunRestart, OnAMeshFileContinuesBitForBit)
{
  ScratchDirectory scratch("restart_mesh_file");
  checkpoint_and_restart("mesh_file", with_mesh_file(scratch), 700, 300);
}

TEST(RunRestart, PlaneWaveAndFarFieldContinueBitForBit)
{
  checkpoint_and_restart("plane_wave", with_plane_wave_and_far_field(), 60, 30, 1);
}

TEST(RunRestart, LumpedPortAndElementsContinueBitForBit)
{
  checkpoint_and_restart("lumped", lumped_line(), 1500, 600, 0, 1);
}

TEST(RunRestart, ModePortsContinueBitForBit)
{
  ScratchDirectory scratch("restart_mode_ports");
  checkpoint_and_restart("mode_ports", coax_between_mode_ports(scratch), 700, 300, 0, 2);
}

TEST(RunRestart, ShiftedLayerInMixedPrecisionContinuesBitForBit)
{
  checkpoint_and_restart("shifted_shell", shifted_shell(), 1500, 600);
}

TEST(RunRestart, SinglePrecisionContinuesBitForBit)
{
  checkpoint_and_restart("single", in_single_precision(), 700, 300);
}

TEST(RunRestart, RefusesACheckpointOfAnotherRunInOneLine)
{
  ScratchDirectory scratch("restart_refused");
  auto const path = scratch.write("run.toml", config);
  auto const other =
      scratch.write("other.toml", std::string(config).replace(config.find("steps = 60000"), 13, "steps = 30"));
  auto const done = run_dgatd("run " + other + " -o " + scratch.file("other.h5"), scratch.path());
  ASSERT_EQ(done.exit_code, 0) << done.err;
  // A completed run leaves no checkpoint; a stopped one does. Make one from the short run.
  int const status = run_and_stop("run " + path + " -o " + scratch.file("cut.h5"), scratch.path(),
                                  scratch.file("cut.h5.partial"), SIGTERM);
  ASSERT_EQ(status, 128 + SIGTERM);
  auto const refused =
      run_dgatd("run " + other + " -o " + scratch.file("cut.h5") + " --restart " + scratch.file("cut.checkpoint.h5"),
                scratch.path());
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  EXPECT_NE(refused.err.find("cut.checkpoint.h5: was written by a run of another configuration"), std::string::npos)
      << refused.err;
  auto const missing = run_dgatd("run " + path + " --restart " + scratch.file("none.checkpoint.h5"), scratch.path());
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("none.checkpoint.h5: no such checkpoint"), std::string::npos) << missing.err;
}

} // namespace
