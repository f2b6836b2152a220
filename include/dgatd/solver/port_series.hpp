#pragma once
// What a port records over a run, for S-parameters (io/analysis/sparams.hpp).

#include <string>
#include <vector>

namespace dgatd::solver {

// A matched port's modal voltages after each step (index 0: the initial field): what it launches and
// the total; their difference is the wave leaving through it.
// A lumped port's (resistance > 0): after each step, at t^(n+1/2), half its source voltage (the wave
// it launches, in volts across its resistance), its voltage and the current it drives into the
// structure.
struct PortSeries {
  std::string name; // the port's surface
  std::vector<double> incident;
  std::vector<double> voltage;
  double resistance = 0;       // a lumped port's reference resistance, ohms; 0 for a matched port
  std::vector<double> current; // a lumped port's; empty for a matched port
  // A matched port's wave admittance far above its cutoff (S) and the cutoff (rad/s); 0 for a lumped
  // port. A wave of modal voltage V at omega carries 1/2 Y(omega) |V|^2, Y(omega) = admittance
  // sqrt(1 - (cutoff / omega)^2).
  double admittance = 0;
  double cutoff = 0;
};

} // namespace dgatd::solver
