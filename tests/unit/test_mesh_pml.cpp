// Generated meshes with a perfectly matched layer: the layer is its own physical volume "pml",
// meshed conformally with the domain, with the surfaces the header of generators.hpp promises; a
// PML too thin or on a cylinder is refused in one line.
#include "dgatd/error.hpp"
#include "dgatd/mesh/generators.hpp"
#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/topology.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <initializer_list>
#include <string>

namespace dgatd::mesh {
namespace {

// Every region is a polyhedron, meshed exactly: the volumes differ from the exact ones only by the
// rounding of a few thousand summed tet volumes.
constexpr double kVolumeTolerance = 1e-9;
// Gmsh places surface nodes through the face's parametrisation, which may round the coordinate
// that is constant on a plane.
constexpr double kPlaneTolerance = 1e-12;

struct RegionVolumes {
  double domain = 0;
  double pml = 0;
  double total = 0;
};

RegionVolumes volumes_of(Mesh const& mesh, Geometry const& geometry)
{
  int const domain = mesh.group_tag(3, "domain");
  int const pml = mesh.group_tag(3, "pml");
  RegionVolumes v;
  for (Index t = 0; t < mesh.num_tets(); ++t) {
    double const volume = geometry.tet_volume[t];
    v.total += volume;
    if (mesh.tet_region[t] == domain) v.domain += volume;
    if (mesh.tet_region[t] == pml) v.pml += volume;
  }
  return v;
}

// The interface surface must be exactly the faces between a PML tet and one of the domain (or its
// inner region): a face tagged there with both tets on one side, or an untagged face between the
// two, would mean the layer is not conforming or the surface group is wrong.
void expect_interface_between_domain_and_pml(Mesh const& mesh, Topology const& topo, std::string const& surface)
{
  int const pml = mesh.group_tag(3, "pml");
  int const tag = mesh.group_tag(2, surface);
  Index tagged = 0;
  for (Index f = 0; f < topo.num_faces(); ++f) {
    auto const [t0, t1] = topo.face_tets[f];
    bool const between = t1 >= 0 && (mesh.tet_region[t0] == pml) != (mesh.tet_region[t1] == pml);
    EXPECT_EQ(topo.face_tag[f] == tag, between) << surface << ", face " << f;
    tagged += topo.face_tag[f] == tag;
  }
  EXPECT_GT(tagged, 0) << surface;
}

std::string error_of(GeneratorSpec const& spec)
{
  try {
    generate_mesh(spec);
  } catch (Error const& e) {
    std::string const message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "no error for a " << spec.shape << " with pml = " << spec.pml;
  return "";
}

void expect_mentions(std::string const& message, std::initializer_list<char const*> parts)
{
  for (auto const* part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
}

TEST(MeshPml, WaveguideLayerBeyondPortOut)
{
  double const a = 0.02286, b = 0.01016, length = 0.05, h = 0.004, p = 0.008;
  GeneratorSpec spec;
  spec.shape = "waveguide";
  spec.size = {a, b, length};
  spec.element_size = h;
  spec.pml = p;
  Mesh const mesh = generate_mesh(spec);
  Topology const topo = build_topology(mesh);
  Geometry const geometry = build_geometry(mesh, topo);

  RegionVolumes const v = volumes_of(mesh, geometry);
  EXPECT_NEAR(v.total, a * b * (length + p), kVolumeTolerance * a * b * (length + p));
  EXPECT_NEAR(v.domain, a * b * length, kVolumeTolerance * a * b * (length + p));
  EXPECT_NEAR(v.pml, a * b * p, kVolumeTolerance * a * b * (length + p));

  expect_interface_between_domain_and_pml(mesh, topo, "port_out");
  int const pml_end = mesh.group_tag(2, "pml_end");
  int const walls = mesh.group_tag(2, "walls");
  int const port_in = mesh.group_tag(2, "port_in");
  Index end_faces = 0;
  for (Index f : topo.boundary_faces) {
    int const tag = topo.face_tag[f];
    EXPECT_TRUE(tag == walls || tag == port_in || tag == pml_end) << "boundary face " << f << " has tag " << tag;
    if (tag != pml_end) continue;
    ++end_faces;
    for (Index vertex : topo.face_vertices[f])
      EXPECT_NEAR(mesh.points[vertex][2], length + p, kPlaneTolerance * (length + p)) << "face " << f;
  }
  EXPECT_GT(end_faces, 0);
}

// Alone and with an inner region, which the shell must be told apart from as well.
TEST(MeshPml, BoxShellAroundTheDomain)
{
  double const a = 1.0, b = 0.5, d = 0.75, h = 0.2, p = 0.4;
  double const outer = (a + 2 * p) * (b + 2 * p) * (d + 2 * p);
  for (bool const with_inner : {false, true}) {
    SCOPED_TRACE(with_inner ? "with an inner box" : "without an inner region");
    GeneratorSpec spec;
    spec.shape = "box";
    spec.size = {a, b, d};
    spec.element_size = h;
    spec.pml = p;
    double inner = 0;
    if (with_inner) {
      spec.inner.shape = "box";
      spec.inner.corner = {0.2, 0.1, 0.2};
      spec.inner.size = {0.4, 0.2, 0.3};
      inner = 0.4 * 0.2 * 0.3;
    }
    Mesh const mesh = generate_mesh(spec);
    Topology const topo = build_topology(mesh);
    Geometry const geometry = build_geometry(mesh, topo);

    RegionVolumes const v = volumes_of(mesh, geometry);
    EXPECT_NEAR(v.total, outer, kVolumeTolerance * outer);
    EXPECT_NEAR(v.domain, a * b * d - inner, kVolumeTolerance * outer);
    EXPECT_NEAR(v.pml, outer - a * b * d, kVolumeTolerance * outer);

    expect_interface_between_domain_and_pml(mesh, topo, "pml_interface");
    // The outer surface is the shell's: every vertex of it lies on a face of the PML box.
    int const boundary = mesh.group_tag(2, "boundary");
    std::array<double, 3> const hi{a + p, b + p, d + p};
    double const tolerance = kPlaneTolerance * (a + 2 * p);
    for (Index f : topo.boundary_faces) {
      EXPECT_EQ(topo.face_tag[f], boundary) << "face " << f;
      for (Index vertex : topo.face_vertices[f]) {
        bool on_outer_box = false;
        for (int c = 0; c < 3; ++c) {
          double const x = mesh.points[vertex][c];
          on_outer_box = on_outer_box || std::abs(x + p) <= tolerance || std::abs(x - hi[c]) <= tolerance;
        }
        EXPECT_TRUE(on_outer_box) << "face " << f;
      }
    }
  }
}

TEST(MeshPml, ThinnerThanTwoElementsIsRefused)
{
  GeneratorSpec spec;
  spec.shape = "waveguide";
  spec.size = {0.02286, 0.01016, 0.05};
  spec.element_size = 0.004;
  spec.pml = 0.006;
  expect_mentions(error_of(spec), {"pml = 0.006", "two element layers absorbs badly", "(fix: ", "0.008"});
  spec.pml = -0.01;
  expect_mentions(error_of(spec), {"pml", "must be a positive length"});
}

TEST(MeshPml, CylinderIsRefused)
{
  GeneratorSpec spec;
  spec.shape = "cylinder";
  spec.size = {0.5, 1.0, 0.0};
  spec.element_size = 0.25;
  spec.pml = 0.5;
  expect_mentions(error_of(spec), {"cylinder", "cannot have a PML", "(fix: "});
}

} // namespace
} // namespace dgatd::mesh
