#include "watchdog.hpp"

#include "capability_models.hpp"
#include "simulation_impl.hpp"

#include "dgatd/vec3.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace dgatd::simulation {

void Watchdog::observe(std::int64_t step, double energy)
{
  if (tripped()) return;
  if (!std::isfinite(energy)) {
    tripped_at_ = step;
    ratio_ = energy;
    return;
  }
  if (factor_ <= 0 || step < arm_step_) return;
  samples_.push_back({step, energy});
  std::int64_t const middle = arm_step_ + (step - arm_step_) / 2;
  while (counted_ < samples_.size() && (samples_[counted_].step <= middle || counted_ == 0))
    reference_ = std::max(reference_, samples_[counted_++].energy);
  next_ = step + std::max<std::int64_t>(1, (step - arm_step_) / 64);
  if (reference_ > 0 && energy > factor_ * reference_) {
    tripped_at_ = step;
    ratio_ = energy / reference_;
  }
}

namespace {

// A pulse has stopped driving after t0 + 6 sigma, a sine has ramped up after its ramp.
double driven_until(solver::Waveform const& w)
{
  if (w.kind == solver::WaveformKind::sine) return w.ramp;
  return w.end_time();
}

} // namespace

std::int64_t Simulation::Impl::sources_peaked_step() const
{
  double peaked = 0;
  for (auto const& source : config.sources) peaked = std::max(peaked, driven_until(source.waveform));
  for (auto const& model : capability_models()) {
    auto const items = config.capability_items.find(model.table);
    if (model.waveforms && items != config.capability_items.end())
      for (auto const& w : model.waveforms(items->second)) peaked = std::max(peaked, driven_until(w));
  }
  return static_cast<std::int64_t>(std::ceil(peaked / plan.dt));
}

std::string Simulation::Impl::largest_field_place() const
{
  std::vector<Vec3> e, h;
  tet_fields(e, h);
  auto const& mesh = output_problem().mesh;
  if (e.empty() || e.size() != mesh.tets.size() || mesh.tet_region.size() != mesh.tets.size()) return {};
  std::size_t best = 0;
  double largest = -1;
  bool finite = true;
  for (std::size_t t = 0; t < e.size() && finite; ++t) {
    double const magnitude = norm(e[t]);
    finite = std::isfinite(magnitude);
    if (!finite || magnitude > largest) {
      best = t;
      largest = magnitude;
    }
  }
  Vec3 centre{};
  for (Index v : mesh.tets[best]) centre = add(centre, scaled(mesh.points[v], 0.25));
  int const tag = mesh.tet_region[best];
  std::string region = "tag " + std::to_string(tag);
  for (auto const& group : mesh.groups)
    if (group.dim == 3 && group.tag == tag) region = "'" + group.name + "'";
  char point[128];
  std::snprintf(point, sizeof point, "(%.4g, %.4g, %.4g)", centre[0], centre[1], centre[2]);
  return std::string(finite ? "; E is largest" : "; E is first infinite or NaN") + " in region " + region + " near " +
         point;
}

std::string Simulation::Impl::growth_causes() const
{
  std::vector<std::string> causes;
  if (plan.local_levels > 1) {
    // The coarse step exceeds dt_max by design; the scheme's spectrum was checked, but not a lumped
    // port's forcing of the levels where it is extrapolated, which feeds the field back through the
    // port's current (docs/method/local_time_stepping.md, section 6).
    bool const port_in_levels = plan.local_current_level > 0 && !plan.local_currents_solved &&
                                std::any_of(config.sources.begin(), config.sources.end(),
                                            [](auto const& s) { return s.kind == io::SourceKind::lumped_port; });
    causes.push_back("the local steps' " + std::to_string(plan.local_levels) + " levels" +
                     (port_in_levels ? ", a lumped port's current forcing the finer ones" : "") +
                     (config.time.allow_unstable ? " past their checked step (remove allow_unstable)"
                                                 : " (fewer levels in [time] local_steps, or local_steps = \"off\")"));
  } else if (plan.dt > plan.dt_max) {
    causes.push_back("dt = " + format_number(plan.dt) + " s is above the stability bound dt_max = " +
                     format_number(plan.dt_max) + " s (remove allow_unstable, let dt = \"auto\")");
  }
  if (std::any_of(config.materials.begin(), config.materials.end(),
                  [](io::Material const& m) { return !m.poles.empty(); }))
    causes.push_back("an active dispersive model (fitted poles must be passive)");
  if (!config.pml.empty())
    causes.push_back("a matched layer too steep for its mesh (a larger reflection, a thicker layer)");
  for (auto const& layer : problem.layers)
    if (layer.straddling_tets > 0)
      causes.push_back("a shell meshed as one volume: " + std::to_string(layer.straddling_tets) + " tets of PML '" +
                       layer.name +
                       "' straddle a plane where one axis's stretch starts (mesh the shell as 26 blocks, six "
                       "slabs, twelve bars and eight corners, fragmented with the domain: docs/method/open_regions.md, "
                       "section 3)");
  if (std::any_of(config.sources.begin(), config.sources.end(),
                  [](io::Source const& source) { return source.waveform.kind == solver::WaveformKind::sine; }))
    causes.push_back("a sine driving a lossless resonator at a resonance (add a loss or an open boundary)");
  causes.push_back("badly shaped tets (dgatd info names the worst)");
  std::string text = "likely causes: ";
  for (std::size_t i = 0; i < causes.size(); ++i) text += (i ? "; " : "") + causes[i];
  return text;
}

} // namespace dgatd::simulation
