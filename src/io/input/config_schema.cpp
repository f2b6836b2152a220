#include "dgatd/io/input/config_schema.hpp"

#include "dgatd/io/input/capability_tables.hpp"

#include <stdexcept>

namespace dgatd::io {

namespace {

std::vector<TableSchema> make_config_schema()
{
  std::vector<TableSchema> schema{
      {"[mesh]",
       "mesh",
       false,
       {"file", "generate", "size", "radius", "height", "h", "inner", "cuts", "tfsf", "h_sphere", "grading",
        "dielectric", "scale", "output", "reproducible", "pml", "ordering", "parts"}},
      {"[[material]]", "material", true, {"region", "material", "eps_r", "eps_inf", "mu_r", "sigma", "pole"}},
      {"[[pml]]", "pml", true, {"region", "order", "reflection", "cfs_frequency"}},
      {"[boundary]", "boundary", false, {"pec", "absorbing"}},
      {"[[source]]",
       "source",
       true,
       {"kind", "position", "direction", "surface", "matched", "mode", "region", "polarization", "origin", "resistance",
        "amplitude", "waveform", "t0", "sigma", "frequency", "ramp"}},
      {"[time]", "time", false, {"t_end", "steps", "dt", "safety", "allow_unstable", "local_steps"}},
      {"[[probe]]", "probe", true, {"name", "position"}},
      {"[[farfield]]", "farfield", true, {"surface", "frequencies"}},
      {"[output]",
       "output",
       false,
       {"file", "snapshot_every", "snapshot_volume", "energy_every", "checkpoint_every", "progress", "watchdog"}},
      {"[solver]", "solver", false, {"formulation", "backend", "precision", "overlap_halo"}},
      {"[[lumped]]",
       "lumped",
       true,
       {"kind", "surface", "direction", "resistance", "capacitance", "inductance", "circuit"}},
  };
  for (auto const& table : capability_tables()) schema.push_back(table.schema);
  schema.push_back({"[mesh] inner", "", false, {"shape", "corner", "size"}});
  schema.push_back(
      {"[[material]] pole", "", true, {"kind", "delta_eps", "tau", "omega_p", "gamma", "omega_0", "delta", "a", "c"}});
  return schema;
}

} // namespace

std::vector<TableSchema> const& config_schema()
{
  static std::vector<TableSchema> const schema = make_config_schema();
  return schema;
}

TableSchema const& table_schema(std::string const& label)
{
  for (auto const& table : config_schema())
    if (table.label == label) return table;
  throw std::logic_error("no configuration table labelled " + label);
}

} // namespace dgatd::io
