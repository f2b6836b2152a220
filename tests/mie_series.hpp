#pragma once
// The Mie series of a perfectly conducting sphere of size x = ka lit by a plane wave (Bohren and
// Huffman, "Absorption and Scattering of Light by Small Particles", 1983, chapter 4, with the
// relative index m -> infinity), in their convention: time factor e^(-i w t), the incident wave
// E = x^ E0 e^(i k z) with E0 = 1, theta measured from +z (the forward direction) and phi from +x.
// a_n = psi_n'(x) / xi_n'(x), b_n = psi_n(x) / xi_n(x), with psi_n = x j_n and xi_n = x h_n^(1).

#include <cmath>
#include <complex>
#include <utility>
#include <vector>

namespace dgatd::testing {

class PecMieSeries {
public:
  using Complex = std::complex<double>;

  explicit PecMieSeries(double x) : x_(x)
  {
    auto const terms = static_cast<unsigned>(x + 4 * std::cbrt(x) + 10);
    for (unsigned n = 1; n <= terms; ++n) {
      auto h = [&](unsigned m) { return Complex(std::sph_bessel(m, x), std::sph_neumann(m, x)); };
      Complex const xi = x * h(n), xi_before = x * h(n - 1);
      double const psi = x * std::sph_bessel(n, x), psi_before = x * std::sph_bessel(n - 1, x);
      // f_n' = f_(n-1) - n f_n / x for f_n = x z_n(x), z a spherical Bessel function.
      Complex const xi_derivative = xi_before - static_cast<double>(n) * xi / x;
      a_.push_back((psi_before - n * psi / x) / xi_derivative);
      b_.push_back(psi / xi);
      xi_.push_back(xi);
      xi_derivative_.push_back(xi_derivative);
    }
  }

  // The scattering cross section over pi a^2 (Bohren and Huffman 4.61).
  double scattering_efficiency() const
  {
    double sum = 0;
    for (std::size_t k = 0; k < a_.size(); ++k) sum += (2.0 * (k + 1) + 1) * (std::norm(a_[k]) + std::norm(b_[k]));
    return 2 * sum / (x_ * x_);
  }

  // The amplitudes S1 (the H-plane's) and S2 (the E-plane's) at scattering angle theta: the cross
  // section in the E-plane is 4 pi |S2|^2 / k^2, in the H-plane 4 pi |S1|^2 / k^2.
  std::pair<Complex, Complex> amplitudes(double theta) const
  {
    Complex s1 = 0, s2 = 0;
    each_term(theta, [&](std::size_t k, double n, double pi_n, double tau_n) {
      double const weight = (2 * n + 1) / (n * (n + 1));
      s1 += weight * (a_[k] * pi_n + b_[k] * tau_n);
      s2 += weight * (a_[k] * tau_n + b_[k] * pi_n);
    });
    return {s1, s2};
  }

  // The total field on the sphere's surface at (theta, phi): eta H_theta, eta H_phi (eta the
  // medium's impedance) and E_r. With E_n = i^n (2n + 1) / (n (n + 1)), the incident and scattered
  // series (Bohren and Huffman 4.37, 4.45) at r = a reduce, through the Wronskian
  // psi_n xi_n' - psi_n' xi_n = i, to
  //   eta H_theta = sin(phi) / x  sum E_n (i pi_n / xi_n' - tau_n / xi_n),
  //   eta H_phi   = cos(phi) / x  sum E_n (i tau_n / xi_n' - pi_n / xi_n),
  //   E_r         = cos(phi) sin(theta) / x^2  sum E_n n (n + 1) pi_n / xi_n',
  // which tend to 3/2 H0 and 3 E0 sin(theta) cos(phi) of the static sphere as x -> 0.
  struct SurfaceField {
    Complex eta_h_theta, eta_h_phi, e_r;
  };
  SurfaceField surface_field(double theta, double phi) const
  {
    SurfaceField field{};
    Complex const i(0, 1);
    each_term(theta, [&](std::size_t k, double n, double pi_n, double tau_n) {
      Complex const e_n = std::pow(i, static_cast<int>(n)) * (2 * n + 1) / (n * (n + 1));
      field.eta_h_theta += e_n * (i * pi_n / xi_derivative_[k] - tau_n / xi_[k]);
      field.eta_h_phi += e_n * (i * tau_n / xi_derivative_[k] - pi_n / xi_[k]);
      field.e_r += e_n * n * (n + 1) * pi_n / xi_derivative_[k];
    });
    field.eta_h_theta *= std::sin(phi) / x_;
    field.eta_h_phi *= std::cos(phi) / x_;
    field.e_r *= std::cos(phi) * std::sin(theta) / (x_ * x_);
    return field;
  }

private:
  double x_;
  std::vector<Complex> a_, b_, xi_, xi_derivative_;

  // term(k, n, pi_n, tau_n) for n = k + 1 = 1, 2, ...: the angular functions by their recurrences.
  template <class Term>
  void each_term(double theta, Term const& term) const
  {
    double const mu = std::cos(theta);
    double pi_before = 0, pi_now = 1; // pi_0, pi_1
    for (std::size_t k = 0; k < a_.size(); ++k) {
      double const n = static_cast<double>(k + 1);
      double const tau = n * mu * pi_now - (n + 1) * pi_before;
      term(k, n, pi_now, tau);
      double const pi_next = ((2 * n + 1) * mu * pi_now - (n + 1) * pi_before) / n;
      pi_before = pi_now;
      pi_now = pi_next;
    }
  }
};

} // namespace dgatd::testing
