#include "dgatd/io/analysis/far_field.hpp"

#include "dgatd/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

namespace dgatd::io {
namespace {

using Complex = std::complex<double>;
using Phasor = std::array<Complex, 3>;
constexpr double pi = 3.14159265358979323846;
constexpr double degree = pi / 180;

Phasor cross(Vec3 const& a, Phasor const& b)
{
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// The equivalent currents of one frequency, each times its face's area, and the wave's k and eta.
struct Currents {
  std::vector<Vec3> points;
  std::vector<Phasor> electric; // J A = n x H A
  std::vector<Phasor> magnetic; // M A = -n x E A
  double k = 0, eta = 0;

  std::pair<Complex, Complex> far_field(double theta, double phi) const
  {
    double const st = std::sin(theta), ct = std::cos(theta), sp = std::sin(phi), cp = std::cos(phi);
    Vec3 const r{st * cp, st * sp, ct}, theta_hat{ct * cp, ct * sp, -st}, phi_hat{-sp, cp, 0};
    Phasor n{}, l{};
    for (std::size_t i = 0; i < points.size(); ++i) {
      Complex const phase = std::polar(1.0, k * dot(r, points[i]));
      for (int c = 0; c < 3; ++c) {
        n[c] += electric[i][c] * phase;
        l[c] += magnetic[i][c] * phase;
      }
    }
    auto along = [](Phasor const& v, Vec3 const& u) { return v[0] * u[0] + v[1] * u[1] + v[2] * u[2]; };
    Complex const factor(0, k / (4 * pi));
    return {-factor * (along(l, phi_hat) + eta * along(n, theta_hat)),
            factor * (along(l, theta_hat) - eta * along(n, phi_hat))};
  }
};

} // namespace

std::vector<FarFieldPattern> far_field_patterns(solver::FarFieldRecord const& record, double theta_step,
                                                double phi_step, std::vector<double> const& cut_phis)
{
  std::size_t const faces = record.areas.size();
  double const speed = 1 / std::sqrt(record.eps * record.mu);
  std::vector<FarFieldPattern> patterns;
  for (std::size_t m = 0; m < record.frequencies.size(); ++m) {
    FarFieldPattern p;
    p.surface = record.name;
    p.frequency = record.frequencies[m];
    Currents currents;
    currents.k = 2 * pi * p.frequency / speed;
    currents.eta = std::sqrt(record.mu / record.eps);
    currents.points = record.centroids;
    for (std::size_t i = 0; i < faces; ++i) {
      auto const& e = record.e[m * faces + i];
      auto const& h = record.h[m * faces + i];
      Vec3 const area_normal = scaled(record.normals[i], record.areas[i]);
      currents.electric.push_back(cross(area_normal, h));
      auto magnetic = cross(area_normal, e);
      for (auto& c : magnetic) c = -c;
      currents.magnetic.push_back(magnetic);
      for (int c = 0; c < 3; ++c) {
        int const a = (c + 1) % 3, b = (c + 2) % 3;
        p.flux += 0.5 * area_normal[c] * std::real(e[a] * std::conj(h[b]) - e[b] * std::conj(h[a]));
      }
    }
    auto intensity = [&](Complex const& et, Complex const& ep) {
      return (std::norm(et) + std::norm(ep)) / (2 * currents.eta);
    };
    // The sphere by the midpoint rule, 1 x 2 degrees: the pattern varies over tens of degrees.
    for (int i = 0; i < 180; ++i) {
      double const theta = (i + 0.5) * degree;
      for (int j = 0; j < 180; ++j) {
        auto const [et, ep] = currents.far_field(theta, (2 * j + 1) * degree);
        p.radiated += intensity(et, ep) * std::sin(theta) * degree * 2 * degree;
      }
    }
    Complex incident = 0;
    p.has_rcs = record.has_incident && m < record.incident.size();
    if (p.has_rcs) {
      incident = record.incident[m];
      p.scattering = p.radiated / (std::norm(incident) / (2 * currents.eta));
    }
    if (p.has_rcs && record.has_origin) {
      // The optical theorem with e^(+j w t) and the far field r E = F e^(-j k r), F referenced at the
      // coordinate origin: sigma_ext = -(4 pi / k) Im(conj(E_0) p . F(d)) / |E_0|^2, E_0 the incident
      // field there, the transform at the wave's origin o moved by e^(+j k d . o).
      Vec3 const& d = record.incident_direction;
      double const theta = std::acos(std::clamp(d[2], -1.0, 1.0)), phi = std::atan2(d[1], d[0]);
      auto const [et, ep] = currents.far_field(theta, phi);
      double const st = std::sin(theta), ct = std::cos(theta), sp = std::sin(phi), cp = std::cos(phi);
      Vec3 const theta_hat{ct * cp, ct * sp, -st}, phi_hat{-sp, cp, 0};
      Vec3 const& pol = record.incident_polarization;
      Complex const forward = dot(pol, theta_hat) * et + dot(pol, phi_hat) * ep;
      Complex const at_origin = incident * std::polar(1.0, currents.k * dot(d, record.incident_origin));
      p.has_extinction = true;
      p.extinction = -4 * pi / currents.k * std::imag(std::conj(at_origin) * forward) / std::norm(at_origin);
      p.absorption = p.extinction - p.scattering;
    }
    auto sample = [&](double theta_degrees, double phi_degrees) {
      FarFieldSample s;
      s.theta = theta_degrees;
      s.phi = phi_degrees;
      std::tie(s.e_theta, s.e_phi) = currents.far_field(theta_degrees * degree, phi_degrees * degree);
      s.directivity = 4 * pi * intensity(s.e_theta, s.e_phi) / p.radiated;
      if (p.has_rcs) s.rcs = 4 * pi * (std::norm(s.e_theta) + std::norm(s.e_phi)) / std::norm(incident);
      return s;
    };
    int const thetas = static_cast<int>(std::lround(180 / theta_step));
    int const phis = static_cast<int>(std::lround(360 / phi_step));
    // At a pole every phi is the same direction: only phi = 0 competes for the strongest, so rounding
    // does not pick an arbitrary phi there.
    for (int i = 0; i <= thetas; ++i)
      for (int j = 0; j < phis; ++j) {
        p.grid.push_back(sample(i * theta_step, j * phi_step));
        bool const pole_again = (i == 0 || i * theta_step >= 180) && j > 0;
        if (!pole_again && p.grid.back().directivity > p.strongest.directivity) p.strongest = p.grid.back();
      }
    p.cut_phis = cut_phis;
    for (double phi : cut_phis) {
      std::vector<FarFieldSample> cut;
      for (int t = 0; t <= 360; ++t) {
        auto s = t <= 180 ? sample(t, phi) : sample(360 - t, phi + 180);
        s.theta = t;
        s.phi = phi;
        cut.push_back(s);
      }
      p.cuts.push_back(cut);
    }
    if (p.has_rcs) {
      Vec3 const back = scaled(record.incident_direction, -1.0);
      double const theta = std::acos(std::clamp(back[2], -1.0, 1.0)) / degree;
      double const phi = std::atan2(back[1], back[0]) / degree;
      p.backscatter = sample(theta, phi < 0 ? phi + 360 : phi);
    }
    patterns.push_back(std::move(p));
  }
  return patterns;
}

namespace {

void write_sample(std::FILE* out, double frequency, FarFieldSample const& s, bool rcs)
{
  std::fprintf(out, "%.9g,%.6g,%.6g,%.9g,%.9g,%.9g,%.9g,%.6f", frequency, s.theta, s.phi, s.e_theta.real(),
               s.e_theta.imag(), s.e_phi.real(), s.e_phi.imag(), 10 * std::log10(std::max(s.directivity, 1e-300)));
  if (rcs) std::fprintf(out, ",%.9g,%.6f", s.rcs, 10 * std::log10(std::max(s.rcs, 1e-300)));
  std::fprintf(out, "\n");
}

} // namespace

void write_far_field_csv(std::string const& grid_csv, std::string const& cuts_csv,
                         std::vector<FarFieldPattern> const& patterns)
{
  bool const rcs = !patterns.empty() && patterns.front().has_rcs;
  std::string const columns = std::string("theta_deg,phi_deg,re_r_e_theta,im_r_e_theta,re_r_e_phi,im_r_e_phi,") +
                              "directivity_dbi" + (rcs ? ",rcs_m2,rcs_dbsm" : "") + "\n";
  for (bool const cuts : {false, true}) {
    std::string const& path = cuts ? cuts_csv : grid_csv;
    std::FILE* out = std::fopen(path.c_str(), "w");
    if (!out) throw Error(path, "cannot be written", "check that its directory exists and is writable");
    std::fprintf(out, "%sfrequency_hz,%s", cuts ? "cut_phi_deg," : "", columns.c_str());
    for (auto const& p : patterns) {
      if (!cuts)
        for (auto const& s : p.grid) write_sample(out, p.frequency, s, rcs);
      else
        for (std::size_t c = 0; c < p.cuts.size(); ++c)
          for (auto const& s : p.cuts[c]) {
            std::fprintf(out, "%.6g,", p.cut_phis[c]);
            write_sample(out, p.frequency, s, rcs);
          }
    }
    if (std::fclose(out) != 0) throw Error(path, "could not be written completely", "check the free disk space");
  }
}

} // namespace dgatd::io
