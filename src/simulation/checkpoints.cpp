#include "simulation_impl.hpp"

#include "dgatd/mesh/ordering.hpp"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace dgatd::simulation {
namespace {

// Whether a and b hold the same vertices, surfaces and curves in the same order and the same tets
// (with their regions) in any order.
bool same_but_for_tet_order(mesh::Mesh const& a, mesh::Mesh const& b)
{
  if (a.points != b.points || a.boundary_triangles != b.boundary_triangles ||
      a.boundary_triangle_tag != b.boundary_triangle_tag || a.curve_segments != b.curve_segments ||
      a.curve_segment_tag != b.curve_segment_tag || a.tets.size() != b.tets.size() ||
      a.tet_region.size() != b.tet_region.size())
    return false;
  auto const sorted_tets = [](mesh::Mesh const& m) {
    std::vector<std::pair<std::array<Index, 4>, int>> tets(m.tets.size());
    for (std::size_t t = 0; t < tets.size(); ++t) tets[t] = {m.tets[t], m.tet_region.empty() ? 0 : m.tet_region[t]};
    std::sort(tets.begin(), tets.end());
    return tets;
  };
  return sorted_tets(a) == sorted_tets(b);
}

} // namespace

std::unique_ptr<io::Checkpoint> Simulation::Impl::read_restart_checkpoint() const
{
  auto const& path = options.restart_from;
  auto checkpoint = std::make_unique<io::Checkpoint>(io::read_checkpoint(path));
  if (checkpoint->config_text != config.text)
    throw Error(path, "was written by a run of another configuration than " + config.name,
                "restart with the configuration it was written with (the checkpoint's config attribute holds its "
                "text), or start the run afresh");
  return checkpoint;
}

mesh::Mesh Simulation::Impl::load_ordered_mesh(mesh::Mesh* given_mesh, io::Checkpoint* checkpoint) const
{
  // A generated or .geo mesh is not made again: the checkpoint holds the one the run stepped.
  if (checkpoint && !given_mesh && mesh_made_on_load(config)) return std::move(checkpoint->mesh);
  mesh::Mesh mesh = given_mesh ? std::move(*given_mesh) : load_mesh(config);
  mesh::order_for_locality(mesh, config.mesh.ordering);
  if (!checkpoint || io::mesh_fingerprint(mesh) == io::mesh_fingerprint(checkpoint->mesh)) return mesh;
  // The checkpoint holds the mesh as the run stepped it: ordered, and with local steps in one process
  // its tets numbered by level (number_tets_by_level), which the restart keeps.
  if (!same_but_for_tet_order(mesh, checkpoint->mesh))
    throw Error(options.restart_from, "was written on another mesh than " + mesh.source + " is now",
                "restart with the mesh the checkpoint was written on, or start the run afresh");
  return std::move(checkpoint->mesh);
}

// Over ranks, rank 0 alone reads the checkpoint: the others take what the set-up reads of it before
// the restore (the time plan and the step) from it here, and their parts of its state at the restore.
void Simulation::Impl::share_checkpoint(std::unique_ptr<io::Checkpoint>& checkpoint) const
{
  if (options.restart_from.empty()) return;
  bool const root = communicator->rank() == 0;
  std::vector<double> header;
  if (root)
    header = {checkpoint->dt,
              checkpoint->dt_max,
              static_cast<double>(checkpoint->bound_iterations),
              static_cast<double>(checkpoint->state.step),
              static_cast<double>(checkpoint->state.kind),
              checkpoint->local_step_margin,
              static_cast<double>(checkpoint->local_levels_held)};
  parallel::broadcast_numbers(*communicator, header, 0);
  if (root) return;
  checkpoint = std::make_unique<io::Checkpoint>();
  checkpoint->dt = header[0];
  checkpoint->dt_max = header[1];
  checkpoint->bound_iterations = static_cast<int>(header[2]);
  checkpoint->state.step = static_cast<std::int64_t>(header[3]);
  checkpoint->state.kind = static_cast<solver::FormulationKind>(static_cast<int>(header[4]));
  checkpoint->local_step_margin = header[5];
  checkpoint->local_levels_held = static_cast<int>(header[6]);
}

void Simulation::Impl::restore(io::Checkpoint const& checkpoint)
{
  auto const& state = checkpoint.state;
  if (!formulation->accepts(state) || state.step > plan.steps)
    throw Error(options.restart_from, "does not fit this run (formulation, unknowns or step count differ)",
                "restart with the checkpoint this configuration wrote, or start the run afresh");
  formulation->restore(state);
  restart_step = state.step;
}

io::Checkpoint Simulation::Impl::checkpoint() const
{
  io::Checkpoint c;
  c.config_text = config.text;
  c.backend = backend;
  c.dt = plan.dt;
  c.dt_max = plan.dt_max;
  c.bound_iterations = plan.bound_iterations;
  c.local_step_margin = plan.local_step_margin;
  c.local_levels_held = plan.local_levels_held;
  c.state = formulation->state();
  c.mesh = output_problem().mesh;
  return c;
}

} // namespace dgatd::simulation
