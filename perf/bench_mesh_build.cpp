// Time and memory to build the DGA complex (build_topology) and the geometric factors
// (build_geometry) of a jittered structured box of 56^3 x 6 = 1.05M tets; the mesh construction
// itself is not timed. Targets on a 2-core workstation: under 20 s and 2 GiB. --smoke: 4^3 cells.
#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/structured.hpp"
#include "dgatd/mesh/topology.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>

namespace {

double seconds_since(std::chrono::steady_clock::time_point start)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double peak_rss_mib()
{
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0; // ru_maxrss is in KiB on Linux
}

} // namespace

int main(int argc, char* argv[])
{
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      smoke = true;
    } else {
      std::fprintf(stderr, "usage: %s [--smoke]\n", argv[0]);
      return 2;
    }
  }
  int const n = smoke ? 4 : 56;
  dgatd::mesh::StructuredBox box;
  box.cells[0] = box.cells[1] = box.cells[2] = n;
  box.jitter = 0.2;
  auto const mesh = dgatd::mesh::structured_box(box);

  auto start = std::chrono::steady_clock::now();
  auto const topology = dgatd::mesh::build_topology(mesh);
  double const topology_s = seconds_since(start);
  start = std::chrono::steady_clock::now();
  auto const geometry = dgatd::mesh::build_geometry(mesh, topology);
  double const geometry_s = seconds_since(start);
  double const total_s = topology_s + geometry_s;
  double const rss = peak_rss_mib();
  double total_volume = 0; // the unit box: a check that the factors were really computed
  for (double v : geometry.tet_volume) total_volume += v;
  bool const within_target = total_s < 20.0 && rss < 2048.0;

  std::printf("bench_mesh_build: structured box %d^3 x 6, jitter %.1f\n", n, box.jitter);
  std::printf("  %-22s %12d\n", "vertices", mesh.num_vertices());
  std::printf("  %-22s %12d\n", "edges", topology.num_edges());
  std::printf("  %-22s %12d\n", "faces", topology.num_faces());
  std::printf("  %-22s %12d\n", "tets", mesh.num_tets());
  std::printf("  %-22s %12.3f s\n", "build_topology", topology_s);
  std::printf("  %-22s %12.3f s\n", "build_geometry", geometry_s);
  std::printf("  %-22s %12.3f s  (target < 20 s)\n", "total", total_s);
  std::printf("  %-22s %12.1f MiB (target < 2048 MiB, includes the mesh)\n", "peak RSS", rss);
  std::printf("{\"benchmark\":\"mesh_build\",\"smoke\":%s,\"cells\":%d,\"vertices\":%d,\"edges\":%d,\"faces\":%d,"
              "\"tets\":%d,\"topology_s\":%.4f,\"geometry_s\":%.4f,\"total_s\":%.4f,\"peak_rss_mib\":%.1f,"
              "\"within_target\":%s,\"total_volume\":%.12g}\n",
              smoke ? "true" : "false", n, mesh.num_vertices(), topology.num_edges(), topology.num_faces(),
              mesh.num_tets(), topology_s, geometry_s, total_s, rss, within_target ? "true" : "false", total_volume);
  return 0;
}
