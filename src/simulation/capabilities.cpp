#include "dgatd/simulation/capabilities.hpp"

#include "capability_models.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <type_traits>
#include <utility>

namespace dgatd::simulation {
namespace {

// Lines of the items of a list that satisfy asks (each item carries its table's line).
template <class Items, class Predicate>
std::vector<int> lines_where(Items const& items, Predicate asks)
{
  std::vector<int> lines;
  for (auto const& item : items)
    if (asks(item)) lines.push_back(item.line);
  return lines;
}

template <class Items>
std::vector<int> lines_of(Items const& items)
{
  return lines_where(items, [](auto const&) { return true; });
}

// Conditional expressions are kept out of the lambdas below: nvcc's front end turns them into local
// typedefs that the host compiler then warns are unused.
std::vector<int> line_if(bool asked, int line)
{
  std::vector<int> lines;
  if (asked) lines.push_back(line);
  return lines;
}

std::vector<Capability> make_capabilities()
{
  using M = RunMode;
  auto const no_assembled = [](std::string const& what) { return std::pair{M::assembled, baseline_lacks(what)}; };
  std::pair<RunMode, std::string> const no_single{M::single_precision, ""};
  return {
      {"a current dipole", "[[source]] kind = \"dipole\"", "point current source", runs_except(), {}},
      {"an edge current", "[[source]] kind = \"edge_current\"", "current on the nearest edge", runs_except(), {}},
      {"a prescribed port", "[[source]] kind = \"port_te10\"", "TE10 field prescribed on a port", runs_except(), {}},
      {"a matched port", "[[source]] kind = \"port_te10\", matched = true", "TE10 launched and absorbed",
       runs_except({no_single, no_assembled("matched ports"), {M::local_steps, ""}}),
       [](io::Config const& c) { return lines_where(c.sources, [](io::Source const& s) { return s.matched; }); }},
      {"a mode port", "[[source]] kind = \"mode_port\"", "a cross-section's mode launched and absorbed",
       runs_except(
           {{M::over_ranks, "run without mpirun"}, no_single, no_assembled("mode ports"), {M::local_steps, ""}}),
       [](io::Config const& c) {
         return lines_where(c.sources, [](io::Source const& s) { return s.kind == io::SourceKind::mode_port; });
       }},
      {"a plane wave", "[[source]] kind = \"plane_wave\"", "total-field/scattered-field",
       runs_except({no_single, no_assembled("plane waves")}),
       [](io::Config const& c) {
         return lines_where(c.sources, [](io::Source const& s) { return s.kind == io::SourceKind::plane_wave; });
       }},
      {"a lumped port", "[[source]] kind = \"lumped_port\"", "source with its resistance on a sheet",
       runs_except({no_single, no_assembled("lumped ports")}),
       [](io::Config const& c) {
         return lines_where(c.sources, [](io::Source const& s) { return s.kind == io::SourceKind::lumped_port; });
       }},
      {"[[lumped]]", "[[lumped]]", "R, L, C and RLC on a sheet",
       runs_except({no_single, no_assembled("lumped elements")}),
       [](io::Config const& c) { return lines_of(c.lumped); }},
      {"[[material]] eps_r and mu_r", "[[material]] eps_r, mu_r", "dielectrics and magnetics", runs_except(), {}},
      {"[[material]] sigma", "[[material]] sigma", "conductivity", runs_except({no_single, no_assembled("losses")}),
       [](io::Config const& c) { return lines_where(c.materials, [](io::Material const& m) { return m.sigma > 0; }); }},
      {"a dispersive material", "[[material.pole]]", "Debye, Drude, Lorentz and pole-residue media",
       runs_except({no_single, no_assembled("dispersive media")}),
       [](io::Config const& c) {
         return lines_where(c.materials, [](io::Material const& m) { return !m.poles.empty(); });
       }},
      {"[boundary] pec", "[boundary] pec", "PEC walls and sheets, PMC elsewhere", runs_except(), {}},
      {"a PEC wire (a physical curve in [boundary] pec)",
       "[boundary] pec = [\"a physical curve\"]",
       "thin PEC wires",
       runs_except(),
       {}},
      {"[boundary] absorbing", "[boundary] absorbing", "first-order absorbing surfaces",
       runs_except({no_single, no_assembled("losses")}),
       [](io::Config const& c) { return line_if(!c.boundary.absorbing_surfaces.empty(), c.boundary.line); }},
      {"[[pml]]", "[[pml]]", "perfectly matched layers", runs_except({no_single, no_assembled("matched layers")}),
       [](io::Config const& c) { return lines_of(c.pml); }},
      {"[[pml]] cfs_frequency", "[[pml]] cfs_frequency", "complex frequency shift",
       runs_except(
           {{M::over_ranks, "remove cfs_frequency, or run without mpirun"}, no_single, no_assembled("matched layers")}),
       [](io::Config const& c) { return lines_where(c.pml, [](io::Pml const& p) { return p.cfs_frequency > 0; }); }},
      {"[[probe]]", "[[probe]]", "e and h at points", runs_except(), {}},
      {"[[farfield]]", "[[farfield]]", "near-to-far-field transform",
       runs_except({no_single, no_assembled("far-field surfaces")}),
       [](io::Config const& c) { return lines_of(c.farfields); }},
      {"snapshots and checkpoints",
       "[output] snapshot_every, checkpoint_every",
       "fields for ParaView, restarts",
       runs_except(),
       {}},
      {"precision = \"mixed\"", "[solver] precision = \"mixed\"", "float matrices, double fields",
       runs_except({{M::assembled, "the assembled baseline runs in double"}},
                   {M::single_precision, M::mixed_precision}),
       [](io::Config const& c) {
         bool const mixed = c.solver.precision == kernels::MatrixPrecision::float32 &&
                            c.solver.field_precision == kernels::FieldPrecision::float64;
         return line_if(mixed, c.solver.precision_line);
       }},
      {"precision = \"single\"", "[solver] precision = \"single\"", "float matrices and fields",
       runs_except({{M::over_ranks, "set [solver] precision = \"mixed\", or run without mpirun"},
                    {M::assembled, "the assembled baseline runs in double"}},
                   {M::single_precision, M::mixed_precision}),
       [](io::Config const& c) {
         bool const single = c.solver.field_precision == kernels::FieldPrecision::float32;
         return line_if(single, c.solver.precision_line);
       }},
      {"the assembled formulation", "[solver] formulation = \"assembled\"", "edge/face unknowns, two SpMVs",
       runs_except({{M::over_ranks, "remove [solver] formulation = \"assembled\", or run without mpirun"},
                    {M::single_precision, "remove [solver] formulation = \"assembled\" (it runs in double)"},
                    {M::mixed_precision, "remove [solver] formulation = \"assembled\" (it runs in double)"},
                    {M::local_steps, "remove [solver] formulation = \"assembled\" (local steps are the fractioned "
                                     "scheme's)"}},
                   {M::assembled}),
       [](io::Config const& c) {
         bool const assembled = c.solver.formulation == solver::FormulationKind::assembled;
         return line_if(assembled, c.solver.formulation_line);
       }},
      {"[time] local_steps", "[time] local_steps", "levels of halving steps (graded meshes)",
       runs_except({{M::assembled, "set [time] local_steps = \"off\" (local steps are the fractioned scheme's)"}},
                   {M::local_steps}),
       [](io::Config const& c) { return line_if(c.time.local_steps > 1, c.time.local_steps_line); }},
  };
}

// note, or usual where note is empty.
std::string or_else(std::string const& note, std::string const& usual) { return note.empty() ? usual : note; }

// The refusal of capability in mode, at line (0: the file).
Error refused(io::Config const& config, Capability const& capability, RunMode mode, int line)
{
  std::string const where = line > 0 ? config.where(line) : config.name;
  auto const& note = capability.in(mode).note;
  auto const fix = [&note](std::string const& usual) { return or_else(note, usual); };
  switch (mode) {
  case RunMode::over_ranks:
    return Error(where, capability.item + " runs in one process only (for now)", fix("run without mpirun"));
  case RunMode::single_precision:
    return Error(where, capability.item + " needs double fields",
                 fix("set [solver] precision = \"mixed\" (float matrices, double fields) or \"double\""));
  case RunMode::mixed_precision:
    return Error(where, capability.item + " needs double matrices", fix("set [solver] precision = \"double\""));
  case RunMode::assembled:
    return Error(where, capability.item + " needs the fractioned formulation",
                 "remove [solver] formulation = \"assembled\"" + (note.empty() ? "" : " (" + note + ")"));
  case RunMode::gpu:
    return Error(where, capability.item + " runs on the host backends only",
                 fix("set [solver] backend = \"serial\", or run an OpenMP build"));
  case RunMode::local_steps:
    return Error(where, capability.item + " runs with one global time step only (for now)",
                 fix("set [time] local_steps = \"off\""));
  }
  throw std::logic_error("unknown run mode");
}

} // namespace

std::array<ModeSupport, run_mode_count> runs_except(std::vector<std::pair<RunMode, std::string>> refused,
                                                    std::vector<RunMode> const& not_applying)
{
  std::array<ModeSupport, run_mode_count> modes;
  for (auto& [mode, note] : refused) modes[static_cast<std::size_t>(mode)] = {false, std::move(note)};
  for (RunMode mode : not_applying) modes[static_cast<std::size_t>(mode)].applies = false;
  return modes;
}

std::string baseline_lacks(std::string const& what) { return "the assembled baseline has no " + what; }

char const* to_string(RunMode mode)
{
  switch (mode) {
  case RunMode::over_ranks:
    return "ranks";
  case RunMode::single_precision:
    return "single";
  case RunMode::mixed_precision:
    return "mixed";
  case RunMode::assembled:
    return "assembled";
  case RunMode::gpu:
    return "GPU";
  case RunMode::local_steps:
    return "local";
  }
  return "";
}

std::vector<Capability> const& capabilities()
{
  static std::vector<Capability> const table = [] {
    auto rows = make_capabilities();
    for (auto const& model : capability_models()) rows.push_back(model.row);
    return rows;
  }();
  return table;
}

bool steps_on_gpu(io::Config const& config)
{
  return config.solver.backend == io::Backend::default_space &&
         !std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::DefaultHostExecutionSpace>;
}

std::vector<RunMode> run_modes(io::Config const& config, bool over_ranks, bool on_gpu)
{
  std::vector<RunMode> modes;
  if (over_ranks) modes.push_back(RunMode::over_ranks);
  if (config.solver.formulation == solver::FormulationKind::assembled) modes.push_back(RunMode::assembled);
  if (config.solver.field_precision == kernels::FieldPrecision::float32)
    modes.push_back(RunMode::single_precision);
  else if (config.solver.precision == kernels::MatrixPrecision::float32)
    modes.push_back(RunMode::mixed_precision);
  if (on_gpu) modes.push_back(RunMode::gpu);
  if (config.time.local_steps > 1) modes.push_back(RunMode::local_steps);
  return modes;
}

std::optional<Error> refusal(io::Config const& config, std::vector<RunMode> const& modes)
{
  for (RunMode mode : modes)
    for (auto const& capability : capabilities()) {
      if (capability.in(mode).runs || !capability.used_at) continue;
      auto const lines = capability.used_at(config);
      if (!lines.empty()) return refused(config, capability, mode, lines.front());
    }
  return std::nullopt;
}

void refuse_unsupported(io::Config const& config, std::vector<RunMode> const& modes)
{
  if (auto error = refusal(config, modes)) throw *error;
}

void print_capabilities(std::ostream& out)
{
  std::size_t item_width = 0, key_width = 0;
  for (auto const& c : capabilities()) {
    item_width = std::max(item_width, c.summary.size());
    key_width = std::max(key_width, c.key.size());
  }
  auto const row = [&](std::string const& summary, std::string const& key,
                       std::array<std::string, run_mode_count> const& cells) {
    char line[512];
    int n = std::snprintf(line, sizeof line, "%-*s  %-*s", static_cast<int>(item_width), summary.c_str(),
                          static_cast<int>(key_width), key.c_str());
    for (auto const& cell : cells) n += std::snprintf(line + n, sizeof line - n, "  %-9s", cell.c_str());
    std::string text(line);
    text.erase(text.find_last_not_of(' ') + 1);
    out << text << '\n';
  };
  std::array<std::string, run_mode_count> header;
  for (std::size_t m = 0; m < run_mode_count; ++m) header[m] = to_string(static_cast<RunMode>(m));
  row("capability", "asked for by", header);
  for (auto const& c : capabilities()) {
    std::array<std::string, run_mode_count> cells;
    for (std::size_t m = 0; m < run_mode_count; ++m)
      cells[m] = !c.modes[m].applies ? "-" : c.modes[m].runs ? "yes" : "no";
    row(c.summary, c.key, cells);
  }
  out << "\nranks: over MPI ranks (mpirun -n N dgatd run); assembled: [solver] formulation = \"assembled\" (the\n"
         "baseline); single, mixed: [solver] precision; GPU: a CUDA build's default backend; local: [time]\n"
         "local_steps (levels of halving steps on graded meshes). A \"no\" is refused before the run starts, in one\n"
         "line at the configuration line that asks for it, with the fix.\n";
}

} // namespace dgatd::simulation
