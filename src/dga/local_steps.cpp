#include "dgatd/dga/local_steps.hpp"

#include "assembly_parts.hpp"

#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/reference_tet.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace dgatd::dga {
namespace {

using Matrix3 = std::array<std::array<double, 3>, 3>;
using Matrix4 = std::array<double, 16>; // row-major

// The inverse of a symmetric positive definite 3 x 3 matrix: its adjugate over its determinant.
Matrix3 inverse(Matrix3 const& a)
{
  Matrix3 adjugate;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      int const r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
      adjugate[i][j] = a[r0][c0] * a[r1][c1] - a[r0][c1] * a[r1][c0];
    }
  double const determinant = a[0][0] * adjugate[0][0] + a[0][1] * adjugate[1][0] + a[0][2] * adjugate[2][0];
  for (auto& row : adjugate)
    for (double& x : row) x /= determinant;
  return adjugate;
}

// L^-1 m, L lower triangular.
Matrix4 forward_substituted(Matrix4 const& l, Matrix4 const& m)
{
  Matrix4 x{};
  for (int c = 0; c < 4; ++c)
    for (int i = 0; i < 4; ++i) {
      double v = m[i * 4 + c];
      for (int k = 0; k < i; ++k) v -= l[i * 4 + k] * x[k * 4 + c];
      x[i * 4 + c] = v / l[i * 4 + i];
    }
  return x;
}

// The largest eigenvalue of the symmetric pencil (b, a), a positive definite: a = L L^T, then
// cyclic Jacobi rotations on L^-1 b L^-T until its off-diagonal part is rounding.
double largest_eigenvalue(Matrix4 const& b, Matrix4 const& a)
{
  Matrix4 l{};
  for (int j = 0; j < 4; ++j) {
    double d = a[j * 4 + j];
    for (int k = 0; k < j; ++k) d -= l[j * 4 + k] * l[j * 4 + k];
    l[j * 4 + j] = std::sqrt(d);
    for (int i = j + 1; i < 4; ++i) {
      double s = a[i * 4 + j];
      for (int k = 0; k < j; ++k) s -= l[i * 4 + k] * l[j * 4 + k];
      l[i * 4 + j] = s / l[j * 4 + j];
    }
  }
  // x = L^-1 b, then s = L^-1 x^T (= L^-1 b L^-T, b symmetric).
  auto const x = forward_substituted(l, b);
  Matrix4 xt;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) xt[i * 4 + j] = x[j * 4 + i];
  auto s = forward_substituted(l, xt);
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = 0, scale = 0;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) (i == j ? scale : off) += s[i * 4 + j] * s[i * 4 + j];
    if (off <= 1e-30 * scale) break;
    for (int p = 0; p < 3; ++p)
      for (int q = p + 1; q < 4; ++q) {
        double const apq = 0.5 * (s[p * 4 + q] + s[q * 4 + p]);
        if (apq == 0) continue;
        double const theta = (s[q * 4 + q] - s[p * 4 + p]) / (2 * apq);
        double const t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        double const c = 1 / std::sqrt(t * t + 1), sn = t * c;
        for (int k = 0; k < 4; ++k) { // columns p, q
          double const kp = s[k * 4 + p], kq = s[k * 4 + q];
          s[k * 4 + p] = c * kp - sn * kq;
          s[k * 4 + q] = sn * kp + c * kq;
        }
        for (int k = 0; k < 4; ++k) { // rows p, q
          double const pk = s[p * 4 + k], qk = s[q * 4 + k];
          s[p * 4 + k] = c * pk - sn * qk;
          s[q * 4 + k] = sn * pk + c * qk;
        }
      }
  }
  double largest = 0;
  for (int i = 0; i < 4; ++i) largest = std::max(largest, s[i * 4 + i]);
  return largest;
}

// lambda_t (dgatd/dga/local_steps.hpp): G_t, the edges' form of the subregions' inverse electric
// masses (each half-edge value is its edge's, oriented alike), under the tet's curl and Mmu_t.
double tet_eigenvalue(mesh::MeshView const& m, std::vector<double> const& eps, std::vector<double> const& mu, Index t)
{
  std::array<double, 36> g{};
  for (int lv = 0; lv < 4; ++lv) {
    auto const s = mesh::subregion(m.mesh, m.topology, m.geometry, t, lv);
    Matrix3 mass;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) mass[i][j] = eps[t] * s.volume * dot(s.w[i], s.w[j]);
    auto const inverse_mass = inverse(mass);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        g[mesh::tet_vertex_edge(lv, i) * 6 + mesh::tet_vertex_edge(lv, j)] += inverse_mass[i][j];
  }
  auto const& curl = m.topology.tet_curl[t];
  Matrix4 b{};
  for (int p = 0; p < 4; ++p)
    for (int q = 0; q < 4; ++q)
      for (int e = 0; e < 6; ++e)
        for (int f = 0; f < 6; ++f) b[p * 4 + q] += curl[p][e] * g[e * 6 + f] * curl[q][f];
  return largest_eigenvalue(b, detail::magnetic_mass(m, mu[t], t));
}

} // namespace

std::vector<double> tet_steps(mesh::MeshView const& m, std::vector<double> const& eps, std::vector<double> const& mu)
{
  std::vector<double> steps(static_cast<std::size_t>(m.topology.num_tets()));
  for (Index t = 0; t < m.topology.num_tets(); ++t) steps[t] = 2 / std::sqrt(tet_eigenvalue(m, eps, mu, t));
  return steps;
}

std::vector<int> tet_doublings(std::vector<double> const& tet_dt, double dt0, int max_levels)
{
  std::vector<int> doublings(tet_dt.size());
  for (std::size_t t = 0; t < tet_dt.size(); ++t)
    doublings[t] = std::min(max_levels - 1, static_cast<int>(std::floor(std::log2(tet_dt[t] / dt0))));
  return doublings;
}

void limit_level_jumps(mesh::Topology const& topology, std::vector<int>& tet_level)
{
  // Levels only fall, each pass settles at least the tets next to the finest unsettled level, so at
  // most as many passes as levels.
  for (bool changed = true; changed;) {
    changed = false;
    for (Index t = 0; t < topology.num_tets(); ++t)
      for (Index f : topology.tet_faces[t])
        for (Index across : topology.face_tets[f])
          if (across >= 0 && tet_level[t] > tet_level[across] + 1) {
            tet_level[t] = tet_level[across] + 1;
            changed = true;
          }
  }
}

std::vector<int> expected_tet_levels(mesh::Topology const& topology, std::vector<double> const& tet_dt, int max_levels,
                                     std::vector<char> const& pinned)
{
  auto const num_tets = static_cast<std::size_t>(topology.num_tets());
  if (tet_dt.empty()) return {};
  auto doublings = tet_doublings(tet_dt, *std::min_element(tet_dt.begin(), tet_dt.end()), max_levels);
  limit_level_jumps(topology, doublings);
  auto const num_vertices = static_cast<Index>(topology.v2t_offsets.size()) - 1;
  auto const for_vertices = [&](Index t, auto&& visit) {
    for (Index const e : topology.tet_edges[t])
      for (Index const v : topology.edge_vertices[e]) visit(v);
  };
  std::vector<char> pinned_vertex(static_cast<std::size_t>(num_vertices), 0);
  for (std::size_t t = 0; t < num_tets; ++t)
    if (pinned[t]) for_vertices(static_cast<Index>(t), [&](Index v) { pinned_vertex[v] = 1; });
  int levels = 1 + *std::max_element(doublings.begin(), doublings.end());
  std::vector<char> forced(num_tets, 0);
  for (std::size_t t = 0; t < num_tets; ++t) {
    for_vertices(static_cast<Index>(t), [&](Index v) { forced[t] = static_cast<char>(forced[t] | pinned_vertex[v]); });
    if (forced[t]) levels = std::min(levels, 1 + doublings[t]);
  }
  std::vector<int> vertex_level(static_cast<std::size_t>(num_vertices), 0);
  for (std::size_t t = 0; t < num_tets; ++t) {
    int const wished = forced[t] ? 0 : std::max(0, levels - 1 - doublings[t]);
    for_vertices(static_cast<Index>(t), [&](Index v) { vertex_level[v] = std::max(vertex_level[v], wished); });
  }
  std::vector<int> tet_level(num_tets, 0);
  for (std::size_t t = 0; t < num_tets; ++t)
    for_vertices(static_cast<Index>(t), [&](Index v) { tet_level[t] = std::max(tet_level[t], vertex_level[v]); });
  return tet_level;
}

StepLevels step_levels(mesh::Topology const& topology, std::vector<double> const& tet_dt, double safety, int max_levels)
{
  StepLevels levels;
  if (tet_dt.empty()) return levels;
  levels.dt0 = safety * *std::min_element(tet_dt.begin(), tet_dt.end());
  levels.tet_level = tet_doublings(tet_dt, levels.dt0, max_levels);
  limit_level_jumps(topology, levels.tet_level);
  int const used = 1 + *std::max_element(levels.tet_level.begin(), levels.tet_level.end());
  levels.tets.assign(static_cast<std::size_t>(used), 0);
  double updates = 0;
  for (int level : levels.tet_level) {
    ++levels.tets[static_cast<std::size_t>(level)];
    updates += std::ldexp(1.0, -level);
  }
  levels.work_ratio = static_cast<double>(tet_dt.size()) / updates;

  auto const num_vertices = static_cast<Index>(topology.v2t_offsets.size()) - 1;
  std::vector<int> vertex_level(static_cast<std::size_t>(num_vertices), max_levels);
  for (Index v = 0; v < num_vertices; ++v)
    for (Index i = topology.v2t_offsets[v]; i < topology.v2t_offsets[v + 1]; ++i)
      vertex_level[v] = std::min(vertex_level[v], levels.tet_level[topology.v2t[i]]);
  double block_updates = 0;
  for (Index t = 0; t < topology.num_tets(); ++t) {
    int level = levels.tet_level[t];
    for (Index const e : topology.tet_edges[t])
      for (Index const v : topology.edge_vertices[e]) level = std::min(level, vertex_level[v]);
    block_updates += std::ldexp(1.0, -level);
  }
  levels.whole_block_work_ratio = static_cast<double>(tet_dt.size()) / block_updates;
  return levels;
}

} // namespace dgatd::dga
