#pragma once
// The readers of a run configuration's tables, one per table of config_schema(): each checks its
// keys, types and ranges and returns the table's part of io::Config, or throws a dgatd::Error at
// the file, line and key. An array of tables ([[material]], ...) is read whole, so that an item
// given twice is refused at its second line. Lengths are multiplied by scale ([mesh] scale) and
// paths resolved from base_dir. Private to io/input (config.cpp parses the file and calls them).

#include "dgatd/io/input/config.hpp"
#include "table_reader.hpp"

#include <toml.hpp>

#include <string>
#include <vector>

namespace dgatd::io::detail {

MeshConfig read_mesh(std::string const& file, toml::value const& table, std::string const& base_dir);
std::vector<Material> read_materials(std::string const& file, toml::value const& tables);
std::vector<Pml> read_pmls(std::string const& file, toml::value const& tables);
BoundaryConfig read_boundary(std::string const& file, toml::value const& table);
std::vector<Source> read_sources(std::string const& file, toml::value const& tables, double scale);
std::vector<LumpedConfig> read_lumped(std::string const& file, toml::value const& tables);
TimeConfig read_time(std::string const& file, toml::value const& table);
std::vector<Probe> read_probes(std::string const& file, toml::value const& tables, double scale);
std::vector<FarFieldConfig> read_farfields(std::string const& file, toml::value const& tables);
// table: the [output] table, or nullptr without one (the defaults).
OutputConfig read_output(std::string const& file, toml::value const* table, std::string const& base_dir);
SolverConfig read_solver(std::string const& file, toml::value const& table);

// What several tables share, for the capabilities' own tables (src/capabilities/) too: a waveform
// from the keys waveform, amplitude, t0, sigma, frequency and ramp; one physical volume name or a
// list of them.
solver::Waveform read_waveform(TableReader const& t);
std::vector<std::string> volume_names(TableReader const& t, std::string const& key);
// One physical surface name or a non-empty list of them; why says what they are for.
std::vector<std::string> surface_names(TableReader const& t, std::string const& key, std::string const& why);

} // namespace dgatd::io::detail
