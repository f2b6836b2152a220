// dgatd ports: the modes of a configuration's port surfaces before a run (simulation/ports.hpp): for
// each mode port and TE10 port, its cross-section's lowest modes with their cutoffs, effective
// permittivities and characteristic impedances, and which one the port launches.
#include "commands.hpp"

#include "dgatd/error.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/simulation/ports.hpp"
#include "dgatd/simulation/problem.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace dgatd::app {
namespace {

struct PortsCommand {
  std::string config;
  int modes = 4;
};

// The surface's modes, the ones its ports launch marked: one port per mode port on the surface (a
// multimode port), or its TE10 port.
void print_modes(io::Source const& source, std::vector<int> const& launched, simulation::PortModes const& found)
{
  auto const& section = found.section;
  std::printf("port '%s' (%s, line %d): a section of %lld triangles, %d conductor%s; solved in %.2f s\n",
              source.surface.c_str(), io::to_string(source.kind), source.line,
              static_cast<long long>(section.num_triangles()), section.conductor_count,
              section.conductor_count == 1 ? "" : "s", found.seconds);
  std::printf("  %4s %5s %16s %10s %12s %10s\n", "mode", "kind", "cutoff (Hz)", "eps_eff", "Z0 (ohm)", "iterations");
  for (std::size_t k = 0; k < found.modes.size(); ++k) {
    auto const& mode = found.modes[k];
    bool const is_launched = std::find(launched.begin(), launched.end(), static_cast<int>(k) + 1) != launched.end();
    char impedance[32] = "-";
    if (mode.kind == solver::ModeKind::tem) std::snprintf(impedance, sizeof impedance, "%.4f", mode.impedance);
    std::printf("  %4zu %5s %16.6g %10.5f %12s %10d%s\n", k + 1, solver::mode_kind_name(mode.kind).c_str(),
                mode.cutoff_frequency, mode.eps_eff, impedance, mode.iterations, is_launched ? "  <- launched" : "");
  }
}

int run_ports(PortsCommand const& command)
{
  auto const config = io::load_config(command.config);
  auto const mesh = simulation::load_mesh(config);
  auto const materials = simulation::materials_of(config, mesh);
  std::set<std::string> listed;
  for (auto const& source : config.sources) {
    if (source.kind != io::SourceKind::mode_port && source.kind != io::SourceKind::port_te10) continue;
    if (!listed.insert(source.surface).second) continue;
    std::vector<int> launched;
    for (auto const& port : config.sources)
      if (port.kind == io::SourceKind::mode_port && port.surface == source.surface) launched.push_back(port.mode);
    std::string const where = config.where(source.line);
    int const tag = simulation::surface_tag(mesh, source.surface, where);
    int count = command.modes;
    for (int mode : launched) count = std::max(count, mode);
    print_modes(source, launched, simulation::port_modes(config, mesh, materials, tag, count, where));
  }
  if (listed.empty())
    throw Error(config.name, "has no port ([[source]] kind = \"mode_port\" or \"port_te10\")",
                "give the configuration of a run with ports");
  return 0;
}

} // namespace

void add_ports_command(CLI::App& app, Action* action)
{
  auto command = std::make_shared<PortsCommand>();
  auto* ports = app.add_subcommand("ports", "Print the modes of a configuration's ports (mode ports and TE10 ports): "
                                            "cutoffs, effective permittivities, characteristic impedances");
  ports->add_option("config", command->config, "The run's configuration (.toml)")->required()->check(CLI::ExistingFile);
  ports->add_option("--modes", command->modes, "How many modes of each port to list (default 4)")
      ->check(CLI::Range(1, io::Source::max_port_modes));
  ports->callback([action, command] { *action = [command] { return run_ports(*command); }; });
}

} // namespace dgatd::app
