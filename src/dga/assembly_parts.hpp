#pragma once
// The pieces of the operators' assembly (dga::assemble) that its files share: the stretch rates of
// a matched layer's tets, the subregions of a dual block, and the passes that assemble the layers'
// magnetic side (stretch_assembly.cpp) and the lossy blocks (loss_assembly.cpp). Private to dga/.

#include "dgatd/dga/operators.hpp"
#include "dgatd/mesh/reference_tet.hpp"
#include "dgatd/mesh/view.hpp"

#include <array>
#include <vector>

namespace dgatd::dga::detail {

// The rates of a tet's stretch with Jacobian G (docs/method/open_regions.md, section 3): with K = s I + G,
// s det(J) J^-1 J^-T = det(K) (s^2 + S s + P)^-1, S = G + G^T, P = G^T G, and with
// z'' + S z' + P z = e the displacement current is
// eps [e' + (c2 I - S) e + R1 z' + R0 z], R1 = S^2 - P - c2 S + c1 I, R0 = S P - c2 P + c0 I,
// det(K) = s^3 + c2 s^2 + c1 s + c0.
using Matrix3 = std::array<double, 9>;
struct StretchRates {
  Matrix3 damping{};   // S
  Matrix3 stiffness{}; // P
  Matrix3 r0{}, r1{};
  double trace = 0; // c2
};
StretchRates stretch_rates(Matrix3 const& g);

// Mmu_t of tet t with permeability mu: mu |t|/4 w~^i . w~^j of its four subregions, placed at the
// tet's local faces (row-major 4 x 4).
std::array<double, 16> magnetic_mass(mesh::MeshView const& m, double mu, Index t);

// One subregion's loss for a basis w (primal or dual) and a material constant c:
// c |r| w^i . (c2 I - S) w^j.
std::array<std::array<double, 3>, 3> subregion_stretch_loss(std::array<Vec3, 3> const& w, double c_volume,
                                                            StretchRates const& rates);

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
                    double* block);

// Faraday's side of the matched layers: for every stretched tet the terms of its subregions with
// mu and the dual basis, placed by local faces (docs/method/open_regions.md, section 3).
void assemble_magnetic_stretching(mesh::Mesh const& mesh, mesh::Topology const& topology,
                                  mesh::Geometry const& geometry, Materials const& materials,
                                  AssemblyOptions const& options, HostOperators& ops);

// The conductance blocks S_v of the lossy blocks (sigma's mass matrix, the absorbing faces' terms
// and the stretch terms of each stretched subregion: loss into the block, coupling to its y).
void assemble_losses(mesh::MeshView const& m, Materials const& materials, std::vector<FaceKind> const& face_kind,
                     HostOperators& ops);

} // namespace dgatd::dga::detail
