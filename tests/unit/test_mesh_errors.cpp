// Bad meshes reach the user as one line naming the file, the problem and the fix, with a non-zero
// exit status, through the real executable (`dgatd info FILE`); inverted tets are repaired quietly.
#include "dgatd/error.hpp"
#include "dgatd/mesh/gmsh_io.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

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

} // namespace
