// libFuzzer target for the .msh reader: any bytes as a mesh file. read_mesh takes a path (Gmsh
// reads files only), so each input goes to a file of its own in the temporary directory, removed
// before the next; scripts/fuzz.sh points TMPDIR at a directory it removes, so even an input that
// crashes leaves nothing behind.
#include "dgatd/mesh/gmsh_io.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include "fuzz_contract.hpp"

namespace {

// The reader's promises about the mesh it returns, which topology and geometry rely on.
void check_mesh(dgatd::mesh::Mesh const& mesh)
{
  using dgatd::fuzz::require;
  require(!mesh.tets.empty(), "at least one tetrahedron");
  require(mesh.tet_region.size() == mesh.tets.size(), "a region per tet");
  require(mesh.boundary_triangle_tag.size() == mesh.boundary_triangles.size(), "a tag per boundary triangle");
  auto const vertices = mesh.num_vertices();
  for (auto const& tet : mesh.tets)
    for (auto v : tet) require(v >= 0 && v < vertices, "tet vertices within the points");
  for (auto const& triangle : mesh.boundary_triangles)
    for (auto v : triangle) require(v >= 0 && v < vertices, "triangle vertices within the points");
}

// The lowest free file descriptor. It rises when a reader leaves a file open (Gmsh 4.8's readers
// do when they stop half-way with an exception), which LeakSanitizer does not see.
int lowest_free_descriptor()
{
  int const fd = ::open("/dev/null", O_RDONLY);
  ::close(fd);
  return fd;
}

} // namespace

// The reader's host loops run on Kokkos' host space, which lives as long as the process.
extern "C" int LLVMFuzzerInitialize(int*, char***)
{
  Kokkos::initialize();
  std::atexit([] { Kokkos::finalize(); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
  namespace fs = std::filesystem;
  // Gmsh picks the reader by the extension.
  std::string const path =
      (fs::temp_directory_path() / ("dgatd_fuzz_mesh_" + std::to_string(::getpid()) + ".msh")).string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<char const*>(data), static_cast<std::streamsize>(size));
  }
  int const free_descriptor = lowest_free_descriptor();
  dgatd::fuzz::expect_result_or_one_line_error(path, [&] { check_mesh(dgatd::mesh::read_mesh(path)); });
  dgatd::fuzz::require(lowest_free_descriptor() == free_descriptor, "no file left open");
  std::error_code ignored;
  fs::remove(path, ignored);
  return 0;
}
