#pragma once
// One interface over the two formulations of the method: the fractioned DGATD (half-edge and dual
// half-edge unknowns, per-tet and per-dual-block kernels) and the assembled baseline (edge and face
// circulations, two SpMVs). They take the same sources and probes, step the same way, and give
// their state and fields in the same terms, so a run, a test or a benchmark picks one by name.
// Sources, probes and snapshots go through what both share, the edge circulations U and the
// dual-edge circulations F, so the two formulations' outputs agree to rounding (METHOD.md).
// This header is the interface alone (no Kokkos); solver/formulations.hpp has the two
// implementations on an execution space.

#include "dgatd/parallel/decomposition.hpp"
#include "dgatd/solver/formulation_kind.hpp"
#include "dgatd/solver/local_step_plan.hpp"
#include "dgatd/solver/stencils.hpp"
#include "dgatd/solver/term_records.hpp"
#include "dgatd/solver/waveform.hpp"
#include "dgatd/vec3.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dgatd::solver {

// The stability bound dt < dt_max = 2 / sqrt(rho), rho the spectral radius of
// K = (Meps)^-1 C~ (Mmu)^-1 C, estimated by a Lanczos iteration (solver/stability.hpp).
struct StabilityBound {
  double rho = 0;
  double dt_max = 0;
  int iterations = 0;
  bool converged = false;
};

// A formulation's unknowns between two steps, enough for a later run to continue bit for bit.
//   fractioned: e_unknowns = u^ (free, prescribed, zero slot), h_unknowns = f^ (4 per tet, row-major)
//   assembled:  e_unknowns = U (per edge),                      h_unknowns = F (per face)
struct FormulationState {
  FormulationKind kind = FormulationKind::fractioned;
  std::int64_t step = 0;
  std::vector<double> e_unknowns;
  std::vector<double> h_unknowns;
  std::vector<double> auxiliary; // the terms' state (fractioned: layers' auxiliaries, ports' histories)
};

// The fields both formulations share, on the host.
struct SharedFields {
  std::vector<double> edge_circulations; // U, one per edge
  std::vector<double> face_circulations; // F, one per face (dual edge)
};

// Probe records as a formulation took them: one row per recorded step, and in a row one e and one
// h per probe, in the order of set_probes.
class ProbeSamples {
public:
  ProbeSamples() = default;
  // values: [row][probe][Ex Ey Ez Hx Hy Hz]
  ProbeSamples(std::size_t probes, std::vector<double> values) : probes_(probes), values_(std::move(values)) {}
  std::size_t probes() const { return probes_; }
  std::size_t rows() const { return probes_ == 0 ? 0 : values_.size() / (6 * probes_); }
  std::vector<double> const& values() const { return values_; }
  Vec3 e(std::size_t row, std::size_t probe) const { return at(row, probe, 0); }
  Vec3 h(std::size_t row, std::size_t probe) const { return at(row, probe, 3); }

private:
  Vec3 at(std::size_t row, std::size_t probe, std::size_t first) const
  {
    std::size_t const k = 6 * (row * probes_ + probe) + first;
    return {values_[k], values_[k + 1], values_[k + 2]};
  }
  std::size_t probes_ = 0;
  std::vector<double> values_;
};

// What a formulation needs to step one rank's part of a problem over several ranks
// (parallel/decomposition.hpp): the halo exchange, what this rank owns (its sums count those), the
// stability bound's start field, for snapshots the whole mesh's id of each local edge and face this
// rank owns (-1 for the others), and for checkpoints in the whole mesh's numbering the global
// unknown of each local one (-1 for the zero slot's) with the ones this rank owns, and the global id
// of each local tet.
struct Distribution {
  std::shared_ptr<parallel::Communicator> communicator;
  parallel::HaloPlan halo;
  std::vector<char> owned_blocks;
  std::vector<char> owned_tets;
  std::vector<double> lanczos_start;
  std::vector<Index> owned_edge_global;
  std::vector<Index> owned_face_global;
  Index global_edges = 0;
  Index global_faces = 0;
  std::vector<Index> unknown_global;
  std::vector<char> owned_unknowns;
  std::vector<Index> tet_global;
  std::vector<std::array<char, 4>> owned_tet_vertices; // per tet, whether this rank owns each vertex
  Index global_unknowns = 0;                           // with the whole layout's zero slot
  Index global_tets = 0;
  bool overlap_halo = true; // FractionedLeapfrog::distribute
};

// The terms the operators call for (solver/operator_terms.hpp) that some part of a run over ranks
// holds: every part then holds them, empty where its own operators need none.
struct OperatorTermsHeld {
  bool losses = false;
  bool magnetic_stretch = false;
};

// One rank's halo exchange: the values it sends per step and the wall time its exchanges took so far.
struct HaloStatistics {
  std::size_t values_sent = 0;
  double seconds = 0;
  std::string buffers; // how the messages travel (solver::HaloBuffers)
  // With overlap, the share of the part's tets that Faraday steps once the messages are in: the runs
  // of tets that hold a rim tet (kernels::TetRuns); zero when each step waits for its exchange.
  double share_after_exchange = 0;
  // With local steps, the values the levels' middle steps send per coarse step besides (each level's
  // own unknowns, once per middle step).
  std::size_t local_step_values_sent = 0;
};

class TermRecipe; // solver/term_recipe.hpp

class Formulation {
public:
  virtual ~Formulation() = default;

  virtual FormulationKind kind() const = 0;
  // The stability bound of this problem's operator (the same for both formulations).
  virtual StabilityBound estimate_stability() = 0;
  virtual void set_dt(double dt) = 0;
  virtual std::int64_t steps() const = 0;

  // A current source (its stencil over the free half-edges) driven by waveform(t) at t^(n+1/2).
  virtual void add_current_source(CurrentStencil const& stencil, Signal waveform) = 0;
  // Prescribed tangential e on a port, set to waveform(t^(n+1)) after every step.
  virtual void add_prescribed(PrescribedStencil const& stencil, Signal waveform) = 0;
  // Any other capability's term (a matched port, a plane wave, a far-field surface, the lumped
  // elements, ...), made on this formulation's execution space: the fractioned formulation in double
  // precision takes them; the others throw std::logic_error, as the capabilities table
  // (simulation/capabilities.hpp) refuses them before a run gets here.
  virtual void add_term(TermRecipe const& recipe) = 0;
  // What the terms recorded so far (the ports' series, the far fields' transforms), in the order
  // they were added.
  virtual TermRecords records() const = 0;
  // What the terms show in a snapshot of the fields now (the surface currents); collective over ranks.
  virtual TermSnapshots snapshots() const { return {}; }
  // Replaces the probes; record_probes() then samples them all after a step.
  virtual void set_probes(std::vector<ProbeStencil> const& probes) = 0;

  // Makes this the formulation of one rank of a run over several ranks, after its sources are added
  // (fractioned only). Collective, as are from then on step_with_energy, estimate_stability,
  // take_probe_samples (each probe read on one rank, summed over all), and shared_fields and state
  // (both in the whole mesh's numbering on rank 0 alone, so a state saved over N ranks restores over
  // any number; the terms' rows over tets are placed by their global tets, the rest of their state
  // must be the same on every rank).
  virtual void distribute(Distribution distribution) = 0;
  // This rank's halo exchange (zero in one process).
  virtual HaloStatistics halo() const { return {}; }

  // Local time steps (solver/local_steps.hpp; the fractioned formulation in one process, made with
  // full block inverses): the tets its terms need on the coarse level, whether they drive currents
  // and the unknowns those enter (Term::local_step_support), then the plan, after which dt
  // is the coarse step; the spectrum of the scheme's operator at a coarse step dt (LocalSteps::spectrum,
  // stopped where it proves the step unstable by margin).
  virtual std::vector<Index> local_step_coarse_tets() const { throw std::logic_error("no local steps here"); }
  virtual bool local_step_drives_currents() const { throw std::logic_error("no local steps here"); }
  virtual std::vector<Index> local_step_current_rows() const { throw std::logic_error("no local steps here"); }
  // Whether every driven current is one the levels solve for, and whether they do at this dt and
  // these levels (FractionedLeapfrog::local_step_currents_solved; collective).
  virtual bool local_step_currents_solvable() const { throw std::logic_error("no local steps here"); }
  virtual bool local_step_currents_solved() { throw std::logic_error("no local steps here"); }
  virtual void set_local_steps(LocalStepPlan const&) { throw std::logic_error("no local steps here"); }
  virtual LocalStepSpectrum local_step_spectrum(double /*dt*/, double /*tolerance*/, double /*margin*/) const
  {
    throw std::logic_error("no local steps here");
  }

  virtual void step() = 0;
  // The leapfrog's conserved energy W^n of the step taken (see FractionedLeapfrog); only where
  // has_energy(): the assembled unknowns do not carry the half-edge mass matrices it needs.
  virtual bool has_energy() const = 0;
  virtual double step_with_energy() = 0;

  virtual void record_probes() = 0;
  // The rows recorded since the last call.
  virtual ProbeSamples take_probe_samples() = 0;

  virtual SharedFields shared_fields() const = 0;
  // Over several ranks, the circulations of this rank's part in its own numbering: right at every
  // edge and at every face whose tets the part holds both of (or its one, on the boundary).
  virtual SharedFields part_fields() const { return shared_fields(); }
  virtual FormulationState state() const = 0;
  // Whether state is one of this formulation on this problem, with these sources, at a step it
  // can continue from.
  virtual bool accepts(FormulationState const& state) const = 0;
  // The state must be one this formulation accepts.
  virtual void restore(FormulationState const& state) = 0;
};

} // namespace dgatd::solver
