// [[conductor]] beside a run: its line of the capabilities table, and its refusal in a time-domain
// run, which takes no conductors (their surfaces are PEC walls there, as any boundary is by default).
// `dgatd statics` solves them (simulation/statics.hpp).

#include "conductor.hpp"

#include "dgatd/error.hpp"
#include "simulation/capability_models.hpp"

#include <vector>

namespace dgatd::simulation {
namespace {

void refuse_conductors_in_a_run(io::Config const& config, std::vector<io::CapabilityItem> const& items,
                                Placement const& /*placement*/, solver::Formulation& /*formulation*/)
{
  throw Error(config.where(items.front().line),
              "[[conductor]] is solved by dgatd statics; dgatd run does not take conductors",
              "run dgatd statics " + config.name + ", or leave the [[conductor]] tables out of a time-domain run");
}

} // namespace

CapabilityModel conductor_model()
{
  return {{},
          {"[[conductor]]",
           "[[conductor]]",
           "electrostatics (dgatd statics)",
           runs_except({{RunMode::over_ranks, "run dgatd statics as one process, without mpirun"}},
                       {RunMode::assembled, RunMode::single_precision, RunMode::mixed_precision, RunMode::local_steps}),
           {}},
          refuse_conductors_in_a_run,
          {}};
}

} // namespace dgatd::simulation
