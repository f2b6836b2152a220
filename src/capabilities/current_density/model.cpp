// [[current_density]] in a run: what it runs with, its stencil and its term.

#include "current_density.hpp"
#include "term.hpp"

#include "dgatd/error.hpp"
#include "dgatd/solver/stencils.hpp"
#include "dgatd/solver/term_recipe.hpp"
#include "simulation/capability_models.hpp"

#include <algorithm>
#include <any>
#include <map>
#include <memory>
#include <type_traits>

namespace dgatd::simulation {
namespace {

// The currents of J0 in the tets of tags, by the Galerkin integral of the density against each
// half-edge's basis: I_k = sum over the subregions (t, v) that hold half-edge k of |t|/4 J0 . w^i,
// the bases w^i being constant on a subregion, a quarter of its tet. A vertex block wholly inside
// the volumes then gets (Meps)^-1 I = J0 / eps along its half-edges: the uniform field J0 / eps
// that a uniform density drives, as in the continuum (the tests check it). Over ranks a part keeps
// the rows of the blocks it owns (owned_blocks; empty: all), which it holds every tet around: the
// halo exchange overwrites the others, and each row's work is counted once over the ranks.
capabilities::CurrentDensityStencil current_density_stencil(Problem const& problem, std::vector<int> const& tags,
                                                            Vec3 const& density, std::vector<char> const& owned_blocks)
{
  auto const view = problem.view();
  auto const& layout = problem.operators.layout;
  std::map<Index, double> currents;
  for (Index t = 0; t < problem.mesh.num_tets(); ++t) {
    if (std::find(tags.begin(), tags.end(), problem.mesh.tet_region[t]) == tags.end()) continue;
    double const quarter = problem.geometry.tet_volume[t] / 4;
    for (int lv = 0; lv < 4; ++lv) {
      auto const frame = solver::subregion_frame(view, layout, t, lv);
      for (int i = 0; i < 3; ++i)
        if (frame.dofs[i] < layout.num_free && (owned_blocks.empty() || owned_blocks[layout.block_of(frame.dofs[i])]))
          currents[frame.dofs[i]] += quarter * dot(density, frame.w[i]);
    }
  }
  capabilities::CurrentDensityStencil stencil;
  for (auto const& [row, current] : currents) {
    stencil.current_rows.push_back(row);
    stencil.currents.push_back(current);
  }
  stencil.update = solver::apply_block_inverses(problem.operators, stencil.current_rows, stencil.currents);
  return stencil;
}

void add_current_densities(io::Config const& config, std::vector<io::CapabilityItem> const& items,
                           Placement const& placement, solver::Formulation& formulation)
{
  std::map<std::string, int> names;
  for (auto const& item : items) {
    auto const& density = std::any_cast<capabilities::CurrentDensity const&>(item.value);
    std::string const where = config.where(item.line);
    if (!names.emplace(density.name, item.line).second)
      throw Error(where,
                  "[[current_density]] name = \"" + density.name + "\" is already used at line " +
                      std::to_string(names[density.name]),
                  "give each [[current_density]] its own name");
    std::vector<int> tags;
    for (auto const& region : density.regions)
      tags.push_back(placement.volume_tag(region, "[[current_density]]", where));
    auto const stencil = current_density_stencil(placement.problem(), tags, density.density, placement.owned_blocks());
    if (placement.largest(static_cast<double>(stencil.current_rows.size())) == 0)
      throw Error(where, "[[current_density]] drives no free unknown: its volumes lie on PEC surfaces",
                  "name a volume inside the computational domain");
    solver::Signal const waveform = solver::strength(density.waveform);
    formulation.add_term(solver::TermRecipe("an impressed current density", [name = density.name, stencil,
                                                                             waveform](auto const& space) {
      return std::make_unique<capabilities::CurrentDensityTerm<std::decay_t<decltype(space)>>>(name, stencil, waveform);
    }));
  }
}

std::vector<solver::Waveform> current_density_waveforms(std::vector<io::CapabilityItem> const& items)
{
  std::vector<solver::Waveform> waveforms;
  for (auto const& item : items)
    waveforms.push_back(std::any_cast<capabilities::CurrentDensity const&>(item.value).waveform);
  return waveforms;
}

} // namespace

CapabilityModel current_density_model()
{
  return {{},
          {"an impressed current density",
           "[[current_density]]",
           "uniform J(t) in volumes",
           runs_except(
               {{RunMode::single_precision, ""}, {RunMode::assembled, baseline_lacks("impressed current densities")}}),
           {}},
          add_current_densities,
          current_density_waveforms};
}

} // namespace dgatd::simulation
