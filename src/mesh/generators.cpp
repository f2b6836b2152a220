#include "dgatd/mesh/generators.hpp"

#include "dgatd/error.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "gmsh_session.hpp"

#include <gmsh.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

namespace dgatd::mesh {
namespace {

constexpr double kPi = 3.14159265358979323846;
// Beyond this many tetrahedra (estimated) a typo in --h would run for hours: refuse instead.
constexpr double kMaxEstimatedTets = 2e7;
// Tets per unit volume at edge length h: a regular tet of edge h has volume h^3 / (6 sqrt 2).
constexpr double kTetsPerCubedEdge = 8.49;

constexpr int kDomainTag = 1;
constexpr int kInnerTag = 2;
constexpr int kPmlTag = 3;
constexpr int kBoundaryTag = 1;
constexpr int kPmlInterfaceTag = 2;
constexpr int kWallsTag = 1;
constexpr int kPortInTag = 2;
constexpr int kPortOutTag = 3;
constexpr int kPmlEndTag = 4;
constexpr int kInnerSurfaceTag = 5;
constexpr int kTotalTag = 1;
constexpr int kScatteredTag = 2;
constexpr int kScattererTag = 4;
constexpr int kSphereTag = 3;
constexpr int kTfsfTag = 4;
constexpr int kFarFieldTag = 5;
constexpr int kXWallsTag = 1;
constexpr int kYWallsTag = 2;
constexpr int kEndsTag = 3;
constexpr int kFirstLayerTag = 1;

std::string describe(GeneratorSpec const& spec)
{
  std::ostringstream s;
  s << "generated " << spec.shape << ' ';
  if (spec.shape == "cylinder")
    s << "r=" << spec.size[0] << " height=" << spec.size[1];
  else if (spec.shape == "sphere")
    s << "r=" << spec.sphere_radius << (spec.dielectric ? " (dielectric)" : " (PEC)") << " tfsf=" << spec.tfsf
      << " in box " << spec.size[0]
      << (spec.sphere_element_size > 0 ? " h_sphere=" + format_number(spec.sphere_element_size) : std::string())
      << (spec.grading_distance > 0 ? " grading=" + format_number(spec.grading_distance) : std::string());
  else
    s << spec.size[0] << 'x' << spec.size[1] << 'x' << spec.size[2];
  s << " h=" << spec.element_size;
  if (!spec.inner.shape.empty()) s << " with inner " << spec.inner.shape;
  if (!spec.cuts.empty()) s << " in " << spec.cuts.size() + 1 << " layers";
  if (spec.pml != 0) s << " pml=" << spec.pml;
  if (spec.reproducible) s << ", reproducible";
  return s.str();
}

// Axis-aligned bounds of a shape: lower corner and upper corner.
struct Bounds {
  double lo[3];
  double hi[3];
};

void check_positive(std::string const& where, std::string const& what, double value)
{
  if (!(value > 0 && std::isfinite(value)))
    throw Error(where, what + " must be a positive length, not " + std::to_string(value),
                "give positive sizes in metres");
}

// The inner region must lie inside the domain, else fragmenting would add volumes outside it.
void check_inner_inside(std::string const& where, GeneratorSpec const& spec)
{
  auto const& in = spec.inner;
  double const tol = 1e-12 * std::max({spec.size[0], spec.size[1], spec.size[2]});
  bool const inner_cylinder = in.shape == "cylinder";
  check_positive(where, "the inner " + in.shape + (inner_cylinder ? " radius" : " x extent"), in.size[0]);
  check_positive(where, "the inner " + in.shape + (inner_cylinder ? " height" : " y extent"), in.size[1]);
  if (!inner_cylinder) check_positive(where, "the inner box z extent", in.size[2]);
  Bounds inner;
  if (inner_cylinder)
    inner = {{in.corner[0] - in.size[0], in.corner[1] - in.size[0], in.corner[2]},
             {in.corner[0] + in.size[0], in.corner[1] + in.size[0], in.corner[2] + in.size[1]}};
  else
    inner = {{in.corner[0], in.corner[1], in.corner[2]},
             {in.corner[0] + in.size[0], in.corner[1] + in.size[1], in.corner[2] + in.size[2]}};

  bool inside = true;
  if (spec.shape == "cylinder") {
    double const r = spec.size[0];
    inside = inner.lo[2] >= -tol && inner.hi[2] <= spec.size[1] + tol;
    if (inner_cylinder) {
      inside = inside && std::hypot(in.corner[0], in.corner[1]) + in.size[0] <= r + tol;
    } else {
      for (double x : {inner.lo[0], inner.hi[0]})
        for (double y : {inner.lo[1], inner.hi[1]}) inside = inside && std::hypot(x, y) <= r + tol;
    }
  } else {
    for (int c = 0; c < 3; ++c) inside = inside && inner.lo[c] >= -tol && inner.hi[c] <= spec.size[c] + tol;
  }
  if (!inside)
    throw Error(where, "the inner " + in.shape + " is not inside the " + spec.shape,
                "move or shrink the inner region so it lies within the domain");
}

// The volume Gmsh fills with tetrahedra: the domain and its PML.
double meshed_volume(GeneratorSpec const& spec)
{
  auto const& s = spec.size;
  double const p = spec.pml;
  if (spec.shape == "cylinder") return kPi * s[0] * s[0] * s[1];
  if (spec.shape == "waveguide") return s[0] * s[1] * (s[2] + p);
  if (spec.shape == "cell") return s[0] * s[1] * (s[2] + 2 * p);
  return (s[0] + 2 * p) * (s[1] + 2 * p) * (s[2] + 2 * p);
}

void check_pml(std::string const& where, GeneratorSpec const& spec)
{
  if (spec.shape == "cylinder")
    throw Error(where, "a cylinder cannot have a PML (only a box or a waveguide can)",
                "leave out pml, or mesh a box: its PML is a shell around it");
  check_positive(where, "the PML thickness pml", spec.pml);
  double const h = spec.element_size;
  // The relative slack keeps a PML of exactly 2 h, given in mesh units and scaled, from failing on
  // the rounding of the two products.
  if (spec.pml < 2 * h * (1 - 1e-12))
    throw Error(where,
                "pml = " + format_number(spec.pml) + " m is thinner than two element sizes (h = " + format_number(h) +
                    " m): a PML thinner than two element layers absorbs badly",
                "give a pml of at least 2 h = " + format_number(2 * h) + " m, or a smaller h");
}

void check_spec(std::string const& where, GeneratorSpec const& spec)
{
  if (spec.shape != "box" && spec.shape != "cylinder" && spec.shape != "waveguide" && spec.shape != "cell" &&
      spec.shape != "sphere")
    throw Error(where, "unknown shape '" + spec.shape + "'", "use box, cylinder, waveguide, cell or sphere");
  if (spec.shape != "sphere" && spec.sphere_element_size != 0)
    throw Error(where, "an element size on the sphere only applies to a sphere", "leave it out for a " + spec.shape);
  if (spec.grading_distance != 0 && spec.sphere_element_size == 0)
    throw Error(where, "a grading distance grades from the element size on the sphere, which is not given",
                "give the size on the sphere too, or leave the grading distance out");
  if (spec.shape == "sphere") {
    check_positive(where, "the sphere's radius", spec.sphere_radius);
    if (!(spec.tfsf > 2 * spec.sphere_radius && spec.tfsf < spec.size[0]))
      throw Error(where,
                  "the total-field cube (side " + format_number(spec.tfsf) + ") must hold the sphere (diameter " +
                      format_number(2 * spec.sphere_radius) + ") and lie inside the box (side " +
                      format_number(spec.size[0]) + ")",
                  "give 2 radius < tfsf < size, with a few elements between each");
    if (!spec.inner.shape.empty())
      throw Error(where, "a sphere's box has no inner region", "leave out the inner region");
    if (spec.sphere_element_size < 0 || spec.sphere_element_size > spec.element_size)
      throw Error(where,
                  "the element size on the sphere (" + format_number(spec.sphere_element_size) +
                      ") must lie between 0 and h = " + format_number(spec.element_size),
                  "give a size below h, or leave it out for h everywhere");
    if (spec.grading_distance < 0)
      throw Error(where, "the grading distance (" + format_number(spec.grading_distance) + ") is negative",
                  "give a positive distance, or leave it out to grade over the gap to the total-field cube");
  }
  if (spec.shape != "cell" && !spec.cuts.empty())
    throw Error(where, "cuts only split a cell", "leave out cuts, or generate a cell");
  if (spec.shape == "cell" && !spec.inner.shape.empty())
    throw Error(where, "a cell has no inner region: its layers are its regions", "split it with cuts instead");
  for (std::size_t k = 0; k < spec.cuts.size(); ++k)
    if (!(spec.cuts[k] > (k == 0 ? 0.0 : spec.cuts[k - 1]) && spec.cuts[k] < spec.size[2]))
      throw Error(where,
                  "cut z = " + format_number(spec.cuts[k]) +
                      " is not between 0 and L = " + format_number(spec.size[2]) + " above the one before it",
                  "give cuts strictly inside the cell, in increasing order");
  if (spec.shape == "cylinder") {
    check_positive(where, "the cylinder radius", spec.size[0]);
    check_positive(where, "the cylinder height", spec.size[1]);
  } else {
    for (int c = 0; c < 3; ++c) check_positive(where, "the " + spec.shape + " size", spec.size[c]);
  }
  check_positive(where, "the element size h", spec.element_size);
  if (spec.pml != 0) check_pml(where, spec);
  double const estimate = kTetsPerCubedEdge * meshed_volume(spec) / std::pow(spec.element_size, 3);
  if (estimate > kMaxEstimatedTets)
    throw Error(where,
                "h = " + std::to_string(spec.element_size) + " would give about " +
                    std::to_string(static_cast<long long>(estimate)) + " tetrahedra",
                "use a larger h (at most 2e7 tetrahedra are generated)");
  if (!spec.inner.shape.empty()) {
    if (spec.inner.shape != "box" && spec.inner.shape != "cylinder")
      throw Error(where, "unknown inner shape '" + spec.inner.shape + "'", "use an inner box or cylinder");
    check_inner_inside(where, spec);
  }
}

// The entities of a that are not in b.
gmsh::vectorpair minus(gmsh::vectorpair const& a, gmsh::vectorpair const& b)
{
  gmsh::vectorpair rest;
  for (auto const& dim_tag : a)
    if (std::find(b.begin(), b.end(), dim_tag) == b.end()) rest.push_back(dim_tag);
  return rest;
}

gmsh::vectorpair combined_boundary(gmsh::vectorpair const& volumes)
{
  gmsh::vectorpair boundary;
  gmsh::model::getBoundary(volumes, boundary, true, false, false);
  return boundary;
}

std::vector<int> tags_of(gmsh::vectorpair const& dim_tags)
{
  std::vector<int> tags;
  for (auto const& dim_tag : dim_tags) tags.push_back(dim_tag.second);
  std::sort(tags.begin(), tags.end());
  return tags;
}

void add_named_group(int dim, std::vector<int> const& entities, int tag, std::string const& name)
{
  gmsh::model::addPhysicalGroup(dim, entities, tag);
  gmsh::model::setPhysicalName(dim, tag, name);
}

// A cell: one box per layer (and per PML layer) stacked along z, glued by fragmenting, each its own
// volume; faces told apart by their centres of mass.
void build_cell(GeneratorSpec const& spec)
{
  auto const& s = spec.size;
  double const p = spec.pml;
  std::vector<double> planes{0.0};
  planes.insert(planes.end(), spec.cuts.begin(), spec.cuts.end());
  planes.push_back(s[2]);
  gmsh::vectorpair layers, pml;
  for (std::size_t k = 0; k + 1 < planes.size(); ++k)
    layers.push_back({3, gmsh::model::occ::addBox(0, 0, planes[k], s[0], s[1], planes[k + 1] - planes[k])});
  if (p > 0) {
    pml.push_back({3, gmsh::model::occ::addBox(0, 0, -p, s[0], s[1], p)});
    pml.push_back({3, gmsh::model::occ::addBox(0, 0, s[2], s[0], s[1], p)});
  }
  gmsh::vectorpair all = layers;
  all.insert(all.end(), pml.begin(), pml.end());
  gmsh::vectorpair pieces;
  std::vector<gmsh::vectorpair> pieces_of_input;
  gmsh::model::occ::fragment(gmsh::vectorpair(all.begin(), all.begin() + 1),
                             gmsh::vectorpair(all.begin() + 1, all.end()), pieces, pieces_of_input);
  gmsh::model::occ::synchronize();
  for (std::size_t k = 0; k < layers.size(); ++k)
    add_named_group(3, tags_of(pieces_of_input[k]), kFirstLayerTag + static_cast<int>(k), "layer_" + std::to_string(k));
  // Two layers, not one: a plane wave's total-field region takes in the bottom one alone.
  if (p > 0) {
    auto const tag = kFirstLayerTag + static_cast<int>(layers.size());
    add_named_group(3, tags_of(pieces_of_input[layers.size()]), tag, "pml_bottom");
    add_named_group(3, tags_of(pieces_of_input[layers.size() + 1]), tag + 1, "pml_top");
  }
  std::vector<int> x_walls, y_walls, ends;
  double const tol = 1e-6 * std::max({s[0], s[1], s[2]});
  for (auto const& [dim, tag] : combined_boundary(pieces)) {
    double x, y, z;
    gmsh::model::occ::getCenterOfMass(dim, tag, x, y, z);
    if (x < tol || x > s[0] - tol)
      x_walls.push_back(tag);
    else if (y < tol || y > s[1] - tol)
      y_walls.push_back(tag);
    else
      ends.push_back(tag);
  }
  add_named_group(2, x_walls, kXWallsTag, "x_walls");
  add_named_group(2, y_walls, kYWallsTag, "y_walls");
  add_named_group(2, ends, kEndsTag, "ends");
  gmsh::model::mesh::generate(3);
}

// A matched shell of thickness p around the box [0, s]: 26 blocks (six slabs, twelve bars, eight
// corners), so that no tet straddles a plane where one axis's stretch starts: its profile has a
// kink there that a tet's linear interpolant smears across the other axes (docs/method/open_regions.md,
// section 3).
void add_shell_blocks(std::array<double, 3> const& s, double p, gmsh::vectorpair& blocks)
{
  for (int i = -1; i <= 1; ++i)
    for (int j = -1; j <= 1; ++j)
      for (int k = -1; k <= 1; ++k) {
        if (i == 0 && j == 0 && k == 0) continue;
        int const side[3] = {i, j, k};
        double corner[3], extent[3];
        for (int a = 0; a < 3; ++a) {
          corner[a] = side[a] < 0 ? -p : (side[a] == 0 ? 0.0 : s[a]);
          extent[a] = side[a] == 0 ? s[a] : p;
        }
        blocks.push_back(
            {3, gmsh::model::occ::addBox(corner[0], corner[1], corner[2], extent[0], extent[1], extent[2])});
      }
}

// A scatterer for plane waves: a sphere of radius r (a PEC hole, or a dielectric ball "scatterer")
// centred in the box [0, B]^3, inside the total-field cube of side S ("total"), the far-field cube
// of side (S + B) / 2 between them, the rest "scattered", all cubes centred with the sphere, and
// the matched shell around the box.
void build_sphere(GeneratorSpec const& spec)
{
  auto const& s = spec.size;
  double const c = 0.5 * s[0], half_tfsf = 0.5 * spec.tfsf, half_far = 0.25 * (spec.tfsf + s[0]);
  int const outer = gmsh::model::occ::addBox(0, 0, 0, s[0], s[1], s[2]);
  gmsh::vectorpair tools{
      {3, gmsh::model::occ::addBox(c - half_far, c - half_far, c - half_far, 2 * half_far, 2 * half_far, 2 * half_far)},
      {3, gmsh::model::occ::addBox(c - half_tfsf, c - half_tfsf, c - half_tfsf, spec.tfsf, spec.tfsf, spec.tfsf)},
      {3, gmsh::model::occ::addSphere(c, c, c, spec.sphere_radius)}};
  if (spec.pml > 0) add_shell_blocks(s, spec.pml, tools);
  gmsh::vectorpair pieces;
  std::vector<gmsh::vectorpair> of;
  gmsh::model::occ::fragment({{3, outer}}, tools, pieces, of);
  // of[0] the box, of[1] the far-field cube, of[2] the total-field cube, of[3] the sphere, then the
  // shell's blocks: each region keeps what no region inside it has taken.
  gmsh::vectorpair const ball = of[3];
  gmsh::vectorpair const total = minus(of[2], ball);
  gmsh::vectorpair const inside_far = minus(of[1], of[2]);
  gmsh::vectorpair scattered = minus(of[0], of[1]);
  scattered.insert(scattered.end(), inside_far.begin(), inside_far.end());
  gmsh::vectorpair pml;
  for (std::size_t q = 4; q < of.size(); ++q) {
    auto const block = minus(of[q], of[0]);
    pml.insert(pml.end(), block.begin(), block.end());
  }
  gmsh::model::occ::synchronize();
  auto const ball_surface = combined_boundary(ball);
  auto const total_surface = combined_boundary(of[2]);
  auto const far_surface = combined_boundary(of[1]);
  gmsh::vectorpair body = total;
  body.insert(body.end(), scattered.begin(), scattered.end());
  if (spec.dielectric) body.insert(body.end(), ball.begin(), ball.end());
  gmsh::vectorpair all = body;
  all.insert(all.end(), pml.begin(), pml.end());
  auto const boundary = combined_boundary(all);
  if (!spec.dielectric) {
    gmsh::model::occ::remove(ball);
    gmsh::model::occ::synchronize();
  }

  add_named_group(3, tags_of(total), kTotalTag, "total");
  add_named_group(3, tags_of(scattered), kScatteredTag, "scattered");
  if (!pml.empty()) add_named_group(3, tags_of(pml), kPmlTag, "pml");
  if (spec.dielectric) add_named_group(3, tags_of(ball), kScattererTag, "scatterer");
  add_named_group(2, tags_of(minus(boundary, ball_surface)), kBoundaryTag, "boundary");
  if (!pml.empty())
    add_named_group(2, tags_of(minus(combined_boundary(body), boundary)), kPmlInterfaceTag, "pml_interface");
  add_named_group(2, tags_of(ball_surface), kSphereTag, "sphere");
  add_named_group(2, tags_of(total_surface), kTfsfTag, "tfsf");
  add_named_group(2, tags_of(far_surface), kFarFieldTag, "nf2ff");
  if (spec.sphere_element_size > 0) {
    // The size from the distance to the sphere, a formula rather than Gmsh's Distance field, whose
    // options were renamed between Gmsh versions.
    double const gap = spec.grading_distance > 0 ? spec.grading_distance : half_tfsf - spec.sphere_radius;
    std::ostringstream size;
    size.precision(17);
    size << spec.sphere_element_size << " + " << spec.element_size - spec.sphere_element_size
         << " * Min(1, Max(0, (Sqrt((x - " << c << ")^2 + (y - " << c << ")^2 + (z - " << c << ")^2) - "
         << spec.sphere_radius << ") / " << gap << "))";
    int const field = gmsh::model::mesh::field::add("MathEval");
    gmsh::model::mesh::field::setString(field, "F", size.str());
    gmsh::model::mesh::field::setAsBackgroundMesh(field);
  }
  gmsh::model::mesh::generate(3);
}

// Builds the CAD model, its physical groups and the mesh in the current Gmsh model.
void build_model(GeneratorSpec const& spec)
{
  // Frontal-Delaunay surfaces. Volumes: HXT, Gmsh's parallel Delaunay mesher, about 7x faster
  // than the classic one on one thread (888k tets: 4 s against 29 s), or for a reproducible mesh
  // the classic Delaunay (HXT's output varies between runs). One thread either way: Debian 12's Gmsh
  // 4.8.4 HXT on two threads left holes in small meshes (V - E + F - T of 2 to 5 for a cylinder,
  // boundary faces outside every physical surface), and a wrong mesh is worse than a slow one.
  gmsh::option::setNumber("General.NumThreads", 1);
  gmsh::option::setNumber("Mesh.Algorithm", 6);
  gmsh::option::setNumber("Mesh.Algorithm3D", spec.reproducible ? 1 : 10);
  gmsh::option::setNumber("Mesh.ElementOrder", 1);
  gmsh::option::setNumber("Mesh.MeshSizeFromCurvature", 0);
  gmsh::option::setNumber("Mesh.MeshSizeMin", 0);
  gmsh::option::setNumber("Mesh.MeshSizeMax", spec.element_size);

  auto const& s = spec.size;
  double const p = spec.pml;
  bool const has_inner = !spec.inner.shape.empty();
  if (spec.shape == "cell") {
    build_cell(spec);
    return;
  }
  if (spec.shape == "sphere") {
    build_sphere(spec);
    return;
  }
  int const outer = spec.shape == "cylinder" ? gmsh::model::occ::addCylinder(0, 0, 0, 0, 0, s[1], s[0])
                                             : gmsh::model::occ::addBox(0, 0, 0, s[0], s[1], s[2]);
  gmsh::vectorpair tools;
  if (has_inner) {
    auto const& c = spec.inner.corner;
    auto const& d = spec.inner.size;
    tools.push_back({3, spec.inner.shape == "cylinder"
                            ? gmsh::model::occ::addCylinder(c[0], c[1], c[2], 0, 0, d[1], d[0])
                            : gmsh::model::occ::addBox(c[0], c[1], c[2], d[0], d[1], d[2])});
  }
  std::size_t const first_pml_tool = tools.size();
  if (p > 0 && spec.shape == "waveguide") {
    tools.push_back({3, gmsh::model::occ::addBox(0, 0, s[2], s[0], s[1], p)});
  } else if (p > 0) {
    add_shell_blocks(s, p, tools);
  }
  gmsh::vectorpair domain{{3, outer}}, inner, pml;
  if (!tools.empty()) {
    gmsh::vectorpair pieces;
    std::vector<gmsh::vectorpair> pieces_of_input;
    gmsh::model::occ::fragment(domain, tools, pieces, pieces_of_input);
    // pieces_of_input[0] covers the outer shape, then one entry per tool in order. The inner region
    // lies inside the outer shape and the PML outside it, so each region keeps only the pieces no
    // region inside it has taken.
    gmsh::vectorpair const& outer_pieces = pieces_of_input[0];
    if (has_inner) inner = pieces_of_input[1];
    for (std::size_t q = first_pml_tool; q < tools.size(); ++q) {
      auto const block = minus(pieces_of_input[q + 1], outer_pieces);
      pml.insert(pml.end(), block.begin(), block.end());
    }
    domain = minus(outer_pieces, inner);
    if (domain.empty())
      throw Error(describe(spec), "the inner " + spec.inner.shape + " fills the whole domain",
                  "make the inner region smaller than the domain");
  }
  gmsh::model::occ::synchronize();

  add_named_group(3, tags_of(domain), kDomainTag, "domain");
  if (!inner.empty()) add_named_group(3, tags_of(inner), kInnerTag, "inner");
  if (!pml.empty()) add_named_group(3, tags_of(pml), kPmlTag, "pml");

  gmsh::vectorpair body = domain;
  body.insert(body.end(), inner.begin(), inner.end());
  gmsh::vectorpair all = body;
  all.insert(all.end(), pml.begin(), pml.end());
  gmsh::vectorpair const boundary = combined_boundary(all);
  // Between the domain and its PML: the domain's own boundary less the outer one.
  std::vector<int> const pml_interface =
      pml.empty() ? std::vector<int>{} : tags_of(minus(combined_boundary(body), boundary));
  if (spec.shape == "waveguide") {
    double const end = s[2] + p;
    // OpenCASCADE bounding boxes can be padded far beyond the shape, so faces are told apart by
    // their centre of mass: the ends lie in z = 0 and z = L (+ P), every wall's centre in between.
    double const tol = 1e-3 * s[2];
    std::vector<int> walls, port_in, far_end;
    for (auto const& [dim, tag] : boundary) {
      double x, y, z;
      gmsh::model::occ::getCenterOfMass(dim, tag, x, y, z);
      if (z < tol)
        port_in.push_back(tag);
      else if (z > end - tol)
        far_end.push_back(tag);
      else
        walls.push_back(tag);
    }
    add_named_group(2, walls, kWallsTag, "walls");
    add_named_group(2, port_in, kPortInTag, "port_in");
    if (pml.empty()) {
      add_named_group(2, far_end, kPortOutTag, "port_out");
    } else {
      add_named_group(2, pml_interface, kPortOutTag, "port_out");
      add_named_group(2, far_end, kPmlEndTag, "pml_end");
    }
  } else {
    add_named_group(2, tags_of(boundary), kBoundaryTag, "boundary");
    if (!pml.empty()) add_named_group(2, pml_interface, kPmlInterfaceTag, "pml_interface");
  }
  // The inner region's surface inside the mesh: a closed surface for a far field around what it holds.
  if (!inner.empty()) {
    auto const inner_surface = tags_of(minus(combined_boundary(inner), boundary));
    if (!inner_surface.empty()) add_named_group(2, inner_surface, kInnerSurfaceTag, "inner_surface");
  }
  gmsh::model::mesh::generate(3);
}

// OpenCASCADE joins points closer than 1e-7 model units, so a nanometre particle built in metres
// fails to fragment. Below a centimetre the model is built in a power of ten of the largest extent
// and its nodes scaled back; larger models stay in metres, so their meshes are unchanged.
double modelling_unit(GeneratorSpec const& spec)
{
  double const extent = *std::max_element(spec.size.begin(), spec.size.end()) + 2 * spec.pml;
  if (extent >= 1e-2) return 1.0;
  return std::pow(10.0, std::floor(std::log10(extent)));
}

GeneratorSpec in_units(GeneratorSpec spec, double unit)
{
  for (double* length :
       {&spec.size[0], &spec.size[1], &spec.size[2], &spec.element_size, &spec.inner.corner[0], &spec.inner.corner[1],
        &spec.inner.corner[2], &spec.inner.size[0], &spec.inner.size[1], &spec.inner.size[2], &spec.sphere_radius,
        &spec.tfsf, &spec.sphere_element_size, &spec.grading_distance, &spec.pml})
    *length /= unit;
  for (double& cut : spec.cuts) cut /= unit;
  return spec;
}

} // namespace

Mesh generate_mesh(GeneratorSpec const& spec, std::string const& output_path)
{
  std::string const source = describe(spec);
  check_spec(source, spec);
  Mesh mesh;
  {
    detail::GmshSession session;
    detail::GmshModel model("generate");
    std::vector<std::size_t> element_tags;
    detail::call_gmsh(source, "Gmsh could not mesh the geometry",
                      "try another h, or keep the inner region off the domain boundary", [&] {
                        double const unit = modelling_unit(spec);
                        build_model(in_units(spec, unit));
                        mesh = detail::mesh_from_current_model(source, unit, element_tags);
                      });
    detail::validate_and_orient(mesh, &element_tags);
  }
  if (!output_path.empty()) write_mesh(mesh, output_path);
  return mesh;
}

} // namespace dgatd::mesh
