#include "dgatd/solver/lobpcg.hpp"

#include "dgatd/dga/laplacian.hpp"

#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace dgatd::solver::lobpcg_detail {

// The shift. T = (K + sigma M)^-1 is close to the ideal K^-1 on the wanted modes when sigma is well
// below their eigenvalues, and it must stay positive to make the natural-boundary (TE) K definite; it
// cannot be the lowest eigenvalue itself, which is what is sought, so it comes from the problem's
// scale. On a P1 mesh tr(M) is exactly half the area, and each triangle adds (l1^2 + l2^2 + l3^2) /
// (4 |t|) >= sqrt(3) to tr(K), whatever its size, with about two triangles per vertex: tr(K) /
// (n tr(M)) = 6.9 q / area, q >= 1 the triangles' mean shape factor, on uniform and graded meshes
// alike. A tenth of it, 0.7 q / area, lies below the lowest eigenvalues of the sections the modes are
// asked of: at least 18.2 / area with Dirichlet walls (TM; Faber-Krahn), and for the first nonzero
// natural-boundary one (TE) 10.6 / area on a disc, 5.9 on a 1 x 0.6 rectangle, 5.6 on a coax of
// b / a = 2.5, 4.4 on the L of the tests. Measured on the 10,083-triangle circular section: 10 TE
// steps at 0.1 (and at 0.03, 0.01, 0.001) of tr(K) / (n tr(M)), 12 at 1, 15 at 3; TM 15 steps at each
// of 0.001 to 1 (its count is set by the gap after the block). A slot much thinner than wide has a lower
// first eigenvalue than sigma, and takes a few steps more, not a number growing with the mesh. The
// shifted matrix's condition number, O(n) (about 1e5 here), is harmless to the factorization.
SparseCholesky shifted_factor(dga::HostCsr const& stiffness, dga::HostCsr const& mass, std::string const& where)
{
  Index const n = stiffness.rows;
  double trace_k = 0, trace_m = 0;
  std::vector<std::tuple<Index, Index, double>> entries;
  entries.reserve(stiffness.values.size() + mass.values.size());
  for (Index i = 0; i < n; ++i) {
    for (Index e = stiffness.row_offsets[i]; e < stiffness.row_offsets[i + 1]; ++e) {
      if (stiffness.column_indices[e] == i) trace_k += stiffness.values[e];
      entries.emplace_back(i, stiffness.column_indices[e], stiffness.values[e]);
    }
    for (Index e = mass.row_offsets[i]; e < mass.row_offsets[i + 1]; ++e)
      if (mass.column_indices[e] == i) trace_m += mass.values[e];
  }
  double const sigma = trace_k / (10 * n * trace_m);
  for (Index i = 0; i < n; ++i)
    for (Index e = mass.row_offsets[i]; e < mass.row_offsets[i + 1]; ++e)
      entries.emplace_back(i, mass.column_indices[e], sigma * mass.values[e]);
  return SparseCholesky(dga::summed_csr(n, std::move(entries)),
                        where + ", the eigen-solver's preconditioner K + sigma M");
}

} // namespace dgatd::solver::lobpcg_detail
