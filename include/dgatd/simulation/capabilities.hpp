#pragma once
// What runs with what, as data: every capability a configuration can ask for, and whether it runs
// in each mode a run can step in (over MPI ranks, in single or mixed precision, with the assembled
// formulation, on a GPU, with local time steps). `dgatd capabilities` prints this table, and every refusal of a
// combination a user meets is worded from it, at the configuration line that asked for the item.
// A capability the core sets up has its line in capabilities.cpp; one in its own home
// (src/capabilities/) brings its line with its model. Nothing else lists what a capability refuses.

#include "dgatd/error.hpp"
#include "dgatd/io/input/config.hpp"

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace dgatd::simulation {

// The modes a run steps in that not every capability supports, in the order refusals are looked for.
enum class RunMode { over_ranks, assembled, single_precision, mixed_precision, gpu, local_steps };
inline constexpr std::size_t run_mode_count = 6;
char const* to_string(RunMode mode);

// Whether a capability runs in one mode, and when it does not, the mode's fix made specific: for the
// assembled formulation what its baseline lacks ("the assembled baseline has no losses"), for the
// others a fix in place of the mode's own ("remove cfs_frequency, or run without mpirun"); empty
// for the mode's own.
struct ModeSupport {
  bool runs = true;
  std::string note;
  // False where the mode and the capability exclude each other or are one (single precision and
  // mixed precision): printed as "-".
  bool applies = true;
};

// The lines of a configuration that ask for a capability, empty when none does.
using UsedAt = std::function<std::vector<int>(io::Config const&)>;

struct Capability {
  std::string item;    // how a refusal names it: "[[pml]]", "a plane wave"
  std::string key;     // what a configuration writes to ask for it: "[[source]] kind = \"plane_wave\""
  std::string summary; // a few words for the printed table
  std::array<ModeSupport, run_mode_count> modes;
  UsedAt used_at; // empty for capabilities every mode runs (listed for the printed table)

  ModeSupport const& in(RunMode mode) const { return modes[static_cast<std::size_t>(mode)]; }
};

// The table: the capabilities the core sets up, then those in their own homes (src/capabilities/).
std::vector<Capability> const& capabilities();

// A row's modes: runs in every mode but those refused, each with its note, and those that do not
// apply.
std::array<ModeSupport, run_mode_count> runs_except(std::vector<std::pair<RunMode, std::string>> refused = {},
                                                    std::vector<RunMode> const& not_applying = {});
// The note of a capability the assembled baseline lacks: "the assembled baseline has no WHAT".
std::string baseline_lacks(std::string const& what);

// The modes config steps in: over_ranks for a run of several ranks, gpu when it steps on a GPU.
std::vector<RunMode> run_modes(io::Config const& config, bool over_ranks, bool on_gpu);
// Whether config steps on a GPU: on the build's default execution space when that is not a host one.
bool steps_on_gpu(io::Config const& config);

// The first capability config asks for that one of modes refuses (modes in RunMode order, then
// capabilities in table order), as the one-line Error a user reads; nothing when all of it runs.
std::optional<Error> refusal(io::Config const& config, std::vector<RunMode> const& modes);
// Throws refusal's Error, if any.
void refuse_unsupported(io::Config const& config, std::vector<RunMode> const& modes);

// The table, one capability a line, a column per mode ("yes", "no" or "-"), and a key to the columns.
void print_capabilities(std::ostream& out);

} // namespace dgatd::simulation
