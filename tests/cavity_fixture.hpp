#pragma once
// A closed PEC box on a jittered structured mesh, assembled in c = 1 units (eps = mu = 1), shared
// by the solver tests.

#include "dgatd/dga/operators.hpp"
#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/mesh/topology.hpp"
#include "dgatd/solver/stencils.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace dgatd::testing {

struct Cavity {
  mesh::Mesh mesh;
  mesh::Topology topology;
  mesh::Geometry geometry;
  dga::HostOperators operators;

  solver::MeshView view() const { return {mesh, topology, geometry}; }
};

inline Cavity pec_box(double a, double b, double d, int nx, int ny, int nz, double jitter,
                      dga::AssemblyOptions const& options = {})
{
  Cavity c;
  mesh::StructuredBox box;
  box.size[0] = a;
  box.size[1] = b;
  box.size[2] = d;
  box.cells[0] = nx;
  box.cells[1] = ny;
  box.cells[2] = nz;
  box.jitter = jitter;
  c.mesh = mesh::structured_box(box);
  c.topology = mesh::build_topology(c.mesh);
  c.geometry = mesh::build_geometry(c.mesh, c.topology);
  std::vector<dga::FaceKind> kinds(c.topology.num_faces(), dga::FaceKind::interior_or_pmc);
  for (auto f : c.topology.boundary_faces) kinds[f] = dga::FaceKind::pec;
  dga::Materials materials{std::vector<double>(c.mesh.tets.size(), 1.0), std::vector<double>(c.mesh.tets.size(), 1.0)};
  c.operators = dga::assemble(c.mesh, c.topology, c.geometry, materials, kinds, options);
  return c;
}

// Largest absolute difference over the largest reference magnitude: the max-norm relative error
// the equivalence and variant tests compare with their rounding bounds.
inline double relative_difference(std::vector<double> const& a, std::vector<double> const& reference)
{
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - reference[i]));
    scale = std::max(scale, std::abs(reference[i]));
  }
  return diff / scale;
}

} // namespace dgatd::testing
