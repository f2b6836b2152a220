#pragma once
// S-parameters from the matched ports of a run (results.hpp read_ports): the driven port's
// reflection and every other port's transmission, against frequency, each port's wave referred to
// its own plane.

#include "dgatd/io/analysis/results.hpp"

#include <complex>
#include <cstddef>
#include <string>
#include <vector>

namespace dgatd::io {

struct SParameters {
  std::vector<std::string> ports;                   // ports[0] is the driven one; S_k1 in column k
  std::vector<double> frequency;                    // Hz
  std::vector<std::vector<std::complex<double>>> s; // s[k][i]: S_(k+1)1 at frequency[i]
  double band_low = 0, band_high = 0;               // where the incident spectrum is within 20 dB of its peak
  double tail = 0; // the largest wave leaving a port over the record's last tenth, relative to the incident peak
  // Lumped ports: the waves are referred to each port's resistance R_k, S_k1 = b_k / a_1 with
  // a = (V + R I) / (2 sqrt(R)), b = (V - R I) / (2 sqrt(R)); the driven port's resistance and
  // input impedance Z_in = V / I = R (1 + S11) / (1 - S11). Empty (0) for matched ports.
  double resistance = 0;
  std::vector<std::complex<double>> impedance;
};

// S_k1(f) = B_k(f) / A_1(f), A_1 the spectrum of what the driven port launched and B_k that of the
// wave leaving port k (voltage - incident), at `points` frequencies from fmin to fmax (both zero:
// the excitation's band, within 20 dB of its peak). Throws dgatd::Error naming path when the run
// has no port, none or more than one of them launches, or it mixes matched and lumped ports.
SParameters s_parameters(std::vector<PortRecord> const& ports, std::string const& path, double fmin = 0,
                         double fmax = 0, std::size_t points = 201);

// The ports' power at frequency f, as spectral densities (W / Hz^2) like the far field's
// (far_field.hpp): accepted, what the structure takes in less what receiving ports absorb, summed
// over the ports, and available, what the driven ones could give. A lumped port's accepted power is
// 1/2 Re(V conj(I)), its available |V_s|^2 / (8 R); a matched port's 1/2 Y(f) (|A|^2 - |B|^2) and
// 1/2 Y(f) |A|^2, A and B the spectra of the wave it launches and of the one leaving through it, Y(f)
// its wave admittance (PortRecord::admittance). Zero without ports that record how they are loaded.
struct PortPower {
  double accepted = 0;
  double available = 0;
};
PortPower port_power(std::vector<PortRecord> const& ports, double f);

// Whether port_power can weigh the port: a lumped port, or a matched one whose admittance its run
// recorded.
bool port_power_known(PortRecord const& port);

// CSV: frequency_hz, then |S_k1| in dB and its phase in degrees per port, then for lumped ports
// zin_re_ohm and zin_im_ohm.
void write_sparameters_csv(std::string const& path, SParameters const& s);

} // namespace dgatd::io
