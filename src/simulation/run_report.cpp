#include "simulation_impl.hpp"

#include "dgatd/dga/operators.hpp"
#include "dgatd/mesh/ordering.hpp"
#include "dgatd/mesh/statistics.hpp"
#include "dgatd/solver/formulation_kind.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <ostream>
#include <vector>

namespace dgatd::simulation {
namespace {

// A few slivers that hold dt down (mesh::pace_setting_tets) are said with where the worst one is,
// so that a user can mend the mesh rather than wait. Without materials (the mesh a run from parts
// gathers) the tets are taken in vacuum.
void report_pace_setters(std::ostream& out, Problem const& p)
{
  std::vector<double> slowness;
  if (p.materials.eps.size() == p.mesh.tets.size() && p.materials.mu.size() == p.mesh.tets.size())
    for (std::size_t t = 0; t < p.mesh.tets.size(); ++t)
      slowness.push_back(std::sqrt(p.materials.eps[t] * p.materials.mu[t] / (dga::eps0 * dga::mu0)));
  auto const pace = mesh::pace_setting_tets(p.mesh, slowness, 1);
  if (pace.outliers == 0) return;
  Vec3 centre{};
  for (Index v : p.mesh.tets[pace.shortest.front()])
    for (int k = 0; k < 3; ++k) centre[k] += 0.25 * p.mesh.points[v][k];
  char line[512];
  std::snprintf(line, sizeof line,
                "  warning: %lld tet%s hold%s dt down: inradius (times the slowness of light) below half that of "
                "the 0.1 %% of tets next in line; the smallest, at (%.6g, %.6g, %.6g) m, %.3g times smaller "
                "(slivers? dgatd info names them)\n",
                static_cast<long long>(pace.outliers), pace.outliers == 1 ? "" : "s", pace.outliers == 1 ? "s" : "",
                centre[0], centre[1], centre[2], pace.quantile_bound / pace.bound.front());
  out << line;
}

} // namespace

void Simulation::Impl::report_start(std::int64_t first_step) const
{
  if (!options.report) return;
  auto& out = *options.report;
  auto const& p = output_problem();
  auto const counts = whole_counts();
  out << "dgatd run: " << (parts ? parts->source : p.mesh.source) << "\n  " << counts.vertices << " vertices, "
      << counts.edges << " edges, " << counts.faces << " faces, " << counts.tets << " tets ("
      << mesh::ordering_name(config.mesh.ordering) << " ordering"
      << (parts ? ", read in " + std::to_string(parts->ranks) + " parts from " + parts->directory : std::string())
      << "); " << (over_ranks ? whole_free_unknowns : p.operators.layout.num_free) << " free half-edge and "
      << 4 * counts.tets << " dual half-edge unknowns\n"
      << "  dt_max = " << plan.dt_max << " s (Lanczos, " << plan.bound_iterations << " iterations), dt = " << plan.dt
      << " s, " << plan.steps << " steps to t = " << plan.steps * plan.dt << " s\n"
      << "  " << solver::to_string(formulation->kind()) << " formulation, "
      << (config.solver.field_precision == kernels::FieldPrecision::float32
              ? "single precision (float matrices and fields)"
          : config.solver.precision == kernels::MatrixPrecision::float32 ? "mixed precision (float matrices)"
                                                                         : "double precision")
      << ", on " << backend << " (concurrency " << concurrency << ")\n";
  out << port_modes_report;
  if (config.time.local_steps > 1) {
    // A restart's dt was checked by the run that wrote its checkpoint.
    char spectrum[160] = "";
    if (plan.local_spectrum_highest > 0)
      std::snprintf(spectrum, sizeof spectrum,
                    "; the scheme's dt^2 lambda / 4 at most %.4f (%d spectra, %lld coarse steps' work)",
                    plan.local_spectrum_highest, plan.local_search_spectra,
                    static_cast<long long>(plan.local_search_products));
    char line[400];
    if (plan.local_levels_unstable)
      std::snprintf(line, sizeof line,
                    "  local steps: one level, one global step (no margin on the tets' own steps made more levels "
                    "stable: dgatd info names the mesh's smallest steps)\n");
    else if (plan.local_levels == 1)
      std::snprintf(line, sizeof line, "  local steps: one level, one global step\n");
    else
      std::snprintf(line, sizeof line,
                    "  local steps: %d levels (dt down to dt/%lld), %.2fx fewer tet updates than one global step at "
                    "the finest level's%s\n",
                    plan.local_levels, static_cast<long long>(std::int64_t{1} << (plan.local_levels - 1)),
                    plan.local_work_ratio, spectrum);
    out << line;
    if (plan.local_tets_by_level) {
      out << "  (the tets numbered by level, so that each level's passes stream";
      if (plan.local_updates_per_break > 0)
        out << ": in the locality order their lists broke every " << std::lround(plan.local_updates_per_break)
            << " tet updates";
      out << ")\n";
    }
    if (plan.local_levels > 1 && plan.local_current_level > 0) {
      bool const lumped_port = std::any_of(config.sources.begin(), config.sources.end(), [](auto const& source) {
        return source.kind == io::SourceKind::lumped_port;
      });
      out << "  (the driven currents lie on level " << plan.local_current_level << ", stepping dt/"
          << (std::int64_t{1} << plan.local_current_level) << ": the levels' steps force their rows"
          << (!lumped_port                 ? ""
              : plan.local_currents_solved ? ", the lumped ports' currents solved through the levels"
                                           : ", a lumped port's current extrapolated from its last three steps")
          << "; docs/method/local_time_stepping.md, sections 4 and 6)\n";
    }
    if (plan.local_levels < plan.local_levels_of_the_steps)
      out << "  (the tets' own steps allow " << plan.local_levels_of_the_steps << " levels; " << plan.local_pinned_tets
          << " tets beside matched layers and plane-wave surfaces step the coarse step, and "
          << plan.local_limiting_tets << " of them allow fewer: dgatd info names the mesh's smallest steps)\n";
  }
  if (over_ranks) {
    auto const [fewest, most] = std::minmax_element(part_tets.begin(), part_tets.end());
    double const halo = std::accumulate(part_halo_values.begin(), part_halo_values.end(), 0.0);
    out << "  " << part_tets.size() << " ranks: " << *fewest << " to " << *most
        << " tets stepped per rank (its own and one layer of ghost tets); halo exchange " << halo
        << " values per step in all (" << halo * sizeof(double) / 1024.0 << " KiB), rank 0 through "
        << formulation->halo().buffers;
    if (plan.local_levels > 1) {
      // Each level's middle step exchanges its own unknowns (LocalStepsOverRanks).
      out << "; with local steps " << (std::int64_t{1} << (plan.local_levels - 1)) - 1
          << " more exchanges per coarse step (the levels' middle steps), " << part_local_step_values
          << " values in all, none overlapped; each level's tets, the most a rank owns over the mean:";
      for (std::size_t k = 0; k < plan.local_level_imbalance.size(); ++k) {
        char balance[32];
        std::snprintf(balance, sizeof balance, "%s %.2f", k ? "," : "", plan.local_level_imbalance[k]);
        out << balance;
      }
      out << " (coarsest first)";
    } else if (double const after = formulation->halo().share_after_exchange; after > 0) {
      char share[96];
      std::snprintf(share, sizeof share, "; Faraday on %.1f %% of rank 0's tets while it flies", 100 * (1 - after));
      out << share;
    }
    out << "\n";
  }
  // Every rank's problem reports the whole layers (a part's learnt them over the ranks).
  for (auto const& layer : problem.layers) {
    out << "  PML '" << layer.name << "': " << layer.num_tets << " tets, " << layer.thickness << " m thick ("
        << layer.thickness / layer.element_size << " mean edges), alpha_max = " << layer.alpha_max
        << " 1/s, alpha_max dt = " << layer.alpha_max * plan.dt;
    if (layer.shift > 0) out << ", cfs shift " << layer.shift << " 1/s (" << layer.shift / (2 * M_PI) << " Hz)";
    out << "\n";
  }
  if (auto const& modes = problem.operators.stretched_tet_modes; !modes.empty() && !over_ranks) {
    auto with = [&](int count) {
      return std::count_if(modes.begin(), modes.end(), [&](auto const& m) { return m.count == count; });
    };
    out << "  stretched tets: " << modes.size() << ", " << with(1) << " with one auxiliary per subregion, " << with(3)
        << " with three, " << with(0) << " with six (docs/method/open_regions.md, section 3)\n";
  }
  report_pace_setters(out, p);
  if (first_step > 0)
    out << "  restarting from " << options.restart_from << " at step " << first_step << " (t = " << first_step * plan.dt
        << " s)\n";
  out << std::flush;
}

void Simulation::Impl::report_end(std::int64_t steps_taken, RunResult const& result) const
{
  if (!options.report) return;
  auto const counts = whole_counts();
  print_stage_times(*options.report, times, steps_taken,
                    2 * static_cast<double>(counts.edges) + 4.0 * static_cast<double>(counts.tets));
  if (over_ranks && times.stepping > 0) {
    double const most = *std::max_element(part_halo_seconds.begin(), part_halo_seconds.end());
    char line[256];
    std::snprintf(line, sizeof line,
                  "  halo exchange: %.3f s of the stepping on rank 0 (%.1f %%), %.3f s on the rank that waited "
                  "longest (%.1f %%), the wait for slower neighbours included\n",
                  part_halo_seconds[0], 100 * part_halo_seconds[0] / times.stepping, most, 100 * most / times.stepping);
    *options.report << line;
  }
  if (result.complete) *options.report << "  wrote " << result.output << "\n" << std::flush;
}

} // namespace dgatd::simulation
