#pragma once
// Meshes generated through the Gmsh SDK (OpenCASCADE kernel), each with named physical groups:
//   box       a x b x d, corner at the origin:       volume "domain", surface "boundary"
//   cylinder  radius r, height h, axis z from z = 0: volume "domain", surface "boundary"
//   waveguide a x b x L, axis z from z = 0:          volume "domain", surfaces "walls" (the four
//             sides), "port_in" (z = 0), "port_out" (z = L)
//   sphere    a scatterer for plane waves in the box [0, B]^3: a sphere of radius r at its centre (a
//             hole with surface "sphere", PEC by default; or a dielectric ball, volume "scatterer"),
//             in the total-field cube of side S (volume "total", surface "tfsf"), then the cube of
//             side (S + B) / 2 (surface "nf2ff", for a far field) in volume "scattered"; surface
//             "boundary" outside, and with a pml the box's shell (volume "pml", "pml_interface")
//   cell      a x b x L, axis z from z = 0, a unit cell for waves at normal incidence along z: the
//             planes z = cuts[k] split it into volumes "layer_0" (from z = 0) to "layer_N" (to z = L);
//             surfaces "x_walls" (x = 0, a), "y_walls" (y = 0, b) and "ends" (the two ends in z). A
//             plane wave with e along y is exact in it with PEC y_walls and PMC x_walls
//             (docs/method/plane_waves.md)
// An optional inner box or cylinder becomes its own physical volume "inner" (a dielectric fill,
// say), conformally meshed with the rest; "domain" is then the remainder, and the inner region's
// surface where it lies inside the mesh is surface "inner_surface" (a far field's, say).
// An optional perfectly matched layer of thickness P becomes physical volume "pml" (a cell's two
// layers "pml_bottom" and "pml_top"), conformally meshed with the domain (cylinders have none):
//   box       a shell [-P, a+P] x [-P, b+P] x [-P, d+P] around the box: "boundary" is then the
//             shell's outer surface, and the interior surface "pml_interface" lies between the two
//   waveguide a layer z in [L, L+P] of the guide's cross-section: "port_out" stays the plane z = L
//             (an interior surface), "walls" take in the layer's four sides, and its end z = L+P
//             is surface "pml_end"
//   cell      two layers, "pml_bottom" z in [-P, 0] and "pml_top" z in [L, L+P]: the walls take in
//             their sides, "ends" are then their ends z = -P and z = L+P

#include "dgatd/mesh/mesh.hpp"

#include <array>
#include <string>
#include <vector>

namespace dgatd::mesh {

struct InnerRegion {
  std::string shape;              // "", "box" or "cylinder"
  std::array<double, 3> corner{}; // box: lower corner; cylinder: centre of its base
  std::array<double, 3> size{};   // box: extent along x, y, z; cylinder: radius, height, unused
};

struct GeneratorSpec {
  std::string shape; // "box", "cylinder", "waveguide", "cell" or "sphere"
  // box: a, b, d; waveguide and cell: a, b, L; cylinder: radius, height, unused; sphere: B, B, B
  std::array<double, 3> size{};
  double element_size = 0; // target edge length h
  // By default Gmsh's HXT volume mesher (on one thread: see build_model); its meshes differ slightly
  // from run to run. Reproducible: the classic Delaunay mesher, the same mesh on every run and
  // machine, about 7x slower.
  bool reproducible = false;
  InnerRegion inner;        // not for a cell: its layers are its regions
  std::vector<double> cuts; // cell: the planes between its layers, 0 < z < L, increasing
  double sphere_radius = 0; // sphere: r
  double tfsf = 0;          // sphere: S, the total-field cube's side
  bool dielectric = false;  // sphere: a ball (give it a material) rather than a PEC hole
  // sphere: the element size on the sphere, growing linearly with the distance from it to
  // element_size at grading_distance (a mesh graded towards the scatterer); 0 for element_size
  // everywhere.
  double sphere_element_size = 0;
  // sphere: the distance over which the size grows; 0 for the gap to the total-field cube's inscribed
  // sphere (tfsf / 2 - radius).
  double grading_distance = 0;
  double pml = 0; // thickness of the perfectly matched layer in metres, 0 for none
};

// Generates the mesh (metres), validates and orients it; writes it to output_path too when that
// is not empty (format from the extension, .msh 4.1 by default).
Mesh generate_mesh(GeneratorSpec const& spec, std::string const& output_path = "");

} // namespace dgatd::mesh
