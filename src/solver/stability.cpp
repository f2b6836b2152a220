#include "dgatd/solver/stability.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace dgatd::solver::stability_detail {
namespace {

// How many eigenvalues lie above x: n minus the negative pivots of T - x I = L D L^T (Sylvester).
std::size_t eigenvalues_above(std::vector<double> const& alpha, std::vector<double> const& beta, double x)
{
  std::size_t negative = 0;
  double pivot = 1;
  for (std::size_t k = 0; k < alpha.size(); ++k) {
    double const coupling = k > 0 ? beta[k - 1] * beta[k - 1] / pivot : 0.0;
    pivot = alpha[k] - x - coupling;
    // A zero pivot: x is an eigenvalue of the leading block; the smallest shift decides its side.
    if (pivot == 0) pivot = -std::numeric_limits<double>::min();
    negative += pivot < 0;
  }
  return alpha.size() - negative;
}

} // namespace

double largest_tridiagonal_eigenvalue(std::vector<double> const& alpha, std::vector<double> const& beta, double low)
{
  // Gershgorin: every eigenvalue lies within a row's off-diagonal sum of its diagonal.
  double high = -HUGE_VAL;
  double lowest = HUGE_VAL;
  for (std::size_t k = 0; k < alpha.size(); ++k) {
    double const radius = (k > 0 ? std::abs(beta[k - 1]) : 0.0) + (k < beta.size() ? std::abs(beta[k]) : 0.0);
    high = std::max(high, alpha[k] + radius);
    lowest = std::min(lowest, alpha[k] - radius);
  }
  // The estimate of a smaller matrix bounds this one's from below (interlacing); rounding aside.
  if (!(low < high) || eigenvalues_above(alpha, beta, low) == 0) low = lowest;
  while (high - low > 4 * std::numeric_limits<double>::epsilon() * std::max(std::abs(low), std::abs(high))) {
    double const middle = 0.5 * (low + high);
    if (middle <= low || middle >= high) break;
    (eigenvalues_above(alpha, beta, middle) > 0 ? low : high) = middle;
  }
  return 0.5 * (low + high);
}

} // namespace dgatd::solver::stability_detail
