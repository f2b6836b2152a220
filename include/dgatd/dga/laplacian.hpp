#pragma once
// The electrostatic operator on the DGA complex: potentials phi on the primal vertices, voltages
// G phi on the edges, and the electric energy 1/2 (G phi)^T Meps (G phi) with the fractioned
// scheme's masses. A linear potential's field is constant in a tet and each of its four subregions
// recovers it exactly from its three half-edges, so a tet's energy is eps |t| |grad phi|^2 / 2 and
// Gt Meps G is, entry for entry, the stiffness matrix of linear elements: K_ij = sum over the tets
// around i and j of eps_t |t| grad(lambda_i) . grad(lambda_j) (docs/method/electrostatics.md).

#include "dgatd/dga/assembled.hpp"
#include "dgatd/mesh/mesh.hpp"

#include <array>
#include <tuple>
#include <vector>

namespace dgatd::dga {

// The gradients of tet t's four barycentric coordinates (in the order of its vertices) and its volume:
// a linear potential's gradient in t is the sum of its vertex values times them.
struct TetGradients {
  std::array<Vec3, 4> lambda;
  double volume = 0;
};
TetGradients tet_gradients(mesh::Mesh const& mesh, Index t);

// Gt Meps G over the mesh's vertices for the permittivity eps of each tet (F/m), each row's columns
// increasing.
HostCsr node_laplacian(mesh::Mesh const& mesh, std::vector<double> const& eps);

// The size x size matrix whose entry (i, j) is the sum of the entries given at (i, j), each row's
// columns increasing: the assembly of element matrices given as (row, column, value).
HostCsr summed_csr(Index size, std::vector<std::tuple<Index, Index, double>> entries);

// y = A x, on the host.
std::vector<double> multiply(HostCsr const& a, std::vector<double> const& x);

} // namespace dgatd::dga
