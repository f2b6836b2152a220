// Dispersive media's models (dga/dispersion.hpp) and their configuration: each kind's state-space
// form has the susceptibility users know it by, a pole-residue pair can stand for a Lorentz or a
// Debye pole, the trapezoidal step's response converges to it at second order, and bad or active
// models are refused at their key's line.
#include "dgatd/dga/dispersion.hpp"
#include "dgatd/error.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/io/input/material_library.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <string>

namespace {

using Complex = std::complex<double>;
using dgatd::dga::Pole;

constexpr double two_pi = 6.283185307179586;

void expect_close(Complex measured, Complex expected, char const* what, double omega)
{
  EXPECT_LT(std::abs(measured - expected), 1e-12 * std::abs(expected)) << what << " at " << omega << " rad/s";
}

TEST(Dispersion, EachKindIsItsTextbookSusceptibility)
{
  double const tau = 1e-10, wp = 2e10, gamma = 3e9, w0 = 1e10, delta = 5e8;
  Complex const j(0, 1);
  for (double const w : {1e8, 3e9, 1e10, 1.01e10, 7e10}) {
    expect_close(susceptibility(dgatd::dga::debye_pole(2.5, tau), w), 2.5 / (1.0 + j * w * tau), "Debye", w);
    expect_close(susceptibility(dgatd::dga::drude_pole(wp, gamma), w), -wp * wp / (w * w - j * w * gamma), "Drude", w);
    expect_close(susceptibility(dgatd::dga::lorentz_pole(1.5, w0, delta), w),
                 1.5 * w0 * w0 / (w0 * w0 - w * w + 2.0 * j * w * delta), "Lorentz", w);
  }
}

// A Lorentz pole with delta < w0 is the pair a = -delta + j beta, c = -j delta_eps w0^2 / (2 beta),
// beta = sqrt(w0^2 - delta^2); a Debye pole the real pole a = -1 / tau with c = delta_eps / (2 tau).
TEST(Dispersion, PoleResiduePairsStandForLorentzAndDebyePoles)
{
  double const w0 = 1e10, delta = 5e8, strength = 1.5, tau = 1e-10;
  double const beta = std::sqrt(w0 * w0 - delta * delta);
  auto const pair = dgatd::dga::pole_residue_pair({-delta, beta}, {0, -strength * w0 * w0 / (2 * beta)});
  auto const real = dgatd::dga::pole_residue_pair({-1 / tau, 0}, {2.0 / (2 * tau), 0});
  EXPECT_EQ(pair.order, 2);
  EXPECT_EQ(real.order, 1);
  for (double const w : {1e8, 3e9, 1e10, 7e10}) {
    expect_close(susceptibility(pair, w), susceptibility(dgatd::dga::lorentz_pole(strength, w0, delta), w), "pair", w);
    expect_close(susceptibility(real, w), susceptibility(dgatd::dga::debye_pole(2.0, tau), w), "real pole", w);
  }
}

// The rule's response to a sampled e^(j w t): the step's current average at t^(n+1/2) over the field
// there, against j w chi(w). The trapezoidal rule is second order: halving dt quarters the error.
Complex step_admittance(Pole const& pole, double omega, double dt)
{
  auto const rule = dgatd::dga::pole_rule(pole, dt);
  Complex const z = std::polar(1.0, omega * dt), half = std::polar(1.0, omega * dt / 2);
  Complex const average = (z + 1.0) / 2.0; // of e^n = 1 and e^(n+1) = z
  // x^n = (z I - advance)^-1 drive average, in the pole's one or two states.
  Complex x0 = 0, x1 = 0;
  if (pole.order == 1) {
    x0 = rule.drive[0] * average / (z - rule.advance[0]);
  } else {
    Complex const m00 = z - rule.advance[0], m01 = -rule.advance[1], m10 = -rule.advance[2], m11 = z - rule.advance[3];
    Complex const det = m00 * m11 - m01 * m10;
    x0 = (m11 * rule.drive[0] - m01 * rule.drive[1]) * average / det;
    x1 = (m00 * rule.drive[1] - m10 * rule.drive[0]) * average / det;
  }
  return (rule.history[0] * x0 + rule.history[1] * x1 + rule.conductance * average) / half;
}

TEST(Dispersion, TheStepsResponseConvergesAtSecondOrder)
{
  double const w = two_pi * 1e9;
  for (auto const& pole :
       {dgatd::dga::debye_pole(3.0, 2e-10), dgatd::dga::drude_pole(2e10, 3e9), dgatd::dga::lorentz_pole(1.5, 1e10, 5e8),
        dgatd::dga::pole_residue_pair({-2e9, 8e9}, {1e9, -3e9})}) {
    Complex const exact = Complex(0, w) * susceptibility(pole, w);
    double const coarse = std::abs(step_admittance(pole, w, 2e-11) / exact - 1.0);
    double const fine = std::abs(step_admittance(pole, w, 1e-11) / exact - 1.0);
    EXPECT_LT(coarse, 0.05);
    EXPECT_NEAR(coarse / fine, 4.0, 0.2) << "order " << pole.order;
  }
}

std::string cell_with(std::string const& material)
{
  return "[mesh]\ngenerate = \"box\"\nsize = [1, 1, 1]\nh = 0.5\n\n" + material +
         "\n[time]\nsteps = 10\n\n[output]\nfile = \"out.h5\"\n";
}

std::string error_of(std::string const& material)
{
  try {
    dgatd::io::parse_config(cell_with(material), "run.toml", ".");
  } catch (dgatd::Error const& e) {
    return e.what();
  }
  return "";
}

TEST(Dispersion, PolesAreReadInTheirMaterial)
{
  auto const config = dgatd::io::parse_config(cell_with(R"([[material]]
region = "domain"
eps_inf = 2.0

[[material.pole]]
kind = "drude"
omega_p = 2e10
gamma = 0

[[material.pole]]
kind = "pole_residue"
a = [-2e9, 8e9]
c = [1e9, -3e9]
)"),
                                              "run.toml", ".");
  ASSERT_EQ(config.materials.size(), 1u);
  auto const& material = config.materials[0];
  EXPECT_EQ(material.eps_r, 2.0);
  ASSERT_EQ(material.poles.size(), 2u);
  EXPECT_EQ(susceptibility(material.poles[0], 1e9), susceptibility(dgatd::dga::drude_pole(2e10, 0), 1e9));
  EXPECT_EQ(material.poles[1].order, 2);
}

TEST(Dispersion, BadPolesAreRefusedAtTheirLine)
{
  std::string const head = "[[material]]\nregion = \"domain\"\n\n[[material.pole]]\n";
  EXPECT_EQ(error_of(head + "kind = \"sellmeier\"\n"),
            "run.toml:10: [[material]] pole kind = \"sellmeier\" is not one of debye, drude, lorentz, pole_residue");
  EXPECT_EQ(error_of(head + "kind = \"debye\"\ndelta_eps = 2\ntau = 1e-9\nomega_p = 1e9\n"),
            "run.toml:13: [[material]] pole key 'omega_p' is not a debye pole's (it takes delta_eps, tau)");
  EXPECT_EQ(error_of(head + "kind = \"lorentz\"\ndelta_eps = 2\nomega_0 = 1e9\n"),
            "run.toml:9: [[material]] pole needs the key 'delta' (a lorentz pole takes delta_eps, omega_0, delta)");
  EXPECT_EQ(error_of(head + "kind = \"drude\"\nomega_p = 1e9\ngamma = -1\n"),
            "run.toml:12: [[material]] pole gamma = -1 must not be negative");
  EXPECT_EQ(
      error_of(head + "kind = \"pole_residue\"\na = [1e9, 2e9]\nc = [1, 0]\n"),
      "run.toml:11: [[material]] pole a has a positive real part, 1000000000 rad/s: the pole grows without bound; "
      "a "
      "passive pole has Re a <= 0");
  EXPECT_EQ(error_of("[[material]]\nregion = \"domain\"\neps_r = 2\neps_inf = 2\n"),
            "run.toml:8: [[material]] key 'eps_r' and 'eps_inf' both give the permittivity; keep one");
  EXPECT_EQ(error_of("[[material]]\nregion = \"domain\"\npole = 3\n"),
            "run.toml:8: [[material]] pole must be [[material.pole]] tables, not an integer");
}

// The library's gold against Rakic et al.'s Lorentz-Drude formula in electronvolts (Appl. Opt. 37,
// 5271, 1998; the Drude term and four oscillators), with e^(+j w t).
TEST(Dispersion, TheLibrarysGoldIsRakicsLorentzDrudeModel)
{
  auto const config =
      dgatd::io::parse_config(cell_with("[[material]]\nregion = \"domain\"\nmaterial = \"Au\"\n"), "run.toml", ".");
  ASSERT_EQ(config.materials.size(), 1u);
  dgatd::dga::Dispersion const gold{config.materials[0].poles};
  double const hbar = 6.582119569e-16, wp = 9.03;
  struct {
    double f, w, g;
  } const oscillators[] = {{0.024, 0.415, 0.241}, {0.010, 0.830, 0.345}, {0.071, 2.969, 0.870}, {0.601, 4.304, 2.494}};
  for (double const wavelength : {400e-9, 550e-9, 800e-9, 1550e-9}) {
    double const omega = two_pi * 299792458.0 / wavelength, e = hbar * omega; // eV
    Complex rakic = 1.0 - 0.760 * wp * wp / (e * (e - Complex(0, 0.053)));
    for (auto const& o : oscillators) rakic += o.f * wp * wp / (o.w * o.w - e * e + Complex(0, e * o.g));
    expect_close(config.materials[0].eps_r + gold.susceptibility(omega), rakic, "gold", omega);
  }
}

// The library's water against the Debye formula with Ulaby and Long's eps_s, eps_inf and tau at 25 C
// (78.24, 4.9, 8.10 ps) at 100 MHz, at its loss peak (w tau = 1) and at 1 GHz.
TEST(Dispersion, TheLibrarysWaterIsADebyeRelaxationAt25Degrees)
{
  auto const config =
      dgatd::io::parse_config(cell_with("[[material]]\nregion = \"domain\"\nmaterial = \"water\"\n"), "run.toml", ".");
  ASSERT_EQ(config.materials.size(), 1u);
  dgatd::dga::Dispersion const water{config.materials[0].poles};
  double const eps_s = 78.23890625, eps_inf = 4.9, tau = 5.089e-11 / two_pi;
  for (double const omega : {two_pi * 1e8, 1 / tau, two_pi * 1e9}) {
    Complex const debye = eps_inf + (eps_s - eps_inf) / (1.0 + Complex(0, omega * tau));
    expect_close(config.materials[0].eps_r + water.susceptibility(omega), debye, "water", omega);
  }
}

TEST(Dispersion, NamedMaterialsAreRefusedWhenUnknownOrChanged)
{
  EXPECT_EQ(error_of("[[material]]\nregion = \"domain\"\nmaterial = \"Pt\"\n"),
            "run.toml:8: [[material]] material = \"Pt\" is not in the library (Ag, Al, Au, Cu, water; dgatd materials "
            "lists them)");
  EXPECT_EQ(error_of("[[material]]\nregion = \"domain\"\nmaterial = \"Ag\"\neps_inf = 2\n"),
            "run.toml:9: [[material]] key 'eps_inf' cannot change the library's material \"Ag\"; give its poles "
            "yourself instead");
}

// A pair whose residue has the wrong sign gains energy near its resonance.
TEST(Dispersion, AnActivePoleResidueModelIsRefused)
{
  std::string const message = error_of(R"([[material]]
region = "domain"

[[material.pole]]
kind = "pole_residue"
a = [-1e9, 1e10]
c = [0, 5e9]
)");
  EXPECT_NE(message.find("run.toml:9: [[material]] pole model is not passive: Im eps = +"), std::string::npos)
      << message;
  EXPECT_NE(message.find("refit the pole-residue pairs with passivity enforced"), std::string::npos) << message;
}

} // namespace
