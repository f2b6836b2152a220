#include "dgatd/simulation/config_errors.hpp"

namespace dgatd::simulation {
namespace {

// The line of the table that asked for the item the error is about, or the file when none did.
std::string where_asked(io::Config const& config, ModelError const& error)
{
  if (error.subject() == ModelSubject::matched_layer)
    for (auto const& pml : config.pml)
      if (layer_name(pml) == error.name()) return config.where(pml.line);
  if (error.subject() == ModelSubject::matched_port)
    for (auto const& source : config.sources)
      if (((source.kind == io::SourceKind::port_te10 && source.matched) || source.kind == io::SourceKind::mode_port) &&
          source.surface == error.name())
        return config.where(source.line);
  if (error.subject() == ModelSubject::plane_wave)
    for (auto const& source : config.sources)
      if (source.kind == io::SourceKind::plane_wave && plane_wave_name(source) == error.name())
        return config.where(source.line);
  if (error.subject() == ModelSubject::far_field)
    for (auto const& far_field : config.farfields)
      if (far_field.surface == error.name()) return config.where(far_field.line);
  return config.name;
}

} // namespace

std::string layer_name(io::Pml const& pml)
{
  return pml.region_name.empty() ? std::to_string(pml.region_tag) : pml.region_name;
}

std::string plane_wave_name(io::Source const& source)
{
  std::string name;
  for (auto const& region : source.regions) name += (name.empty() ? "" : ", ") + region;
  return name;
}

Error config_error(io::Config const& config, ModelError const& error)
{
  std::string const where = where_asked(config, error);
  switch (error.subject()) {
  case ModelSubject::matched_layer: {
    auto const stable_order = error.fact("stable order");
    return Error(where, "[[pml]] region '" + error.name() + "' " + error.problem(),
                 stable_order ? "use order = " + format_number(*stable_order) + " (the default), or flat layers"
                              : error.remedy());
  }
  case ModelSubject::matched_port:
    return Error(where, "matched port '" + error.name() + "' " + error.problem(), error.remedy());
  case ModelSubject::far_field:
    return Error(where, "[[farfield]] surface '" + error.name() + "' " + error.problem(), error.remedy());
  case ModelSubject::plane_wave:
    return Error(where, "plane wave: total-field region '" + error.name() + "' " + error.problem(),
                 error.fact("materials met") ? "list every volume inside the total-field surface in the source's "
                                               "region, a dielectric scatterer too (region = [\"" +
                                                   error.name() +
                                                   "\", \"scatterer\"]), and keep one material "
                                                   "within a cell of the surface on both sides"
                                             : error.remedy());
  case ModelSubject::time_step: {
    auto const dt = error.fact("dt");
    return Error(where, (dt ? "dt = " + format_number(*dt) : std::string("the time step")) + " " + error.problem(),
                 "use a smaller dt or a gentler [[pml]] profile (larger reflection)");
  }
  }
  return Error(where, error.what(), "");
}

} // namespace dgatd::simulation
