#include "dgatd/dga/operators.hpp"

#include "assembly_parts.hpp"

#include "dgatd/error.hpp"
#include "dgatd/host_parallel.hpp"
#include "dgatd/mesh/reference_tet.hpp"
#include "dgatd/mesh/view.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

namespace dgatd::dga {
namespace {

enum class HalfEdgeKind : std::uint8_t { free, prescribed, zero };
enum class TetFailure : std::uint8_t { none, magnetic_mass, incidence };

// (Eq. 6) rows of C~: the circulation of h around the dual face of every edge with a free half,
// from the edge pieces of the tets around it. Curled edges are numbered in the order the blocks
// first meet them, each block's in its v2e order; the blocks count, then fill, in parallel.
void build_dual_curl(mesh::Topology const& topology, DofLayout const& layout, HostOperators& ops)
{
  Index const num_blocks = layout.num_blocks();
  std::vector<Index> block_of_vertex(topology.num_vertices, -1);
  for (Index b = 0; b < num_blocks; ++b) block_of_vertex[layout.block_vertex[b]] = b;
  // visit(e) for every edge with a free half that block b meets first among its two blocks, in v2e order.
  auto edges_met_first = [&](Index b, auto&& visit) {
    Index const v = layout.block_vertex[b];
    for (Index h = topology.v2e_offsets[v]; h < topology.v2e_offsets[v + 1]; ++h) {
      Index const e = topology.v2e[h];
      Index const first_block =
          std::min(block_of_vertex[topology.edge_vertices[e][0]], block_of_vertex[topology.edge_vertices[e][1]]);
      if (layout.dof_of_half_edge[h] < layout.num_free && first_block == b) visit(e);
    }
  };
  auto tets_holding = [&](Index v, Index e, auto&& visit) {
    for (Index i = topology.v2t_offsets[v]; i < topology.v2t_offsets[v + 1]; ++i) {
      Index const t = topology.v2t[i];
      for (int k = 0; k < 6; ++k)
        if (topology.tet_edges[t][k] == e) visit(t, k);
    }
  };
  // Per block: the edges it meets first (their number and their pieces).
  std::vector<Index> new_edges(static_cast<std::size_t>(num_blocks) + 1, 0);
  std::vector<Index> new_entries(static_cast<std::size_t>(num_blocks) + 1, 0);
  host_parallel_for("dgatd::assemble::curl_counts", num_blocks, [&](std::int64_t b) {
    edges_met_first(b, [&](Index e) {
      ++new_edges[b + 1];
      tets_holding(layout.block_vertex[b], e, [&](Index, int) { ++new_entries[b + 1]; });
    });
  });
  std::partial_sum(new_edges.begin(), new_edges.end(), new_edges.begin());
  std::partial_sum(new_entries.begin(), new_entries.end(), new_entries.begin());
  Index const num_curled = new_edges.back();
  ops.edge_curl_offsets.assign(static_cast<std::size_t>(num_curled) + 1, 0);
  ops.edge_curl_entries.resize(static_cast<std::size_t>(new_entries.back()));
  std::vector<Index> curled_of_edge(static_cast<std::size_t>(topology.num_edges()), -1);
  host_parallel_for("dgatd::assemble::curl_entries", num_blocks, [&](std::int64_t b) {
    Index curled = new_edges[b];
    Index entry = new_entries[b];
    edges_met_first(b, [&](Index e) {
      curled_of_edge[e] = curled;
      tets_holding(layout.block_vertex[b], e,
                   [&](Index t, int k) { ops.edge_curl_entries[entry++] = encode_curl_piece(t, k); });
      ops.edge_curl_offsets[++curled] = entry;
    });
  });
  ops.row_curl.assign(static_cast<std::size_t>(layout.num_free), -1);
  host_parallel_for("dgatd::assemble::row_curl", num_blocks, [&](std::int64_t b) {
    Index const v = layout.block_vertex[b];
    for (Index h = topology.v2e_offsets[v]; h < topology.v2e_offsets[v + 1]; ++h)
      if (layout.dof_of_half_edge[h] < layout.num_free)
        ops.row_curl[layout.dof_of_half_edge[h]] = curled_of_edge[topology.v2e[h]];
  });
}

// PEC wins over a port where both touch an edge: the tangential field there is zero either way.
std::vector<HalfEdgeKind> edge_kinds(mesh::Topology const& topology, std::vector<FaceKind> const& face_kind,
                                     std::vector<Index> const& pec_edges = {})
{
  std::vector<HalfEdgeKind> edge_kind(topology.num_edges(), HalfEdgeKind::free);
  for (Index e : pec_edges) edge_kind[e] = HalfEdgeKind::zero;
  for (Index t = 0; t < topology.num_tets(); ++t)
    for (int j = 0; j < 4; ++j) {
      FaceKind const kind = face_kind[topology.tet_faces[t][j]];
      if (kind == FaceKind::interior_or_pmc || kind == FaceKind::absorbing) continue;
      for (int i = 0; i < 3; ++i) {
        auto& e = edge_kind[topology.tet_edges[t][mesh::tet_face_edge(j, i)]];
        if (kind == FaceKind::pec)
          e = HalfEdgeKind::zero;
        else if (e == HalfEdgeKind::free)
          e = HalfEdgeKind::prescribed;
      }
    }
  return edge_kind;
}

// The numbering of the unknowns (DofLayout): a dual block per vertex with a free half-edge, in
// vertex order or by decreasing size, then the prescribed half-edges, then the zero slot.
DofLayout number_unknowns(mesh::Topology const& topology, std::vector<HalfEdgeKind> const& edge_kind,
                          AssemblyOptions const& options)
{
  Index const num_vertices = topology.num_vertices;
  std::vector<Index> free_degree(num_vertices, 0);
  host_parallel_for("dgatd::assemble::free_degree", num_vertices, [&](std::int64_t v) {
    for (Index h = topology.v2e_offsets[v]; h < topology.v2e_offsets[v + 1]; ++h)
      free_degree[v] += edge_kind[topology.v2e[h]] == HalfEdgeKind::free;
  });
  std::vector<Index> block_order;
  for (Index v = 0; v < num_vertices; ++v)
    if (free_degree[v] > 0) block_order.push_back(v);
  if (options.group_blocks_by_degree)
    std::stable_sort(block_order.begin(), block_order.end(),
                     [&](Index x, Index y) { return free_degree[x] > free_degree[y]; });

  DofLayout layout;
  layout.dof_of_half_edge.assign(topology.num_half_edges(), -1);
  layout.block_vertex = block_order;
  layout.block_offset.assign(block_order.size() + 1, 0);
  layout.block_matrix_offset.assign(block_order.size() + 1, 0);
  Index next = 0;
  for (std::size_t b = 0; b < block_order.size(); ++b) {
    Index const v = block_order[b];
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
  return layout;
}

// Per tet: its unknowns, Mmu_t, (Mmu_t)^-1 and the incidence signs of its edge pieces, from which the
// kernels apply K_t = (Mmu_t)^-1 C_t (eq. 5) without storing it. Each tet writes only its own rows, so
// the tets run in parallel.
void assemble_tets(mesh::MeshView const& m, Materials const& materials, HostOperators& ops)
{
  auto const& topology = m.topology;
  auto const& layout = ops.layout;
  Index const num_tets = topology.num_tets();
  if (num_tets >= (Index(1) << 28))
    throw Error(m.mesh.source, std::to_string(num_tets) + " tetrahedra (at most 268435455 supported)",
                "split the problem or coarsen the mesh");
  ops.tet_dofs.resize(num_tets);
  ops.mu.resize(num_tets);
  ops.mu_inverse.resize(num_tets);
  ops.tet_edge_signs.assign(static_cast<std::size_t>(num_tets), 0u);
  auto tet_operators = [&](std::int64_t tet) -> TetFailure {
    auto const t = static_cast<Index>(tet);
    for (int k = 0; k < 6; ++k) {
      auto const& halves = topology.edge_half_edges[topology.tet_edges[t][k]];
      ops.tet_dofs[t][2 * k] = layout.dof_of_half_edge[halves[0]];
      ops.tet_dofs[t][2 * k + 1] = layout.dof_of_half_edge[halves[1]];
    }
    auto const mu = detail::magnetic_mass(m, materials.mu[t], t);
    ops.mu[t] = mu;
    std::array<double, 16> mu_inverse = mu;
    if (!invert_spd(mu_inverse.data(), 4)) return TetFailure::magnetic_mass;
    for (int i = 0, k = 0; i < 4; ++i)
      for (int j = i; j < 4; ++j) ops.mu_inverse[t][k++] = mu_inverse[i * 4 + j];
    // inc(f_a, e_k) and inc(f_b, e_k), f_a < f_b the two faces holding local edge k.
    for (int k = 0; k < 6; ++k) {
      int const sign_a = topology.tet_curl[t][mesh::tet_edge_face(k, 0)][k];
      int const sign_b = topology.tet_curl[t][mesh::tet_edge_face(k, 1)][k];
      if (sign_a == 0 || sign_b == 0) return TetFailure::incidence;
      ops.tet_edge_signs[t] |= (sign_a < 0 ? 2u : 0u) << (2 * k);
      ops.tet_edge_signs[t] |= (sign_b < 0 ? 1u : 0u) << (2 * k);
    }
    return TetFailure::none;
  };
  auto const bad_tet = host_first_failure("dgatd::assemble::tets", num_tets,
                                          [&](std::int64_t t) { return tet_operators(t) == TetFailure::none; });
  if (bad_tet == num_tets) return;
  if (tet_operators(bad_tet) == TetFailure::magnetic_mass)
    throw Error(m.mesh.source,
                "the magnetic mass matrix of tet " + std::to_string(bad_tet) + " is not positive definite",
                "check mu_r > 0 and that the tet is not degenerate");
  throw Error(m.mesh.source, "inconsistent face-edge incidence in tet " + std::to_string(bad_tet), "report this mesh");
}

// Per dual volume: Meps_v summed over the subregions of v in the tets around it, restricted to its
// free half-edges, and inverted. Each block is its own, so blocks run in parallel without atomics;
// the price is that every subregion frame is built a second time here (the tet pass used its dual
// vectors, this one its primal ones), cheaper than storing 4 x 9 numbers per tet between the passes.
void assemble_dual_blocks(mesh::MeshView const& m, Materials const& materials, HostOperators& ops)
{
  auto const& layout = ops.layout;
  ops.eps.assign(static_cast<std::size_t>(layout.block_matrix_offset.back()), 0.0);
  ops.eps_inverse.resize(ops.eps.size());
  auto const bad_block = host_first_failure("dgatd::assemble::dual_blocks", layout.num_blocks(), [&](std::int64_t b) {
    Index const d = layout.block_size(static_cast<Index>(b));
    double* block = ops.eps.data() + layout.block_matrix_offset[b];
    detail::add_block_mass(m, layout, static_cast<Index>(b), materials.eps, block);
    double* inverse = ops.eps_inverse.data() + layout.block_matrix_offset[b];
    std::copy(block, block + static_cast<std::ptrdiff_t>(d) * d, inverse);
    return invert_spd(inverse, d);
  });
  if (bad_block < layout.num_blocks())
    throw Error(m.mesh.source,
                "the electric mass matrix of the dual volume of vertex " +
                    std::to_string(layout.block_vertex[bad_block]) + " is not positive definite",
                "check eps_r > 0 and the tets around that vertex");
}

} // namespace

std::array<double, 16> detail::magnetic_mass(mesh::MeshView const& m, double mu, Index t)
{
  std::array<double, 16> mass{};
  for (int lv = 0; lv < 4; ++lv) {
    auto const s = mesh::subregion(m.mesh, m.topology, m.geometry, t, lv);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        mass[mesh::tet_vertex_face(lv, i) * 4 + mesh::tet_vertex_face(lv, j)] +=
            mu * s.volume * dot(s.w_dual[i], s.w_dual[j]);
  }
  return mass;
}

// Meps_r(i,j) = coefficient_t |t|/4 w^i . w^j of every subregion of block b's vertex, added at its
// free half-edges into block (row-major d x d).
void detail::add_block_mass(mesh::MeshView const& m, DofLayout const& layout, Index b,
                            std::vector<double> const& coefficient, double* block)
{
  Index const d = layout.block_size(b);
  detail::for_each_subregion(
      m, layout, b, [&](Index t, mesh::Subregion const& s, std::array<Index, 3> const& position) {
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c)
            if (position[r] >= 0 && position[c] >= 0)
              block[position[r] * d + position[c]] += coefficient[t] * s.volume * dot(s.w[r], s.w[c]);
      });
}

DofLayout dof_layout(mesh::Topology const& topology, std::vector<FaceKind> const& face_kind,
                     std::vector<Index> const& pec_edges, AssemblyOptions const& options)
{
  return number_unknowns(topology, edge_kinds(topology, face_kind, pec_edges), options);
}

Index DofLayout::block_of(Index dof) const
{
  auto it = std::upper_bound(block_offset.begin(), block_offset.end(), dof);
  return static_cast<Index>(it - block_offset.begin()) - 1;
}

MassMatrices masses_of_float_inverses(HostOperators const& ops)
{
  auto const rounded = [](double x) { return static_cast<double>(static_cast<float>(x)); };
  MassMatrices masses;
  auto const num_tets = static_cast<std::int64_t>(ops.mu_inverse.size());
  masses.mu.resize(ops.mu_inverse.size());
  auto const bad_tet = host_first_failure("dgatd::float_masses::tets", num_tets, [&](std::int64_t t) {
    auto& mu = masses.mu[t];
    for (int i = 0, k = 0; i < 4; ++i)
      for (int j = i; j < 4; ++j, ++k) mu[i * 4 + j] = mu[j * 4 + i] = rounded(ops.mu_inverse[t][k]);
    return invert_spd(mu.data(), 4);
  });
  auto const& layout = ops.layout;
  masses.eps.resize(ops.eps_inverse.size());
  auto const bad_block =
      host_first_failure("dgatd::float_masses::dual_blocks", layout.num_blocks(), [&](std::int64_t b) {
        Index const d = layout.block_size(static_cast<Index>(b));
        std::int64_t const first = layout.block_matrix_offset[b];
        double* block = masses.eps.data() + first;
        // The upper triangle, as the packed storage keeps it: the inverses are exactly symmetric.
        for (Index i = 0; i < d; ++i)
          for (Index j = i; j < d; ++j)
            block[i * d + j] = block[j * d + i] = rounded(ops.eps_inverse[first + i * d + j]);
        return invert_spd(block, d);
      });
  // A matrix within 2^-24 of an SPD one with a condition number below 10^6 is SPD.
  if (bad_tet < num_tets || bad_block < layout.num_blocks())
    throw Error("precision = \"mixed\"", "a local matrix rounded to float is no longer positive definite",
                "use precision = \"double\" for this mesh (it has nearly degenerate tets)");
  return masses;
}

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

bool invert_general(double* a, int n)
{
  std::vector<double> work(a, a + static_cast<std::ptrdiff_t>(n) * n);
  std::vector<double> inverse(static_cast<std::size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) inverse[i * n + i] = 1;
  double scale = 0;
  for (double x : work) scale = std::max(scale, std::abs(x));
  for (int c = 0; c < n; ++c) {
    int pivot = c;
    for (int r = c + 1; r < n; ++r)
      if (std::abs(work[r * n + c]) > std::abs(work[pivot * n + c])) pivot = r;
    if (!(std::abs(work[pivot * n + c]) > 1e-14 * scale)) return false;
    if (pivot != c)
      for (int j = 0; j < n; ++j) {
        std::swap(work[c * n + j], work[pivot * n + j]);
        std::swap(inverse[c * n + j], inverse[pivot * n + j]);
      }
    double const diagonal = work[c * n + c];
    for (int j = 0; j < n; ++j) {
      work[c * n + j] /= diagonal;
      inverse[c * n + j] /= diagonal;
    }
    for (int r = 0; r < n; ++r) {
      double const factor = work[r * n + c];
      if (r == c || factor == 0) continue;
      for (int j = 0; j < n; ++j) {
        work[r * n + j] -= factor * work[c * n + j];
        inverse[r * n + j] -= factor * inverse[c * n + j];
      }
    }
  }
  std::copy(inverse.begin(), inverse.end(), a);
  return true;
}

HostOperators assemble(mesh::Mesh const& mesh, mesh::Topology const& topology, mesh::Geometry const& geometry,
                       Materials const& materials, std::vector<FaceKind> const& face_kind,
                       AssemblyOptions const& options)
{
  mesh::MeshView const m{mesh, topology, geometry};
  HostOperators ops;
  ops.layout = number_unknowns(topology, edge_kinds(topology, face_kind, materials.pec_edges), options);
  assemble_tets(m, materials, ops);
  detail::assemble_magnetic_stretching(mesh, topology, geometry, materials, options, ops);
  assemble_dual_blocks(m, materials, ops);
  detail::assemble_losses(m, materials, face_kind, ops);
  build_dual_curl(topology, ops.layout, ops);
  return ops;
}

} // namespace dgatd::dga
