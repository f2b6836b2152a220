#pragma once
// The problems the loss, absorbing-surface and matched-layer tests share: a jittered box filled with
// a uniform conductor, and a TEM guide between PEC plates with matched layers at both ends.

#include "dgatd/dga/operators.hpp"
#include "dgatd/dga/pml.hpp"
#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/mesh/topology.hpp"
#include "dgatd/simulation/problem.hpp"
#include "dgatd/solver/stencils.hpp"

#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

namespace dgatd::testing {

// The loss tests' box: a x b x d in c = 1 units.
inline constexpr double a = 1.0, b = 0.75, d = 0.5;

// The box in c = 1 units (eps = mu = 1) with a uniform conductivity.
inline dgatd::simulation::Problem lossy_box(double sigma)
{
  dgatd::mesh::StructuredBox box;
  box.size[0] = a;
  box.size[1] = b;
  box.size[2] = d;
  box.cells[0] = 10;
  box.cells[1] = 8;
  box.cells[2] = 6;
  box.jitter = 0.2;
  auto mesh = dgatd::mesh::structured_box(box);
  std::size_t const n = mesh.tets.size();
  dgatd::dga::Materials materials{std::vector<double>(n, 1.0), std::vector<double>(n, 1.0),
                                  std::vector<double>(n, sigma)};
  return dgatd::simulation::make_problem(std::move(mesh), std::move(materials), {});
}

// A mesh with a matched layer (region 2), the layer as add_pml_layer found it, and the operators.
struct LayeredProblem {
  dgatd::mesh::Mesh mesh;
  dgatd::mesh::Topology topology;
  dgatd::mesh::Geometry geometry;
  dgatd::dga::PmlLayer layer;
  dgatd::dga::HostOperators operators;
};

// The TEM guide of the absorbing test (PEC plates, PMC sides), with matched layers of thickness
// `layer` at both ends (region 2) backed by PEC.
inline LayeredProblem layered_guide(double length, int cells, double layer, dgatd::dga::PmlProfile const& profile,
                                    double jitter, dgatd::dga::AssemblyOptions const& options = {})
{
  dgatd::mesh::StructuredBox box;
  box.size[0] = 0.1;
  box.size[1] = 0.1;
  box.size[2] = length;
  box.cells[0] = 4;
  box.cells[1] = 4;
  box.cells[2] = cells;
  box.jitter = jitter;
  LayeredProblem g;
  g.mesh = dgatd::mesh::structured_box(box);
  for (std::size_t t = 0; t < g.mesh.tets.size(); ++t) {
    double z = 0;
    for (auto v : g.mesh.tets[t]) z += g.mesh.points[v][2] / 4;
    if (z < layer || z > length - layer) g.mesh.tet_region[t] = 2;
  }
  g.topology = dgatd::mesh::build_topology(g.mesh);
  g.geometry = dgatd::mesh::build_geometry(g.mesh, g.topology);
  std::vector<dgatd::dga::FaceKind> kinds(g.topology.num_faces(), dgatd::dga::FaceKind::interior_or_pmc);
  for (auto f : g.topology.boundary_faces) {
    double x = 0;
    for (auto v : g.topology.face_vertices[f]) x += g.mesh.points[v][0] / 3;
    bool const on_side = std::abs(x) < 1e-9 || std::abs(x - 0.1) < 1e-9;
    if (!on_side) kinds[f] = dgatd::dga::FaceKind::pec;
  }
  std::size_t const n = g.mesh.tets.size();
  dgatd::dga::Materials materials{std::vector<double>(n, 1.0), std::vector<double>(n, 1.0), {}};
  std::vector<char> in_layer(n);
  for (std::size_t t = 0; t < n; ++t) in_layer[t] = g.mesh.tet_region[t] == 2;
  g.layer = dgatd::dga::add_pml_layer(materials.stretching, g.mesh, g.topology, g.geometry, materials, in_layer,
                                      profile, "ends");
  std::printf("layer: %d tets, %.4f thick, alpha_max %.3f\n", static_cast<int>(g.layer.num_tets), g.layer.thickness,
              g.layer.alpha_max);
  g.operators = dgatd::dga::assemble(g.mesh, g.topology, g.geometry, materials, kinds, options);
  return g;
}

// A unit cube of cells^3 Kuhn cubes in PEC, its interior vertices moved by up to `jitter` cells,
// whose tets within `layer` of its faces (by their centroid) form a matched shell meshed as one
// volume: slabs stretched along one axis, bars along two, corners along three.
inline LayeredProblem shelled_box(int cells, double layer, dgatd::dga::AssemblyOptions const& options = {},
                                  dgatd::dga::PmlProfile const& profile = {}, double jitter = 0.2)
{
  dgatd::mesh::StructuredBox box;
  for (int k = 0; k < 3; ++k) box.cells[k] = cells;
  box.jitter = jitter;
  LayeredProblem g;
  g.mesh = dgatd::mesh::structured_box(box);
  for (std::size_t t = 0; t < g.mesh.tets.size(); ++t) {
    dgatd::Vec3 centroid{0, 0, 0};
    for (auto v : g.mesh.tets[t])
      for (int k = 0; k < 3; ++k) centroid[k] += g.mesh.points[v][k] / 4;
    for (double const x : centroid)
      if (x < layer || x > 1 - layer) g.mesh.tet_region[t] = 2;
  }
  g.topology = dgatd::mesh::build_topology(g.mesh);
  g.geometry = dgatd::mesh::build_geometry(g.mesh, g.topology);
  std::vector<dgatd::dga::FaceKind> kinds(g.topology.num_faces(), dgatd::dga::FaceKind::interior_or_pmc);
  for (auto f : g.topology.boundary_faces) kinds[f] = dgatd::dga::FaceKind::pec;
  std::size_t const n = g.mesh.tets.size();
  dgatd::dga::Materials materials{std::vector<double>(n, 1.0), std::vector<double>(n, 1.0), {}};
  std::vector<char> in_layer(n);
  for (std::size_t t = 0; t < n; ++t) in_layer[t] = g.mesh.tet_region[t] == 2;
  g.layer = dgatd::dga::add_pml_layer(materials.stretching, g.mesh, g.topology, g.geometry, materials, in_layer,
                                      profile, "shell");
  std::printf("shell: %d tets, %.4f thick, alpha_max %.3f\n", static_cast<int>(g.layer.num_tets), g.layer.thickness,
              g.layer.alpha_max);
  g.operators = dgatd::dga::assemble(g.mesh, g.topology, g.geometry, materials, kinds, options);
  return g;
}

// A TEM pulse in the middle of the guide, E_y a derivative of a Gaussian of width 0.2 along z (no
// static part), on the guide's unknowns: its halves run into the layers at normal incidence.
inline std::vector<double> guide_pulse(LayeredProblem const& g, double length)
{
  dgatd::mesh::MeshView const view{g.mesh, g.topology, g.geometry};
  return dgatd::solver::project_field(view, g.operators.layout, [&](dgatd::Vec3 const& p) {
    double const x = (p[2] - 0.5 * length) / 0.2;
    return dgatd::Vec3{0, x * std::exp(-0.5 * x * x), 0};
  });
}

} // namespace dgatd::testing
