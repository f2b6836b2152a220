// dgatd materials: the library of named dispersive materials (io/input/material_library.hpp), and
// one of them as [[material]] tables. Needs neither Kokkos nor a GPU: main runs it before either.
#include "commands.hpp"

#include "dgatd/dga/operators.hpp"
#include "dgatd/io/input/material_library.hpp"

#include <cmath>
#include <complex>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

namespace dgatd::app {
namespace {

// A frequency as users of its band name it: an optical one by its vacuum wavelength in nm, else GHz.
std::string band_name(double f)
{
  char text[32];
  if (f >= kOpticalFrequency)
    std::snprintf(text, sizeof text, "%.0f nm", 1e9 * dga::speed_of_light / f);
  else
    std::snprintf(text, sizeof text, "%.3g GHz", f / 1e9);
  return text;
}

void print_library()
{
  std::printf("%-6s %-22s %s\n", "name", "eps at", "model");
  for (auto const& m : io::material_library()) {
    double const omega = 2 * M_PI * m.shown_at;
    std::complex<double> eps = m.eps_inf;
    for (auto const& pole : m.poles) eps += dga::susceptibility(pole, omega);
    char value[64];
    std::snprintf(value, sizeof value, "%.2f%+.2fj at %s", eps.real(), eps.imag(), band_name(m.shown_at).c_str());
    std::printf("%-6s %-22s %s, %zu pole%s\n       %s\n", m.name.c_str(), value, m.description.c_str(), m.poles.size(),
                m.poles.size() == 1 ? "" : "s", m.source.c_str());
  }
  std::printf("\nUse one as [[material]] material = \"NAME\" (docs/user/configuration.md); dgatd materials "
              "--toml NAME prints its poles.\n");
}

// The pole as the kind it was made from (the library holds Debye, Drude and Lorentz poles only; of the
// real poles only Debye's couples the field directly, d = delta_eps / tau).
void print_toml(io::NamedMaterial const& m)
{
  std::printf("# %s: %s\n# %s\n[[material]]\nregion = \"REGION\"\neps_inf = %.10g\n", m.name.c_str(),
              m.description.c_str(), m.source.c_str(), m.eps_inf);
  for (auto const& p : m.poles) {
    if (p.order == 1 && p.d != 0)
      std::printf("\n[[material.pole]]\nkind = \"debye\"\ndelta_eps = %.10g\ntau = %.10g\n", p.d / -p.a[0],
                  -1 / p.a[0]);
    else if (p.order == 1)
      std::printf("\n[[material.pole]]\nkind = \"drude\"\nomega_p = %.10g\ngamma = %.10g\n", std::sqrt(p.b[0]),
                  -p.a[0]);
    else
      std::printf("\n[[material.pole]]\nkind = \"lorentz\"\ndelta_eps = %.10g\nomega_0 = %.10g\ndelta = %.10g\n",
                  p.b[1] / -p.a[2], std::sqrt(-p.a[2]), -p.a[3] / 2);
  }
}

} // namespace

void add_materials_command(CLI::App& app, Action* action)
{
  auto* command = app.add_subcommand("materials", "List the named dispersive materials a [[material]] table can "
                                                  "use (material = \"NAME\"), or print one's poles as TOML");
  auto name = std::make_shared<std::string>();
  command->add_option("--toml", *name, "print this material's [[material]] and [[material.pole]] tables");
  command->callback([action, name] {
    *action = [name] {
      if (name->empty()) {
        print_library();
        return 0;
      }
      auto const* m = io::find_material(*name);
      if (!m) {
        std::cerr << "dgatd: error: materials: \"" << *name << "\" is not in the library (fix: dgatd materials lists "
                  << "it)\n";
        return 1;
      }
      print_toml(*m);
      return 0;
    };
  });
}

} // namespace dgatd::app
