#include "dgatd/dga/operators.hpp"

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

// The rates of a tet's stretch with Jacobian G (docs/method/open_regions.md, section 3): with K = s I + G,
// s det(J) J^-1 J^-T = det(K) (s^2 + S s + P)^-1, S = G + G^T, P = G^T G, and with
// z'' + S z' + P z = e the displacement current is
// eps [e' + (c2 I - S) e + R1 z' + R0 z], R1 = S^2 - P - c2 S + c1 I, R0 = S P - c2 P + c0 I,
// det(K) = s^3 + c2 s^2 + c1 s + c0.
using Matrix3 = std::array<double, 9>;
Matrix3 product(Matrix3 const& a, Matrix3 const& b)
{
  Matrix3 c{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) c[3 * i + j] += a[3 * i + k] * b[3 * k + j];
  return c;
}
struct StretchRates {
  Matrix3 damping{};   // S
  Matrix3 stiffness{}; // P
  Matrix3 r0{}, r1{};
  double trace = 0; // c2
};
StretchRates stretch_rates(Matrix3 const& g)
{
  StretchRates rates;
  Matrix3 g_transposed{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) g_transposed[3 * i + j] = g[3 * j + i];
  for (int i = 0; i < 9; ++i) rates.damping[i] = g[i] + g_transposed[i];
  rates.stiffness = product(g_transposed, g);
  rates.trace = g[0] + g[4] + g[8];
  double const minors = g[0] * g[4] - g[1] * g[3] + g[0] * g[8] - g[2] * g[6] + g[4] * g[8] - g[5] * g[7];
  double const determinant =
      g[0] * (g[4] * g[8] - g[5] * g[7]) - g[1] * (g[3] * g[8] - g[5] * g[6]) + g[2] * (g[3] * g[7] - g[4] * g[6]);
  Matrix3 const s2 = product(rates.damping, rates.damping);
  Matrix3 const sp = product(rates.damping, rates.stiffness);
  for (int i = 0; i < 9; ++i) {
    double const identity = i % 4 == 0 ? 1.0 : 0.0;
    rates.r1[i] = s2[i] - rates.stiffness[i] - rates.trace * rates.damping[i] + minors * identity;
    rates.r0[i] = sp[i] - rates.trace * rates.stiffness[i] + determinant * identity;
  }
  return rates;
}

// One subregion's loss for a basis w (primal or dual) and a material constant c:
// c |r| w^i . (c2 I - S) w^j.
std::array<std::array<double, 3>, 3> subregion_stretch_loss(std::array<Vec3, 3> const& w, double c_volume,
                                                            StretchRates const& rates)
{
  std::array<std::array<double, 3>, 3> loss{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double form = 0;
      for (int m = 0; m < 3; ++m)
        for (int n = 0; n < 3; ++n) form += w[i][m] * rates.damping[3 * m + n] * w[j][n];
      loss[i][j] = c_volume * (rates.trace * dot(w[i], w[j]) - form);
    }
  return loss;
}

// The scalar modes of a stretch with Jacobian G (HostOperators::StretchModes) before the material
// constant and the subregion's volume: directions n_m, rates gamma_m and weights kappa_m.
struct Modes {
  int count = 0;
  std::array<Vec3, 3> direction{};
  std::array<double, 3> rate{}, weight{};
};

// One mode, n and g with G = n g^T (|n| = 1), when G is rank one to rounding: its columns are all
// multiples of the longest one.
std::optional<Modes> rank_one_mode(Matrix3 const& g)
{
  int longest = 0;
  double longest_norm = 0, total = 0;
  for (int j = 0; j < 3; ++j) {
    double const norm = std::sqrt(g[j] * g[j] + g[3 + j] * g[3 + j] + g[6 + j] * g[6 + j]);
    total += norm * norm;
    if (norm > longest_norm) {
      longest = j;
      longest_norm = norm;
    }
  }
  if (longest_norm == 0) return std::nullopt;
  Vec3 const n{g[longest] / longest_norm, g[3 + longest] / longest_norm, g[6 + longest] / longest_norm};
  Vec3 row{};
  for (int j = 0; j < 3; ++j) row[j] = n[0] * g[j] + n[1] * g[3 + j] + n[2] * g[6 + j];
  double residual = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) residual += (g[3 * i + j] - n[i] * row[j]) * (g[3 * i + j] - n[i] * row[j]);
  if (residual > 1e-24 * total) return std::nullopt;
  Modes one;
  one.count = 1;
  one.direction[0] = n;
  one.rate[0] = dot(row, n);
  one.weight[0] = dot(row, row);
  return one;
}

// Three modes when G has three distinct real eigenvalues gamma_m whose eigenvectors are well
// conditioned: with G = sum_m gamma_m v_m w_m^T (w_m . v_l = delta_ml), J^-1 = sum_m v_m w_m^T s / (s + gamma_m)
// and s det(J) J^-1 J^-T keeps a pole only in its terms m = l, with residue
// |w_m|^2 (gamma_i - gamma_m) (gamma_j - gamma_m) v_m v_m^T (docs/method/open_regions.md, section 3).
std::optional<Modes> three_modes(Matrix3 const& g)
{
  double scale = 0;
  for (double const x : g) scale = std::max(scale, std::abs(x));
  if (scale == 0) return std::nullopt;
  // The roots of det(lambda I - G) = lambda^3 - c2 lambda^2 + c1 lambda - c0 by the trigonometric
  // form of the depressed cubic x^3 + p x + q (lambda = x + c2 / 3), in units of the largest entry.
  Matrix3 a{};
  for (int i = 0; i < 9; ++i) a[i] = g[i] / scale;
  double const c2 = a[0] + a[4] + a[8];
  double const c1 = a[0] * a[4] - a[1] * a[3] + a[0] * a[8] - a[2] * a[6] + a[4] * a[8] - a[5] * a[7];
  double const c0 =
      a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
  double const p = c1 - c2 * c2 / 3, q = -2 * c2 * c2 * c2 / 27 + c2 * c1 / 3 - c0;
  if (!(4 * p * p * p + 27 * q * q < 0)) return std::nullopt; // a repeated or a complex pair
  double const radius = 2 * std::sqrt(-p / 3);
  double const angle = std::acos(std::clamp(3 * q / (p * radius), -1.0, 1.0)) / 3;
  Modes modes;
  modes.count = 3;
  std::array<Vec3, 3> rows_left{}; // rows of V^-1: the left eigenvectors w_m
  Matrix3 v{};                     // the unit right eigenvectors as columns
  for (int m = 0; m < 3; ++m) {
    double lambda = radius * std::cos(angle - 2 * M_PI * m / 3) + c2 / 3;
    for (int newton = 0; newton < 2; ++newton) {
      double const value = ((lambda - c2) * lambda + c1) * lambda - c0;
      double const slope = (3 * lambda - 2 * c2) * lambda + c1;
      if (slope != 0) lambda -= value / slope;
    }
    modes.rate[m] = lambda;
    // The null vector of G - lambda I: the longest cross product of two of its rows.
    Vec3 const r0{a[0] - lambda, a[1], a[2]}, r1{a[3], a[4] - lambda, a[5]}, r2{a[6], a[7], a[8] - lambda};
    Vec3 best = cross(r0, r1);
    for (Vec3 const& candidate : {cross(r1, r2), cross(r2, r0)})
      if (norm(candidate) > norm(best)) best = candidate;
    double const length = norm(best);
    if (length == 0) return std::nullopt;
    modes.direction[m] = scaled(best, 1 / length);
    for (int i = 0; i < 3; ++i) v[3 * i + m] = modes.direction[m][i];
  }
  Matrix3 inverse = v;
  if (!invert_general(inverse.data(), 3)) return std::nullopt;
  for (int m = 0; m < 3; ++m) rows_left[m] = {inverse[3 * m], inverse[3 * m + 1], inverse[3 * m + 2]};
  // |v_m| |w_m| bounds how much the modes' weights cancel one another (their rounding grows with its
  // square); past 10 the general form is the safer one.
  for (auto const& w : rows_left)
    if (norm(w) > 10) return std::nullopt;
  double residual = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double sum = 0;
      for (int m = 0; m < 3; ++m) sum += modes.rate[m] * modes.direction[m][i] * rows_left[m][j];
      residual = std::max(residual, std::abs(sum - a[3 * i + j]));
    }
  if (residual > 1e-12) return std::nullopt;
  for (int m = 0; m < 3; ++m) {
    int const i = (m + 1) % 3, j = (m + 2) % 3;
    modes.weight[m] = dot(rows_left[m], rows_left[m]) * (modes.rate[i] - modes.rate[m]) *
                      (modes.rate[j] - modes.rate[m]) * scale * scale;
  }
  for (double& rate : modes.rate) rate *= scale;
  return modes;
}

// c |r| [R0 | R1] (3 x 6 row-major): a subregion's coupling to its auxiliaries is W^T times it.
std::array<double, 18> tet_stretch_coupling(double c_volume, StretchRates const& rates)
{
  std::array<double, 18> coupling{};
  for (int m = 0; m < 3; ++m)
    for (int k = 0; k < 3; ++k) {
      coupling[6 * m + k] = c_volume * rates.r0[3 * m + k];
      coupling[6 * m + 3 + k] = c_volume * rates.r1[3 * m + k];
    }
  return coupling;
}

std::array<double, 18> packed_rates(StretchRates const& rates)
{
  std::array<double, 18> packed{};
  std::copy(rates.damping.begin(), rates.damping.end(), packed.begin());
  std::copy(rates.stiffness.begin(), rates.stiffness.end(), packed.begin() + 9);
  return packed;
}

// Faraday's side of the matched layers: for every stretched tet the terms of its subregions with
// mu and the dual basis, placed by local faces (docs/method/open_regions.md, section 3).
void assemble_magnetic_stretching(mesh::Mesh const& mesh, mesh::Topology const& topology,
                                  mesh::Geometry const& geometry, Materials const& materials,
                                  AssemblyOptions const& options, HostOperators& ops)
{
  auto const& stretching = materials.stretching;
  if (stretching.empty()) return;
  for (Index t = 0; t < topology.num_tets(); ++t)
    if (stretching.stretches(t)) ops.stretched_tets.push_back(t);
  std::size_t const num_stretched = ops.stretched_tets.size();
  ops.stretched_tet_rates.resize(num_stretched);
  ops.electric_coupling.resize(num_stretched);
  ops.magnetic_coupling.resize(num_stretched);
  ops.magnetic_loss.resize(num_stretched);
  ops.magnetic_basis.resize(num_stretched);
  ops.stretched_tet_modes.assign(num_stretched, {});
  host_parallel_for("dgatd::assemble::stretched_tets", static_cast<std::int64_t>(num_stretched), [&](std::int64_t k) {
    Index const t = ops.stretched_tets[k];
    auto const rates = stretch_rates(stretching.tet_jacobian[t]);
    double const subregion_volume = geometry.tet_volume[t] / 4;
    ops.stretched_tet_rates[k] = packed_rates(rates);
    ops.electric_coupling[k] = tet_stretch_coupling(materials.eps[t] * subregion_volume, rates);
    ops.magnetic_coupling[k] = tet_stretch_coupling(materials.mu[t] * subregion_volume, rates);
    if (options.split_stretch_modes) {
      auto const& jacobian = stretching.tet_jacobian[t];
      auto modes = rank_one_mode(jacobian);
      if (!modes) modes = three_modes(jacobian);
      if (modes) {
        auto& split = ops.stretched_tet_modes[k];
        split.count = modes->count;
        for (int m = 0; m < modes->count; ++m) {
          split.direction[m] = modes->direction[m];
          split.rate[m] = modes->rate[m];
          split.electric_weight[m] = materials.eps[t] * subregion_volume * modes->weight[m];
          split.magnetic_weight[m] = materials.mu[t] * subregion_volume * modes->weight[m];
        }
      }
    }
    ops.magnetic_loss[k] = {};
    ops.magnetic_basis[k] = {};
    for (int lv = 0; lv < 4; ++lv) {
      auto const s = mesh::subregion(mesh, topology, geometry, t, lv);
      auto const loss = subregion_stretch_loss(s.w_dual, materials.mu[t] * s.volume, rates);
      for (int i = 0; i < 3; ++i) {
        int const face = mesh::tet_vertex_face(lv, i);
        for (int j = 0; j < 3; ++j) ops.magnetic_loss[k][face * 4 + mesh::tet_vertex_face(lv, j)] += loss[i][j];
        for (int m = 0; m < 3; ++m) ops.magnetic_basis[k][12 * lv + 4 * m + face] = s.w_dual[i][m];
      }
    }
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

// Per tet: its unknowns, Mmu_t and K_t = (Mmu_t)^-1 C_t (eq. 5), and the incidence signs of its
// edge pieces. Each tet writes only its own rows, so the tets run in parallel.
void assemble_tets(mesh::MeshView const& m, Materials const& materials, HostOperators& ops)
{
  auto const& topology = m.topology;
  auto const& layout = ops.layout;
  Index const num_tets = topology.num_tets();
  if (num_tets >= (Index(1) << 28))
    throw Error(m.mesh.source, std::to_string(num_tets) + " tetrahedra (at most 268435455 supported)",
                "split the problem or coarsen the mesh");
  ops.tet_dofs.resize(num_tets);
  ops.faraday.resize(num_tets);
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
    std::array<double, 16> mu{};
    for (int lv = 0; lv < 4; ++lv) {
      auto const s = mesh::subregion(m.mesh, topology, m.geometry, t, lv);
      // Mmu_r(i,j) = mu_t |t|/4 w~^i . w~^j, placed at the tet's local faces.
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          mu[mesh::tet_vertex_face(lv, i) * 4 + mesh::tet_vertex_face(lv, j)] +=
              materials.mu[t] * s.volume * dot(s.w_dual[i], s.w_dual[j]);
    }
    ops.mu[t] = mu;
    std::array<double, 16> mu_inverse = mu;
    if (!invert_spd(mu_inverse.data(), 4)) return TetFailure::magnetic_mass;
    for (int i = 0, k = 0; i < 4; ++i)
      for (int j = i; j < 4; ++j) ops.mu_inverse[t][k++] = mu_inverse[i * 4 + j];
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 6; ++k) {
        double s = 0;
        for (int n = 0; n < 4; ++n) s += mu_inverse[j * 4 + n] * topology.tet_curl[t][n][k];
        ops.faraday[t][j * 6 + k] = s;
      }
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

// visit(t, subregion, position) for every subregion of the vertex of block b, in increasing tet
// order (v2t's), position[k] the place of its k-th half-edge among the block's unknowns (-1 for a
// PEC or port half-edge).
template <class Visit>
void for_each_subregion(mesh::MeshView const& m, DofLayout const& layout, Index b, Visit&& visit)
{
  auto const& topology = m.topology;
  Index const v = layout.block_vertex[b];
  for (Index i = topology.v2t_offsets[v]; i < topology.v2t_offsets[v + 1]; ++i) {
    Index const t = topology.v2t[i];
    int lv = 0;
    while (m.mesh.tets[t][lv] != v) ++lv;
    auto const s = mesh::subregion(m.mesh, topology, m.geometry, t, lv);
    std::array<Index, 3> position;
    for (int k = 0; k < 3; ++k) {
      Index const e = topology.tet_edges[t][mesh::tet_vertex_edge(lv, k)];
      Index const dof = layout.dof_of_half_edge[half_edge_of(topology, e, v)];
      position[k] = dof < layout.num_free ? dof - layout.block_offset[b] : -1;
    }
    visit(t, s, position);
  }
}

// Meps_r(i,j) = coefficient_t |t|/4 w^i . w^j of every subregion of block b's vertex, added at its
// free half-edges into block (row-major d x d).
void add_block_mass(mesh::MeshView const& m, DofLayout const& layout, Index b, std::vector<double> const& coefficient,
                    double* block)
{
  Index const d = layout.block_size(b);
  for_each_subregion(m, layout, b, [&](Index t, mesh::Subregion const& s, std::array<Index, 3> const& position) {
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        if (position[r] >= 0 && position[c] >= 0)
          block[position[r] * d + position[c]] += coefficient[t] * s.volume * dot(s.w[r], s.w[c]);
  });
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
    add_block_mass(m, layout, static_cast<Index>(b), materials.eps, block);
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

// The absorbing boundary faces at each vertex, as a CSR pair.
struct VertexFaces {
  std::vector<Index> offsets, faces;
};
VertexFaces absorbing_faces_by_vertex(mesh::Topology const& topology, std::vector<FaceKind> const& face_kind)
{
  Index const num_vertices = topology.num_vertices;
  VertexFaces absorbing;
  absorbing.offsets.assign(num_vertices + 1, 0);
  for (Index f : topology.boundary_faces)
    if (face_kind[f] == FaceKind::absorbing)
      for (Index v : topology.face_vertices[f]) ++absorbing.offsets[v + 1];
  for (Index v = 0; v < num_vertices; ++v) absorbing.offsets[v + 1] += absorbing.offsets[v];
  absorbing.faces.resize(absorbing.offsets.back());
  std::vector<Index> fill(absorbing.offsets.begin(), absorbing.offsets.end() - 1);
  for (Index f : topology.boundary_faces)
    if (face_kind[f] == FaceKind::absorbing)
      for (Index v : topology.face_vertices[f]) absorbing.faces[fill[v]++] = f;
  return absorbing;
}

// The blocks with a lossy tet, an absorbing face, a lumped kite or a stretched tet around them, with the offsets
// of their conductance matrices and of their rows among the lossy rows.
void choose_lossy_blocks(mesh::Topology const& topology, Materials const& materials, VertexFaces const& absorbing,
                         HostOperators& ops)
{
  auto const& layout = ops.layout;
  std::vector<char> with_kite(static_cast<std::size_t>(layout.num_blocks()), 0);
  for (auto const& kite : ops.lumped_kites) with_kite[static_cast<std::size_t>(kite.block)] = 1;
  ops.lossy_matrix_offset.assign(1, 0);
  for (Index b = 0; b < layout.num_blocks(); ++b) {
    Index const v = layout.block_vertex[b];
    bool lossy = absorbing.offsets[v + 1] > absorbing.offsets[v] || with_kite[static_cast<std::size_t>(b)];
    for (Index i = topology.v2t_offsets[v]; i < topology.v2t_offsets[v + 1] && !materials.sigma.empty(); ++i)
      lossy = lossy || materials.sigma[topology.v2t[i]] > 0;
    for (Index i = topology.v2t_offsets[v]; i < topology.v2t_offsets[v + 1]; ++i)
      lossy = lossy || materials.stretching.stretches(topology.v2t[i]);
    if (!lossy) continue;
    Index const d = layout.block_size(b);
    ops.lossy_blocks.push_back(b);
    ops.lossy_matrix_offset.push_back(ops.lossy_matrix_offset.back() + static_cast<std::int64_t>(d) * d);
  }
  ops.lossy_row_offset.assign(ops.lossy_blocks.size() + 1, 0);
  for (std::size_t k = 0; k < ops.lossy_blocks.size(); ++k)
    ops.lossy_row_offset[k + 1] = ops.lossy_row_offset[k] + layout.block_size(ops.lossy_blocks[k]);
}

// The kite of face f at the vertex v of block b (its third at v, the trace of the subregions there):
// the face's two half-edges at v, a^1 and a^2 (signed like the unknowns: a half-edge pointing into v
// counts negative), their unknowns, and e's tangential part on the kite, e_t = u_1 w^1 + u_2 w^2 with
// w^i . a^j = delta_ij, so that w^i . w^j is the inverse of the Gram matrix a^i . a^j. Without the
// signs the cross term flips for mixed orientations.
struct FaceKite {
  Vec3 half[2];
  Index unknown[2];
  double inverse_gram[2][2];
  double area; // |f| / 3
  // w^i . direction
  double along(int i, Vec3 const& direction) const
  {
    return inverse_gram[i][0] * dot(half[0], direction) + inverse_gram[i][1] * dot(half[1], direction);
  }
};
FaceKite face_kite(mesh::MeshView const& m, DofLayout const& layout, Index v, Index f)
{
  auto const& topology = m.topology;
  FaceKite kite{};
  int n = 0;
  for (Index a : topology.face_vertices[f]) {
    if (a == v) continue;
    Index const e = mesh::edge_joining(topology, v, a);
    double const orientation = topology.edge_vertices[e][0] == v ? 0.5 : -0.5;
    kite.half[n] = scaled(sub(m.mesh.points[a], m.mesh.points[v]), orientation);
    Index const dof = layout.dof_of_half_edge[half_edge_of(topology, e, v)];
    kite.unknown[n++] = dof < 0 ? layout.zero_slot : dof;
  }
  double const g11 = dot(kite.half[0], kite.half[0]), g12 = dot(kite.half[0], kite.half[1]);
  double const g22 = dot(kite.half[1], kite.half[1]);
  double const det = g11 * g22 - g12 * g12;
  kite.inverse_gram[0][0] = g22 / det;
  kite.inverse_gram[0][1] = kite.inverse_gram[1][0] = -g12 / det;
  kite.inverse_gram[1][1] = g11 / det;
  kite.area = norm(cross(kite.half[0], kite.half[1])) * 4.0 / 2.0 / 3.0;
  return kite;
}

// An absorbing face's share of block b (vertex v): Y (A_f / 3) w_i . w_j over the face's kite at v.
void add_absorbing_face(mesh::MeshView const& m, Materials const& materials, DofLayout const& layout, Index b, Index f,
                        double* block)
{
  Index const d = layout.block_size(b);
  Index const t = m.topology.face_tets[f][0];
  double const admittance = std::sqrt(materials.eps[t] / materials.mu[t]);
  auto const kite = face_kite(m, layout, layout.block_vertex[b], f);
  Index position[2];
  for (int j = 0; j < 2; ++j)
    position[j] = kite.unknown[j] < layout.num_free ? kite.unknown[j] - layout.block_offset[b] : -1;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 2; ++c)
      if (position[r] >= 0 && position[c] >= 0)
        block[position[r] * d + position[c]] += admittance * kite.area * kite.inverse_gram[r][c];
}

// The kites of the lumped sheets with a free half-edge, sheet by sheet, face by face.
std::vector<LumpedKite> lumped_kites(mesh::MeshView const& m, Materials const& materials, DofLayout const& layout)
{
  std::vector<LumpedKite> kites;
  for (std::size_t s = 0; s < materials.sheets.size(); ++s) {
    auto const& sheet = materials.sheets[s];
    for (Index f : sheet.faces)
      for (Index v : m.topology.face_vertices[f]) {
        auto const kite = face_kite(m, layout, v, f);
        bool const free0 = kite.unknown[0] < layout.num_free, free1 = kite.unknown[1] < layout.num_free;
        if (!free0 && !free1) continue;
        LumpedKite k;
        k.sheet = static_cast<Index>(s);
        k.block = layout.block_of(free0 ? kite.unknown[0] : kite.unknown[1]);
        for (int i = 0; i < 2; ++i) {
          k.unknowns[i] = kite.unknown[i];
          k.along[i] = kite.along(i, sheet.direction);
        }
        k.area = kite.area;
        kites.push_back(k);
      }
  }
  return kites;
}

// Ampere's side of the matched layers: the four subregions of each stretched tet, in the order of
// HostOperators::stretched_tets, with their unknowns, rows among the lossy rows and basis W.
void assemble_stretched_subregions(mesh::MeshView const& m, HostOperators& ops)
{
  auto const& layout = ops.layout;
  auto const& topology = m.topology;
  std::vector<Index> lossy_of_block(static_cast<std::size_t>(layout.num_blocks()), -1);
  for (std::size_t k = 0; k < ops.lossy_blocks.size(); ++k)
    lossy_of_block[static_cast<std::size_t>(ops.lossy_blocks[k])] = static_cast<Index>(k);
  ops.stretched_subregions.resize(4 * ops.stretched_tets.size());
  host_parallel_for("dgatd::assemble::stretched_subregions", static_cast<std::int64_t>(ops.stretched_tets.size()),
                    [&](std::int64_t k) {
                      Index const t = ops.stretched_tets[k];
                      for (int lv = 0; lv < 4; ++lv) {
                        Index const v = m.mesh.tets[t][lv];
                        auto const s = mesh::subregion(m.mesh, topology, m.geometry, t, lv);
                        auto& sub = ops.stretched_subregions[4 * k + lv];
                        for (int r = 0; r < 3; ++r) {
                          Index const e = topology.tet_edges[t][mesh::tet_vertex_edge(lv, r)];
                          Index const dof = layout.dof_of_half_edge[half_edge_of(topology, e, v)];
                          bool const free = dof < layout.num_free;
                          sub.unknowns[r] = free ? dof : layout.zero_slot;
                          if (free) {
                            Index const b = layout.block_of(dof);
                            sub.lossy_rows[r] = ops.lossy_row_offset[lossy_of_block[b]] + dof - layout.block_offset[b];
                          } else {
                            sub.lossy_rows[r] = -1;
                          }
                          for (int c = 0; c < 3; ++c) sub.basis[3 * c + r] = s.w[r][c];
                        }
                      }
                    });
}

// The conductance blocks S_v of the lossy blocks (sigma's mass matrix, the absorbing faces' terms
// and the stretch terms of each stretched subregion: loss into the block, coupling to its y).
void assemble_losses(mesh::MeshView const& m, Materials const& materials, std::vector<FaceKind> const& face_kind,
                     HostOperators& ops)
{
  auto const& layout = ops.layout;
  auto const absorbing = absorbing_faces_by_vertex(m.topology, face_kind);
  ops.lumped_kites = lumped_kites(m, materials, layout);
  for (auto const& sheet : materials.sheets) ops.sheet_circuits.push_back(sheet.per_square());
  choose_lossy_blocks(m.topology, materials, absorbing, ops);
  ops.conductance.assign(static_cast<std::size_t>(ops.lossy_matrix_offset.back()), 0.0);
  ops.stretch_conductance.assign(ops.conductance.size(), 0.0);
  ops.stretch_shift = materials.stretching.shift;
  host_parallel_for(
      "dgatd::assemble::conductance", static_cast<std::int64_t>(ops.lossy_blocks.size()), [&](std::int64_t k) {
        Index const b = ops.lossy_blocks[k];
        Index const v = layout.block_vertex[b];
        Index const d = layout.block_size(b);
        double* block = ops.conductance.data() + ops.lossy_matrix_offset[k];
        double* stretch_block = ops.stretch_conductance.data() + ops.lossy_matrix_offset[k];
        if (!materials.sigma.empty()) add_block_mass(m, layout, b, materials.sigma, block);
        for (Index i = absorbing.offsets[v]; i < absorbing.offsets[v + 1]; ++i)
          add_absorbing_face(m, materials, layout, b, absorbing.faces[i], block);
        for_each_subregion(m, layout, b, [&](Index t, mesh::Subregion const& s, std::array<Index, 3> const& position) {
          if (!materials.stretching.stretches(t)) return;
          auto const rates = stretch_rates(materials.stretching.tet_jacobian[t]);
          auto const loss = subregion_stretch_loss(s.w, materials.eps[t] * s.volume, rates);
          for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
              if (position[r] >= 0 && position[c] >= 0) stretch_block[position[r] * d + position[c]] += loss[r][c];
        });
      });
  assemble_stretched_subregions(m, ops);
  if (ops.lossy_blocks.empty()) {
    ops.lossy_matrix_offset.clear();
    ops.lossy_row_offset.clear();
  }
}

} // namespace

DofLayout dof_layout(mesh::Topology const& topology, std::vector<FaceKind> const& face_kind,
                     AssemblyOptions const& options)
{
  return number_unknowns(topology, edge_kinds(topology, face_kind), options);
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
  assemble_magnetic_stretching(mesh, topology, geometry, materials, options, ops);
  assemble_dual_blocks(m, materials, ops);
  assemble_losses(m, materials, face_kind, ops);
  build_dual_curl(topology, ops.layout, ops);
  return ops;
}

} // namespace dgatd::dga
