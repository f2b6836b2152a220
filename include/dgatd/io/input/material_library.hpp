#pragma once
// Named dispersive materials with published models (`material = "Au"` in a [[material]] table,
// listed by `dgatd materials`): each one's eps_inf and poles, what it is and where its numbers come
// from.

#include "dgatd/dga/dispersion.hpp"

#include <string>
#include <vector>

namespace dgatd::io {

struct NamedMaterial {
  std::string name;
  std::string description; // what and where the model holds
  std::string source;      // the publication
  double eps_inf = 1;
  std::vector<dga::Pole> poles;
  double shown_at = 0; // the frequency (Hz) `dgatd materials` shows eps at: one inside the model's band
};

std::vector<NamedMaterial> const& material_library();
// The library's material of that name, or null.
NamedMaterial const* find_material(std::string const& name);

} // namespace dgatd::io
