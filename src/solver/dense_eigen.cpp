#include "dgatd/solver/dense_eigen.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dgatd::solver {

DenseEigen symmetric_eigen(std::vector<double> a, int n)
{
  auto at = [n](int i, int j) { return static_cast<std::size_t>(i) * n + j; };
  std::vector<double> v(static_cast<std::size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) v[at(i, i)] = 1;
  double const total = std::sqrt(std::inner_product(a.begin(), a.end(), a.begin(), 0.0));
  // Each sweep at least squares the off-diagonal norm once it is small; 100 sweeps are never reached.
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) off += a[at(p, q)] * a[at(p, q)];
    if (std::sqrt(off) <= 1e-15 * total) break;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        if (std::abs(a[at(p, q)]) <= 1e-300) continue;
        // The rotation J (c at pp and qq, s at pq, -s at qp) with (JT A J)_pq = 0, the smaller angle.
        double const theta = (a[at(q, q)] - a[at(p, p)]) / (2 * a[at(p, q)]);
        double const t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        double const c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; ++k) {
          double const kp = a[at(k, p)], kq = a[at(k, q)];
          a[at(k, p)] = c * kp - s * kq;
          a[at(k, q)] = s * kp + c * kq;
        }
        for (int k = 0; k < n; ++k) {
          double const pk = a[at(p, k)], qk = a[at(q, k)];
          a[at(p, k)] = c * pk - s * qk;
          a[at(q, k)] = s * pk + c * qk;
        }
        for (int k = 0; k < n; ++k) {
          double const kp = v[at(k, p)], kq = v[at(k, q)];
          v[at(k, p)] = c * kp - s * kq;
          v[at(k, q)] = s * kp + c * kq;
        }
      }
  }
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int i, int j) { return a[at(i, i)] < a[at(j, j)]; });
  DenseEigen result;
  result.rows = result.columns = n;
  result.vectors.resize(v.size());
  for (int k = 0; k < n; ++k) {
    result.values.push_back(a[at(order[k], order[k])]);
    for (int i = 0; i < n; ++i) result.vectors[at(i, k)] = v[at(i, order[k])];
  }
  return result;
}

DenseEigen generalized_symmetric_eigen(std::vector<double> const& a, std::vector<double> const& b, int n, double drop)
{
  auto at = [n](int i, int j) { return static_cast<std::size_t>(i) * n + j; };
  std::vector<double> scale(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) scale[i] = b[at(i, i)] > 0 ? 1 / std::sqrt(b[at(i, i)]) : 0.0;
  std::vector<double> scaled_a(a.size()), scaled_b(b.size());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      scaled_a[at(i, j)] = scale[i] * a[at(i, j)] * scale[j];
      scaled_b[at(i, j)] = scale[i] * b[at(i, j)] * scale[j];
    }
  auto const metric = symmetric_eigen(scaled_b, n);
  double const largest = metric.values.back();
  // Q = V_kept diag(mu_kept)^(-1/2): an orthonormal basis of the kept span in the B inner product.
  std::vector<int> kept;
  for (int k = 0; k < n; ++k)
    if (metric.values[k] > drop * largest) kept.push_back(k);
  int const r = static_cast<int>(kept.size());
  std::vector<double> q(static_cast<std::size_t>(n) * r);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < r; ++k)
      q[static_cast<std::size_t>(i) * r + k] = metric.vector(i, kept[k]) / std::sqrt(metric.values[kept[k]]);
  std::vector<double> reduced(static_cast<std::size_t>(r) * r, 0.0), aq(static_cast<std::size_t>(n) * r, 0.0);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < r; ++k)
      for (int j = 0; j < n; ++j)
        aq[static_cast<std::size_t>(i) * r + k] += scaled_a[at(i, j)] * q[static_cast<std::size_t>(j) * r + k];
  for (int k = 0; k < r; ++k)
    for (int l = 0; l < r; ++l)
      for (int i = 0; i < n; ++i)
        reduced[static_cast<std::size_t>(k) * r + l] +=
            q[static_cast<std::size_t>(i) * r + k] * aq[static_cast<std::size_t>(i) * r + l];
  for (int k = 0; k < r; ++k)
    for (int l = 0; l < k; ++l) {
      double const mean =
          0.5 * (reduced[static_cast<std::size_t>(k) * r + l] + reduced[static_cast<std::size_t>(l) * r + k]);
      reduced[static_cast<std::size_t>(k) * r + l] = reduced[static_cast<std::size_t>(l) * r + k] = mean;
    }
  auto const ritz = symmetric_eigen(reduced, r);
  DenseEigen result;
  result.rows = n;
  result.columns = r;
  result.values = ritz.values;
  result.vectors.assign(static_cast<std::size_t>(n) * r, 0.0);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < r; ++k) {
      double sum = 0;
      for (int l = 0; l < r; ++l) sum += q[static_cast<std::size_t>(i) * r + l] * ritz.vector(l, k);
      result.vectors[static_cast<std::size_t>(i) * r + k] = scale[i] * sum;
    }
  return result;
}

} // namespace dgatd::solver
