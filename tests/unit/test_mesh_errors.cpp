// Bad meshes reach the user as one line naming the file, the problem and the fix, with a non-zero
// exit status, through the real executable (`dgatd info FILE`); inverted tets are repaired quietly.
#include "dgatd/error.hpp"
#include "dgatd/mesh/gmsh_io.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "scratch_directory.hpp"

namespace {

namespace fs = std::filesystem;

using dgatd::testing::ScratchDirectory;

struct ProcessResult {
  int exit_status = -1;
  std::string out;
  std::string err;
};

std::string read_all(std::string const& path)
{
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs `dgatd info path`, keeping stdout and stderr apart. One OpenMP thread without binding keeps
// Kokkos itself quiet, so whatever reaches stderr comes from dgatd (or leaked Gmsh output).
ProcessResult dgatd_info(ScratchDirectory const& dir, std::string const& path)
{
  std::string const err_file = dir.file("stderr.txt");
  std::string const command = "OMP_PROC_BIND=false OMP_NUM_THREADS=1 '" + std::string(DGATD_EXECUTABLE) + "' info '" +
                              path + "' 2>'" + err_file + "'";
  ProcessResult run;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return run;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) run.out.append(buffer, n);
  int const status = ::pclose(pipe);
  run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.err = read_all(err_file);
  return run;
}

// The failure contract: non-zero exit, nothing on stdout, exactly one line on stderr that names
// the file and carries each expected fragment and a fix.
void expect_one_line_error(ProcessResult const& run, std::string const& file,
                           std::initializer_list<std::string> fragments)
{
  EXPECT_EQ(run.exit_status, 1);
  EXPECT_TRUE(run.out.empty()) << run.out;
  ASSERT_FALSE(run.err.empty());
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_EQ(run.err.back(), '\n');
  EXPECT_EQ(run.err.rfind("dgatd: error: ", 0), 0u) << run.err;
  EXPECT_NE(run.err.find(fs::path(file).filename().string()), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("(fix: "), std::string::npos) << run.err;
  for (auto const& fragment : fragments) EXPECT_NE(run.err.find(fragment), std::string::npos) << run.err;
}

std::string const kHeader = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n";

// Unit tet 1-2-3-4 and a fifth node beyond its slanted face 2-3-4; node 6 is coplanar with 1-2-3.
std::string const kNodes = "$Nodes\n6\n"
                           "1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n6 0.5 0.5 0\n"
                           "$EndNodes\n";

std::string elements(std::string const& lines, int count)
{
  return "$Elements\n" + std::to_string(count) + "\n" + lines + "$EndElements\n";
}

TEST(MeshErrors, MissingFile)
{
  ScratchDirectory dir("mesh_errors");
  std::string const path = dir.file("missing.msh");
  expect_one_line_error(dgatd_info(dir, path), path, {"no such file"});
}

TEST(MeshErrors, NotAMeshFile)
{
  ScratchDirectory dir("mesh_errors");
  std::string const path = dir.write("notes.msh", "these are not the nodes you are looking for\n");
  expect_one_line_error(dgatd_info(dir, path), path, {"not a Gmsh .msh file"});
}

TEST(MeshErrors, TruncatedFile)
{
  ScratchDirectory dir("mesh_errors");
  std::string const path =
      dir.write("truncated.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n");
  expect_one_line_error(dgatd_info(dir, path), path, {"cannot read the mesh"});
}

TEST(MeshErrors, CorruptElements)
{
  ScratchDirectory dir("mesh_errors");
  std::string const path = dir.write("corrupt.msh", kHeader + kNodes + elements("1 4 2 1 1 1 2 x 4\n", 1));
  expect_one_line_error(dgatd_info(dir, path), path, {"cannot read the mesh"});
}

TEST(MeshErrors, NoTetrahedra)
{
  ScratchDirectory dir("mesh_errors");
  std::string const path = dir.write("surface.msh", kHeader + kNodes + elements("1 2 2 1 1 1 2 3\n", 1));
  expect_one_line_error(dgatd_info(dir, path), path, {"no tetrahedra", "gmsh -3 -order 1"});
}

TEST(MeshErrors, SecondOrderTetrahedra)
{
  ScratchDirectory dir("mesh_errors");
  std::string const nodes = "$Nodes\n10\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 0.5 0 0\n6 0.5 0.5 0\n"
                            "7 0 0.5 0\n8 0 0 0.5\n9 0 0.5 0.5\n10 0.5 0 0.5\n$EndNodes\n";
  std::string const path =
      dir.write("quadratic.msh", kHeader + nodes + elements("7 11 2 1 1 1 2 3 4 5 6 7 8 9 10\n", 1));
  expect_one_line_error(dgatd_info(dir, path), path,
                        {"element 7", "Tetrahedron 10", "remesh with first-order tetrahedra", "gmsh -3 -order 1"});
}

TEST(MeshErrors, Hexahedra)
{
  ScratchDirectory dir("mesh_errors");
  std::string const nodes = "$Nodes\n8\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n5 0 0 1\n6 1 0 1\n7 1 1 1\n8 0 1 1\n"
                            "$EndNodes\n";
  std::string const path = dir.write("hexahedra.msh", kHeader + nodes + elements("3 5 2 1 1 1 2 3 4 5 6 7 8\n", 1));
  expect_one_line_error(dgatd_info(dir, path), path,
                        {"element 3", "Hexahedron", "remesh with first-order tetrahedra", "gmsh -3 -order 1"});
}

TEST(MeshErrors, DegenerateTetrahedron)
{
  ScratchDirectory dir("mesh_errors");
  std::string const path =
      dir.write("flat.msh", kHeader + kNodes + elements("1 4 2 1 1 1 2 3 4\n42 4 2 1 1 1 2 6 3\n", 2));
  expect_one_line_error(dgatd_info(dir, path), path, {"1 degenerate", "element", "42"});
}

TEST(MeshErrors, InvertedTetrahedraAreReoriented)
{
  ScratchDirectory dir("mesh_errors");
  // Tet 2 lists 3-2-4-5, a negative orientation of the tet 2-3-4-5 beyond face 2-3-4.
  std::string const path =
      dir.write("inverted.msh", kHeader + kNodes + elements("1 4 2 1 1 1 2 3 4\n2 4 2 1 1 3 2 4 5\n", 2));
  ProcessResult const run = dgatd_info(dir, path);
  EXPECT_EQ(run.exit_status, 0) << run.err;
  EXPECT_TRUE(run.err.empty()) << run.err;
  std::istringstream out(run.out);
  std::string line;
  bool found = false;
  while (std::getline(out, line))
    if (line.rfind("reoriented tets", 0) == 0) {
      found = true;
      EXPECT_EQ(std::stoi(line.substr(line.find_last_of(' ') + 1)), 1) << line;
    }
  EXPECT_TRUE(found) << run.out;

  auto const mesh = dgatd::mesh::read_mesh(path);
  EXPECT_EQ(mesh.reoriented_tets, 1);
}

TEST(MeshErrors, UnknownPhysicalGroupName)
{
  ScratchDirectory dir("mesh_errors");
  std::string const names = "$PhysicalNames\n2\n2 5 \"boundary\"\n3 1 \"domain\"\n$EndPhysicalNames\n";
  std::string const path =
      dir.write("named.msh", kHeader + names + kNodes + elements("1 4 2 1 1 1 2 3 4\n2 2 2 5 2 2 3 4\n", 2));
  auto const mesh = dgatd::mesh::read_mesh(path);
  EXPECT_EQ(mesh.group_tag(3, "domain"), 1);
  EXPECT_EQ(mesh.group_tag(2, "boundary"), 5);
  try {
    mesh.group_tag(3, "dielectric");
    FAIL() << "group_tag accepted an unknown name";
  } catch (dgatd::Error const& e) {
    std::string const message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    for (std::string fragment : {std::string("named.msh"), std::string("'dielectric'"), std::string("'domain'"),
                                 std::string("'boundary'"), std::string("(fix: ")})
      EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
  // A surface name is not a volume name.
  EXPECT_THROW(mesh.group_tag(3, "boundary"), dgatd::Error);
}

// Gmsh 4.8's readers trust counts, indices and dimensions in the file, so read_mesh checks the file
// first (src/mesh/msh_check.hpp). The cases below were found by fuzzing (tests/fuzz/fuzz_mesh.cpp).

void expect_mentions(std::string const& message, std::initializer_list<std::string> fragments)
{
  for (auto const& fragment : fragments) EXPECT_NE(message.find(fragment), std::string::npos) << message;
}

// The message of the dgatd::Error read_mesh throws for text written to name, checked to be one line.
std::string read_error(ScratchDirectory const& dir, std::string const& name, std::string const& text)
{
  std::string const path = dir.write(name, text);
  try {
    dgatd::mesh::read_mesh(path);
  } catch (dgatd::Error const& e) {
    std::string const message = e.what();
    EXPECT_EQ(message.find_first_of("\n\r"), std::string::npos) << message;
    EXPECT_EQ(message.rfind(path, 0), 0u) << message;
    return message;
  }
  ADD_FAILURE() << "read_mesh accepted " << name;
  return "";
}

std::string const kHeader41 = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n";
// MSH 4.1: the unit tet 1-2-3-4 in volume 1 (physical 7) and a triangle 1-2-3 on surface 2.
std::string const kEntities41 = "$Entities\n0 0 1 1\n2 0 0 0 1 1 0 0 0\n1 0 0 0 1 1 1 1 7 1 2\n$EndEntities\n";
std::string const kNodes41 = "$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n";

TEST(MeshErrors, Msh41TetReads)
{
  ScratchDirectory dir("mesh_errors");
  std::string const path =
      dir.write("tet.msh", kHeader41 + kEntities41 + kNodes41 +
                               "$Elements\n2 2 1 2\n3 1 4 1\n1 1 2 3 4\n2 2 2 1\n2 1 2 3\n$EndElements\n");
  auto const mesh = dgatd::mesh::read_mesh(path);
  EXPECT_EQ(mesh.num_tets(), 1);
  EXPECT_EQ(mesh.tet_region, std::vector<int>{7});
  EXPECT_TRUE(mesh.boundary_triangles.empty()); // surface 2 is in no physical group
}

// Gmsh indexed a four-entry array with the dimension and wrote outside it.
TEST(MeshErrors, PhysicalNameOfDimensionFour)
{
  ScratchDirectory dir("mesh_errors");
  std::string const names = "$PhysicalNames\n1\n4 1 \"domain\"\n$EndPhysicalNames\n";
  expect_mentions(read_error(dir, "names.msh", kHeader41 + names + kEntities41 + kNodes41),
                  {"names.msh:6:", "cannot read the mesh", "dimension of a physical group 4 is outside 0 to 3"});
}

// Gmsh sized its node and element caches by the section's total and wrote past them.
TEST(MeshErrors, BlocksLargerThanTheirSection)
{
  ScratchDirectory dir("mesh_errors");
  std::string const nodes = "$Nodes\n1 2 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n";
  expect_mentions(read_error(dir, "nodes.msh", kHeader41 + kEntities41 + nodes),
                  {"nodes.msh:11:", "node blocks hold more nodes than the 2 the section declares"});
  std::string const elements = "$Elements\n1 0 1 1\n3 1 4 1\n1 1 2 3 4\n$EndElements\n";
  expect_mentions(read_error(dir, "elements.msh", kHeader41 + kEntities41 + kNodes41 + elements),
                  {"elements.msh:23:", "element blocks hold more elements than the 0 the section declares"});
}

// Gmsh stopped these files with an exception half-way, leaving the file open (and the elements
// read so far allocated): a long-lived process would run out of file descriptors.
TEST(MeshErrors, RefusedFilesLeaveNothingOpen)
{
  ScratchDirectory dir("mesh_errors");
  auto lowest_free_descriptor = [] {
    int const fd = ::open("/dev/null", O_RDONLY);
    ::close(fd);
    return fd;
  };
  int const before = lowest_free_descriptor();
  // MSH 2.2: an element on a node the file does not define.
  expect_mentions(read_error(dir, "node.msh", kHeader + kNodes + elements("1 4 2 1 1 1 2 3 9\n", 1)),
                  {"node.msh:15:", "element 1 uses node 9, which no $Nodes section before it defines"});
  // MSH 4.1: elements of an entity $Entities does not declare, and a tet in a surface.
  expect_mentions(
      read_error(dir, "entity.msh",
                 kHeader41 + kEntities41 + kNodes41 + "$Elements\n1 1 1 1\n3 5 4 1\n1 1 2 3 4\n$EndElements\n"),
      {"entity.msh:23:", "an element block of entity 5 (dimension 3) has no $Entities or $Nodes entry"});
  expect_mentions(
      read_error(dir, "dimension.msh",
                 kHeader41 + kEntities41 + kNodes41 + "$Elements\n1 1 1 1\n2 2 4 1\n1 1 2 3 4\n$EndElements\n"),
      {"dimension.msh:23:", "has dimension 2 but elements of dimension 3"});
  EXPECT_EQ(lowest_free_descriptor(), before);
}

// Gmsh's MSH 2 reader kept the last element of a tag and leaked the others (found by fuzzing), so a
// corrupt file lost a tet without a word.
TEST(MeshErrors, DuplicateElementTag)
{
  ScratchDirectory dir("mesh_errors");
  expect_mentions(
      read_error(dir, "twice.msh", kHeader + kNodes + elements("1 4 2 1 1 1 2 3 4\n1 4 2 1 1 3 2 4 5\n", 2)),
      {"twice.msh:", "element 1 is defined twice"});
}

// Gmsh appended its own directory to PATH and PYTHONPATH at every read (found by fuzzing: memory
// grew with each read, as glibc keeps every value a variable has had).
TEST(MeshErrors, ReadsLeaveTheEnvironmentAsItWas)
{
  ScratchDirectory dir("mesh_errors");
  std::string const path = dir.write("tet.msh", kHeader + kNodes + elements("1 4 2 1 1 1 2 3 4\n", 1));
  auto variable = [](char const* name) {
    char const* value = std::getenv(name);
    return value ? std::string(value) : std::string("(unset)");
  };
  std::string const search_path = variable("PATH"), python_path = variable("PYTHONPATH");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(dgatd::mesh::read_mesh(path).num_tets(), 1);
  EXPECT_EQ(variable("PATH"), search_path);
  EXPECT_EQ(variable("PYTHONPATH"), python_path);
}

// What Gmsh writes reads, with Windows line ends and a comment section too.
TEST(MeshErrors, CarriageReturnsAndCommentsAreRead)
{
  ScratchDirectory dir("mesh_errors");
  std::string const text =
      kHeader + "$Comments\nexported by hand\n$EndComments\n" + kNodes + elements("1 4 2 1 1 1 2 3 4\n", 1);
  std::string crlf;
  for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  EXPECT_EQ(dgatd::mesh::read_mesh(dir.write("windows.msh", crlf)).num_tets(), 1);
}

} // namespace
