// dgatd mesh: the meshes a new user needs first (box cavity, cylinder, rectangular waveguide, a unit
// cell of layers), with an optional inner region and PML, generated through Gmsh without writing a
// .geo file.
#include "commands.hpp"

#include "dgatd/error.hpp"
#include "dgatd/mesh/generators.hpp"
#include "dgatd/mesh/gmsh_io.hpp"

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dgatd::app {
namespace {

struct MeshOptions {
  std::string shape;
  std::vector<double> size;
  double radius = 0, height = 0;
  double h = 0;
  bool reproducible = false;
  std::vector<double> inner_box, inner_cylinder;
  std::vector<double> cuts;
  double tfsf = 0;
  double h_sphere = 0;
  double grading = 0;
  bool dielectric = false;
  std::optional<double> pml;
  std::string output;
  std::string format = "4.1";
  bool binary = false;
};

constexpr char const* kWhere = "dgatd mesh";

mesh::GeneratorSpec spec_of(MeshOptions const& o)
{
  mesh::GeneratorSpec spec;
  spec.shape = o.shape;
  spec.element_size = o.h;
  spec.reproducible = o.reproducible;
  if (o.shape != "sphere" && (o.tfsf != 0 || o.dielectric || o.h_sphere != 0 || o.grading != 0))
    throw Error(kWhere, "--tfsf, --h-sphere, --grading and --dielectric only apply to a sphere",
                "leave them out for a " + o.shape);
  if (o.shape == "sphere") {
    if (o.size.size() != 1 || o.radius <= 0 || o.tfsf <= 0 || o.height != 0)
      throw Error(kWhere, "a sphere needs --radius R --tfsf S --size B (one number: the box's side)",
                  "e.g. --radius 0.1 --tfsf 0.28 --size 0.44 --pml 0.1");
    spec.size = {o.size[0], o.size[0], o.size[0]};
    spec.sphere_radius = o.radius;
    spec.tfsf = o.tfsf;
    spec.sphere_element_size = o.h_sphere;
    spec.grading_distance = o.grading;
    spec.dielectric = o.dielectric;
  } else if (o.shape == "cylinder") {
    if (!o.size.empty())
      throw Error(kWhere, "--size does not apply to a cylinder", "give --radius R --height H instead");
    if (o.radius <= 0 || o.height <= 0)
      throw Error(kWhere, "a cylinder needs a positive --radius and --height", "e.g. --radius 0.5 --height 1");
    spec.size = {o.radius, o.height, 0.0};
  } else {
    if (o.radius != 0 || o.height != 0)
      throw Error(kWhere, "--radius and --height only apply to a cylinder", "give --size a b d for a " + o.shape);
    if (o.size.size() != 3) throw Error(kWhere, "a " + o.shape + " needs --size a b d", "e.g. --size 1 0.5 2");
    spec.size = {o.size[0], o.size[1], o.size[2]};
  }
  if (!o.inner_box.empty()) {
    spec.inner.shape = "box";
    spec.inner.corner = {o.inner_box[0], o.inner_box[1], o.inner_box[2]};
    spec.inner.size = {o.inner_box[3], o.inner_box[4], o.inner_box[5]};
  } else if (!o.inner_cylinder.empty()) {
    spec.inner.shape = "cylinder";
    spec.inner.corner = {o.inner_cylinder[0], o.inner_cylinder[1], o.inner_cylinder[2]};
    spec.inner.size = {o.inner_cylinder[3], o.inner_cylinder[4], 0.0};
  }
  spec.cuts = o.cuts;
  // The generator reads 0 as no PML; given explicitly it is a mistake.
  if (o.pml == 0.0)
    throw Error(kWhere, "--pml 0 gives no PML", "give a positive thickness in metres, or leave out --pml");
  spec.pml = o.pml.value_or(0.0);
  return spec;
}

int run_mesh(MeshOptions const& options)
{
  mesh::Mesh const m = mesh::generate_mesh(spec_of(options));
  mesh::write_mesh(m, options.output, options.format, options.binary);
  std::string groups;
  for (auto const& g : m.groups) groups += (groups.empty() ? "" : ", ") + g.name;
  std::printf("wrote %s (msh %s %s): %d vertices, %d tets, %zu boundary triangles; groups %s\n", options.output.c_str(),
              options.format.c_str(), options.binary ? "binary" : "ASCII", m.num_vertices(), m.num_tets(),
              m.boundary_triangles.size(), groups.c_str());
  return 0;
}

} // namespace

void add_mesh_command(CLI::App& app, Action* action)
{
  auto options = std::make_shared<MeshOptions>();
  auto* command = app.add_subcommand(
      "mesh",
      "Generate a first-order tetrahedral mesh of a box, cylinder, waveguide, cell or sphere (Gmsh, OpenCASCADE)");
  command
      ->add_option("shape", options->shape,
                   "box, cylinder (axis z), waveguide (axis z, ports at z = 0 and L), cell (a unit cell of layers "
                   "along z for waves at normal incidence: surfaces x_walls, y_walls, ends) or sphere (a scatterer "
                   "for plane waves, centred in the box [0, B]^3)")
      ->required()
      ->check(CLI::IsMember({"box", "cylinder", "waveguide", "cell", "sphere"}));
  command
      ->add_option("--size", options->size,
                   "a b d: box, waveguide or cell extents in metres, corner at the origin; a sphere's box: its side B")
      ->expected(1, 3);
  command->add_option("--tfsf", options->tfsf,
                      "Sphere: side S of the total-field cube around it (volume \"total\", surface \"tfsf\"); the "
                      "far-field cube (surface \"nf2ff\") lies halfway to the box");
  command->add_option("--h-sphere", options->h_sphere,
                      "Sphere: element size on the sphere (m), growing linearly to --h at the total-field cube's "
                      "inscribed sphere (or over --grading): a mesh graded towards the scatterer");
  command->add_option("--grading", options->grading,
                      "Sphere, with --h-sphere: the distance from the sphere (m) over which the size grows to --h; "
                      "several radii resolve a resonant particle's near field (docs: dispersive media)");
  command->add_flag("--dielectric", options->dielectric,
                    "Sphere: a dielectric ball (volume \"scatterer\") instead of a PEC hole (surface \"sphere\")");
  command->add_option("--cuts", options->cuts,
                      "z1 z2 ...: planes that split a cell into physical volumes layer_0 (from z = 0) to layer_N");
  command->add_option("--radius", options->radius, "Cylinder or sphere radius (m)");
  command->add_option("--height", options->height, "Cylinder height (m), from z = 0");
  command->add_option("--h", options->h, "Target edge length (m)")->required();
  command->add_flag("--reproducible", options->reproducible,
                    "Mesh with Gmsh's classic Delaunay: the same mesh on every run, about 7x slower than the "
                    "default HXT mesher");
  auto* inner_box =
      command
          ->add_option("--inner-box", options->inner_box, "x0 y0 z0 dx dy dz: an inner box (physical volume \"inner\")")
          ->expected(6);
  auto* inner_cylinder = command
                             ->add_option("--inner-cylinder", options->inner_cylinder,
                                          "x0 y0 z0 r height: an inner cylinder along z, base centre (x0, y0, z0) "
                                          "(physical volume \"inner\")")
                             ->expected(5);
  inner_box->excludes(inner_cylinder);
  command->add_option("--pml", options->pml,
                      "Thickness (m) of a perfectly matched layer (physical volume \"pml\"), at least 2 h (8 h "
                      "reflect -40 dB on WR-90): a shell around a box, a layer beyond the waveguide's z = L end "
                      "(surface \"pml_end\"), or a layer beyond each end of a cell");
  command->add_option("-o,--output", options->output, "Output .msh file")->required();
  command->add_option("--format", options->format, ".msh version")
      ->check(CLI::IsMember({"2.2", "4.1"}))
      ->capture_default_str();
  command->add_flag("--binary", options->binary, "Write a binary .msh");
  command->callback([options, action] { *action = [options] { return run_mesh(*options); }; });
}

} // namespace dgatd::app
