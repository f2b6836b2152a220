#include "dgatd/io/input/material_library.hpp"

#include "dgatd/dga/operators.hpp"

#include <cmath>

namespace dgatd::io {
namespace {

// Rakic et al.'s Lorentz-Drude model, in electronvolts as the paper gives it:
//   eps(w) = 1 - f0 wp^2 / (w (w - j G0)) + sum_k fk wp^2 / (wk^2 - w^2 + j w Gk)   (e^(+j w t)),
// that is a Drude pole (omega_p = sqrt(f0) wp, gamma = G0) and Lorentz poles (delta_eps =
// fk wp^2 / wk^2, omega_0 = wk, delta = Gk / 2), each rate divided by hbar.
struct Oscillator {
  double strength, energy, damping; // f, eV, eV
};

NamedMaterial lorentz_drude(std::string name, std::string description, double plasma, double f0, double damping0,
                            std::vector<Oscillator> const& oscillators)
{
  constexpr double hbar = 6.582119569e-16; // eV s
  NamedMaterial material{std::move(name),
                         std::move(description),
                         "A. D. Rakic, A. B. Djurisic, J. M. Elazar and M. L. Majewski, Appl. Opt. 37, 5271-5283 "
                         "(1998), Lorentz-Drude model; the Drude term and four oscillators, as MEEP's library",
                         1.0,
                         {dga::drude_pole(std::sqrt(f0) * plasma / hbar, damping0 / hbar)},
                         dga::speed_of_light / 600e-9};
  for (auto const& o : oscillators)
    material.poles.push_back(dga::lorentz_pole(o.strength * plasma * plasma / (o.energy * o.energy), o.energy / hbar,
                                               o.damping / (2 * hbar)));
  return material;
}

// Pure liquid water at 25 degrees C, one Debye relaxation: Ulaby and Long's fits in the temperature T
// (degrees C), eps_s = 88.045 - 0.4147 T + 6.295e-4 T^2 + 1.075e-5 T^3, eps_inf = 4.9,
// 2 pi tau = 1.1109e-10 - 3.824e-12 T + 6.938e-14 T^2 - 5.096e-16 T^3 s.
NamedMaterial water()
{
  constexpr double t = 25, pi = 3.14159265358979323846;
  double const eps_s = 88.045 - 0.4147 * t + 6.295e-4 * t * t + 1.075e-5 * t * t * t;
  double const tau = (1.1109e-10 - 3.824e-12 * t + 6.938e-14 * t * t - 5.096e-16 * t * t * t) / (2 * pi);
  constexpr double eps_inf = 4.9;
  return {"water",
          "pure liquid water at 25 deg C, microwaves (to about 100 GHz): one Debye relaxation (tau 8.1 ps)",
          "F. T. Ulaby and D. G. Long, Microwave Radar and Radiometric Remote Sensing (University of Michigan "
          "Press, 2014), the Debye model of pure water at 25 deg C",
          eps_inf,
          {dga::debye_pole(eps_s - eps_inf, tau)},
          1e9};
}

std::vector<NamedMaterial> make_library()
{
  return {
      lorentz_drude("Ag", "silver, visible and infrared (0.2 to 12 um)", 9.01, 0.845, 0.048,
                    {{0.065, 0.816, 3.886}, {0.124, 4.481, 0.452}, {0.011, 8.185, 0.065}, {0.840, 9.083, 0.916}}),
      lorentz_drude("Al", "aluminium, visible and infrared (0.2 to 12 um)", 14.98, 0.523, 0.047,
                    {{0.227, 0.162, 0.333}, {0.050, 1.544, 0.312}, {0.166, 1.808, 1.351}, {0.030, 3.473, 3.382}}),
      lorentz_drude("Au", "gold, visible and infrared (0.2 to 12 um)", 9.03, 0.760, 0.053,
                    {{0.024, 0.415, 0.241}, {0.010, 0.830, 0.345}, {0.071, 2.969, 0.870}, {0.601, 4.304, 2.494}}),
      lorentz_drude("Cu", "copper, visible and infrared (0.2 to 12 um)", 10.83, 0.575, 0.030,
                    {{0.061, 0.291, 0.378}, {0.104, 2.957, 1.056}, {0.723, 5.300, 3.213}, {0.638, 11.18, 4.305}}),
      water(),
  };
}

} // namespace

std::vector<NamedMaterial> const& material_library()
{
  static std::vector<NamedMaterial> const library = make_library();
  return library;
}

NamedMaterial const* find_material(std::string const& name)
{
  for (auto const& material : material_library())
    if (material.name == name) return &material;
  return nullptr;
}

} // namespace dgatd::io
