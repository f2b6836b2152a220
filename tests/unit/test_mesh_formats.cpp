// One mesh written as .msh 2.2 ASCII, 4.1 ASCII and 4.1 binary (and 2.2 binary) reads back as the
// same mesh, so the DGA complex and its numbering do not depend on the file format.
#include "dgatd/error.hpp"
#include "dgatd/mesh/generators.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/mesh/topology.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "scratch_directory.hpp"
#include <unistd.h>

namespace dgatd::mesh {
namespace {

namespace fs = std::filesystem;

using dgatd::testing::ScratchDirectory;

Mesh waveguide_with_inner_box()
{
  GeneratorSpec spec;
  spec.shape = "waveguide";
  spec.size = {0.4, 0.2, 1.0};
  spec.element_size = 0.1;
  spec.inner.shape = "box";
  spec.inner.corner = {0.1, 0.05, 0.3};
  spec.inner.size = {0.2, 0.1, 0.2};
  return generate_mesh(spec);
}

void expect_same_topology(Topology const& a, Topology const& b)
{
  EXPECT_EQ(a.num_vertices, b.num_vertices);
  EXPECT_EQ(a.edge_vertices, b.edge_vertices);
  EXPECT_EQ(a.face_vertices, b.face_vertices);
  EXPECT_EQ(a.tet_edges, b.tet_edges);
  EXPECT_EQ(a.tet_edge_sign, b.tet_edge_sign);
  EXPECT_EQ(a.tet_faces, b.tet_faces);
  EXPECT_EQ(a.tet_face_sign, b.tet_face_sign);
  EXPECT_EQ(a.tet_curl, b.tet_curl);
  EXPECT_EQ(a.face_tets, b.face_tets);
  EXPECT_EQ(a.v2e_offsets, b.v2e_offsets);
  EXPECT_EQ(a.v2e, b.v2e);
  EXPECT_EQ(a.edge_half_edges, b.edge_half_edges);
  EXPECT_EQ(a.v2t_offsets, b.v2t_offsets);
  EXPECT_EQ(a.v2t, b.v2t);
  EXPECT_EQ(a.boundary_faces, b.boundary_faces);
  EXPECT_EQ(a.face_tag, b.face_tag);
  EXPECT_EQ(a.edge_on_boundary, b.edge_on_boundary);
}

// ASCII .msh stores coordinates with 16 significant digits, so they come back to within one unit
// in the 16th digit; binary files store them exactly.
void expect_same_mesh(Mesh const& a, Mesh const& b, bool exact_points)
{
  ASSERT_EQ(a.points.size(), b.points.size());
  for (std::size_t v = 0; v < a.points.size(); ++v)
    for (int c = 0; c < 3; ++c) {
      if (exact_points)
        ASSERT_EQ(a.points[v][c], b.points[v][c]) << "vertex " << v;
      else
        ASSERT_NEAR(a.points[v][c], b.points[v][c], 1e-15 * (1.0 + std::abs(a.points[v][c]))) << "vertex " << v;
    }
  EXPECT_EQ(a.tets, b.tets);
  EXPECT_EQ(a.tet_region, b.tet_region);
  EXPECT_EQ(a.boundary_triangles, b.boundary_triangles);
  EXPECT_EQ(a.boundary_triangle_tag, b.boundary_triangle_tag);
  ASSERT_EQ(a.groups.size(), b.groups.size());
  for (std::size_t i = 0; i < a.groups.size(); ++i) {
    EXPECT_EQ(a.groups[i].dim, b.groups[i].dim);
    EXPECT_EQ(a.groups[i].tag, b.groups[i].tag);
    EXPECT_EQ(a.groups[i].name, b.groups[i].name);
  }
  EXPECT_EQ(b.reoriented_tets, 0);
}

struct Format {
  char const* version;
  bool binary;
  char const* file;
};

constexpr Format kFormats[] = {
    {"2.2", false, "v22_ascii.msh"},
    {"4.1", false, "v41_ascii.msh"},
    {"4.1", true, "v41_binary.msh"},
    {"2.2", true, "v22_binary.msh"},
};

TEST(MeshFormats, AllFormatsGiveTheSameComplex)
{
  ScratchDirectory dir("mesh_formats");
  Mesh const original = waveguide_with_inner_box();
  ASSERT_EQ(original.groups.size(), 6u); // walls, port_in, port_out, inner_surface, domain, inner
  Topology const reference = build_topology(original);
  for (auto const& format : kFormats) {
    SCOPED_TRACE(format.file);
    write_mesh(original, dir.file(format.file), format.version, format.binary);
    Mesh const copy = read_mesh(dir.file(format.file));
    expect_same_mesh(original, copy, format.binary);
    expect_same_topology(reference, build_topology(copy));
  }
}

TEST(MeshFormats, GeneratorWritesMsh41)
{
  ScratchDirectory dir("mesh_formats");
  GeneratorSpec spec;
  spec.shape = "cylinder";
  spec.size = {0.3, 0.5, 0.0};
  spec.element_size = 0.15;
  Mesh const generated = generate_mesh(spec, dir.file("cylinder.msh"));
  std::ifstream in(dir.file("cylinder.msh"));
  std::string header, version;
  std::getline(in, header);
  in >> version;
  EXPECT_EQ(header, "$MeshFormat");
  EXPECT_EQ(version, "4.1");
  Mesh const copy = read_mesh(dir.file("cylinder.msh"));
  expect_same_mesh(generated, copy, false);
  expect_same_topology(build_topology(generated), build_topology(copy));
}

// Tets outside every physical volume (region 0) survive a round trip next to tagged ones in MSH 4.1,
// which tags entities; MSH 2.2 tags elements and can only hold a mesh without any tags.
TEST(MeshFormats, UntaggedTetsSurvive)
{
  ScratchDirectory dir("mesh_formats");
  StructuredBox box;
  box.jitter = 0.2;
  Mesh mesh = structured_box(box);
  for (std::size_t t = 0; t < mesh.tets.size() / 2; ++t) mesh.tet_region[t] = 0;
  for (auto const& format : kFormats) {
    SCOPED_TRACE(format.file);
    if (std::string(format.version) == "2.2") {
      EXPECT_THROW(write_mesh(mesh, dir.file(format.file), format.version, format.binary), Error);
      continue;
    }
    write_mesh(mesh, dir.file(format.file), format.version, format.binary);
    expect_same_mesh(mesh, read_mesh(dir.file(format.file)), format.binary);
  }
  mesh.tet_region.assign(mesh.tets.size(), 0);
  mesh.groups.clear();
  write_mesh(mesh, dir.file("untagged_v22.msh"), "2.2");
  expect_same_mesh(mesh, read_mesh(dir.file("untagged_v22.msh")), false);
}

// Gmsh numbers nodes 1 to N, which the reader indexes directly; other writers may leave gaps. Node
// tags spread far apart (in increasing order, so the vertices keep theirs) read as the same mesh.
TEST(MeshFormats, SparseNodeTagsReadAsTheSameMesh)
{
  ScratchDirectory dir("mesh_formats");
  StructuredBox box;
  box.jitter = 0.2;
  Mesh const mesh = structured_box(box);
  write_mesh(mesh, dir.file("dense.msh"), "2.2");
  auto const spread = [](std::string const& tag) { return std::to_string(7919 * std::stoll(tag) + 1000000); };
  std::ifstream in(dir.file("dense.msh"));
  std::ofstream out(dir.file("sparse.msh"));
  std::string line, section;
  bool count_line = false;
  while (std::getline(in, line)) {
    if (line[0] == '$') {
      section = line;
      count_line = true;
    } else if (count_line) {
      count_line = false;
    } else if (section == "$Nodes") {
      auto const space = line.find(' ');
      line = spread(line.substr(0, space)) + line.substr(space);
    } else if (section == "$Elements") {
      // tag type number-of-tags tags... nodes...
      std::istringstream fields(line);
      std::vector<std::string> tokens;
      for (std::string token; fields >> token;) tokens.push_back(token);
      std::size_t const first_node = 3 + std::stoul(tokens[2]);
      for (std::size_t k = first_node; k < tokens.size(); ++k) tokens[k] = spread(tokens[k]);
      line.clear();
      for (auto const& token : tokens) line += (line.empty() ? "" : " ") + token;
    }
    out << line << '\n';
  }
  out.close();
  expect_same_mesh(mesh, read_mesh(dir.file("sparse.msh")), false);
}

TEST(MeshFormats, ScaleMultipliesCoordinates)
{
  ScratchDirectory dir("mesh_formats");
  Mesh const mesh = structured_box(StructuredBox{});
  write_mesh(mesh, dir.file("unit.msh"), "4.1", true);
  Mesh const scaled = read_mesh(dir.file("unit.msh"), 1e-3);
  ASSERT_EQ(scaled.points.size(), mesh.points.size());
  for (std::size_t v = 0; v < mesh.points.size(); ++v)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(scaled.points[v][c], 1e-3 * mesh.points[v][c]);
}

TEST(MeshFormats, RefusesUnknownVersionAndExtension)
{
  ScratchDirectory dir("mesh_formats");
  Mesh const mesh = structured_box(StructuredBox{});
  EXPECT_THROW(write_mesh(mesh, dir.file("a.msh"), "3.0"), Error);
  EXPECT_THROW(write_mesh(mesh, dir.file("a.vtk")), Error);
  EXPECT_THROW(write_mesh(mesh, dir.file("no_such_directory/a.msh")), Error);
}

} // namespace
} // namespace dgatd::mesh
