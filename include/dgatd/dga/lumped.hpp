#pragma once
// Lumped ports and elements on sheets of faces (docs/method/antennas.md): a circuit of length l (along its
// direction d) and width w = |sheet| / l spread over the sheet as a surface current K = k d, where
// k answers the field along d, x = e . d, as the circuit answers its voltage V = l x with its current
// I = w k. Per square of the sheet, admittances scale by l / w and impedances by w / l. On the kites
// of the sheet's faces (the traces of the subregions, as for the absorbing surfaces) the current is
// time-averaged like the losses: over the step from t^n to t^(n+1),
//   k_bar = Y(dt) x_bar + h^n,   x_bar = (x^n + x^(n+1)) / 2,
// with the circuit's equations taken by the trapezoidal rule, so that Y(dt) joins the loss blocks of
// Ampere's update (solver/losses.hpp) and the history h^n is an explicit current
// (solver/lumped_elements.hpp). The rule keeps an LC circuit's energy and a resistor's loss exactly,
// so dt = "auto" (the lossless bound) stays stable with any of them.

#include "dgatd/index.hpp"
#include "dgatd/vec3.hpp"

#include <string>
#include <vector>

namespace dgatd::dga {

// R, L and C in parallel or in series; a value of 0 leaves that element out (parallel: open, series:
// short). A port is a parallel resistor with a source (LumpedSheet::port).
struct LumpedCircuit {
  bool series = false;
  double resistance = 0;  // ohms
  double inductance = 0;  // henries
  double capacitance = 0; // farads
};

// The circuit per square of a sheet l long and w wide, and its trapezoidal rule at dt.
//   parallel: k = g x + c x' + j_L, j_L' = x / l_s:     Y = g + 2 c / dt + dt / (2 l_s),
//             h^n = j_L^n - 2 c x^n / dt;  after the step j_L += dt x_bar / l_s
//   series:   x = r k + l_s k' + q / c, q' = k:          Y = 1 / (r + 2 l_s / dt + dt / (2 c)),
//             h^n = Y (2 l_s k^n / dt - q^n / c);  after the step k^(n+1) = 2 k_bar - k^n, q += dt k_bar
struct SheetCircuit {
  bool series = false;
  double resistance = 0;  // r (series) or 1 / g (parallel), ohms per square; 0: none
  double inductance = 0;  // l_s, henries per square; 0: none
  double capacitance = 0; // c, farads per square; 0: none
  double admittance(double dt) const
  {
    if (!series)
      return (resistance > 0 ? 1 / resistance : 0) + 2 * capacitance / dt +
             (inductance > 0 ? dt / (2 * inductance) : 0);
    return 1 / (resistance + 2 * inductance / dt + (capacitance > 0 ? dt / (2 * capacitance) : 0));
  }
};

inline SheetCircuit per_square(LumpedCircuit const& circuit, double length, double width)
{
  double const impedance_scale = width / length;
  return {circuit.series, circuit.resistance * impedance_scale, circuit.inductance * impedance_scale,
          circuit.capacitance / impedance_scale};
}

// A lumped element or port: its faces (a planar sheet), the unit direction d of its voltage in the
// sheet's plane, its length along d and width, and its circuit.
struct LumpedSheet {
  std::string name;
  std::vector<Index> faces;
  Vec3 direction{};
  double length = 0;
  double width = 0;
  LumpedCircuit circuit;
  bool port = false; // a source of open-circuit voltage in series with circuit.resistance
  SheetCircuit per_square() const { return dga::per_square(circuit, length, width); }
};

// One kite of a sheet's face (the face's third at one of its vertices, the trace of the subregions
// there): the field along d on it is x = along[0] u_0 + along[1] u_1 over the face's two half-edges
// at the vertex (unknowns; the zero slot for a PEC one), along[i] = w^i . d with w^i the face's
// reciprocal basis of the two half-edges.
struct LumpedKite {
  Index sheet = 0;
  Index face = 0;
  Index block = 0; // the dual block of the vertex
  Index unknowns[2] = {0, 0};
  double along[2] = {0, 0};
  double area = 0; // |f| / 3
};

} // namespace dgatd::dga
