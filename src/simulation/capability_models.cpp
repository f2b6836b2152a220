#include "capability_models.hpp"

#include <stdexcept>

namespace dgatd::simulation {

#define DGATD_CAPABILITY(NAME) CapabilityModel NAME##_model();
#include "capabilities/registry.def"
#undef DGATD_CAPABILITY

namespace {

std::vector<int> item_lines(io::Config const& config, std::string const& table)
{
  std::vector<int> lines;
  auto const items = config.capability_items.find(table);
  if (items == config.capability_items.end()) return lines;
  for (auto const& item : items->second) lines.push_back(item.line);
  return lines;
}

std::vector<CapabilityModel> make_models()
{
#define DGATD_CAPABILITY(NAME) NAME##_model(),
  std::vector<CapabilityModel> models{
#include "capabilities/registry.def"
  };
#undef DGATD_CAPABILITY
  for (auto& model : models) {
    if (model.row.in(RunMode::over_ranks).runs)
      throw std::logic_error(model.table + ": the set-up over ranks does not call the capabilities' own models yet");
    if (!model.row.used_at)
      model.row.used_at = [table = model.table](io::Config const& config, std::vector<mesh::PhysicalGroup> const*) {
        return item_lines(config, table);
      };
  }
  return models;
}

} // namespace

std::vector<CapabilityModel> const& capability_models()
{
  static std::vector<CapabilityModel> const models = make_models();
  return models;
}

} // namespace dgatd::simulation
