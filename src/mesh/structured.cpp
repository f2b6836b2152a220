#include "dgatd/mesh/structured.hpp"

#include "dgatd/random.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace dgatd::mesh {
namespace {

double signed_volume(std::vector<Vec3> const& p, std::array<Index, 4> const& v)
{
  double const a[3] = {p[v[1]][0] - p[v[0]][0], p[v[1]][1] - p[v[0]][1], p[v[1]][2] - p[v[0]][2]};
  double const b[3] = {p[v[2]][0] - p[v[0]][0], p[v[2]][1] - p[v[0]][1], p[v[2]][2] - p[v[0]][2]};
  double const c[3] = {p[v[3]][0] - p[v[0]][0], p[v[3]][1] - p[v[0]][1], p[v[3]][2] - p[v[0]][2]};
  return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
}

} // namespace

Mesh structured_box(StructuredBox const& box)
{
  Mesh mesh;
  int const nx = box.cells[0], ny = box.cells[1], nz = box.cells[2];
  mesh.source = "structured box " + std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz);
  auto vertex = [&](int i, int j, int k) { return static_cast<Index>((k * (ny + 1) + j) * (nx + 1) + i); };
  double const h[3] = {box.size[0] / nx, box.size[1] / ny, box.size[2] / nz};
  std::uint64_t state = box.seed;
  mesh.points.resize(static_cast<std::size_t>(nx + 1) * (ny + 1) * (nz + 1));
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        int const index[3] = {i, j, k};
        int const n[3] = {nx, ny, nz};
        Vec3& p = mesh.points[vertex(i, j, k)];
        for (int c = 0; c < 3; ++c) {
          double const shift = uniform_minus_one_to_one(state) * box.jitter * h[c];
          bool const interior = index[c] > 0 && index[c] < n[c];
          p[c] = index[c] * h[c] + (interior ? shift : 0.0);
        }
      }
  // Kuhn subdivision: one tet per path from corner (0,0,0) to (1,1,1) along the three axes.
  int const axis_orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  mesh.tets.reserve(static_cast<std::size_t>(6) * nx * ny * nz);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        for (auto const& order : axis_orders) {
          int corner[3] = {i, j, k};
          std::array<Index, 4> tet;
          tet[0] = vertex(corner[0], corner[1], corner[2]);
          for (int s = 0; s < 3; ++s) {
            ++corner[order[s]];
            tet[s + 1] = vertex(corner[0], corner[1], corner[2]);
          }
          if (signed_volume(mesh.points, tet) < 0) std::swap(tet[2], tet[3]);
          mesh.tets.push_back(tet);
        }
  mesh.tet_region.assign(mesh.tets.size(), 1);
  mesh.groups.push_back({3, 1, "box"});
  return mesh;
}

Mesh graded_box(int cells, double ratio)
{
  StructuredBox box;
  for (int a = 0; a < 3; ++a) box.cells[a] = cells;
  Mesh mesh = structured_box(box);
  double const growth = std::pow(ratio, 1.0 / (cells - 1));
  std::vector<double> line(cells + 1, 0.0);
  for (int i = 0; i < cells; ++i) line[i + 1] = line[i] + std::pow(growth, i);
  for (auto& p : mesh.points)
    for (int a = 0; a < 3; ++a) p[a] = line[static_cast<int>(std::lround(p[a] * cells))] / line[cells];
  return mesh;
}

} // namespace dgatd::mesh
