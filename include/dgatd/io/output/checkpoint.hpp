#pragma once
// A run's checkpoint, <output stem>.checkpoint.h5: everything a later `dgatd run --restart` needs to
// continue bit for bit and to refuse what it cannot continue. It holds the configuration text, the
// mesh the run stepped (a generated mesh is not regenerated: Gmsh's HXT does not reproduce its
// meshes), the time step, the formulation's unknowns and the step they belong to.
//
// Layout: attributes of /  dgatd_version, kind = "dgatd checkpoint", config, formulation, backend,
//                          dt, dt_max, power_iterations (the bound's iterations, whatever the
//                          method), step, mesh_fingerprint (hex)
//         /state/e, /state/h, /state/auxiliary       the formulation's unknowns (FormulationState)
//         /mesh/points, tets, tet_region, boundary_triangles, boundary_triangle_tag, group_dims,
//         group_tags; attributes source, group_names (one per line)
// It is written to <path>.partial and renamed, so a run killed while writing one leaves the previous
// checkpoint intact.

#include "dgatd/mesh/mesh.hpp"
#include "dgatd/solver/formulation.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dgatd::io {

struct Checkpoint {
  std::string config_text;
  std::string backend; // the execution space that ran, for messages
  double dt = 0;
  double dt_max = 0;
  int bound_iterations = 0;
  double local_step_margin = 1; // the levels' margin of a run with local time steps
  int local_levels_held = 0;    // and the levels it held against its pinned tets (0: none held)
  mesh::Mesh mesh;
  solver::FormulationState state; // its kind, step and unknowns
};

// out.h5 -> out.checkpoint.h5
std::string checkpoint_path(std::string const& output_path);

// Throws dgatd::Error naming the file when it cannot be written; a previous checkpoint at path stays
// intact then.
void write_checkpoint(std::string const& path, Checkpoint const& checkpoint);

// Throws dgatd::Error naming the file when it is missing, not HDF5, not a dgatd checkpoint or damaged.
Checkpoint read_checkpoint(std::string const& path);

// A hash of the mesh's points, tets, regions and boundary tags: equal meshes give equal values.
std::uint64_t mesh_fingerprint(mesh::Mesh const& m);

} // namespace dgatd::io
