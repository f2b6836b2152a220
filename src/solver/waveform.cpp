#include "dgatd/solver/waveform.hpp"

#include "dgatd/solver/waveform_shape.hpp"

#include <limits>

namespace dgatd::solver {

double Waveform::value(double t) const { return waveform_shape(*this, t); }

double Waveform::end_time() const
{
  return kind == WaveformKind::sine ? std::numeric_limits<double>::infinity() : t0 + 6 * sigma;
}

char const* to_string(WaveformKind kind)
{
  switch (kind) {
  case WaveformKind::gaussian:
    return "gaussian";
  case WaveformKind::modulated_gaussian:
    return "modulated_gaussian";
  case WaveformKind::sine:
    return "sine";
  }
  return "";
}

} // namespace dgatd::solver
