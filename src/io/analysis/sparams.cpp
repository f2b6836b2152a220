#include "dgatd/io/analysis/sparams.hpp"

#include "dgatd/error.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

namespace dgatd::io {

namespace {

std::complex<double> spectrum_at(std::vector<double> const& x, double dt, double f)
{
  std::complex<double> sum = 0;
  std::complex<double> const turn = std::polar(1.0, -2 * M_PI * f * dt);
  std::complex<double> phase = 1;
  for (std::size_t m = 0; m < x.size(); ++m) {
    sum += x[m] * phase;
    // Renormalised now and then: a long product of unit numbers drifts off the circle.
    phase = (m % 1024 == 1023) ? std::polar(1.0, -2 * M_PI * f * dt * static_cast<double>(m + 1)) : phase * turn;
  }
  return sum;
}

double peak_of(std::vector<double> const& x, std::size_t from = 0)
{
  double peak = 0;
  for (std::size_t m = from; m < x.size(); ++m) peak = std::max(peak, std::abs(x[m]));
  return peak;
}

// A matched port's wave admittance at f: its TE mode carries no power below cutoff.
double wave_admittance(PortRecord const& port, double f)
{
  double const ratio = port.cutoff / (2 * M_PI * f);
  return ratio < 1 ? port.admittance * std::sqrt(1 - ratio * ratio) : 0.0;
}

// The wave leaving through a matched port: its total less what it launched.
std::vector<double> leaving(PortRecord const& port)
{
  std::vector<double> wave(port.voltage.size());
  for (std::size_t m = 0; m < wave.size(); ++m) wave[m] = port.voltage[m] - port.incident[m];
  return wave;
}

} // namespace

SParameters s_parameters(std::vector<PortRecord> const& ports, std::string const& path, double fmin, double fmax,
                         std::size_t points)
{
  if (ports.empty())
    throw Error(path, "the run has no ports",
                "give the run a lumped_port, or port_te10 sources with matched = true (a receiving port: amplitude = "
                "0)");
  bool const lumped = ports.front().resistance > 0;
  for (auto const& port : ports)
    if ((port.resistance > 0) != lumped)
      throw Error(path, "the run mixes matched and lumped ports, whose waves are normalised differently",
                  "drive lumped ports and matched ports in separate runs");
  std::vector<std::size_t> driven;
  for (std::size_t k = 0; k < ports.size(); ++k)
    if (peak_of(ports[k].incident) > 0) driven.push_back(k);
  if (driven.size() != 1)
    throw Error(path, driven.empty() ? "no matched port launches a wave" : "more than one matched port launches a wave",
                "S-parameters need exactly one driven port per run; give the others amplitude = 0");
  std::vector<PortRecord const*> order{&ports[driven[0]]};
  for (std::size_t k = 0; k < ports.size(); ++k)
    if (k != driven[0]) order.push_back(&ports[k]);
  auto const& incident = order[0]->incident;
  double const dt = order[0]->dt;
  for (auto const* port : order)
    if (port->voltage.size() != incident.size() || std::abs(port->dt - dt) > 1e-12 * dt)
      throw Error(path, "port '" + port->name + "' has another length or time step than '" + order[0]->name + "'",
                  "the file may be damaged");

  SParameters result;
  for (auto const* port : order) result.ports.push_back(port->name);
  auto launched = [&](double f) { return std::abs(spectrum_at(incident, dt, f)); };
  // The band: around the incident spectrum's peak, where it is within 20 dB of it, found on a grid
  // and refined by bisection.
  double const nyquist = 0.5 / dt;
  std::size_t const grid = 4096;
  double best = 0, best_f = 0;
  std::vector<double> level(grid + 1);
  for (std::size_t i = 0; i <= grid; ++i) {
    level[i] = launched(nyquist * i / grid);
    if (level[i] > best) {
      best = level[i];
      best_f = nyquist * i / grid;
    }
  }
  double const floor = 0.1 * best;
  auto edge = [&](double inside, double outside) {
    for (int it = 0; it < 40; ++it) {
      double const mid = 0.5 * (inside + outside);
      (launched(mid) >= floor ? inside : outside) = mid;
    }
    return inside;
  };
  std::size_t const peak_index = static_cast<std::size_t>(std::lround(best_f / nyquist * grid));
  std::size_t low = peak_index, high = peak_index;
  while (low > 0 && level[low - 1] >= floor) --low;
  while (high < grid && level[high + 1] >= floor) ++high;
  result.band_low = low == 0 ? 0 : edge(nyquist * low / grid, nyquist * (low - 1) / grid);
  result.band_high = high == grid ? nyquist : edge(nyquist * high / grid, nyquist * (high + 1) / grid);
  if (fmin == 0 && fmax == 0) {
    fmin = result.band_low;
    fmax = result.band_high;
  }
  if (!(fmax > fmin) || fmax > nyquist)
    throw Error(path, "no frequencies between " + format_number(fmin) + " and " + format_number(fmax) + " Hz",
                "give fmin < fmax below the Nyquist frequency " + format_number(nyquist) + " Hz");

  double const incident_peak = peak_of(incident);
  result.s.assign(order.size(), {});
  std::vector<std::vector<double>> waves(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    waves[k] = leaving(*order[k]);
    result.tail = std::max(result.tail, peak_of(waves[k], waves[k].size() - waves[k].size() / 10) / incident_peak);
  }
  // Waves at ports loaded otherwise compare as powers: a lumped port's record is in volts across its
  // resistance (a sqrt(R)), a matched port's carries 1/2 Y(f) |V|^2 (a sqrt(Y(f))), the same for
  // ports of one fill and kind, which files written before the admittance was recorded have.
  bool const admittances = std::all_of(order.begin(), order.end(), [](auto const* p) { return p->admittance > 0; });
  auto scale = [&](std::size_t k, double f) {
    if (lumped) return std::sqrt(order[0]->resistance / order[k]->resistance);
    double const driven = admittances ? wave_admittance(*order[0], f) : 0.0;
    return driven > 0 ? std::sqrt(wave_admittance(*order[k], f) / driven) : 1.0;
  };
  if (lumped) result.resistance = order[0]->resistance;
  for (std::size_t i = 0; i < points; ++i) {
    double const f = points == 1 ? fmin : fmin + (fmax - fmin) * static_cast<double>(i) / (points - 1);
    result.frequency.push_back(f);
    std::complex<double> const a = spectrum_at(incident, dt, f);
    for (std::size_t k = 0; k < order.size(); ++k)
      result.s[k].push_back(scale(k, f) * spectrum_at(waves[k], dt, f) / a);
    if (lumped)
      result.impedance.push_back(spectrum_at(order[0]->voltage, dt, f) / spectrum_at(order[0]->current, dt, f));
  }
  return result;
}

bool port_power_known(PortRecord const& port) { return port.resistance > 0 || port.admittance > 0; }

PortPower port_power(std::vector<PortRecord> const& ports, double f)
{
  PortPower power;
  for (auto const& port : ports) {
    // Samples at t = (m + 1/2) dt (lumped) or m dt (matched); the phase of the sampling cancels in
    // every product.
    double const dt = port.dt;
    std::complex<double> const a = dt * spectrum_at(port.incident, dt, f);
    if (port.resistance > 0) {
      std::complex<double> const v = dt * spectrum_at(port.voltage, dt, f);
      std::complex<double> const i = dt * spectrum_at(port.current, dt, f);
      power.accepted += 0.5 * std::real(v * std::conj(i));
      // |V_s|^2 / (8 R) with V_s = 2 a.
      power.available += std::norm(a) / (2 * port.resistance);
    } else if (port.admittance > 0) {
      double const y = wave_admittance(port, f);
      std::complex<double> const b = dt * spectrum_at(leaving(port), dt, f);
      power.accepted += 0.5 * y * (std::norm(a) - std::norm(b));
      power.available += 0.5 * y * std::norm(a);
    }
  }
  return power;
}

void write_sparameters_csv(std::string const& path, SParameters const& s)
{
  std::ofstream out(path);
  if (!out) throw Error(path, "cannot write the CSV", "check that the directory exists and is writable");
  out << "frequency_hz";
  for (std::size_t k = 0; k < s.ports.size(); ++k) out << ",S" << k + 1 << "1_db,S" << k + 1 << "1_deg";
  if (!s.impedance.empty()) out << ",zin_re_ohm,zin_im_ohm";
  out << '\n';
  out.precision(10);
  for (std::size_t i = 0; i < s.frequency.size(); ++i) {
    out << s.frequency[i];
    for (std::size_t k = 0; k < s.ports.size(); ++k)
      out << ',' << 20 * std::log10(std::abs(s.s[k][i])) << ',' << std::arg(s.s[k][i]) * 180 / M_PI;
    if (!s.impedance.empty()) out << ',' << s.impedance[i].real() << ',' << s.impedance[i].imag();
    out << '\n';
  }
  if (!out.flush()) throw Error(path, "writing the CSV failed", "check the free disk space");
}

} // namespace dgatd::io
