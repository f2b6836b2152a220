#include "assembly_parts.hpp"

#include "dgatd/error.hpp"
#include "dgatd/host_parallel.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace dgatd::dga::detail {
namespace {

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
      lossy = lossy || materials.stretching.stretches(topology.v2t[i]) || materials.disperses(topology.v2t[i]);
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
        k.face = f;
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

// Ampere's side of the dispersive media: per dispersive tet its model, its subregions' rows among the
// lossy rows and their masses eps_t |s| w^i . w^j.
void assemble_dispersive_tets(mesh::MeshView const& m, Materials const& materials, HostOperators& ops)
{
  auto const& layout = ops.layout;
  auto const& topology = m.topology;
  ops.dispersions = materials.dispersions;
  for (std::size_t t = 0; t < materials.dispersion.size(); ++t)
    if (materials.disperses(t)) ops.dispersive_tets.push_back(static_cast<Index>(t));
  std::size_t const n = ops.dispersive_tets.size();
  ops.dispersive_model.resize(n);
  ops.dispersive_rows.resize(n);
  ops.dispersive_mass.resize(n);
  std::vector<Index> lossy_of_block(static_cast<std::size_t>(layout.num_blocks()), -1);
  for (std::size_t k = 0; k < ops.lossy_blocks.size(); ++k)
    lossy_of_block[static_cast<std::size_t>(ops.lossy_blocks[k])] = static_cast<Index>(k);
  host_parallel_for("dgatd::assemble::dispersive_tets", static_cast<std::int64_t>(n), [&](std::int64_t k) {
    Index const t = ops.dispersive_tets[k];
    ops.dispersive_model[k] = materials.dispersion[t];
    for (int lv = 0; lv < 4; ++lv) {
      Index const v = m.mesh.tets[t][lv];
      auto const s = mesh::subregion(m.mesh, topology, m.geometry, t, lv);
      for (int r = 0; r < 3; ++r) {
        Index const e = topology.tet_edges[t][mesh::tet_vertex_edge(lv, r)];
        Index const dof = layout.dof_of_half_edge[half_edge_of(topology, e, v)];
        Index row = -1;
        if (dof < layout.num_free) {
          Index const b = layout.block_of(dof);
          row = ops.lossy_row_offset[lossy_of_block[b]] + dof - layout.block_offset[b];
        }
        ops.dispersive_rows[k][3 * lv + r] = row;
      }
      int entry = 6 * lv;
      for (int r = 0; r < 3; ++r)
        for (int c = r; c < 3; ++c) ops.dispersive_mass[k][entry++] = materials.eps[t] * s.volume * dot(s.w[r], s.w[c]);
    }
  });
}

} // namespace

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
  assemble_dispersive_tets(m, materials, ops);
  if (ops.lossy_blocks.empty()) {
    ops.lossy_matrix_offset.clear();
    ops.lossy_row_offset.clear();
  }
}

} // namespace dgatd::dga::detail
