#include "dgatd/dga/operators.hpp"

#include "dgatd/error.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace dgatd::dga {
namespace {

using mesh::kVertexEdges;
using mesh::kVertexFaces;
using mesh::Vec3;

double dot(Vec3 const& x, Vec3 const& y) { return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]; }

double one_norm(double const* a, int n)
{
  double best = 0;
  for (int j = 0; j < n; ++j) {
    double column = 0;
    for (int i = 0; i < n; ++i) column += std::abs(a[i * n + j]);
    best = std::max(best, column);
  }
  return best;
}

enum class HalfEdgeKind : std::uint8_t { free, prescribed, zero };

} // namespace

bool invert_spd(double* a, int n)
{
  // Cholesky A = L L^T in the lower triangle, then A^-1 = L^-T L^-1 column by column.
  std::vector<double> l(static_cast<std::size_t>(n) * n, 0.0);
  for (int j = 0; j < n; ++j) {
    double diagonal = a[j * n + j];
    for (int k = 0; k < j; ++k) diagonal -= l[j * n + k] * l[j * n + k];
    if (!(diagonal > 0)) return false;
    l[j * n + j] = std::sqrt(diagonal);
    for (int i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (int k = 0; k < j; ++k) s -= l[i * n + k] * l[j * n + k];
      l[i * n + j] = s / l[j * n + j];
    }
  }
  std::vector<double> column(n);
  for (int c = 0; c < n; ++c) {
    for (int i = 0; i < n; ++i) {
      double s = (i == c) ? 1.0 : 0.0;
      for (int k = 0; k < i; ++k) s -= l[i * n + k] * column[k];
      column[i] = s / l[i * n + i];
    }
    for (int i = n - 1; i >= 0; --i) {
      double s = column[i];
      for (int k = i + 1; k < n; ++k) s -= l[k * n + i] * column[k];
      column[i] = s / l[i * n + i];
    }
    for (int i = 0; i < n; ++i) a[i * n + c] = column[i];
  }
  // Rounding leaves the two triangles a few ulps apart; kernels read rows or columns, whichever
  // their backend streams better, so both must be the same numbers.
  for (int i = 0; i < n; ++i)
    for (int c = i + 1; c < n; ++c) a[i * n + c] = a[c * n + i] = 0.5 * (a[i * n + c] + a[c * n + i]);
  return true;
}

HostOperators assemble(mesh::Mesh const& mesh, mesh::Topology const& topology, mesh::Geometry const& geometry,
                       Materials const& materials, std::vector<FaceKind> const& face_kind,
                       AssemblyOptions const& options)
{
  HostOperators ops;
  DofLayout& layout = ops.layout;
  Index const num_tets = topology.num_tets();
  Index const num_edges = topology.num_edges();
  Index const num_vertices = topology.num_vertices;

  // PEC wins over a port where both touch an edge: the tangential field there is zero either way.
  std::vector<HalfEdgeKind> edge_kind(num_edges, HalfEdgeKind::free);
  for (Index t = 0; t < num_tets; ++t)
    for (int j = 0; j < 4; ++j) {
      FaceKind const kind = face_kind[topology.tet_faces[t][j]];
      if (kind == FaceKind::interior_or_pmc) continue;
      for (int k : mesh::kTetFaceEdges[j]) {
        auto& e = edge_kind[topology.tet_edges[t][k]];
        if (kind == FaceKind::pec)
          e = HalfEdgeKind::zero;
        else if (e == HalfEdgeKind::free)
          e = HalfEdgeKind::prescribed;
      }
    }

  std::vector<Index> free_degree(num_vertices, 0);
  for (Index v = 0; v < num_vertices; ++v)
    for (Index h = topology.v2e_offsets[v]; h < topology.v2e_offsets[v + 1]; ++h)
      free_degree[v] += edge_kind[topology.v2e[h]] == HalfEdgeKind::free;
  std::vector<Index> block_order;
  for (Index v = 0; v < num_vertices; ++v)
    if (free_degree[v] > 0) block_order.push_back(v);
  if (options.group_blocks_by_degree)
    std::stable_sort(block_order.begin(), block_order.end(),
                     [&](Index x, Index y) { return free_degree[x] > free_degree[y]; });

  layout.dof_of_half_edge.assign(topology.num_half_edges(), -1);
  layout.block_vertex = block_order;
  layout.block_offset.assign(block_order.size() + 1, 0);
  layout.block_matrix_offset.assign(block_order.size() + 1, 0);
  std::vector<Index> block_of_vertex(num_vertices, -1);
  Index next = 0;
  for (std::size_t b = 0; b < block_order.size(); ++b) {
    Index const v = block_order[b];
    block_of_vertex[v] = static_cast<Index>(b);
    layout.block_offset[b] = next;
    for (Index h = topology.v2e_offsets[v]; h < topology.v2e_offsets[v + 1]; ++h)
      if (edge_kind[topology.v2e[h]] == HalfEdgeKind::free) layout.dof_of_half_edge[h] = next++;
    Index const d = free_degree[v];
    layout.block_matrix_offset[b + 1] = layout.block_matrix_offset[b] + static_cast<std::int64_t>(d) * d;
    layout.max_block_size = std::max(layout.max_block_size, d);
  }
  layout.block_offset[block_order.size()] = next;
  layout.num_free = next;
  for (Index h = 0; h < topology.num_half_edges(); ++h)
    if (edge_kind[topology.v2e[h]] == HalfEdgeKind::prescribed) layout.dof_of_half_edge[h] = next++;
  layout.num_prescribed = next - layout.num_free;
  layout.zero_slot = next;
  for (auto& dof : layout.dof_of_half_edge)
    if (dof < 0) dof = layout.zero_slot;

  ops.tet_dofs.resize(num_tets);
  ops.faraday.resize(num_tets);
  ops.mu.resize(num_tets);
  ops.eps.assign(static_cast<std::size_t>(layout.block_matrix_offset.back()), 0.0);
  for (Index t = 0; t < num_tets; ++t) {
    for (int k = 0; k < 6; ++k) {
      auto const& halves = topology.edge_half_edges[topology.tet_edges[t][k]];
      ops.tet_dofs[t][2 * k] = layout.dof_of_half_edge[halves[0]];
      ops.tet_dofs[t][2 * k + 1] = layout.dof_of_half_edge[halves[1]];
    }
    std::array<double, 16> mu{};
    for (int lv = 0; lv < 4; ++lv) {
      auto const s = mesh::subregion(mesh, topology, geometry, t, lv);
      // Mmu_r(i,j) = mu_t |t|/4 w~^i . w~^j, placed at the tet's local faces.
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          mu[kVertexFaces[lv][i] * 4 + kVertexFaces[lv][j]] +=
              materials.mu[t] * s.volume * dot(s.w_dual[i], s.w_dual[j]);
      // Meps_r(i,j) = eps_t |t|/4 w^i . w^j, placed at the free half-edges of v in its block.
      Index const v = mesh.tets[t][lv];
      Index const b = block_of_vertex[v];
      if (b < 0) continue;
      Index position[3];
      for (int i = 0; i < 3; ++i) {
        Index const e = topology.tet_edges[t][kVertexEdges[lv][i]];
        Index const h = topology.edge_half_edges[e][topology.edge_vertices[e][0] == v ? 0 : 1];
        Index const dof = layout.dof_of_half_edge[h];
        position[i] = dof < layout.num_free ? dof - layout.block_offset[b] : -1;
      }
      Index const d = free_degree[v];
      double* block = ops.eps.data() + layout.block_matrix_offset[b];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          if (position[i] >= 0 && position[j] >= 0)
            block[position[i] * d + position[j]] += materials.eps[t] * s.volume * dot(s.w[i], s.w[j]);
    }
    ops.mu[t] = mu;
    std::array<double, 16> mu_inverse = mu;
    if (!invert_spd(mu_inverse.data(), 4))
      throw Error(mesh.source, "the magnetic mass matrix of tet " + std::to_string(t) + " is not positive definite",
                  "check mu_r > 0 and that the tet is not degenerate");
    ops.worst_tet_condition =
        std::max(ops.worst_tet_condition, one_norm(mu.data(), 4) * one_norm(mu_inverse.data(), 4));
    // (Eq. 5) K_t = (Mmu_t)^-1 C_t.
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 6; ++k) {
        double s = 0;
        for (int m = 0; m < 4; ++m) s += mu_inverse[j * 4 + m] * topology.tet_curl[t][m][k];
        ops.faraday[t][j * 6 + k] = s;
      }
  }

  ops.eps_inverse = ops.eps;
  for (Index b = 0; b < layout.num_blocks(); ++b) {
    Index const d = layout.block_offset[b + 1] - layout.block_offset[b];
    double* block = ops.eps_inverse.data() + layout.block_matrix_offset[b];
    if (!invert_spd(block, d))
      throw Error(mesh.source,
                  "the electric mass matrix of the dual volume of vertex " + std::to_string(layout.block_vertex[b]) +
                      " is not positive definite",
                  "check eps_r > 0 and the tets around that vertex");
    double const* original = ops.eps.data() + layout.block_matrix_offset[b];
    ops.worst_block_condition = std::max(ops.worst_block_condition, one_norm(original, d) * one_norm(block, d));
  }

  // (Eq. 6) rows of C~: the circulation of h around the dual face of e, from both tets' halves of
  // every face around e. Entries pack the tet with its local edge into 32 bits.
  if (num_tets >= (Index(1) << 28))
    throw Error(mesh.source, std::to_string(num_tets) + " tetrahedra (at most 268435455 supported)",
                "split the problem or coarsen the mesh");
  ops.tet_edge_signs.assign(static_cast<std::size_t>(num_tets), 0u);
  for (Index t = 0; t < num_tets; ++t)
    for (int k = 0; k < 6; ++k) {
      int const sign_a = topology.tet_curl[t][mesh::kTetEdgeVertices[5 - k][0]][k];
      int const sign_b = topology.tet_curl[t][mesh::kTetEdgeVertices[5 - k][1]][k];
      if (sign_a == 0 || sign_b == 0)
        throw Error(mesh.source, "inconsistent face-edge incidence in tet " + std::to_string(t), "report this mesh");
      ops.tet_edge_signs[t] |= (sign_a < 0 ? 2u : 0u) << (2 * k);
      ops.tet_edge_signs[t] |= (sign_b < 0 ? 1u : 0u) << (2 * k);
    }
  std::vector<Index> curled_of_edge(static_cast<std::size_t>(num_edges), -1);
  ops.row_curl.assign(static_cast<std::size_t>(layout.num_free), -1);
  ops.edge_curl_offsets.assign(1, 0);
  for (Index b = 0; b < layout.num_blocks(); ++b) {
    Index const v = layout.block_vertex[b];
    for (Index h = topology.v2e_offsets[v]; h < topology.v2e_offsets[v + 1]; ++h) {
      Index const row = layout.dof_of_half_edge[h];
      if (row >= layout.num_free) continue;
      Index const e = topology.v2e[h];
      if (curled_of_edge[e] < 0) {
        curled_of_edge[e] = static_cast<Index>(ops.edge_curl_offsets.size()) - 1;
        for (Index i = topology.v2t_offsets[v]; i < topology.v2t_offsets[v + 1]; ++i) {
          Index const t = topology.v2t[i];
          for (int k = 0; k < 6; ++k)
            if (topology.tet_edges[t][k] == e)
              ops.edge_curl_entries.push_back((static_cast<std::uint32_t>(t) << 3) | static_cast<std::uint32_t>(k));
        }
        ops.edge_curl_offsets.push_back(static_cast<Index>(ops.edge_curl_entries.size()));
      }
      ops.row_curl[row] = curled_of_edge[e];
    }
  }
  return ops;
}

} // namespace dgatd::dga
