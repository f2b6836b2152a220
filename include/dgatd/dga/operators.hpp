#pragma once
// The discrete operators of the fractioned DGATD scheme, assembled on the host once per mesh:
// the per-tet Faraday matrices K_t = (Mmu_t)^-1 C_t, the dual-volume blocks (Meps_v)^-1 restricted
// to the free half-edges, the gather lists of the dual curl, and the numbering of the unknowns.

#include "dgatd/dga/dispersion.hpp"
#include "dgatd/dga/lumped.hpp"
#include "dgatd/mesh/geometry.hpp"
#include "dgatd/mesh/mesh.hpp"
#include "dgatd/mesh/topology.hpp"
#include "dgatd/vec3.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace dgatd::dga {

// What each face of the mesh is for the boundary conditions.
// absorbing: a first-order (Silver-Mueller) absorbing surface, n x h = Y n x (n x e), Y the
// admittance of the tet behind it.
enum class FaceKind : std::uint8_t { interior_or_pmc = 0, pec = 1, port = 2, absorbing = 3 };

// Perfectly matched layers (docs/method/open_regions.md, section 3): the layer is the image of a complex
// coordinate stretch x~ = x + F(x) / (i omega), F a vector field whose components are integrals of
// the damping profile over the depth, so a wave entering it decays without reflection whatever its
// frequency and angle. F is linear in each tet (interpolated from the vertices), so the stretched
// mesh is a mesh and the discrete layer is the method's own discretisation of it:
// J_t = I + G_t / (i omega) with G_t = grad F, and eps and mu become det(J) J^-1 eps J^-T. A stretch
// sampled per tet or per vertex instead is an unmatched, active medium, and runs blew up in it.
// Per tet: G, row-major (G_ij = dF_i / dx_j), zero outside the layers. Empty: no layer.
struct Stretching {
  std::vector<std::array<double, 9>> tet_jacobian;
  // The complex frequency shift a of every layer (1/s): x~ = x + F(x) / (a + i omega), 0 for the
  // plain stretch. One value for all layers, so that the stretch stays a coordinate map across them.
  double shift = 0;
  bool empty() const { return tet_jacobian.empty(); }
  bool stretches(Index t) const
  {
    if (empty()) return false;
    for (double g : tet_jacobian[t])
      if (g != 0) return true;
    return false;
  }
};

// Absolute permittivity and permeability per tet (eps0 * eps_r, mu0 * mu_r in SI; tests in c = 1
// units use eps = mu = 1).
struct Materials {
  std::vector<double> eps;
  std::vector<double> mu;
  std::vector<double> sigma; // conductivity (S/m) per tet; empty for a lossless problem
  Stretching stretching{};
  std::vector<LumpedSheet> sheets{}; // lumped ports and elements (dga/lumped.hpp)
  std::vector<Index> pec_edges{};    // edges of PEC wires (physical curves), PEC like the edges of PEC faces
  // Dispersive media: the models, and per tet its model's index or -1 (empty where none is). A model
  // holds chi / eps_inf (dga::scaled_pole), so that a pole's current is eps (C x + D e) with the tet's own
  // eps, in whatever units eps is given.
  std::vector<Dispersion> dispersions{};
  std::vector<int> dispersion{};
  bool disperses(std::size_t t) const { return !dispersion.empty() && dispersion[t] >= 0; }
};

struct AssemblyOptions {
  // Order the dual blocks (and with them the unknowns) by decreasing size, so that a launch over
  // blocks sees equal work side by side; otherwise blocks follow the vertex numbering.
  bool group_blocks_by_degree = false;
  // Step the matched layers' tets whose stretch splits into one or three scalar modes with one
  // auxiliary per mode and subregion instead of six (HostOperators::StretchModes); off, every
  // stretched tet takes the general form, which gives the same fields to rounding (the tests
  // compare the two).
  bool split_stretch_modes = true;
};

// The unknowns: free half-edges first, in dual-block order (each block contiguous), then the
// prescribed (port) half-edges, then one slot that always holds zero and stands for every PEC
// half-edge, so the Faraday gather needs no branch.
struct DofLayout {
  Index num_free = 0;
  Index num_prescribed = 0;
  Index zero_slot = 0; // == num_free + num_prescribed
  Index size() const { return zero_slot + 1; }
  std::vector<Index> dof_of_half_edge;           // topology half-edge -> unknown
  std::vector<Index> block_vertex;               // vertex of each dual block
  std::vector<Index> block_offset;               // first unknown of block b, nblocks + 1 entries
  std::vector<std::int64_t> block_matrix_offset; // first entry of block b's d_b x d_b matrix
  Index num_blocks() const { return static_cast<Index>(block_vertex.size()); }
  Index block_size(Index b) const { return block_offset[b + 1] - block_offset[b]; }
  // The dual block of free unknown dof.
  Index block_of(Index dof) const;
  Index max_block_size = 0;
};

struct HostOperators {
  DofLayout layout;
  // For local edge k of tet t: [2k] the unknown of its half at the edge's tail, [2k+1] at its head.
  std::vector<std::array<Index, 12>> tet_dofs;
  std::vector<std::array<double, 16>> mu;         // Mmu_t, 4 x 4 row-major
  std::vector<std::array<double, 10>> mu_inverse; // (Mmu_t)^-1, its upper triangle row by row
  std::vector<double> eps_inverse;                // packed (Meps_v)^-1 blocks, row-major, at block_matrix_offset
  std::vector<double> eps;                        // packed Meps_v blocks, same layout (energy, Rayleigh quotients)
  // Losses: the conductance blocks S_v of the dual blocks that have a lossy tet or an absorbing face
  // around them, packed in lossy_blocks order at lossy_matrix_offset: sigma's mass matrix, built
  // like Meps_v, plus the absorbing faces' Y (A_f / 3) w_i . w_j over the face's kite at v
  // (docs/method/open_regions.md).
  // In a matched layer the loss matrix of block v (its own array, stretch_conductance, in the same
  // packing) holds, per subregion r = (t, v) of a stretched
  // tet, eps_t |r| w^i . (c2 I - S) w^j, and r couples its three half-edges to six auxiliary unknowns
  // y_r = [z; z'] (Cartesian), z'' + S z' + P z = e_r, by eps_t |r| w^i . [R0 | R1] y_r, with
  // S = G + G^T, P = G^T G, c2 = tr G, R0 and R1 from G (docs/method/open_regions.md, section 3).
  std::vector<Index> lossy_blocks;
  std::vector<std::int64_t> lossy_matrix_offset;
  std::vector<double> conductance;
  std::vector<double> stretch_conductance;
  double stretch_shift = 0;            // Stretching::shift
  std::vector<Index> lossy_row_offset; // first row of each lossy block among the lossy rows
  // The kites of the lumped sheets (Materials::sheets), sheet by sheet, those with a free half-edge:
  // their blocks are lossy blocks, whose loss matrices gain Y(dt) area along along^T when dt is set
  // (solver/loss_steps.hpp).
  std::vector<LumpedKite> lumped_kites;
  std::vector<SheetCircuit> sheet_circuits; // per sheet, its circuit per square
  // The stretched tets, ascending, and per stretched tet k the rates of its stretch (S then P,
  // row-major) and the couplings of its subregions' auxiliaries without their basis,
  // eps_t |t|/4 [R0 | R1] and mu_t |t|/4 [R0 | R1] (3 x 6 row-major): subregion r couples by
  // W_r^T times them. The four subregions of a tet share these, so they are stored once per tet.
  std::vector<Index> stretched_tets;
  std::vector<std::array<double, 18>> stretched_tet_rates;
  std::vector<std::array<double, 18>> electric_coupling;
  std::vector<std::array<double, 18>> magnetic_coupling;
  // Where a tet's stretch splits into scalar modes, s det(J) J^-1 J^-T = (s + c2) I - S +
  // sum_m kappa_m n_m n_m^T / (s + gamma_m) (|n_m| = 1) and each mode takes one scalar auxiliary per
  // subregion, q' + gamma q = n . e, coupled to the current by eps |r| kappa_m n_m q instead of six
  // (docs/method/open_regions.md, section 3):
  // - one mode where G is rank one, G = n g^T (a flat layer; a shell's slabs, stretched along one
  //   axis): gamma = g . n, kappa = |g|^2;
  // - three where G has three distinct real eigenvalues gamma_m with right and left eigenvectors
  //   v_m, w_m (w_m . v_m = 1) of condition |v_m| |w_m| <= 10 (a shell's bars and corners):
  //   kappa_m = |v_m|^2 |w_m|^2 (gamma_i - gamma_m) (gamma_j - gamma_m), i, j the other two;
  // - none (the general form) elsewhere: complex or close eigenvalues.
  struct StretchModes {
    int count = 0;
    std::array<Vec3, 3> direction{};         // n_m
    std::array<double, 3> rate{};            // gamma_m
    std::array<double, 3> electric_weight{}; // eps_t |t|/4 kappa_m
    std::array<double, 3> magnetic_weight{}; // mu_t |t|/4 kappa_m
  };
  std::vector<StretchModes> stretched_tet_modes;
  // Ampere's side, subregion lv of stretched tet k at 4 k + lv (one with no free half-edge has
  // the zero slot and no rows).
  struct StretchedSubregion {
    std::array<Index, 3> unknowns;   // its half-edges' unknowns (the zero slot for a PEC half-edge)
    std::array<Index, 3> lossy_rows; // their rows among the lossy rows, -1 for a PEC half-edge
    std::array<double, 9> basis;     // W, row-major: column j is w^j, so e_r = W u^_r
  };
  std::vector<StretchedSubregion> stretched_subregions;
  // Dispersive media (Materials::dispersions, copied here), on Ampere's side like the layers: the
  // tets with poles, ascending, with per tet its model, its subregions' rows among the lossy rows
  // (3 lv + r, -1 for a PEC half-edge) and per subregion eps_t |s| w^i . w^j (upper triangle, six at
  // 6 lv). Their blocks are lossy blocks.
  std::vector<Dispersion> dispersions;
  std::vector<Index> dispersive_tets;
  std::vector<int> dispersive_model;
  std::vector<std::array<Index, 12>> dispersive_rows;
  std::vector<std::array<double, 24>> dispersive_mass;
  // Faraday's side, per stretched tet: the loss summed over the tet's subregions (4 x 4 by local
  // faces) and the dual basis, 4 x 12 (3 x 4 per subregion, row-major: its Cartesian h from the
  // tet's four f^).
  std::vector<std::array<double, 16>> magnetic_loss;
  std::vector<std::array<double, 48>> magnetic_basis;
  // Dual curl (C~ f^, eq. 6), once per edge: both halves of an edge see the same circulation around
  // its dual face, so it is formed once per edge that has a free half and read by the block rows of
  // both halves. Tet t's share of it for its local edge k is the edge piece
  //   p(t, k) = inc(f_a, e_k) f^(t, a) + inc(f_b, e_k) f^(t, b),
  // f_a < f_b the two local faces holding edge k (mesh::tet_edge_face(k, 0) and (k, 1));
  // tet_edge_signs[t] holds, for each k, bit 2k + 1 set when inc(f_a, e_k) < 0 and bit 2k when
  // inc(f_b, e_k) < 0. The Faraday kernel writes the pieces next to f^; the curl of curled edge c
  // sums p over entries [edge_curl_offsets[c], edge_curl_offsets[c+1]), each (t << 3) | k. Curled
  // edges are numbered in the order the blocks first meet them (their tets stay near in memory);
  // row_curl[r] is the curled edge of free unknown r.
  std::vector<std::uint32_t> tet_edge_signs;
  std::vector<Index> edge_curl_offsets;
  std::vector<std::uint32_t> edge_curl_entries;
  std::vector<Index> row_curl;
};

// An entry of the dual-curl lists: edge piece p(t, k), the tet above its local edge's three bits.
struct CurlPiece {
  Index tet;
  int local_edge;
};
constexpr std::uint32_t encode_curl_piece(Index tet, int local_edge)
{
  return static_cast<std::uint32_t>(tet) << 3 | static_cast<std::uint32_t>(local_edge);
}
constexpr CurlPiece decode_curl_piece(std::uint32_t code)
{
  return {static_cast<Index>(code >> 3), static_cast<int>(code & 7u)};
}

// The numbering of the unknowns alone, as assemble gives it with the wires' edges pec_edges
// (Materials::pec_edges): a run over several ranks numbers the whole mesh's unknowns so, to start
// each part's stability bound from the one-process run's field and to checkpoint in its numbering.
DofLayout dof_layout(mesh::Topology const& topology, std::vector<FaceKind> const& face_kind,
                     std::vector<Index> const& pec_edges, AssemblyOptions const& options = {});

// Builds every operator; the per-tet and per-dual-volume work runs on the host's threads.
HostOperators assemble(mesh::Mesh const& mesh, mesh::Topology const& topology, mesh::Geometry const& geometry,
                       Materials const& materials, std::vector<FaceKind> const& face_kind,
                       AssemblyOptions const& options = {});

// The mass matrices whose inverses are (Mmu_t)^-1 and (Meps_v)^-1 rounded to float, in the layouts
// of HostOperators::mu and eps: a step that multiplies by the rounded inverses conserves the energy
// measured with these.
struct MassMatrices {
  std::vector<std::array<double, 16>> mu;
  std::vector<double> eps;
};
MassMatrices masses_of_float_inverses(HostOperators const& ops);

// Physical constants (SI).
inline constexpr double speed_of_light = 299792458.0;
inline constexpr double mu0 = 1.25663706212e-6;
inline constexpr double eps0 = 1.0 / (mu0 * speed_of_light * speed_of_light);

// Small dense SPD helpers shared by assembly and sources: in-place inverse of an n x n row-major
// SPD matrix by Cholesky; returns false if it is not positive definite.
bool invert_spd(double* a, int n);
// In-place inverse of an n x n row-major matrix by Gauss-Jordan elimination with partial
// pivoting; returns false if it is singular to working precision.
bool invert_general(double* a, int n);

} // namespace dgatd::dga
