#include "dgatd/dga/laplacian.hpp"

#include "dgatd/error.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <tuple>
#include <utility>

namespace dgatd::dga {

std::vector<double> multiply(HostCsr const& a, std::vector<double> const& x)
{
  std::vector<double> y(static_cast<std::size_t>(a.rows), 0.0);
  for (Index i = 0; i < a.rows; ++i)
    for (Index k = a.row_offsets[i]; k < a.row_offsets[i + 1]; ++k) y[i] += a.values[k] * x[a.column_indices[k]];
  return y;
}

HostCsr summed_csr(Index size, std::vector<std::tuple<Index, Index, double>> entries)
{
  std::sort(entries.begin(), entries.end(), [](auto const& p, auto const& q) {
    return std::tie(std::get<0>(p), std::get<1>(p)) < std::tie(std::get<0>(q), std::get<1>(q));
  });
  HostCsr matrix;
  matrix.rows = matrix.columns = size;
  matrix.row_offsets.assign(static_cast<std::size_t>(size) + 1, 0);
  for (std::size_t k = 0; k < entries.size();) {
    auto const [row, column, value] = entries[k];
    double sum = value;
    for (++k; k < entries.size() && std::get<0>(entries[k]) == row && std::get<1>(entries[k]) == column; ++k)
      sum += std::get<2>(entries[k]);
    matrix.column_indices.push_back(column);
    matrix.values.push_back(sum);
    ++matrix.row_offsets[row + 1];
  }
  for (Index i = 0; i < matrix.rows; ++i) matrix.row_offsets[i + 1] += matrix.row_offsets[i];
  return matrix;
}

TetGradients tet_gradients(mesh::Mesh const& mesh, Index t)
{
  auto const& v = mesh.tets[static_cast<std::size_t>(t)];
  Vec3 const x0 = mesh.points[v[0]];
  Vec3 const a = sub(mesh.points[v[1]], x0), b = sub(mesh.points[v[2]], x0), c = sub(mesh.points[v[3]], x0);
  double const det = dot(a, cross(b, c)); // six times the (positive) volume
  // The rows of the inverse of [a b c].
  TetGradients g;
  g.lambda[1] = scaled(cross(b, c), 1 / det);
  g.lambda[2] = scaled(cross(c, a), 1 / det);
  g.lambda[3] = scaled(cross(a, b), 1 / det);
  g.lambda[0] = scaled(add(g.lambda[1], add(g.lambda[2], g.lambda[3])), -1);
  g.volume = det / 6;
  return g;
}

HostCsr node_laplacian(mesh::Mesh const& mesh, std::vector<double> const& eps)
{
  if (eps.size() != mesh.tets.size())
    throw Error(mesh.source,
                "the permittivities are for " + std::to_string(eps.size()) + " tets, the mesh has " +
                    std::to_string(mesh.tets.size()),
                "give one permittivity per tet");
  std::vector<std::tuple<Index, Index, double>> entries;
  entries.reserve(mesh.tets.size() * 16);
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    auto const& v = mesh.tets[t];
    auto const g = tet_gradients(mesh, static_cast<Index>(t));
    double const weight = eps[t] * g.volume;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) entries.emplace_back(v[i], v[j], weight * dot(g.lambda[i], g.lambda[j]));
  }
  return summed_csr(mesh.num_vertices(), std::move(entries));
}

} // namespace dgatd::dga
