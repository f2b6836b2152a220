// Metal inside the mesh (docs/method/antennas.md, section 1), read from Gmsh geometry scripts: a PEC sheet
// (a physical surface embedded in the volume, its triangles shared by two tets) and a PEC wire (a
// physical curve on the mesh's edges) named in [boundary] pec lose every half-edge of their edges
// from the unknowns, as the exterior boundary's edges do; unnamed, they are plain interior faces and
// edges. A curve that does not lie on the volume mesh is refused in one line naming the file.
#include "scratch_directory.hpp"

#include "dgatd/error.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/simulation/problem.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace {

using dgatd::Index;
using dgatd::testing::ScratchDirectory;

// A unit box with a square sheet (x in [0.3, 0.7], y = 0.5, z in [0.3, 0.7]) and a wire (x = y = 0.25,
// z in [0.2, 0.8]) inside it, fragmented into the volume unless embed is false.
std::string geometry(bool embed)
{
  std::string text = R"(SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Rectangle(10) = {0.3, 0.3, 0, 0.4, 0.4};
Rotate {{1, 0, 0}, {0, 0, 0}, Pi / 2} { Surface{10}; }
Translate {0, 0.5, 0} { Surface{10}; }
Point(100) = {0.25, 0.25, 0.2};
Point(101) = {0.25, 0.25, 0.8};
Line(100) = {100, 101};
)";
  if (embed) text += "BooleanFragments{ Volume{1}; Delete; }{ Surface{10}; Curve{100}; Delete; }\n";
  text += R"(e = 1e-6;
Physical Volume("domain") = {Volume{:}};
Physical Surface("sheet") = {Surface In BoundingBox{0.3 - e, 0.5 - e, 0.3 - e, 0.7 + e, 0.5 + e, 0.7 + e}};
Physical Curve("wire") = {Curve In BoundingBox{0.25 - e, 0.25 - e, 0.2 - e, 0.25 + e, 0.25 + e, 0.8 + e}};
Physical Surface("outside") = {CombinedBoundary{ Volume{:}; }};
Mesh.MeshSizeMax = 0.1;
Mesh.Algorithm3D = 1;
)";
  return text;
}

std::string config(std::string const& pec)
{
  return "[mesh]\nfile = \"metal.geo\"\n[boundary]\npec = " + pec + "\n[time]\nsteps = 1\n[output]\nfile = \"o.h5\"\n";
}

// The problem of the configuration on the scratch's metal.geo.
dgatd::simulation::Problem problem(ScratchDirectory const& scratch, std::string const& pec)
{
  auto const c = dgatd::io::parse_config(config(pec), "metal.toml", scratch.path().string());
  return dgatd::simulation::make_problem(c, dgatd::simulation::load_mesh(c));
}

// Edges of the group (faces of the sheet, segments of the wire) and how many of their half-edges are
// unknowns.
struct EdgeCount {
  std::size_t edges = 0, free_halves = 0;
};
EdgeCount metal_edges(dgatd::simulation::Problem const& p, int dim)
{
  int tag = 0;
  for (auto const& g : p.mesh.groups)
    if (g.dim == dim && g.name == (dim == 1 ? "wire" : "sheet")) tag = g.tag;
  std::vector<std::array<Index, 2>> pairs;
  if (dim == 1) {
    for (std::size_t i = 0; i < p.mesh.curve_segments.size(); ++i)
      if (p.mesh.curve_segment_tag[i] == tag) pairs.push_back(p.mesh.curve_segments[i]);
  } else {
    for (Index f = 0; f < p.topology.num_faces(); ++f)
      if (p.topology.face_tag[f] == tag) {
        auto const& v = p.topology.face_vertices[f];
        EXPECT_GE(p.topology.face_tets[f][1], 0) << "a face of the sheet with one tet";
        for (int i = 0; i < 3; ++i) pairs.push_back({v[i], v[(i + 1) % 3]});
      }
  }
  EdgeCount count;
  auto const& t = p.topology;
  for (auto pair : pairs) {
    Index const edge = dgatd::mesh::edge_joining(t, pair[0], pair[1]);
    EXPECT_GE(edge, 0);
    if (edge < 0) continue;
    ++count.edges;
    for (Index half : t.edge_half_edges[edge]) {
      Index const dof = p.operators.layout.dof_of_half_edge[half];
      count.free_halves += dof >= 0 && dof < p.operators.layout.num_free;
    }
  }
  return count;
}

TEST(EmbeddedMetal, NamedSheetsAndWiresArePecAndUnnamedOnesAreNot)
{
  ScratchDirectory scratch("embedded_metal");
  scratch.write("metal.geo", geometry(true));
  auto const plain = problem(scratch, "[\"outside\"]");
  auto const metal = problem(scratch, "[\"outside\", \"sheet\", \"wire\"]");
  for (int dim : {1, 2}) {
    auto const in_plain = metal_edges(plain, dim), in_metal = metal_edges(metal, dim);
    EXPECT_GT(in_plain.edges, 3u) << dim;
    EXPECT_EQ(in_plain.free_halves, 2 * in_plain.edges) << dim;
    EXPECT_EQ(in_metal.edges, in_plain.edges) << dim;
    EXPECT_EQ(in_metal.free_halves, 0u) << dim;
  }
  // Everything else is as before: only the metal's edges (and their halves) left the unknowns.
  auto const sheet = metal_edges(plain, 2), wire = metal_edges(plain, 1);
  EXPECT_LE(plain.operators.layout.num_free - metal.operators.layout.num_free, 2 * (sheet.edges + wire.edges));
}

TEST(EmbeddedMetal, ACurveOffTheVolumeMeshIsRefusedInOneLine)
{
  ScratchDirectory scratch("embedded_metal_loose");
  scratch.write("metal.geo", geometry(false));
  try {
    problem(scratch, "[\"wire\"]");
    FAIL() << "a loose curve was accepted";
  } catch (dgatd::Error const& e) {
    std::string const message = e.what();
    EXPECT_NE(message.find("metal.geo"), std::string::npos) << message;
    EXPECT_NE(message.find("belongs to no tetrahedron"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

} // namespace
