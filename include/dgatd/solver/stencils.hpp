#pragma once
// Host-side preparation of what the leapfrog needs besides the operators: where a point probe
// reads the fields, and which unknowns a source drives with which weights.

#include "dgatd/dga/operators.hpp"
#include "dgatd/error.hpp"
#include "dgatd/mesh/surfaces.hpp"
#include "dgatd/mesh/view.hpp"

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace dgatd::solver {

// The subregion Omega_(t,v) containing x, where the fields are uniform:
// e = sum_i u^(dofs[i]) w^i and h = sum_j f^(tet, faces[j]) w~^j.
struct SubregionFrame {
  Index tet = -1;
  int local_vertex = 0;
  std::array<Index, 3> dofs{};
  std::array<Vec3, 3> w{};
  std::array<int, 3> faces{};
  std::array<Vec3, 3> w_dual{};
};
// Subregion local_vertex of tet: its three half-edges' unknowns and the constant bases w^i (and the
// dual faces' w_dual) that the method's local matrices are built from.
SubregionFrame subregion_frame(mesh::MeshView const& m, dga::DofLayout const& layout, Index tet, int local_vertex);
// A tet's fields averaged over its four subregions (they stand about its barycentre), as weights
// over the fractioned step's unknowns: h = sum_j h[j] f^(tet, j), e = sum_i e[i] u^(dofs[i]).
struct TetMeanStencil {
  std::array<Vec3, 4> h{};
  std::array<Index, 12> dofs{};
  std::array<Vec3, 12> e{};
};
TetMeanStencil tet_mean_stencil(mesh::MeshView const& m, dga::DofLayout const& layout, Index tet);
// The tet holding x (mesh::locate_tet); throws dgatd::Error naming what is located (name) when x
// lies outside the mesh.
Index containing_tet(mesh::MeshView const& m, std::string const& name, Vec3 const& x);
// The error containing_tet throws for a position of name that no tet holds.
Error outside_the_mesh(std::string const& name, Vec3 const& x);
// Throws dgatd::Error naming what is located (name) when x lies outside the mesh.
SubregionFrame locate_subregion(mesh::MeshView const& m, dga::DofLayout const& layout, std::string const& name,
                                Vec3 const& x);

// How a point probe reads the piecewise-uniform fields: the uniform field of the subregion
// containing it (METHOD.md), the average of the four subregion fields of its tet, or those four
// weighted by the probe's barycentric coordinates. A single subregion's reconstruction carries a
// first-order error where the field varies fast (about 8 % spurious E_z on the axis of a TE10 guide
// at lambda/17); the weighted readings cancel most of it (2 %), and the barycentric one also
// follows the field across the tet, so it is the default.
enum class ProbeReading { subregion, tet_average, barycentric };

// A probe as twelve weighted terms over what both formulations share (METHOD.md): the edge
// circulations U of e and the dual-edge circulations F of h,
//   e = sum_k U[edges[k]] w[k],   h = sum_k F[faces[k]] w_dual[k].
// A subregion's half-edge reads U/2, and its dual half-edge F/2 on an interior face (F/1 on a
// boundary face); the weights include those factors. Unused terms have zero weights.
struct ProbeStencil {
  std::array<Index, 12> edges{};
  std::array<Vec3, 12> w{};
  std::array<Index, 12> faces{};
  std::array<Vec3, 12> w_dual{};
};
ProbeStencil probe_stencil(mesh::MeshView const& m, dga::DofLayout const& layout, std::string const& name,
                           Vec3 const& x, ProbeReading reading = ProbeReading::barycentric);

// A current source I(t) = g(t) * vector over the free unknowns; stored already multiplied by the
// block inverses, weights = (Meps_v)^-1 I, so the Ampere update subtracts dt g(t) weights.
struct CurrentStencil {
  std::vector<Index> rows;
  std::vector<double> weights; // (Meps)^-1 I per row
};

// The stencil of currents I (per free unknown of rows, A) impressed through the dual faces: (Meps)^-1 I
// over the rows of the blocks they touch.
CurrentStencil apply_block_inverses(dga::HostOperators const& ops, std::vector<Index> const& rows,
                                    std::vector<double> const& current);

// Point dipole of moment direction d (unit amplitude, A m) at x, Galerkin-injected into the
// three half-edge rows of the subregion containing x: I_i = d . w^i.
CurrentStencil dipole_stencil(mesh::MeshView const& m, dga::HostOperators const& ops, std::string const& name,
                              Vec3 const& x, Vec3 const& direction);

// Unit current (A) through the dual face of the edge whose midpoint is nearest to x, with the sign
// of direction . (edge vector), on both halves of the edge.
CurrentStencil edge_current_stencil(mesh::MeshView const& m, dga::HostOperators const& ops, std::string const& name,
                                    Vec3 const& x, Vec3 const& direction);

// Prescribed half-edge values u^ = g(t) * weight: a tangential field imposed on port edges, split
// half and half: weight = (integral of e_profile along the edge) / 2.
struct PrescribedStencil {
  std::vector<Index> dofs;
  std::vector<double> weights;
};

// TE10 on a port: e_profile = y-hat sin(pi (x - x_min) / a) over the port's bounding box in x.
// The port lies in a plane z = const; a is its x extent.
PrescribedStencil te10_port_stencil(mesh::MeshView const& m, dga::DofLayout const& layout, int surface_tag,
                                    std::string const& surface_name);
// The same on one rank's part m of a run over several ranks: the profile from the whole mesh's port.
PrescribedStencil te10_port_stencil(mesh::MeshView const& whole, mesh::MeshView const& m, dga::DofLayout const& layout,
                                    int surface_tag, std::string const& surface_name);

// A matched port (docs/method/open_regions.md section 4) on a planar exterior surface launches and
// absorbs one mode psi of the guide behind it, |psi| of unit integral square over the port (TE10 of a
// rectangular guide, broad side a along u and narrow side b along v, v's largest component positive
// so facing ports of one guide share it: psi = sqrt(2 / (a b)) sin(pi (u - u_min) / a) v). Its modal
// voltage is V = integral of e . psi over the port = sum over the port's edges of c_e U_e, c_e the
// integral of the edge's Whitney form against psi, and a modal current I enters Ampere like an
// impressed current c_e I through the edge's dual face, on both halves of the edge.
struct MatchedPortStencil {
  std::vector<Index> rows;        // free half-edge unknowns of the port's edges, both halves
  std::vector<double> projection; // c_e on each: V = sum projection[k] u^[rows[k]]
  CurrentStencil response;        // (Meps)^-1 q, q = projection on rows
  double self_coupling = 0;       // q . (Meps)^-1 q
  double peak_voltage = 0;        // the modal voltage of the mode's field at unit peak
  double admittance = 0;          // the mode's wave admittance far above cutoff, S
  double cutoff = 0;              // rad/s; 0 for a TEM mode
};

// A port's mode as a matched port launches and absorbs it (docs/method/open_regions.md section 5):
// its transverse e over the port, normalised so that the integral of |e|^2 over the port is 1 (the
// modal voltage's square times the admittance is then the power), the wave admittance sqrt(eps / mu)
// of its medium, which a TE mode approaches far above its cutoff, and the cutoff.
struct MatchedPortMode {
  // e at x in the port's face with the corners given (in the whole mesh's coordinates).
  std::function<Vec3(std::array<Vec3, 3> const& corners, Vec3 const& x)> field;
  double admittance = 0;
  double cutoff = 0;
  double peak_voltage = 0;
};

// The faces of a matched port's surface surface_tag, each seen from the one tet behind it. Throws
// dgatd::ModelError (a matched port named surface_name) when the surface has no faces or lies inside
// the mesh (a port there would drive and absorb interior edges, which carry the field on).
std::vector<mesh::SurfaceFace> exterior_port_faces(mesh::MeshView const& m, int surface_tag, std::string const& name);

// The TE10 mode of the rectangular guide whose exterior surface surface_tag of whole is the port,
// with the medium behind it (whole_eps, whole_mu per tet of whole). Throws dgatd::ModelError (a
// matched port named surface_name) when the surface has no faces, lies inside the mesh, is not
// planar, is not a rectangle, is square (TE10 and TE01 alike) or has more than one material behind it.
MatchedPortMode te10_mode(mesh::MeshView const& whole, std::vector<double> const& whole_eps,
                          std::vector<double> const& whole_mu, int surface_tag, std::string const& surface_name);

// The stencil of a matched port launching and absorbing mode on one rank's part m (ops its operators)
// of the mesh: its rows those of the part's port edges in the blocks owned_blocks marks (all where it
// is empty: one process), self_coupling over those rows only (to be summed over the ranks). c_e is
// the Whitney form of each port face against the mode's e. Throws dgatd::ModelError when the port
// touches a lossy block.
MatchedPortStencil matched_port_stencil(mesh::MeshView const& m, dga::HostOperators const& ops,
                                        std::vector<char> const& owned_blocks, int surface_tag,
                                        std::string const& surface_name, MatchedPortMode const& mode);

// The matched TE10 port in one process (m the whole mesh), as te10_mode and matched_port_stencil make it.
MatchedPortStencil matched_te10_port_stencil(mesh::MeshView const& m, dga::HostOperators const& ops,
                                             std::vector<double> const& eps, std::vector<double> const& mu,
                                             int surface_tag, std::string const& surface_name);

// Initial half-edge values of a field given as a function: u^(v,e) = e(x_mid) . (half-edge vector
// oriented like e), x_mid the middle of the half-edge; PEC and port unknowns stay zero.
std::vector<double> project_field(mesh::MeshView const& m, dga::DofLayout const& layout,
                                  std::function<Vec3(Vec3 const&)> const& field);

// Per-tet field vectors for snapshots: e and h averaged over the four subregions of each tet, read
// like the probes from the edge circulations U (one per edge) and the dual-edge circulations F (one
// per face).
void tet_average_fields(mesh::MeshView const& m, std::vector<double> const& edge_circulations,
                        std::vector<double> const& face_circulations, std::vector<Vec3>& e, std::vector<Vec3>& h);

} // namespace dgatd::solver
