#pragma once
// One interface over the two formulations of the method: the fractioned DGATD (half-edge and dual
// half-edge unknowns, per-tet and per-dual-block kernels) and the assembled baseline (edge and face
// circulations, two SpMVs). They take the same sources and probes, step the same way, and give
// their state and fields in the same terms, so a run, a test or a benchmark picks one by name.
// Sources, probes and snapshots go through what both share, the edge circulations U and the
// dual-edge circulations F, so the two formulations' outputs agree to rounding (METHOD.md).
// This header is the interface alone (no Kokkos); solver/formulations.hpp has the two
// implementations on an execution space.

#include "dgatd/solver/stencils.hpp"
#include "dgatd/solver/waveform.hpp"

#include <cstdint>
#include <vector>

namespace dgatd::solver {

enum class FormulationKind { fractioned, assembled };

inline char const* to_string(FormulationKind kind)
{
  return kind == FormulationKind::assembled ? "assembled" : "fractioned";
}

// A formulation's unknowns between two steps, enough for a later run to continue bit for bit.
//   fractioned: e_unknowns = u^ (free, prescribed, zero slot), h_unknowns = f^ (4 per tet, row-major)
//   assembled:  e_unknowns = U (per edge),                      h_unknowns = F (per face)
struct FormulationState {
  FormulationKind kind = FormulationKind::fractioned;
  std::int64_t step = 0;
  std::vector<double> e_unknowns;
  std::vector<double> h_unknowns;
  std::vector<double> auxiliary; // the matched layers' auxiliary unknowns (fractioned), empty without layers
};

// The fields both formulations share, on the host.
struct SharedFields {
  std::vector<double> edge_circulations; // U, one per edge
  std::vector<double> face_circulations; // F, one per face (dual edge)
};

// A matched port's modal voltages after each step (index 0: the initial field): what it launches and
// the total; their difference is the wave leaving through it.
struct PortSeries {
  std::vector<double> incident;
  std::vector<double> voltage;
};

class Formulation {
public:
  virtual ~Formulation() = default;

  virtual FormulationKind kind() const = 0;
  virtual void set_dt(double dt) = 0;
  virtual std::int64_t steps() const = 0;

  // A current source (its stencil over the free half-edges) driven by waveform(t) at t^(n+1/2).
  virtual void add_current_source(CurrentStencil const& stencil, Signal waveform) = 0;
  // Prescribed tangential e on a port, set to waveform(t^(n+1)) after every step.
  virtual void add_prescribed(PrescribedStencil const& stencil, Signal waveform) = 0;
  // A matched TE10 port (fractioned only: the simulation refuses it with the assembled formulation).
  virtual void add_matched_port(MatchedPortStencil const& stencil, Signal waveform) = 0;
  virtual std::vector<PortSeries> port_series() const = 0;
  // Replaces the probes; record_probes() then samples them all after a step.
  virtual void set_probes(std::vector<ProbeStencil> const& probes) = 0;

  virtual void step() = 0;
  // The leapfrog's conserved energy W^n of the step taken (see FractionedLeapfrog); only where
  // has_energy(): the assembled unknowns do not carry the half-edge mass matrices it needs.
  virtual bool has_energy() const = 0;
  virtual double step_with_energy() = 0;

  virtual void record_probes() = 0;
  // Rows recorded since the last call: [step][probe][Ex Ey Ez Hx Hy Hz].
  virtual std::vector<double> take_probe_samples() = 0;

  virtual SharedFields shared_fields() const = 0;
  virtual FormulationState state() const = 0;
  // The state must come from the same formulation on the same problem.
  virtual void restore(FormulationState const& state) = 0;
};

} // namespace dgatd::solver
