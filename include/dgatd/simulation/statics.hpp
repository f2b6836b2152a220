#pragma once
// The electrostatic problem of a configuration (`dgatd statics`, docs/method/electrostatics.md): the
// potential around the [[conductor]]s, each held at its potential or carrying its charge, in the
// [[material]]s' static permittivities, every boundary that is no conductor natural (zero normal D:
// a symmetry plane, or an outer surface far enough away). One conjugate-gradient solve per
// conductor (with it at 1 V and the others at 0) gives the Maxwell capacitance matrix; the
// conductors' potentials and charges follow from it, and the potential from the solves.

#include "dgatd/index.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/mesh/mesh.hpp"
#include "dgatd/vec3.hpp"

#include <string>
#include <vector>

namespace dgatd::simulation {

struct StaticsOptions {
  double tolerance = 1e-10; // the conjugate gradients' relative residual
  int max_iterations = 20000;
};

struct StaticConductor {
  std::string name;
  Index vertices = 0;
  bool potential_given = true;
  double potential = 0; // V: given, or found for a charge given
  double charge = 0;    // C: found, or given
  int iterations = 0;   // of its solve at 1 V
  double relative_residual = 0;
  int line = 0; // of its [[conductor]] table
};

struct StaticsSolution {
  mesh::Mesh mesh;
  std::vector<double> eps_r;     // static relative permittivity per tet
  std::vector<double> potential; // V, per vertex
  std::vector<Vec3> field;       // E = -grad phi, V/m, per tet
  std::vector<StaticConductor> conductors;
  std::vector<std::vector<double>> capacitance; // the Maxwell capacitance matrix, F, conductors' order
  double energy = 0;                            // J
  double largest_field = 0;                     // V/m, the largest |E| of a tet
  Vec3 largest_field_at{};                      // that tet's centroid
  Index free_vertices = 0;
  double mesh_seconds = 0, assembly_seconds = 0, solve_seconds = 0;
  // What the solve left out of the configuration (conductivities), one sentence each.
  std::vector<std::string> notes;
};

// Solves config's electrostatic problem on the default execution space. Throws dgatd::Error at the
// configuration's line for a conductor the mesh lacks, two conductors that touch, no conductor
// with a potential (the potentials would be undetermined), a medium that conducts at zero frequency
// (a Drude pole) or conjugate gradients that do not converge.
StaticsSolution solve_statics(io::Config const& config, StaticsOptions const& options = {});

// Where solve_statics' solution goes by default: [output] file with the extension .statics.h5.
std::string statics_output_path(io::Config const& config);

// The solution as HDF5 (written as path.partial and renamed when complete) and the XDMF beside it
// (path with the extension .xdmf) that ParaView opens: the mesh, the potential at the vertices, E and
// eps_r per tet, the conductors and the capacitance matrix (docs/user/outputs.md).
void write_statics(StaticsSolution const& solution, io::Config const& config, std::string const& path);

} // namespace dgatd::simulation
