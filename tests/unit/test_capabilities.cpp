// The capabilities table: what a configuration asks for is found at its lines, each mode refuses what
// the table says it cannot run with one line worded from the table, and `dgatd capabilities` prints
// it without starting Kokkos.
#include "dgatd/io/input/config.hpp"
#include "dgatd/simulation/capabilities.hpp"
#include "run_helpers.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace {

using dgatd::simulation::capabilities;
using dgatd::simulation::refusal;
using dgatd::simulation::run_modes;
using dgatd::simulation::RunMode;

std::string const mesh = "[mesh]\ngenerate = \"box\"\nsize = [1, 1, 1]\nh = 0.5\n";
std::string const time_table = "[time]\nsteps = 1\n";

dgatd::io::Config parsed(std::string const& text) { return dgatd::io::parse_config(text, "caps.toml", "."); }

std::string refusal_text(dgatd::io::Config const& config, std::vector<RunMode> const& modes)
{
  auto const error = refusal(config, modes);
  return error ? error->what() : "";
}

TEST(Capabilities, ModesOfAConfiguration)
{
  EXPECT_EQ(run_modes(parsed(mesh + time_table), false, false), std::vector<RunMode>{});
  EXPECT_EQ(run_modes(parsed(mesh + time_table + "[solver]\nprecision = \"mixed\"\nformulation = \"assembled\"\n"),
                      true, true),
            (std::vector<RunMode>{RunMode::over_ranks, RunMode::assembled, RunMode::mixed_precision, RunMode::gpu}));
  EXPECT_EQ(run_modes(parsed(mesh + time_table + "[solver]\nprecision = \"single\"\n"), false, false),
            std::vector<RunMode>{RunMode::single_precision});
}

// Every capability that some mode refuses says where a configuration asks for it; the ones every
// mode runs need not.
TEST(Capabilities, EveryRefusedCapabilityIsFoundInAConfiguration)
{
  for (auto const& capability : capabilities()) {
    bool refused_somewhere = false;
    for (auto const& mode : capability.modes) refused_somewhere = refused_somewhere || !mode.runs;
    EXPECT_TRUE(!refused_somewhere || capability.used_at) << capability.item;
    EXPECT_FALSE(capability.item.empty() || capability.key.empty() || capability.summary.empty());
  }
}

TEST(Capabilities, RefusalsAtTheLineThatAsks)
{
  auto const layer = parsed(mesh + "[[pml]]\nregion = \"pml\"\ncfs_frequency = 1e9\n" + time_table);
  EXPECT_EQ(refusal_text(layer, {}), "");
  EXPECT_EQ(refusal_text(layer, {RunMode::mixed_precision, RunMode::gpu}), "");
  EXPECT_EQ(refusal_text(layer, {RunMode::single_precision}),
            "caps.toml:5: [[pml]] needs double fields (fix: set [solver] precision = \"mixed\" (float matrices, "
            "double fields) or \"double\")");
  EXPECT_EQ(refusal_text(layer, {RunMode::over_ranks}),
            "caps.toml:5: [[pml]] cfs_frequency runs in one process only (for now) (fix: remove cfs_frequency, or "
            "run without mpirun)");
  EXPECT_EQ(refusal_text(layer, {RunMode::assembled}),
            "caps.toml:5: [[pml]] needs the fractioned formulation (fix: remove [solver] formulation = "
            "\"assembled\" (the assembled baseline has no matched layers))");

  auto const assembled = parsed(mesh + time_table + "[solver]\nformulation = \"assembled\"\nprecision = \"single\"\n");
  EXPECT_EQ(refusal_text(assembled, {RunMode::over_ranks}),
            "caps.toml:9: precision = \"single\" runs in one process only (for now) (fix: set [solver] precision = "
            "\"mixed\", or run without mpirun)");
  EXPECT_EQ(refusal_text(assembled, {RunMode::assembled}),
            "caps.toml:9: precision = \"single\" needs the fractioned formulation (fix: remove [solver] formulation "
            "= \"assembled\" (the assembled baseline runs in double))");
}

TEST(Capabilities, TheCommandPrintsTheTable)
{
  dgatd::testing::ScratchDirectory scratch("capabilities_command");
  // No Kokkos starts: the Kokkos options are not even looked at.
  auto const r = dgatd::testing::run_dgatd("capabilities", scratch.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("ranks      assembled  single     mixed      GPU"), std::string::npos) << r.out;
  for (auto const& capability : capabilities()) {
    auto const line = r.out.find(capability.summary);
    ASSERT_NE(line, std::string::npos) << capability.summary;
    auto const row = r.out.substr(line, r.out.find('\n', line) - line);
    std::string cells;
    for (auto const& mode : capability.modes) cells += !mode.applies ? " -" : mode.runs ? " yes" : " no";
    std::istringstream after_key(row.substr(row.find(capability.key) + capability.key.size()));
    std::string printed, cell;
    while (after_key >> cell) printed += " " + cell;
    EXPECT_EQ(printed, cells) << row;
  }
  EXPECT_NE(r.out.find("This build: execution spaces"), std::string::npos);
}

} // namespace
