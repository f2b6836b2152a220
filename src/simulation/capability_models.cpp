#include "capability_models.hpp"

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

// The model as registered under name, its table's: found at the lines of the table's items unless it
// says otherwise.
CapabilityModel registered(std::string const& name, CapabilityModel model)
{
  model.table = name;
  if (!model.row.used_at) model.row.used_at = [name](io::Config const& config) { return item_lines(config, name); };
  return model;
}

} // namespace

std::vector<CapabilityModel> const& capability_models()
{
#define DGATD_CAPABILITY(NAME) registered(#NAME, NAME##_model()),
  static std::vector<CapabilityModel> const models{
#include "capabilities/registry.def"
  };
#undef DGATD_CAPABILITY
  return models;
}

} // namespace dgatd::simulation
