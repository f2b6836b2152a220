#pragma once
// A term of the fractioned leapfrog (solver/leapfrog.hpp): anything a run adds to the lossless
// step, called by the core at the named points of every step, with its own state for checkpoints.
// Sources, prescribed port values, losses, the matched layers' two sides, matched ports, plane
// waves, far-field accumulators, lumped elements and the halo exchange are terms; so is whatever
// comes next: it derives from Term, overrides the hooks it needs and is added with
// FractionedLeapfrog::add_term (or, through a formulation, a TermRecipe), without editing the core.
//
// One step from (u^n, f^(n-1/2)) to (u^(n+1), f^(n+1/2)) calls, in this order, each point on every
// term in the order they were added:
//   before_faraday   u^n, f^(n-1/2): keep what the step's averages need
//   (Faraday: f^(n+1/2) = f^(n-1/2) - dt K U^n; the kernel also leaves the tets' edge pieces)
//   after_faraday    f^(n+1/2) and the edge pieces: corrections to them, and the point where a
//                    domain-decomposed run exchanges edge pieces before Ampere sums them per edge
//   (Ampere: u~ = u^n + dt Meps^-1 C~ f^(n+1/2))
//   after_ampere     explicit right-hand sides at t^(n+1/2): u~ -= dt Meps^-1 I(t^(n+1/2))
//   correct          implicit (time-averaged) corrections that need the whole explicit u~
//   end_step         values prescribed at t^(n+1)

#include "dgatd/kernels/device_operators.hpp"
#include "dgatd/parallel/communicator.hpp"
#include "dgatd/parallel/term_states.hpp"
#include "dgatd/solver/term_records.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dgatd::solver {

// What a term sees of the core at a point of a step. step is n, the step running from t^n to
// t^(n+1); Views are handles, so a term writes the fields through them. FieldScalar: the fields'
// precision (float in single precision).
template <class ExecutionSpace, class TetLayout, class FieldScalar = Real>
struct StepContext {
  ExecutionSpace const& space;
  kernels::DeviceOperators<ExecutionSpace, TetLayout> const& operators;
  kernels::Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields;
  double dt;
  std::int64_t step;
};

// Rows of a term's state, one per tet (Term::state_rows), as a run over ranks places them.
using StateRows = parallel::StateRows;

// Faraday in two passes around work a term has in flight (a halo exchange): first the runs of
// tets that need none of it (kernels::TetRuns), then, once every term has settled, the others.
template <class MemorySpace>
struct FaradayPasses {
  Kokkos::View<Index const*, MemorySpace> before_settling, after_settling;
  bool split = false;
};

// How a term runs with local time steps (solver/local_steps.hpp): at the coarse step, wherever its
// unknowns lie, as the leapfrog runs it at its step. A term whose points assume that every tet and
// block it touches stepped the coarse step itself (one that writes the Faraday matrices with dt, or
// corrects f^ with the coarse step's own curl) names those tets: they and the tets around their
// vertices then step the coarse step, which can cost levels. A term that drives a current into
// Ampere's update (a source, a lumped port) says so and names the unknowns its current enters (on
// this rank): the levels' steps force those (add_local_step_forcing), and the run summary says on
// which level they lie. The levels of a run that drives currents start from those its pinned tets
// allow, unless every such current is one the leapfrog solves for through the levels (a lumped
// port's, ImplicitCurrents). Not supported: the capabilities table refuses the combination before a
// run gets here.
struct LocalStepSupport {
  bool supported = false;
  std::vector<Index> coarse_tets;
  bool drives_currents = false;
  std::vector<Index> current_rows{};
};

// With local steps, the currents a term drives whose forcing of the levels depends on the step's own
// field (a lumped port's: its resistor's share is implicit in the field at t^(n+1/2)). A coarse step
// is affine in their forcing rates, so the leapfrog solves for the rates the step's own currents give
// and corrects the field by its response to them (docs/method/local_time_stepping.md, section 6).
// Per such current, in the same order on every rank: the rate the step's forcing took, the current
// the fields carry between correct and end_step, and the rate that current gives,
// slope * current + offset.
struct ImplicitCurrents {
  std::vector<double> used, current, slope, offset;
};

template <class ExecutionSpace, class TetLayout = kernels::DefaultTetLayout<ExecutionSpace>, class FieldScalar = Real>
class Term {
public:
  using Context = StepContext<ExecutionSpace, TetLayout, FieldScalar>;
  using memory_space = typename ExecutionSpace::memory_space;

  virtual ~Term() = default;

  // dt is set or changed (context.dt): rebuild whatever depends on it.
  virtual void set_dt(Context const&) {}
  // The field was set anew (a term being added starts from the current field too): own state to
  // its start.
  virtual void reset(Context const&) {}

  // The run is one rank's part of a run over several ranks (FractionedLeapfrog::distribute): a term
  // that sums over the problem (a port's modal voltage) sums over the ranks from now on through
  // communicator, which outlives it, starting from the current field. Collective.
  virtual void distribute(parallel::Communicator const& /*communicator*/, Context const&) {}

  // Work the term left in flight between two steps (a halo exchange started at end_step) is
  // finished, so every unknown of the part holds its value: the core calls it before anything
  // reads the fields (probes, snapshots, the state, the records) and between the two Faraday passes,
  // the term that runs last first; a term that waits for whole unknowns (a far field's e) reads them
  // then.
  virtual void settle(Context const&) {}
  // While work is in flight, how Faraday splits its tets around settle (split false: one pass).
  virtual FaradayPasses<memory_space> faraday_passes() const { return {}; }
  // A vector of the part's unknowns takes its owners' values where other ranks own them: all of
  // them (subset 0; the stability bound's iteration over ranks), or those of subset s >= 1 of
  // set_shared_subsets (a local step level's moving unknowns). Collective.
  virtual void share_unknowns(ExecutionSpace const&, Kokkos::View<Real*, memory_space> const&, std::size_t /*subset*/)
  {
  }
  // Subsets of the part's unknowns for share_unknowns, subsets[s - 1] flagging those of subset s
  // (an unknown flagged on either side of the exchange is exchanged); replaces the subsets set
  // before. Collective.
  virtual void set_shared_subsets(std::vector<std::vector<char>> const& /*subsets*/) {}
  // Whether the term runs after every term added later (a halo exchange: the halo unknowns take
  // their owners' values once every other term has set u^(n+1)).
  virtual bool runs_last() const { return false; }
  // Whether set_dt writes into the core's operators (the matched layers' implicit step in the
  // Faraday matrices), so that the stability bound must be estimated before it.
  virtual bool writes_operators_on_set_dt() const { return false; }
  virtual LocalStepSupport local_step_support() const { return {}; }
  // With local steps, a term that impresses a current adds to forcing, on its current_rows, what the
  // coarse step's second difference of u^ takes from that current over dt^2,
  // Meps^-1 (I(t^(n+1/2)) - I(t^(n-1/2))) / dt: the levels' middle steps force their moving rows with
  // it, so that the field near a current in a finer level answers it as the leapfrog's does
  // (docs/method/local_time_stepping.md, section 4). Before the levels' Faraday update of step n.
  virtual void add_local_step_forcing(Context const&, Kokkos::View<FieldScalar*, memory_space> const& /*forcing*/) const
  {
  }
  // The currents of ImplicitCurrents the term drives (the same on every rank), appends them at the
  // point between correct and end_step without changing the state (collective over ranks), and the
  // rates its next forcing takes instead of its own (empty: its own again; the leapfrog's steps that
  // measure the response to each rate).
  virtual std::size_t implicit_current_count() const { return 0; }
  virtual void implicit_currents(Context const&, ImplicitCurrents& /*currents*/) const {}
  virtual void impose_implicit_rates(std::vector<double> const& /*rates*/) {}

  virtual void before_faraday(Context const&) {}
  virtual void after_faraday(Context const&) {}
  virtual void after_ampere(Context const&) {}
  virtual void correct(Context const&) {}
  virtual void end_step(Context const&) {}

  // How the roofline lab (dgatd bench --config) names the term, and the bytes its points move in
  // one step by the model of the core's kernels (each array element once).
  virtual std::string name() const = 0;
  virtual std::int64_t bytes_per_step() const = 0;

  // The term's state between two steps, for checkpoints: state_size(steps) numbers after `steps`
  // steps, appended by save and read back by restore (context.step = steps) in the same order.
  virtual std::size_t state_size(std::int64_t /*steps*/) const { return 0; }
  virtual void save(std::vector<double>& /*state*/) const {}
  virtual void restore(Context const&, double const* /*state*/) {}
  // How that state lies over the part's tets, for checkpoints of a run over ranks, which hold it in
  // the whole mesh's order: segment after segment, `width` numbers per tet of `tets` (ascending),
  // covering all of it. None where the state is the same on every rank (the ports' histories).
  virtual std::vector<StateRows> state_rows() const { return {}; }

  // What the term hands to the output (a port's series, a far field's transforms) at the end of a
  // run, appended to records.
  virtual void add_records(TermRecords& /*records*/) const {}
  // What the term shows in a snapshot of the fields (a surface's currents), appended to snapshots;
  // over ranks collective, and whole on rank 0.
  virtual void add_snapshot(TermSnapshots& /*snapshots*/) const {}
};

} // namespace dgatd::solver
