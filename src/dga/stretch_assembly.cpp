#include "assembly_parts.hpp"

#include "dgatd/host_parallel.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace dgatd::dga::detail {
namespace {

Matrix3 product(Matrix3 const& a, Matrix3 const& b)
{
  Matrix3 c{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) c[3 * i + j] += a[3 * i + k] * b[3 * k + j];
  return c;
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

} // namespace

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

} // namespace dgatd::dga::detail
