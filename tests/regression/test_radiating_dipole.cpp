// Open regions: a short z-dipole at the centre of a cube of vacuum inside a perfectly matched shell
// (inputs/dipole_pml_box.toml, run by the real executable) radiates the analytic time-averaged power
// eta0 (k p)^2 / (12 pi) within 5 % at the carrier, and the energy left after the pulse falls below
// 1e-6 of its peak (issue 10, acceptance 3; docs/method/open_regions.md, section 4).
#include "run_helpers.hpp"

#include "dgatd/dga/operators.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using dgatd::Vec3;
using Complex = std::complex<double>;
using Phasor = std::array<Complex, 3>;

// The closed surfaces: five cubes about the dipole, half-sides 0.07 to 0.11 m (the carrier's quarter
// wavelength is 0.075 m; the layer starts 0.14 m from the dipole), each face sampled at the 8 x 8
// points of a Gauss-Legendre rule.
constexpr std::array<double, 5> half_sides = {0.07, 0.08, 0.09, 0.10, 0.11};
constexpr int order = 8;
constexpr double gauss_x[order] = {-0.9602898564975363, -0.7966664774136267, -0.5255324099163290, -0.1834346424956498,
                                   0.1834346424956498,  0.5255324099163290,  0.7966664774136267,  0.9602898564975363};
constexpr double gauss_w[order] = {0.1012285362903763, 0.2223810344533745, 0.3137066458778873, 0.3626837833783620,
                                   0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763};

struct SurfacePoint {
  std::string name;
  std::size_t surface = 0;
  Vec3 offset{}; // from the dipole, metres
  Vec3 normal{}; // outward
  double weight = 0;
};

std::vector<SurfacePoint> surface_points()
{
  std::vector<SurfacePoint> points;
  for (std::size_t s = 0; s < half_sides.size(); ++s)
    for (int axis = 0; axis < 3; ++axis)
      for (int side = 0; side < 2; ++side)
        for (int i = 0; i < order; ++i)
          for (int j = 0; j < order; ++j) {
            double const a = half_sides[s], sign = side == 0 ? -1.0 : 1.0;
            SurfacePoint p;
            p.name = "s" + std::to_string(s) + "_" + std::to_string(axis) + std::to_string(side) + "_" +
                     std::to_string(i) + std::to_string(j);
            p.surface = s;
            p.offset[axis] = sign * a;
            p.offset[(axis + 1) % 3] = a * gauss_x[i];
            p.offset[(axis + 2) % 3] = a * gauss_x[j];
            p.normal[axis] = sign;
            p.weight = gauss_w[i] * gauss_w[j] * a * a;
            points.push_back(p);
          }
  return points;
}

// sum_n x_n exp(-i w t_n) dt: the Fourier transform of a sampled signal, each sample at its own time.
Complex fourier(std::vector<double> const& x, std::vector<double> const& t, double dt, double omega)
{
  Complex sum = 0;
  for (std::size_t n = 0; n < x.size(); ++n) sum += x[n] * std::polar(dt, -omega * t[n]);
  return sum;
}

// 1/2 Re(E x conj(H)) . n
double poynting(Phasor const& e, Phasor const& h, Vec3 const& n)
{
  double s = 0;
  for (int c = 0; c < 3; ++c) {
    int const a = (c + 1) % 3, b = (c + 2) % 3;
    s += n[c] * std::real(e[a] * std::conj(h[b]) - e[b] * std::conj(h[a]));
  }
  return 0.5 * s;
}

// The field of a z-dipole of unit current moment (1 A m) at offset r, phasors of exp(+i w t).
void hertzian_dipole(Vec3 const& r, double k, double eta, Phasor& e, Phasor& h)
{
  double const rho = std::hypot(r[0], r[1]);
  double const distance = std::hypot(rho, r[2]);
  double const cos_t = r[2] / distance, sin_t = rho / distance;
  double const cos_p = rho > 0 ? r[0] / rho : 1, sin_p = rho > 0 ? r[1] / rho : 0;
  Complex const i(0, 1);
  Complex const ikr = i * k * distance;
  Complex const wave = std::exp(-ikr) / (4 * M_PI * distance);
  Complex const h_phi = i * k * sin_t * (1.0 + 1.0 / ikr) * wave;
  Complex const e_r = 2.0 * eta * cos_t / distance * (1.0 + 1.0 / ikr) * wave;
  Complex const e_theta = i * eta * k * sin_t * (1.0 + 1.0 / ikr + 1.0 / (ikr * ikr)) * wave;
  e = {e_r * sin_t * cos_p + e_theta * cos_t * cos_p, e_r * sin_t * sin_p + e_theta * cos_t * sin_p,
       e_r * cos_t - e_theta * sin_t};
  h = {-h_phi * sin_p, h_phi * cos_p, Complex(0)};
}

TEST(RadiatingDipole, MatchedBoxRadiatesTheAnalyticPowerAndEmpties)
{
  dgatd::testing::ScratchDirectory scratch("radiating_dipole");
  std::string const example_path = std::string(DGATD_SOURCE_DIR) + "/inputs/dipole_pml_box.toml";
  std::string const example = dgatd::testing::slurp(example_path);
  auto const output_table = example.find("\n[output]");
  ASSERT_NE(output_table, std::string::npos) << example_path << " should end with its [output] table";
  auto const example_config = dgatd::io::load_config(example_path);
  ASSERT_EQ(example_config.sources.size(), 1u);
  auto const& source = example_config.sources[0];
  Vec3 const x0 = source.position;

  // The example as it is, up to its [output] table, which gives way to the surfaces' probes and an
  // output without snapshots.
  auto const points = surface_points();
  std::string probes;
  for (auto const& p : points) {
    char table[200];
    std::snprintf(table, sizeof table, "[[probe]]\nname = \"%s\"\nposition = [%.9f, %.9f, %.9f]\n\n", p.name.c_str(),
                  x0[0] + p.offset[0], x0[1] + p.offset[1], x0[2] + p.offset[2]);
    probes += table;
  }
  std::string const config =
      scratch.write("dipole.toml", example.substr(0, output_table + 1) + probes +
                                       "[output]\nfile = \"dipole.h5\"\nenergy_every = 10\nprogress = false\n");
  std::string const output = scratch.file("dipole.h5");
  auto const run = dgatd::testing::run_dgatd("run " + config + " -o " + output, scratch.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::printf("%s", run.out.c_str());

  // After step n the probes hold E at t = n dt and H at (n - 1/2) dt (leapfrog), and the current
  // moment entered step n at (n - 1/2) dt: each is transformed at its own times. Half a step off for
  // H moves the measured power by about 1 % here (the reactive near field is large on these cubes).
  auto const first = dgatd::io::read_probe(output, points[0].name, 'E');
  double const dt = dgatd::io::uniform_step(first.time, output);
  std::vector<double> const& t_e = first.time;
  std::vector<double> t_h(t_e.size()), moment(t_e.size());
  for (std::size_t n = 0; n < t_e.size(); ++n) {
    t_h[n] = t_e[n] - 0.5 * dt;
    moment[n] = source.waveform.amplitude * source.waveform.value(t_h[n]);
  }
  std::vector<std::array<std::vector<double>, 6>> fields(points.size());
  for (std::size_t q = 0; q < points.size(); ++q)
    for (char field : {'E', 'H'}) {
      auto const record = dgatd::io::read_probe(output, points[q].name, field);
      for (int c = 0; c < 3; ++c) fields[q][(field == 'E' ? 0 : 3) + c] = dgatd::testing::component(record, c);
    }

  // The radiated power per unit moment, P(f) / |p(f)|^2 = 1/2 Re oint (E x conj H) . n dS / |p(f)|^2,
  // on each cube, against eta0 k^2 / (12 pi).
  double const c = dgatd::dga::speed_of_light, eta = dgatd::dga::mu0 * c;
  double ratio_at_carrier = 0;
  for (int step = -4; step <= 4; ++step) {
    double const f = source.waveform.frequency * (1 + 0.05 * step);
    double const omega = 2 * M_PI * f, k = omega / c;
    Complex const p = fourier(moment, t_h, dt, omega);
    std::vector<double> measured(half_sides.size(), 0.0), quadrature(half_sides.size(), 0.0);
    for (std::size_t q = 0; q < points.size(); ++q) {
      Phasor e, h, e_exact, h_exact;
      for (int j = 0; j < 3; ++j) {
        e[j] = fourier(fields[q][j], t_e, dt, omega) / p;
        h[j] = fourier(fields[q][3 + j], t_h, dt, omega) / p;
      }
      hertzian_dipole(points[q].offset, k, eta, e_exact, h_exact);
      measured[points[q].surface] += points[q].weight * poynting(e, h, points[q].normal);
      quadrature[points[q].surface] += points[q].weight * poynting(e_exact, h_exact, points[q].normal);
    }
    double const analytic = eta * k * k / (12 * M_PI);
    double mean = 0, worst_rule = 0;
    std::string per_cube;
    for (std::size_t s = 0; s < half_sides.size(); ++s) {
      mean += measured[s] / analytic / static_cast<double>(half_sides.size());
      worst_rule = std::max(worst_rule, std::abs(quadrature[s] / analytic - 1));
      char figure[16];
      std::snprintf(figure, sizeof figure, " %.4f", measured[s] / analytic);
      per_cube += figure;
    }
    std::printf("f = %.2f GHz: P / |p|^2 = %.5e W/(A m)^2, analytic %.5e, ratio %.4f (cubes:%s; the rule on the "
                "analytic field is off by %.1e)\n",
                f / 1e9, mean * analytic, analytic, mean, per_cube.c_str(), worst_rule);
    if (step == 0) ratio_at_carrier = mean;
  }
  // The acceptance's bound, at the carrier: 5 %, as issue 10 states it. What the ratio carries
  // (docs/method/open_regions.md, section 4): the mesh's own error at h = lambda / 15, +1.2 % at the
  // carrier (+1.1 to +2.3 % over 0.8-1.2 GHz, smooth: the default layer's reflection does not show);
  // and what the probes' interpolation error leaves in the mean of 1920 points. Each point's E is off by about 23 % in
  // this near field, first order in h and different at every point, so the five cubes scatter by 2.5 %.
  EXPECT_NEAR(ratio_at_carrier, 1.0, 0.05);

  auto const energy = dgatd::io::read_energy(output);
  ASSERT_FALSE(energy.energy.empty());
  double const peak = *std::max_element(energy.energy.begin(), energy.energy.end());
  for (std::size_t n = 0; n < energy.time.size(); n += 8)
    std::printf("t = %5.2f ns: W / W_peak = %.2e\n", energy.time[n] * 1e9, energy.energy[n] / peak);
  double const final_fraction = energy.energy.back() / peak;
  std::printf("energy: peak %.4e J; at t = %.2f ns %.2e of it (the pulse ended at %.1f ns)\n", peak,
              energy.time.back() * 1e9, final_fraction, source.waveform.end_time() * 1e9);
  // What this checks is the decay after the pulse, not stability for ever: the layer grows a mode at
  // the shell's edges. With the example's profile it takes the energy from its lowest, 2e-17 of the
  // peak at 65 ns, back above 1e-6 at 129 ns; with the default profile it does so by 20 ns, and this
  // check fails (docs/method/open_regions.md, section 4).
  EXPECT_LT(final_fraction, 1e-6);
}

} // namespace
