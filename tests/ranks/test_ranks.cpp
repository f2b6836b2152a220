// Runs over several ranks (issue 21), started by ctest under mpiexec with 2 and 3 ranks: each case
// runs a shipped configuration, shrunk to seconds, once over all ranks and once on rank 0 alone, and
// rank 0 compares what the two wrote. The parts keep the global order of vertices and tets, so each
// owned block sums in the one-process order: probes and snapshots must agree bit for bit, energies
// (sums over the ranks' own blocks and tets, in another order) and the stability bound (a Lanczos
// iteration of such sums) to rounding. The run over ranks is given the one-process dt, which its
// Lanczos bound (to rounding) would otherwise move in the last bit.
#include "dgatd/error.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/io/output/checkpoint.hpp"
#include "dgatd/io/output/writer.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/mesh/ordering.hpp"
#include "dgatd/mesh/topology.hpp"
#include "dgatd/simulation/part_files.hpp"
#include "dgatd/simulation/simulation.hpp"
#include "graded_sphere_cavity.hpp"
#include "partition/mpi_communicator.hpp"
#include "partition/partition.hpp"
#include "run_helpers.hpp"
#include "scratch_directory.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

namespace {

using dgatd::Vec3;
using dgatd::testing::replaced;
using dgatd::testing::ScratchDirectory;
using dgatd::testing::slurp;

std::shared_ptr<dgatd::parallel::Communicator> world;

// What a run writes, kept in memory.
struct Record {
  std::vector<double> probes;    // per step, per probe: Ex Ey Ez Hx Hy Hz
  std::vector<double> energy;    // per sample
  std::vector<double> snapshots; // per snapshot, per tet: e then h
  std::vector<double> ports;     // per port: its incident and total (modal) voltages, a lumped port's current
  std::vector<double> series;    // per capability's series (/series/NAME), its values
  // per far-field surface: its faces' centroids, normals and areas, then its transforms (e then h, real
  // and imaginary parts) and the incident wave's
  std::vector<double> far_fields;
  // per [[surface_current]]: its faces' corners, normals, areas and sides, then its transforms (real
  // and imaginary parts); and per snapshot, each surface's values
  std::vector<double> surface_currents;
  std::vector<double> surface_snapshots;
  std::vector<std::array<std::int32_t, 4>> tets; // of the output's mesh
  bool complete = false;
};

class MemoryWriter final : public dgatd::io::NoOutput {
public:
  explicit MemoryWriter(std::shared_ptr<Record> record) : record_(std::move(record)) {}
  void write_mesh(std::vector<Vec3> const&, std::vector<std::array<std::int32_t, 4>> const& tets,
                  std::vector<std::int32_t> const&) override
  {
    record_->tets = tets;
  }
  void append_step(double, std::vector<dgatd::io::ProbeSample> const& samples) override
  {
    for (auto const& s : samples)
      for (Vec3 const& v : {s.e, s.h}) record_->probes.insert(record_->probes.end(), v.begin(), v.end());
  }
  void append_energy(double, double value) override { record_->energy.push_back(value); }
  void write_snapshot(double, std::vector<Vec3> const& e, std::vector<Vec3> const& h) override
  {
    for (auto const* field : {&e, &h})
      for (Vec3 const& v : *field) record_->snapshots.insert(record_->snapshots.end(), v.begin(), v.end());
  }
  void write_port(dgatd::solver::PortSeries const& port, double) override
  {
    for (auto const* series : {&port.incident, &port.voltage, &port.current})
      record_->ports.insert(record_->ports.end(), series->begin(), series->end());
  }
  void write_series(dgatd::solver::TimeSeries const& series, double) override
  {
    record_->series.insert(record_->series.end(), series.values.begin(), series.values.end());
  }
  void write_far_field(dgatd::solver::FarFieldRecord const& far_field) override
  {
    auto& out = record_->far_fields;
    for (std::size_t k = 0; k < far_field.areas.size(); ++k) {
      out.insert(out.end(), far_field.centroids[k].begin(), far_field.centroids[k].end());
      out.insert(out.end(), far_field.normals[k].begin(), far_field.normals[k].end());
      out.push_back(far_field.areas[k]);
    }
    for (auto const* field : {&far_field.e, &far_field.h})
      for (auto const& value : *field)
        for (auto const& component : value) out.insert(out.end(), {component.real(), component.imag()});
    for (auto const& value : far_field.incident) out.insert(out.end(), {value.real(), value.imag()});
  }
  void write_surface_snapshot(dgatd::solver::SurfaceSnapshot const& snapshot) override
  {
    record_->surface_snapshots.insert(record_->surface_snapshots.end(), snapshot.values.begin(), snapshot.values.end());
  }
  void write_surface_currents(dgatd::solver::SurfaceCurrentRecord const& surface) override
  {
    auto& out = record_->surface_currents;
    auto const& g = surface.geometry;
    for (std::size_t k = 0; k < g.faces(); ++k) {
      for (auto const& corner : g.corners[k]) out.insert(out.end(), corner.begin(), corner.end());
      out.insert(out.end(), g.normals[k].begin(), g.normals[k].end());
      out.insert(out.end(), {g.areas[k], static_cast<double>(g.sides[k])});
    }
    for (auto const& values : surface.transforms)
      for (auto const& value : values) out.insert(out.end(), {value.real(), value.imag()});
  }
  void close(bool complete) override { record_->complete = complete; }
  std::string description() const override { return "memory"; }

private:
  std::shared_ptr<Record> record_;
};

struct Outcome {
  Record record;
  dgatd::simulation::TimePlan plan;
};

// One run of text, over the ranks of communicator (nullptr: this process alone), writing its
// checkpoints beside output (a scratch file when empty) and restarting from restart_from if given.
Outcome run(std::string const& text, std::shared_ptr<dgatd::parallel::Communicator> communicator,
            std::string const& output = "", std::string const& restart_from = "")
{
  ScratchDirectory scratch("ranks");
  auto record = std::make_shared<Record>();
  dgatd::simulation::SimulationOptions options;
  options.output_path = output.empty() ? (scratch.path() / "out.h5").string() : output;
  options.restart_from = restart_from;
  options.writer = [record](std::string const&, dgatd::io::RunAttributes const&, dgatd::io::ResumePoint const*) {
    return std::make_unique<MemoryWriter>(record);
  };
  options.communicator = std::move(communicator);
  options.partitioner = [](dgatd::mesh::Mesh const& mesh, dgatd::mesh::Topology const& topology, int parts,
                           std::vector<int> const& weight, int constraints) {
    return dgatd::partition::partition_tets(mesh, topology, parts, weight, constraints);
  };
  auto const config = dgatd::io::parse_config(text, "ranks.toml", scratch.path().string());
  dgatd::simulation::Simulation simulation(config, options);
  simulation.run();
  return {*record, simulation.plan()};
}

double largest_difference(std::vector<double> const& a, std::vector<double> const& b)
{
  double scale = 0, difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    scale = std::max(scale, std::abs(a[i]));
    difference = std::max(difference, std::abs(a[i] - b[i]));
  }
  return scale > 0 ? difference / scale : difference;
}

// Equal, or within 1e-12 of the largest magnitude.
void expect_agree(std::vector<double> const& over_ranks, std::vector<double> const& alone, bool bit_for_bit,
                  char const* what)
{
  ASSERT_EQ(over_ranks.size(), alone.size()) << what;
  if (bit_for_bit)
    EXPECT_EQ(over_ranks, alone) << what << ": largest difference " << largest_difference(over_ranks, alone);
  else
    EXPECT_LT(largest_difference(over_ranks, alone), 1e-12) << what;
}

// text's dt = "auto" replaced by rank 0's dt as one process, on every rank.
std::string with_dt(std::string const& text, double dt_of_rank_0)
{
  std::vector<char> bytes(sizeof(double));
  std::copy_n(reinterpret_cast<char const*>(&dt_of_rank_0), sizeof(double), bytes.begin());
  world->broadcast(bytes, 0);
  double dt = 0;
  std::copy_n(bytes.begin(), sizeof(double), reinterpret_cast<char*>(&dt));
  char line[64];
  std::snprintf(line, sizeof line, "dt = %.17g", dt);
  return replaced(text, "dt = \"auto\"", line);
}

// text (with dt = "auto") on rank 0 alone, then over every rank with its dt. Fields bit for bit,
// or, where a term sums over the ranks inside the step (matched ports), to rounding.
// On rank 0: what a run over ranks wrote against what one process wrote.
void expect_same_outcome(Outcome const& over_ranks, Outcome const& alone, bool bit_for_bit)
{
  ASSERT_TRUE(alone.record.complete);
  ASSERT_TRUE(over_ranks.record.complete);
  EXPECT_EQ(over_ranks.plan.dt, alone.plan.dt);
  EXPECT_LT(std::abs(over_ranks.plan.dt_max - alone.plan.dt_max), 1e-12 * alone.plan.dt_max);
  ASSERT_FALSE(alone.record.probes.empty());
  expect_agree(over_ranks.record.probes, alone.record.probes, bit_for_bit, "probes");
  expect_agree(over_ranks.record.snapshots, alone.record.snapshots, bit_for_bit, "snapshots");
  expect_agree(over_ranks.record.energy, alone.record.energy, false, "energy");
  expect_agree(over_ranks.record.ports, alone.record.ports, false, "ports' modal voltages");
  expect_agree(over_ranks.record.series, alone.record.series, false, "capabilities' series");
  expect_agree(over_ranks.record.far_fields, alone.record.far_fields, bit_for_bit, "far fields");
  expect_agree(over_ranks.record.surface_currents, alone.record.surface_currents, bit_for_bit, "surface currents");
  expect_agree(over_ranks.record.surface_snapshots, alone.record.surface_snapshots, bit_for_bit,
               "surface currents' snapshots");
}

void expect_same_run(std::string const& text, bool bit_for_bit = true)
{
  Outcome alone;
  if (world->rank() == 0) alone = run(text, nullptr);
  auto const over_ranks = run(with_dt(text, alone.plan.dt), world);
  if (world->rank() == 0) expect_same_outcome(over_ranks, alone, bit_for_bit);
}

std::string input(std::string const& name) { return slurp(std::string(DGATD_SOURCE_DIR) + "/inputs/" + name); }

// A PEC cylinder rung by a dipole: the run of the README, 2.6 k tets for 150 steps with snapshots.
TEST(Ranks, CylinderResonatorAsOneProcess)
{
  auto text = input("cylinder_resonator.toml");
  text = replaced(text, "h = 0.055", "h = 0.15");
  text = replaced(text, "t_end = 600e-9", "steps = 150");
  text = replaced(text, "energy_every = 50", "energy_every = 10");
  text = replaced(text, "snapshot_every = 0", "snapshot_every = 50");
  expect_same_run(text);
}

// A dielectric filling the box (eps_r = 2.25), 1.5 k tets, with the halo exchange waited for at the
// end of each step instead of overlapped with the next step's Faraday.
TEST(Ranks, DielectricCavityAsOneProcess)
{
  auto text = input("cavity_dielectric.toml");
  text = replaced(text, "h = 0.045", "h = 0.12\nreproducible = true");
  text = replaced(text, "t_end = 500e-9", "steps = 150");
  text = replaced(text, "[time]\n", "[time]\ndt = \"auto\"\n");
  text = replaced(text, "energy_every = 50", "energy_every = 10\nsnapshot_every = 75\n[solver]\noverlap_halo = false");
  expect_same_run(text);
}

// A dipole in a matched-layer shell: 9.5 k tets, 7.9 k of them stretched (one, three and six
// auxiliaries per subregion), the layer split across the parts.
std::string dipole_shell()
{
  auto text = input("dipole_pml_box.toml");
  text = replaced(text, "h = 0.02 ", "h = 0.045");
  text = replaced(text, "pml = 0.1 ", "pml = 0.09");
  text = replaced(text, "t_end = 20e-9", "steps = 150\ndt = \"auto\"");
  return replaced(text, "snapshot_every = 20", "snapshot_every = 75");
}

TEST(Ranks, DipoleInMatchedLayerShellAsOneProcess) { expect_same_run(dipole_shell()); }

// A plane wave through a total-field box in a matched shell (inputs/plane_wave_box.toml), 9 k tets:
// which blocks hold the total field is decided on the whole mesh, and each part corrects its own
// tets and blocks at the surface.
std::string plane_wave_box()
{
  auto text = input("plane_wave_box.toml");
  text = replaced(text, "h = 0.02\n", "h = 0.04\n");
  text = replaced(text, "pml = 0.1\n", "pml = 0.08\n");
  return replaced(text, "t_end = 14e-9", "steps = 150\ndt = \"auto\"");
}

TEST(Ranks, PlaneWaveBoxAsOneProcess)
{
  expect_same_run(replaced(plane_wave_box(), "snapshot_every = 10", "snapshot_every = 75"));
}

// An impressed current density in the inner volume of a PEC box, 3.6 k tets: a capability in its own
// home (src/capabilities/current_density/), placed on each part through the same set-up as in one
// process. Each part drives the blocks it owns, and its recorded work is summed over the ranks.
std::string const density_box = R"([mesh]
generate = "box"
size = [1.0, 0.8, 0.6]
h = 0.09
reproducible = true
inner = { shape = "box", corner = [0.3, 0.2, 0.15], size = [0.4, 0.4, 0.3] }
)";
std::string const current_density = density_box + R"([[current_density]]
name = "bulk"
region = "inner"
density = [0.5, -1.0, 2.0]
waveform = "gaussian"
t0 = 2e-9
sigma = 0.4e-9
[time]
steps = 150
dt = "auto"
[output]
energy_every = 10
snapshot_every = 75
[[probe]]
name = "inside"
position = [0.45, 0.37, 0.31]
[[probe]]
name = "outside"
position = [0.85, 0.1, 0.5]
)";

TEST(Ranks, CurrentDensityAsOneProcess)
{
  Outcome alone;
  if (world->rank() == 0) alone = run(current_density, nullptr);
  auto const over_ranks = run(with_dt(current_density, alone.plan.dt), world);
  if (world->rank() != 0) return;
  ASSERT_EQ(alone.record.series.size(), 150u);
  EXPECT_GT(*std::max_element(alone.record.series.begin(), alone.record.series.end()), 0.0);
  expect_same_outcome(over_ranks, alone, true);
}

// The paper's guide driven by a prescribed TE10 port (inputs/waveguide_te10.toml), 2.4 k tets: the
// port's profile comes from the whole port, its values are set on every rank that holds its edges.
TEST(Ranks, PrescribedPortGuideAsOneProcess)
{
  auto text = input("waveguide_te10.toml");
  text = replaced(text, "h = 0.004", "h = 0.008\nreproducible = true");
  text = replaced(text, "t_end = 6e-9", "steps = 150\ndt = \"auto\"");
  text = replaced(text, "snapshot_every = 100", "snapshot_every = 75");
  expect_same_run(text);
}

// The generated mesh of a WR-90 guide between two matched ports, 3 k tets.
std::string const guide_mesh = R"([mesh]
generate = "waveguide"
size = [0.02286, 0.01016, 0.06]
h = 0.004
reproducible = true
)";

// A WR-90 guide between two matched ports: each port's modal voltage and self-coupling are sums over
// the ranks inside the step, so the fields agree to rounding rather than bit for bit.
std::string matched_port_guide()
{
  return guide_mesh + R"([[source]]
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
steps = 300
dt = "auto"
[[probe]]
name = "middle"
position = [0.011, 0.005, 0.03]
[output]
file = "guide.h5"
energy_every = 10
snapshot_every = 150
)";
}

TEST(Ranks, MatchedPortGuideAsOneProcess) { expect_same_run(matched_port_guide(), false); }

// The first `ranks` ranks of the world, for this rank a communicator over them or nullptr.
class FirstRanks {
public:
  explicit FirstRanks(int ranks)
  {
    MPI_Comm_split(MPI_COMM_WORLD, world->rank() < ranks ? 0 : MPI_UNDEFINED, world->rank(), &communicator_);
    if (communicator_ != MPI_COMM_NULL) ranks_ = std::make_shared<dgatd::parallel::MpiCommunicator>(communicator_);
  }
  ~FirstRanks()
  {
    ranks_.reset();
    if (communicator_ != MPI_COMM_NULL) MPI_Comm_free(&communicator_);
  }
  FirstRanks(FirstRanks const&) = delete;
  FirstRanks& operator=(FirstRanks const&) = delete;
  std::shared_ptr<dgatd::parallel::Communicator> const& ranks() const { return ranks_; }

private:
  MPI_Comm communicator_ = MPI_COMM_NULL;
  std::shared_ptr<dgatd::parallel::Communicator> ranks_;
};

// The last 50 of a 150-step run's probe samples: what a run restarted from its checkpoint at step 100
// records.
std::vector<double> after_step_100(Outcome const& run)
{
  auto const& probes = run.record.probes;
  EXPECT_EQ(probes.size() % 150, 0u);
  return {probes.end() - static_cast<std::ptrdiff_t>(probes.size() / 150 * 50), probes.end()};
}

// Rank 0's scratch directory, named on every rank.
class SharedScratch {
public:
  explicit SharedScratch(std::string const& tag)
  {
    std::vector<char> directory;
    if (world->rank() == 0) {
      scratch_ = std::make_unique<ScratchDirectory>(tag);
      auto const path = scratch_->path().string();
      directory.assign(path.begin(), path.end());
    }
    world->broadcast(directory, 0);
    path_.assign(directory.begin(), directory.end());
  }
  std::string file(std::string const& name) const { return path_ + "/" + name; }
  // text as the file name, written on rank 0 before any rank reads it; its path. Collective.
  std::string write(std::string const& name, std::string const& text) const
  {
    if (scratch_) scratch_->write(name, text);
    world->max(0);
    return file(name);
  }

private:
  std::unique_ptr<ScratchDirectory> scratch_;
  std::string path_;
};

// text's run over the first two ranks, which writes its checkpoint at step 100 (text holds
// checkpoint_every = 100), continued from that checkpoint on rank 0 alone and over every rank.
// Outcomes: two on ranks 0 and 1, one on rank 0, all on every rank.
struct Continued {
  Outcome two, one, all;
};
Continued continued_from_two_ranks(std::string const& text)
{
  SharedScratch const shared("ranks_checkpoint");
  Continued runs;
  {
    FirstRanks const two(2);
    if (two.ranks()) runs.two = run(text, two.ranks(), shared.file("two.h5"));
  }
  world->max(0); // the checkpoint is written before any rank reads it
  std::string const checkpoint = shared.file("two.checkpoint.h5");
  if (world->rank() == 0) runs.one = run(text, nullptr, shared.file("one.h5"), checkpoint);
  runs.all = run(text, world, shared.file("all.h5"), checkpoint);
  return runs;
}

// A checkpoint is written in the whole mesh's numbering: one written over 2 ranks at step 100
// continues on rank 0 alone and over every rank (2 or 3) to the steps of the uninterrupted run of
// 150 steps (text holds checkpoint_every = 100), bit for bit or, where a term sums over the ranks
// inside the step (matched ports), to rounding.
void expect_checkpoint_continues(std::string text, bool bit_for_bit = true)
{
  Outcome alone;
  if (world->rank() == 0) alone = run(text, nullptr);
  text = with_dt(text, alone.plan.dt);
  auto const [two, one, all] = continued_from_two_ranks(text);
  if (world->rank() != 0) return;

  auto const tail = after_step_100(alone);
  ASSERT_TRUE(one.record.complete);
  ASSERT_TRUE(all.record.complete);
  expect_agree(one.record.probes, tail, bit_for_bit, "restarted on rank 0 alone");
  expect_agree(all.record.probes, tail, bit_for_bit, "restarted over every rank");
  expect_agree(one.record.far_fields, alone.record.far_fields, bit_for_bit, "far fields restarted on rank 0 alone");
  expect_agree(all.record.far_fields, alone.record.far_fields, bit_for_bit, "far fields restarted over every rank");
  expect_agree(one.record.ports, alone.record.ports, bit_for_bit, "ports restarted on rank 0 alone");
  expect_agree(all.record.ports, alone.record.ports, bit_for_bit, "ports restarted over every rank");
  expect_agree(one.record.surface_currents, alone.record.surface_currents, bit_for_bit,
               "surface currents restarted on rank 0 alone");
  expect_agree(all.record.surface_currents, alone.record.surface_currents, bit_for_bit,
               "surface currents restarted over every rank");
}

TEST(Ranks, CheckpointOfTwoRanksContinuesOnOtherRankCounts)
{
  auto text = input("cylinder_resonator.toml");
  text = replaced(text, "h = 0.055", "h = 0.15");
  text = replaced(text, "t_end = 600e-9", "steps = 150");
  text = replaced(text, "energy_every = 50", "energy_every = 10\ncheckpoint_every = 100");
  expect_checkpoint_continues(text);
}

// The same with the matched layers' auxiliaries (one, three and six per subregion), which the
// checkpoint holds per stretched tet in the one-process order, whichever rank stepped the tet.
TEST(Ranks, CheckpointOfALayerShellContinuesOnOtherRankCounts)
{
  auto text = input("dipole_pml_box.toml");
  text = replaced(text, "h = 0.02 ", "h = 0.045");
  text = replaced(text, "pml = 0.1 ", "pml = 0.09");
  text = replaced(text, "t_end = 20e-9", "steps = 150\ndt = \"auto\"");
  text = replaced(text, "snapshot_every = 20", "snapshot_every = 0\ncheckpoint_every = 100");
  expect_checkpoint_continues(text);
}

// The matched ports' voltage histories (their admittance's convolution reads them every step) are
// the same on every rank: rank 0's, from the checkpoint, reach every rank of the restart.
TEST(Ranks, CheckpointOfMatchedPortsContinuesOnOtherRankCounts)
{
  auto text = replaced(matched_port_guide(), "steps = 300", "steps = 150");
  text = replaced(text, "snapshot_every = 150", "snapshot_every = 0\ncheckpoint_every = 100");
  expect_checkpoint_continues(text, false);
}

// The plane wave keeps no state: its checkpoint is the fields' and the layer's.
TEST(Ranks, CheckpointOfAPlaneWaveContinuesOnOtherRankCounts)
{
  expect_checkpoint_continues(
      replaced(plane_wave_box(), "snapshot_every = 10", "snapshot_every = 0\ncheckpoint_every = 100"));
}

// The radar cross section's run (inputs/sphere_rcs.toml) on 21.7 k tets: a PEC sphere lit by a plane
// wave, the far-field cube's faces split over the parts, each computed by the owner of its inside tet,
// and the sphere's surface currents, each face by the owner of its lowest vertex.
std::string sphere_rcs()
{
  auto text = input("sphere_rcs.toml");
  text = replaced(text, "h = 0.02 ", "h = 0.04 ");
  text = replaced(text, "pml = 0.1 ", "pml = 0.08 ");
  text = replaced(text, "t_end = 14e-9", "steps = 150\ndt = \"auto\"");
  return text + "[[probe]]\nname = \"behind\"\nposition = [0.22, 0.22, 0.34]\n" +
         "[[surface_current]]\nname = \"skin\"\nsurfaces = \"sphere\"\nfrequencies = [572.5e6, 858.8e6]\n";
}

// Far-field transforms and the incident wave's, bit for bit.
TEST(Ranks, SphereRcsFarFieldAsOneProcess)
{
  auto const text = sphere_rcs();
  Outcome alone;
  if (world->rank() == 0) alone = run(text, nullptr);
  auto const over_ranks = run(with_dt(text, alone.plan.dt), world);
  if (world->rank() != 0) return;
  ASSERT_GT(alone.record.far_fields.size(), 10000u);
  ASSERT_GT(alone.record.surface_currents.size(), 1000u);
  expect_same_outcome(over_ranks, alone, true);
}

// The same with a dielectric ball (eps_r = 4) in place of the PEC hole, inside the total field.
TEST(Ranks, DielectricSphereFarFieldAsOneProcess)
{
  auto text = replaced(sphere_rcs(), "reproducible = true", "reproducible = true\ndielectric = true");
  text = replaced(text, "region = \"total\"", "region = [\"total\", \"scatterer\"]");
  text = text.substr(0, text.find("[[surface_current]]")) + "[[material]]\nregion = \"scatterer\"\neps_r = 4\n";
  Outcome alone;
  if (world->rank() == 0) alone = run(text, nullptr);
  auto const over_ranks = run(with_dt(text, alone.plan.dt), world);
  if (world->rank() != 0) return;
  ASSERT_GT(alone.record.far_fields.size(), 10000u);
  expect_same_outcome(over_ranks, alone, true);
}

// The transforms of a far field restarted from a checkpoint written over two ranks, on one and on every
// rank, at the end of the run: those of the uninterrupted run, bit for bit.
TEST(Ranks, CheckpointOfAFarFieldContinuesOnOtherRankCounts)
{
  expect_checkpoint_continues(replaced(sphere_rcs(), "[output]\n", "[output]\ncheckpoint_every = 100\n"));
}

// The graded sphere of the local steps' tests (tests/regression/test_simulation_library.cpp): a PEC
// sphere in a closed box, 22 k tets from h = 0.05 down to 0.0125 at the sphere, rung by a dipole, with
// [time] local_steps = "auto". extra goes after the mesh's table.
std::string graded_sphere(std::string const& extra)
{
  return dgatd::testing::graded_sphere_cavity(extra, R"([time]
steps = 150
dt = "auto"
local_steps = "auto"

[output]
energy_every = 10
progress = false
)");
}

// record's snapshots with the tets of its output's mesh in the order of their vertices: a run of one
// process with local steps numbers its tets by level, a run over ranks writes the whole mesh's
// order (the vertices are the same in both).
std::vector<double> snapshots_by_vertices(Record const& record)
{
  std::size_t const tets = record.tets.size();
  std::vector<std::size_t> order(tets);
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto const sorted = [&](std::size_t t) {
    auto v = record.tets[t];
    std::sort(v.begin(), v.end());
    return v;
  };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return sorted(a) < sorted(b); });
  std::vector<double> out(record.snapshots.size());
  // Each snapshot: e then h, 3 values per tet.
  for (std::size_t block = 0; block * 3 * tets < out.size(); ++block)
    for (std::size_t k = 0; k < tets; ++k)
      for (std::size_t c = 0; c < 3; ++c)
        out[3 * (block * tets + k) + c] = record.snapshots[3 * (block * tets + order[k]) + c];
  return out;
}

// Local steps over ranks against one process, both with dt = "auto": the levels are the same (every
// part's tets settle against their face neighbours in the other parts, a halo block takes its
// owner's level and pins, the counts are the whole mesh's), the fields agree to rounding. A dt given
// instead of "auto" would let the margin's search stop at other levels (the first stable at that dt),
// and the Lanczos bound over ranks moves dt in its last bits, so the fields agree to 1e-12, not bit
// for bit.
void expect_same_local_steps(Outcome const& over_ranks, Outcome const& alone)
{
  ASSERT_TRUE(alone.record.complete);
  ASSERT_TRUE(over_ranks.record.complete);
  EXPECT_EQ(over_ranks.plan.local_levels, alone.plan.local_levels);
  EXPECT_EQ(over_ranks.plan.local_work_ratio, alone.plan.local_work_ratio);
  EXPECT_EQ(over_ranks.plan.local_levels_of_the_steps, alone.plan.local_levels_of_the_steps);
  EXPECT_EQ(over_ranks.plan.local_pinned_tets, alone.plan.local_pinned_tets);
  EXPECT_EQ(over_ranks.plan.local_limiting_tets, alone.plan.local_limiting_tets);
  EXPECT_LT(std::abs(over_ranks.plan.dt - alone.plan.dt), 1e-12 * alone.plan.dt);
  expect_agree(over_ranks.record.probes, alone.record.probes, false, "probes");
  EXPECT_FALSE(over_ranks.plan.local_tets_by_level) << "over ranks the parts keep the whole mesh's numbering";
  expect_agree(snapshots_by_vertices(over_ranks.record), snapshots_by_vertices(alone.record), false, "snapshots");
  expect_agree(over_ranks.record.energy, alone.record.energy, false, "energy");
}

// Four levels of local steps over the ranks (the sphere meshed at h_sphere = 0.01): each level's
// middle step ends with its halo exchange. One process numbers its tets by level, the ranks keep the
// whole mesh's numbering: the snapshots are compared tet by tet.
TEST(Ranks, LocalStepsAsOneProcess)
{
  auto const text = replaced(replaced(graded_sphere(""), "h_sphere = 0.0125", "h_sphere = 0.01"), "energy_every = 10",
                             "energy_every = 10\nsnapshot_every = 75");
  Outcome alone;
  if (world->rank() == 0) alone = run(text, nullptr);
  auto const over_ranks = run(text, world);
  if (world->rank() != 0) return;
  EXPECT_EQ(alone.plan.local_levels, 4);
  EXPECT_TRUE(alone.plan.local_tets_by_level) << "one process numbers the tets by level";
  expect_same_local_steps(over_ranks, alone);
}

// With a matched shell around the box its tets and their neighbours are pinned to the coarse level
// (two levels are left), wherever the parts cut the shell. Two ranks' checkpoint at step 100 (a
// coarse step) holds their dt and levels: continued on rank 0 alone and over every rank, it gives
// the two ranks' last 50 steps bit for bit.
TEST(Ranks, CheckpointOfLocalStepsBesideALayerContinuesOnOtherRankCounts)
{
  auto const text = replaced(graded_sphere("\n[[pml]]\nregion = \"pml\"\n"), "energy_every = 10",
                             "energy_every = 10\ncheckpoint_every = 100");
  Outcome alone;
  if (world->rank() == 0) alone = run(text, nullptr);
  auto const [two_ranks, one, all] = continued_from_two_ranks(text);
  if (world->rank() != 0) return;
  EXPECT_EQ(alone.plan.local_levels, 2);
  EXPECT_GT(alone.plan.local_pinned_tets, 0);
  expect_same_local_steps(two_ranks, alone);
  auto const tail = after_step_100(two_ranks);
  ASSERT_TRUE(one.record.complete);
  ASSERT_TRUE(all.record.complete);
  EXPECT_EQ(one.plan.local_levels, 2);
  EXPECT_EQ(all.plan.local_levels, 2);
  expect_agree(one.record.probes, tail, true, "restarted on rank 0 alone");
  expect_agree(all.record.probes, tail, true, "restarted over every rank");
}

// The parallel-plate line of inputs/parallel_plate_line.toml (9.6 k tets), fed by a lumped port at
// one end and ended at the other by R, L and C in series (a state of three numbers per kite), for 150
// steps: the parts cut the line across, so the port and the load lie on different ranks, and a sheet
// may be cut too.
std::string lumped_line()
{
  auto text = input("parallel_plate_line.toml");
  text = replaced(text, "file = \"parallel_plate_line.geo\"",
                  "file = \"" + std::string(DGATD_SOURCE_DIR) + "/inputs/parallel_plate_line.geo\"");
  text = replaced(text, "kind = \"resistor\"\nsurface = \"load\"",
                  "kind = \"rlc\"\ncircuit = \"series\"\ninductance = 2e-8\ncapacitance = 1.4e-13\nsurface = \"load\"");
  text = replaced(text, "t_end = 4e-9", "steps = 150\ndt = \"auto\"");
  return text + "[[probe]]\nname = \"mid\"\nposition = [0.005, 0.005, 0.05]\n" +
         "[[probe]]\nname = \"near_load\"\nposition = [0.003, 0.004, 0.098]\n";
}

// A lumped port's kites are summed over the ranks in one process's order: its voltage and current bit
// for bit, with the fields.
TEST(Ranks, LumpedPortAndSeriesRlcAsOneProcess)
{
  auto const text = lumped_line();
  Outcome alone;
  if (world->rank() == 0) alone = run(text, nullptr);
  auto const over_ranks = run(with_dt(text, alone.plan.dt), world);
  if (world->rank() != 0) return;
  ASSERT_EQ(alone.record.ports.size(), 3u * 150u);
  expect_same_outcome(over_ranks, alone, true);
  expect_agree(over_ranks.record.ports, alone.record.ports, true, "the lumped port's voltage and current");
}

// The kites' state (x, and the series circuit's current and charge) is checkpointed per kite at its
// place in one process's order, the port's series on every rank.
TEST(Ranks, CheckpointOfLumpedElementsContinuesOnOtherRankCounts)
{
  expect_checkpoint_continues(replaced(lumped_line(), "[output]\n", "[output]\ncheckpoint_every = 100\n"));
}

// The lumped line graded towards its port (cells along it from 0.17 mm at the port to 3.1 mm at the
// load) with [time] local_steps = "auto": the port on the finest level, its current solved through
// the levels (docs/method/local_time_stepping.md, section 6), each part measuring the step's response
// on its own unknowns and the currents summed over the ranks in one process's order. The fields and
// the port's series agree with one process's to rounding; a checkpoint of two ranks continues on
// rank 0 alone and over every rank bit for bit.
TEST(Ranks, LocalStepsSolvingALumpedPortsCurrentAsOneProcess)
{
  SharedScratch const shared("ranks_graded_lumped_line");
  auto const geometry =
      shared.write("graded_line.geo", replaced(input("parallel_plate_line.geo"), "Transfinite Curve{9:12} = nz + 1;",
                                               "Transfinite Curve{9:12} = nz + 1 Using Progression 1.03;"));
  auto text = replaced(lumped_line(), std::string(DGATD_SOURCE_DIR) + "/inputs/parallel_plate_line.geo", geometry);
  text = replaced(text, "dt = \"auto\"", "dt = \"auto\"\nlocal_steps = \"auto\"");
  Outcome alone;
  if (world->rank() == 0) alone = run(text, nullptr);
  auto const over_ranks = run(text, world);
  if (world->rank() == 0) {
    EXPECT_GE(alone.plan.local_levels, 3);
    EXPECT_EQ(alone.plan.local_current_level, alone.plan.local_levels - 1) << "the port on the finest level";
    EXPECT_TRUE(alone.plan.local_currents_solved);
    EXPECT_TRUE(over_ranks.plan.local_currents_solved);
    expect_same_local_steps(over_ranks, alone);
    expect_agree(over_ranks.record.ports, alone.record.ports, false, "the lumped port's voltage and current");
  }
  expect_checkpoint_continues(replaced(text, "[output]\n", "[output]\ncheckpoint_every = 100\n"));
}

// A guide driven by a prescribed port and ended by a flat matched layer, 2.8 k tets.
std::string guide_ended_by_a_layer()
{
  return R"([mesh]
generate = "waveguide"
size = [0.02286, 0.01016, 0.12]
h = 0.004
reproducible = true
pml = 0.016
[[pml]]
region = "pml"
[[source]]
kind = "port_te10"
surface = "port_in"
waveform = "modulated_gaussian"
frequency = 10e9
sigma = 0.8e-10
t0 = 2.4e-10
[time]
steps = 150
dt = "auto"
[[probe]]
name = "before_layer"
position = [0.011, 0.005, 0.1]
[[probe]]
name = "in_layer"
position = [0.011, 0.005, 0.112]
[output]
file = "guide.h5"
energy_every = 10
checkpoint_every = 100
)";
}

// On 3 ranks the layer's weight puts it in the parts of the far end, and the part at the port holds
// no stretched or lossy tet, so it takes the empty loss and layer terms, with which the checkpoint's
// state must line up all the same.
TEST(Ranks, CheckpointOfAGuideEndedByALayerContinuesOnOtherRankCounts)
{
  expect_checkpoint_continues(guide_ended_by_a_layer());
}

// On rank 0: the mesh generated from the [mesh] table of text written to path.
void write_generated_mesh(std::string const& text, std::string const& path)
{
  if (world->rank() != 0) return;
  auto const config = dgatd::io::parse_config(text, "mesh.toml", ".");
  dgatd::mesh::write_mesh(dgatd::simulation::load_mesh(config), path);
}

// On rank 0: what `dgatd partition mesh_file -n N -o directory` writes, N the world's ranks.
void write_parts(std::string const& mesh_file, std::string const& directory)
{
  if (world->rank() == 0) {
    auto mesh = dgatd::mesh::read_mesh(mesh_file);
    dgatd::mesh::order_for_locality(mesh, dgatd::mesh::Ordering::hilbert);
    auto const topology = dgatd::mesh::build_topology(mesh);
    auto const tet_part = dgatd::partition::partition_tets(mesh, topology, world->size());
    dgatd::partition::write_mesh_parts(mesh_file, 1.0, dgatd::mesh::Ordering::hilbert, mesh, topology, tet_part,
                                       world->size(), directory);
  }
  world->max(0); // written before any rank reads them
}

// A PEC wire along z in a closed box, lit by a dipole beside it: a box 0.4 x 0.4 x 0.6 with the wire
// from z = 0.1 to 0.5 at x = y = 0.2, which the parts cut across.
std::string const wire_geometry = R"(SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 0.4, 0.4, 0.6};
Point(100) = {0.2, 0.2, 0.1};
Point(101) = {0.2, 0.2, 0.5};
Line(100) = {100, 101};
BooleanFragments{ Volume{1}; Delete; }{ Curve{100}; Delete; }
e = 1e-6;
Physical Volume("air") = {Volume{:}};
Physical Curve("wire") = {Curve In BoundingBox{0.2 - e, 0.2 - e, 0.1 - e, 0.2 + e, 0.2 + e, 0.5 + e}};
Physical Surface("walls") = {CombinedBoundary{ Volume{:}; }};
Mesh.MeshSizeMax = 0.05;
Mesh.Algorithm3D = 1;
)";

std::string wire_in_a_box(std::string const& geo_file)
{
  return "[mesh]\nfile = \"" + geo_file + "\"\n[boundary]\npec = [\"walls\", \"wire\"]\n" +
         R"([[source]]
kind = "dipole"
position = [0.25, 0.22, 0.3]
direction = [0, 0, 1]
waveform = "modulated_gaussian"
frequency = 5e8
sigma = 1e-9
t0 = 3e-9
[time]
steps = 150
dt = "auto"
[[probe]]
name = "beside"
position = [0.17, 0.2, 0.2]
[[probe]]
name = "far"
position = [0.1, 0.3, 0.45]
[output]
file = "wire.h5"
energy_every = 10
checkpoint_every = 100
)";
}

// The wire's edges are PEC in every part that holds them, so its half-edges carry no unknowns there:
// fields bit for bit, and a checkpoint continues on other rank counts.
TEST(Ranks, PecWireAsOneProcessAndFromItsCheckpoint)
{
  SharedScratch const shared("ranks_wire");
  auto const text = wire_in_a_box(shared.write("wire.geo", wire_geometry));
  expect_same_run(text);
  expect_checkpoint_continues(text);
}

// text, whose [mesh] table names geometry (a Gmsh script) and is followed by [boundary], on the mesh
// Gmsh makes of it, written to a file: as one process on rank 0, then over every rank from parts of
// that file, and continued from the parts' checkpoint at step 100 (text holds checkpoint_every =
// 100). Probes, ports and far fields bit for bit.
void expect_same_from_parts(std::string const& text, std::string const& geometry, SharedScratch const& shared)
{
  std::string const mesh_file = shared.file("mesh.msh"), parts = shared.file("parts");
  if (world->rank() == 0) dgatd::mesh::write_mesh(dgatd::mesh::read_mesh(geometry), mesh_file);
  write_parts(mesh_file, parts);
  auto const on_mesh_file = replaced(text, geometry, mesh_file);
  Outcome alone;
  if (world->rank() == 0) alone = run(on_mesh_file, nullptr, shared.file("alone.h5"));
  auto const over_parts =
      with_dt(replaced(on_mesh_file, "[boundary]", "parts = \"" + parts + "\"\n[boundary]"), alone.plan.dt);
  auto const from_parts = run(over_parts, world, shared.file("parts.h5"));
  auto const restarted = run(over_parts, world, shared.file("again.h5"), shared.file("parts.checkpoint.h5"));
  if (world->rank() != 0) return;
  expect_same_outcome(from_parts, alone, true);
  expect_agree(from_parts.record.ports, alone.record.ports, true, "ports from parts");
  expect_agree(restarted.record.probes, after_step_100(alone), true, "restarted from parts");
  expect_agree(restarted.record.ports, alone.record.ports, true, "ports restarted from parts");
  expect_agree(restarted.record.surface_currents, alone.record.surface_currents, true,
               "surface currents restarted from parts");
}

// The same from parts: each part keeps the wire's segments that are edges of its tets.
TEST(Ranks, PecWireFromPartsAsOneProcess)
{
  SharedScratch const shared("ranks_wire_parts");
  auto const geometry = shared.write("wire.geo", wire_geometry);
  expect_same_from_parts(wire_in_a_box(geometry), geometry, shared);
}

// The lumped line from parts: each sheet shaped from every rank's faces and edges of it.
TEST(Ranks, LumpedPortAndSeriesRlcFromPartsAsOneProcess)
{
  SharedScratch const shared("ranks_lumped_parts");
  expect_same_from_parts(replaced(lumped_line(), "[output]\n", "[output]\ncheckpoint_every = 100\n"),
                         std::string(DGATD_SOURCE_DIR) + "/inputs/parallel_plate_line.geo", shared);
}

// A PEC plate inside a closed box, lit by a dipole below it: the plate's faces have two sides, the
// walls' one, and the parts cut across both.
std::string const plate_geometry = R"(SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 0.4, 0.4, 0.6};
Rectangle(100) = {0.1, 0.1, 0.3, 0.2, 0.2};
BooleanFragments{ Volume{1}; Delete; }{ Surface{100}; Delete; }
e = 1e-6;
Physical Volume("air") = {Volume{:}};
Physical Surface("plate") = {Surface In BoundingBox{0.1 - e, 0.1 - e, 0.3 - e, 0.3 + e, 0.3 + e, 0.3 + e}};
Physical Surface("walls") = {CombinedBoundary{ Volume{:}; }};
Mesh.MeshSizeMax = 0.05;
Mesh.Algorithm3D = 1;
)";

std::string currents_on_a_plate(std::string const& geo_file)
{
  auto text = replaced(wire_in_a_box(geo_file), "pec = [\"walls\", \"wire\"]", "pec = [\"walls\", \"plate\"]");
  text = replaced(text, "position = [0.25, 0.22, 0.3]", "position = [0.25, 0.22, 0.2]");
  return replaced(text, "[time]",
                  "[[surface_current]]\nname = \"metal\"\nsurfaces = [\"plate\", \"walls\"]\n"
                  "frequencies = [3e8, 5e8, 7e8]\n[time]") +
         "snapshot_every = 50\n";
}

// The surface currents' faces are their lowest vertex's owner's, which steps the tets on both sides:
// transforms and snapshots bit for bit, over ranks, continued on other rank counts and from parts.
TEST(Ranks, SurfaceCurrentsAsOneProcessFromTheirCheckpointAndFromParts)
{
  SharedScratch const shared("ranks_surface_currents");
  auto const geometry = shared.write("plate.geo", plate_geometry);
  auto const text = currents_on_a_plate(geometry);
  expect_same_run(text);
  expect_checkpoint_continues(text);
  expect_same_from_parts(text, geometry, shared);
}

// The centroid of a tet that rank 0 owns and whose neighbour across a face is in its reserve (outside
// the tets it steps), as "[x, y, z]" on every rank: a probe there reads that neighbour's pieces.
std::string beside_the_reserve(std::string const& directory)
{
  std::vector<char> bytes;
  if (world->rank() == 0) {
    auto const part = dgatd::simulation::read_part(dgatd::simulation::read_manifest(directory), 0);
    auto const topology = dgatd::mesh::build_topology(part.mesh);
    for (dgatd::Index t = 0; t < part.mesh.num_tets() && bytes.empty(); ++t) {
      auto const& v = part.mesh.tets[t];
      if (part.vertex_owner[*std::min_element(v.begin(), v.end())] != 0) continue;
      for (dgatd::Index f : topology.tet_faces[t])
        for (dgatd::Index across : topology.face_tets[f])
          if (across >= 0 && part.reserve[across] && bytes.empty()) {
            Vec3 centre{};
            for (dgatd::Index k : v)
              for (int c = 0; c < 3; ++c) centre[c] += part.mesh.points[k][c] / 4;
            char text[128];
            std::snprintf(text, sizeof text, "[%.17g, %.17g, %.17g]", centre[0], centre[1], centre[2]);
            bytes.assign(text, text + std::strlen(text));
          }
    }
  }
  world->broadcast(bytes, 0);
  return {bytes.begin(), bytes.end()};
}

// The configuration of text on the mesh file instead of its generated mesh.
std::string on_file(std::string text, std::string const& generate_table, std::string const& mesh_file,
                    std::string const& parts = "")
{
  text = replaced(text, generate_table,
                  "[mesh]\nfile = \"" + mesh_file + "\"\n" + (parts.empty() ? "" : "parts = \"" + parts + "\"\n"));
  return text;
}

// text (with dt = "auto") on its generated mesh (the table generate) written to a file in shared: as
// one process on rank 0, and over every rank from parts of the file with one process's dt. more
// gives what text gets once the parts' folder exists (a probe placed by its parts).
struct FromParts {
  Outcome alone, from_parts;
  std::string over_parts; // the configuration run from parts
};
FromParts alone_and_from_parts(std::string text, std::string const& generate, SharedScratch const& shared,
                               std::function<std::string(std::string const& parts)> const& more = {})
{
  std::string const mesh_file = shared.file("mesh.msh"), parts = shared.file("parts");
  write_generated_mesh(text, mesh_file);
  write_parts(mesh_file, parts);
  if (more) text += more(parts);
  FromParts runs;
  if (world->rank() == 0) runs.alone = run(on_file(text, generate, mesh_file), nullptr, shared.file("alone.h5"));
  runs.over_parts = with_dt(on_file(text, generate, mesh_file, parts), runs.alone.plan.dt);
  runs.from_parts = run(runs.over_parts, world, shared.file("parts.h5"));
  return runs;
}

// The cylinder of the README read from its mesh file, once as one process and once over the ranks,
// each rank reading only its part from a folder of parts: probes bit for bit, energies to rounding,
// and a checkpoint of the run from parts continues it bit for bit.
TEST(Ranks, CylinderFromPartsAsOneProcess)
{
  std::string const generate = R"([mesh]
generate = "cylinder"
radius = 1.0
height = 0.5
h = 0.15
reproducible = true
)";
  auto text = input("cylinder_resonator.toml");
  text = generate + text.substr(text.find("[boundary]"));
  text = replaced(text, "t_end = 600e-9", "steps = 150");
  text = replaced(text, "energy_every = 50", "energy_every = 10\ncheckpoint_every = 100");
  text = replaced(text, "snapshot_every = 0", "snapshot_every = 50");
  // A second probe on another rank's side, and an edge current beside the dipole.
  text += "[[probe]]\nname = \"far_side\"\nposition = [0.4, -0.5, 0.1]\n";
  text += "[[source]]\nkind = \"edge_current\"\nposition = [-0.3, -0.2, 0.25]\ndirection = [1, 0, 0]\n"
          "waveform = \"gaussian\"\nt0 = 3e-9\nsigma = 0.5e-9\n";
  SharedScratch const shared("ranks_parts");
  auto const runs = alone_and_from_parts(text, generate, shared, [](std::string const& parts) {
    return "[[probe]]\nname = \"at_the_rim\"\nposition = " + beside_the_reserve(parts) + "\n";
  });
  // The checkpoint of the run from parts, at step 100, continued from the parts.
  auto const restarted = run(runs.over_parts, world, shared.file("again.h5"), shared.file("parts.checkpoint.h5"));
  if (world->rank() != 0) return;

  expect_same_outcome(runs.from_parts, runs.alone, true);
  ASSERT_FALSE(runs.alone.record.snapshots.empty());
  expect_agree(restarted.record.probes, after_step_100(runs.alone), true, "restarted from parts");
}

// The current density read from parts: its volume's tags and each part's blocks found without the
// whole mesh.
TEST(Ranks, CurrentDensityFromPartsAsOneProcess)
{
  SharedScratch const shared("ranks_density_parts");
  auto const runs = alone_and_from_parts(current_density, density_box, shared);
  if (world->rank() != 0) return;
  ASSERT_EQ(runs.alone.record.series.size(), 150u);
  expect_same_outcome(runs.from_parts, runs.alone, true);
}

// A box with an inner block, 2.9 k tets, closed by an absorbing surface, and what drives and records
// it: a dipole beside the block and probes in and behind it. The block's material goes between.
std::string const block_box = R"([mesh]
generate = "box"
size = [1, 1, 1]
h = 0.12
reproducible = true
inner = { shape = "box", corner = [0.55, 0.3, 0.3], size = [0.3, 0.4, 0.4] }
)";
std::string const block_box_run = R"([boundary]
absorbing = ["boundary"]
[[source]]
kind = "dipole"
position = [0.25, 0.45, 0.5]
direction = [0, 0, 1]
waveform = "gaussian"
t0 = 3e-9
sigma = 0.5e-9
[time]
steps = 150
dt = "auto"
[[probe]]
name = "in_the_block"
position = [0.7, 0.5, 0.5]
[[probe]]
name = "behind_it"
position = [0.92, 0.6, 0.45]
[output]
energy_every = 10
snapshot_every = 75
)";

// A lossy dielectric block, from parts: the rim faces of the parts stay interior (no PEC, no
// absorbing face between the parts), the block's region is found though some parts hold none of it,
// and the traces agree with one process bit for bit.
TEST(Ranks, LossyBoxFromPartsAsOneProcess)
{
  std::string const text = block_box + "[[material]]\nregion = \"inner\"\neps_r = 4.0\nsigma = 0.05\n" + block_box_run;
  SharedScratch const shared("ranks_parts_lossy");
  auto const runs = alone_and_from_parts(text, block_box, shared);
  if (world->rank() == 0) expect_same_outcome(runs.from_parts, runs.alone, true);
}

// The same box with a Drude-Lorentz block with some conductivity: the poles' states live in the
// lossy blocks' term per dispersive tet, four slices per tet (one per vertex's owner).
std::string const dispersive_block = block_box + R"([[material]]
region = "inner"
eps_inf = 2.0
sigma = 0.01
[[material.pole]]
kind = "drude"
omega_p = 3e9
gamma = 3e8
[[material.pole]]
kind = "lorentz"
delta_eps = 1.5
omega_0 = 4e9
delta = 2e8
)" + block_box_run;

TEST(Ranks, DispersiveBlockAsOneProcess) { expect_same_run(dispersive_block); }

TEST(Ranks, DispersiveBlockFromPartsAsOneProcess)
{
  SharedScratch const shared("ranks_parts_dispersive");
  auto const runs = alone_and_from_parts(dispersive_block, block_box, shared);
  if (world->rank() == 0) expect_same_outcome(runs.from_parts, runs.alone, true);
}

TEST(Ranks, CheckpointOfADispersiveBlockContinuesOnOtherRankCounts)
{
  expect_checkpoint_continues(
      replaced(dispersive_block, "snapshot_every = 75", "snapshot_every = 0\ncheckpoint_every = 100"));
}

// The matched-port guide from parts: each port's shape, plane and medium come from its surface and
// the tets beside it gathered on every rank; fields and modal voltages agree to rounding (the voltages
// are sums over the ranks inside the step, as in any run over ranks).
TEST(Ranks, MatchedPortGuideFromPartsAsOneProcess)
{
  SharedScratch const shared("ranks_parts_guide");
  auto const runs = alone_and_from_parts(matched_port_guide(), guide_mesh, shared);
  if (world->rank() != 0) return;
  ASSERT_FALSE(runs.alone.record.ports.empty());
  expect_same_outcome(runs.from_parts, runs.alone, false);
}

// The dipole in its matched-layer shell from parts: the shell's interface, pieces, outer surface and
// size are learnt over the ranks, no rank holding the whole layer, and each stretched tet's Jacobian is
// the whole mesh's, so the traces agree with one process bit for bit.
TEST(Ranks, DipoleInMatchedLayerShellFromPartsAsOneProcess)
{
  auto const text = dipole_shell();
  std::string const generate = text.substr(text.find("[mesh]"), text.find("[[pml]]") - text.find("[mesh]"));
  SharedScratch const shared("ranks_parts_shell");
  auto const runs = alone_and_from_parts(text, generate, shared);
  if (world->rank() == 0) expect_same_outcome(runs.from_parts, runs.alone, true);
}

// The guide driven by its prescribed port and ended by its layer, from parts: the port's profile comes
// from its surface gathered on every rank, the layer's plane from its interface, and the prescribed
// half-edges are numbered as one process numbers them (after the free ones, by vertex), so that the
// checkpoint of the run from parts continues it bit for bit.
TEST(Ranks, GuideWithAPrescribedPortAndALayerFromPartsAsOneProcess)
{
  auto const text = guide_ended_by_a_layer();
  std::string const generate = text.substr(0, text.find("[[pml]]"));
  SharedScratch const shared("ranks_parts_guide_layer");
  auto const runs = alone_and_from_parts(text, generate, shared);
  auto const restarted = run(runs.over_parts, world, shared.file("again.h5"), shared.file("parts.checkpoint.h5"));
  if (world->rank() != 0) return;
  expect_same_outcome(runs.from_parts, runs.alone, true);
  expect_agree(restarted.record.probes, after_step_100(runs.alone), true, "restarted from parts");
  // The checkpoints at step 100, each unknown at its place in the one-process numbering, the port's
  // prescribed ones (nonzero while the pulse passes) included.
  auto const alone = dgatd::io::read_checkpoint(shared.file("alone.checkpoint.h5")).state;
  auto const from_parts = dgatd::io::read_checkpoint(shared.file("parts.checkpoint.h5")).state;
  EXPECT_EQ(from_parts.e_unknowns, alone.e_unknowns);
  EXPECT_EQ(from_parts.h_unknowns, alone.h_unknowns);
}

// The plane wave through its total-field box in the matched shell, from parts: which vertices hold the
// total field comes from their owners, the surface's medium and first point are agreed over the
// ranks, and the traces agree with one process bit for bit.
TEST(Ranks, PlaneWaveBoxFromPartsAsOneProcess)
{
  auto const text = replaced(plane_wave_box(), "snapshot_every = 10", "snapshot_every = 75");
  std::string const generate = text.substr(text.find("[mesh]"), text.find("[[pml]]") - text.find("[mesh]"));
  SharedScratch const shared("ranks_parts_plane_wave");
  auto const runs = alone_and_from_parts(text, generate, shared);
  if (world->rank() == 0) expect_same_outcome(runs.from_parts, runs.alone, true);
}

// What cannot be run from a folder of parts stops every rank with one line naming the folder or
// the item and the fix: parts of another mesh, of another rank count, what no run over ranks takes.
// The radar cross section's run from parts: which side of each face the far-field cube encloses is
// found over the parts (regions named across the ranks), as one process finds it on the whole mesh.
TEST(Ranks, SphereRcsFarFieldFromPartsAsOneProcess)
{
  auto const text = sphere_rcs();
  auto const start = text.find("[mesh]");
  auto const generate = text.substr(start, text.find("[[pml]]") - start);
  SharedScratch const shared("ranks_far_field_parts");
  auto const runs = alone_and_from_parts(text, generate, shared);
  if (world->rank() != 0) return;
  ASSERT_GT(runs.alone.record.far_fields.size(), 10000u);
  expect_same_outcome(runs.from_parts, runs.alone, true);
}

// Local steps beside a matched shell from parts on disk: each rank plans its levels on the part it
// read, never the whole mesh, and finds the one-process levels and fields.
TEST(Ranks, LocalStepsFromPartsAsOneProcess)
{
  auto const text = graded_sphere("\n[[pml]]\nregion = \"pml\"\n");
  auto const start = text.find("[mesh]");
  auto const generate = text.substr(start, text.find("\n[[pml]]") - start);
  SharedScratch const shared("ranks_local_steps_parts");
  std::string const mesh_file = shared.file("mesh.msh"), parts = shared.file("parts");
  write_generated_mesh(text, mesh_file);
  write_parts(mesh_file, parts);
  Outcome alone;
  if (world->rank() == 0) alone = run(on_file(text, generate, mesh_file), nullptr, shared.file("alone.h5"));
  auto const from_parts = run(on_file(text, generate, mesh_file, parts), world, shared.file("parts.h5"));
  if (world->rank() != 0) return;
  EXPECT_EQ(alone.plan.local_levels, 2);
  expect_same_local_steps(from_parts, alone);
}

TEST(Ranks, PartsOfAnotherMeshOrRankCountAreRefusedTogether)
{
  std::string const generate = "[mesh]\ngenerate = \"box\"\nsize = [1, 1, 1]\nh = 0.4\n";
  std::string const text = generate + "[time]\nsteps = 2\n";
  SharedScratch const shared("ranks_parts_refused");
  std::string const mesh_file = shared.file("box.msh"), other_file = shared.file("other.msh");
  write_generated_mesh(text, mesh_file);
  write_generated_mesh(replaced(text, "h = 0.4", "h = 0.5"), other_file);
  write_parts(mesh_file, shared.file("parts"));
  auto expect_refused = [&](std::string const& config_text, std::string const& expected) {
    try {
      run(config_text, world, shared.file("out.h5"));
      ADD_FAILURE() << "ran: " << config_text;
    } catch (dgatd::parallel::CollectiveError const& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  expect_refused(on_file(text, generate, other_file, shared.file("parts")),
                 shared.file("parts") + ": was split from another mesh (" + mesh_file + ") than " + other_file);
  {
    FirstRanks const fewer(world->size() - 1);
    if (fewer.ranks() && world->size() > 2) {
      try {
        run(on_file(text, generate, mesh_file, shared.file("parts")), fewer.ranks(), shared.file("fewer.h5"));
        ADD_FAILURE() << "parts for " << world->size() << " ranks ran on " << world->size() - 1;
      } catch (dgatd::parallel::CollectiveError const& e) {
        EXPECT_NE(std::string(e.what()).find("holds parts for " + std::to_string(world->size()) + " ranks"),
                  std::string::npos)
            << e.what();
      }
    }
  }
  expect_refused(on_file(text + "[solver]\nprecision = \"single\"\n", generate, mesh_file, shared.file("parts")),
                 "precision = \"single\" runs in one process only");
  expect_refused(on_file(text, generate, mesh_file, shared.file("no_parts")),
                 shared.file("no_parts") + "/manifest.h5: no such file");
}

// One tet cannot be split: every rank stops with the same line, naming the mesh and the fix.
TEST(Ranks, MoreRanksThanTetsAreRefusedTogether)
{
  dgatd::mesh::Mesh one_tet;
  one_tet.source = "one_tet";
  one_tet.points = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  one_tet.tets = {{0, 1, 2, 3}};
  one_tet.tet_region = {0};
  ScratchDirectory scratch("ranks_one_tet");
  dgatd::simulation::SimulationOptions options;
  options.output_path = (scratch.path() / "out.h5").string();
  options.communicator = world;
  options.partitioner = [](dgatd::mesh::Mesh const&, dgatd::mesh::Topology const&, int, std::vector<int> const&, int) {
    return std::vector<int>{};
  };
  auto const config =
      dgatd::io::parse_config("[mesh]\ngenerate = \"box\"\nsize = [1, 1, 1]\nh = 0.5\n[time]\nsteps = 1\n",
                              "one_tet.toml", scratch.path().string());
  try {
    dgatd::simulation::Simulation simulation(config, one_tet, options);
    FAIL() << "one tet was split over " << world->size() << " ranks";
  } catch (dgatd::parallel::CollectiveError const& e) {
    EXPECT_NE(std::string(e.what()).find("one_tet: " + std::to_string(world->size()) + " ranks for 1 tets"),
              std::string::npos)
        << e.what();
  }
}

} // namespace

int main(int argc, char* argv[])
{
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (std::getenv("OMP_PROC_BIND") == nullptr) setenv("OMP_PROC_BIND", "false", 0);
  int result = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    world = std::make_shared<dgatd::parallel::MpiCommunicator>(MPI_COMM_WORLD);
    // Rank 0 checks and reports; the others only take part.
    if (world->rank() != 0) {
      auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
    }
    result = RUN_ALL_TESTS();
    world.reset();
  }
  // A failure on rank 0 is the run's: the others pass by construction.
  MPI_Allreduce(MPI_IN_PLACE, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return result;
}
