#include "dgatd/mesh/mesh.hpp"

#include "dgatd/error.hpp"

#include <string>

namespace dgatd::mesh {
namespace {

std::string kind_of_group(int dim)
{
  if (dim == 3) return "physical volume";
  if (dim == 2) return "physical surface";
  if (dim == 1) return "physical curve";
  return "physical group of dimension " + std::to_string(dim);
}

} // namespace

int Mesh::group_tag(int dim, std::string const& name) const
{
  for (auto const& group : groups)
    if (group.dim == dim && group.name == name) return group.tag;
  std::string known;
  for (auto const& group : groups) {
    if (group.name.empty()) continue;
    known += (known.empty() ? "" : ", ") +
             ("'" + group.name + "' (" + kind_of_group(group.dim) + " " + std::to_string(group.tag) + ")");
  }
  throw Error(source,
              "no " + kind_of_group(dim) + " named '" + name +
                  "'; known groups: " + (known.empty() ? "none (the mesh has no named physical groups)" : known),
              "use one of the known names, or name the group in the .geo file (Physical Volume/Surface(\"" + name +
                  "\") = {...})");
}

} // namespace dgatd::mesh
