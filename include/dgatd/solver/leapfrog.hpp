#pragma once
// The fractioned DGATD leapfrog on one execution space: a short core plus terms. The core owns the
// fields and the order of a step, Faraday (eq. 5) then Ampere (eq. 6), both as Kokkos kernels;
// everything else (sources, losses, the matched layers, ports, the halo exchange of a run over
// ranks, and whatever comes next) is a Term (solver/term.hpp, which names the points of the step and
// the hooks the core asks the terms through) with its own state for checkpoints. It also gives the
// energy invariant and the stability bound (solver/stability.hpp). With local time steps
// (set_local_steps, solver/local_steps.hpp) the Faraday update is the levels' and dt the coarse step,
// and a lumped port's current is solved for through the levels (solver/current_responses.hpp).

#include "dgatd/dga/operators.hpp"
#include "dgatd/instances.hpp"
#include "dgatd/kernels/ampere.hpp"
#include "dgatd/kernels/device_operators.hpp"
#include "dgatd/kernels/faraday.hpp"
#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/parallel/communicator.hpp"
#include "dgatd/solver/current_responses.hpp"
#include "dgatd/solver/formulation.hpp"
#include "dgatd/solver/local_steps.hpp"
#include "dgatd/solver/operator_terms.hpp"
#include "dgatd/solver/stability.hpp"
#include "dgatd/solver/term.hpp"
#include "dgatd/solver/terms.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dgatd::solver {

template <class ExecutionSpace, class TetLayout = kernels::DefaultTetLayout<ExecutionSpace>, class FieldScalar = Real>
class FractionedLeapfrog {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using Operators = kernels::DeviceOperators<ExecutionSpace, TetLayout>;
  using field_scalar = FieldScalar;
  using FieldSet = kernels::Fields<ExecutionSpace, TetLayout, FieldScalar>;
  using TermType = Term<ExecutionSpace, TetLayout, FieldScalar>;
  using TermList = Terms<ExecutionSpace, TetLayout, FieldScalar>;
  using Context = StepContext<ExecutionSpace, TetLayout, FieldScalar>;

  // block_pass: how Ampere multiplies the dual-block inverses (kernels::AmpereBlockPass); the
  // default is the one chosen for this kind of backend (kernels::default_block_pass).
  // matrix_precision: float32 stores the step's local matrices in float (mixed precision); the
  // fields and every sum stay in double. The terms the operators call for come first
  // (solver/operator_terms.hpp; held: those a run over ranks holds on every part).
  // FieldScalar float (single precision) keeps the fields and the kernels' sums in float too, with
  // float matrices, for lossless problems in one process, and measures its energy and bound in double.
  FractionedLeapfrog(ExecutionSpace const& space, dga::HostOperators const& host,
                     kernels::AmpereBlockPass block_pass = kernels::default_block_pass<ExecutionSpace>(),
                     kernels::MatrixPrecision matrix_precision = kernels::MatrixPrecision::float64,
                     OperatorTermsHeld const& held = {});

  // Adds a term (Terms::add): at each point of a step the terms run in the order they were added,
  // but for one that runs last.
  template <class SomeTerm>
  SomeTerm& add_term(std::unique_ptr<SomeTerm> term)
  {
    if (local_steps_) check_local_step_support(*term);
    auto& added = terms_.add(std::move(term), context());
    if (local_steps_) set_local_step_forcing_rows();
    responses_measured_ = false;
    return added;
  }

  ExecutionSpace const& space() const { return space_; }
  Operators const& operators() const { return ops_; }
  FieldSet const& fields() const { return fields_; }
  double dt() const { return dt_; }
  void set_dt(double dt)
  {
    if (dt != dt_) responses_measured_ = false;
    dt_ = dt;
    terms_.at(&TermType::set_dt, context());
  }
  // The terms in the order they run, and one step's points of term i alone on the current fields:
  // the roofline lab (dgatd bench --config) times each.
  TermList const& terms() const { return terms_; }
  void run_term_points(std::size_t i) { terms_.run_points(i, context()); }

  // Steps one rank's part of a problem over several ranks (parallel/decomposition.hpp): every term
  // learns it (Term::distribute), the exchange (a term that runs last: solver/halo_exchange.hpp)
  // joins them, energies and the stability bound's sums count what this rank owns and are summed
  // over the ranks, and the bound starts from the one-process run's field (lanczos_start: u^ of the
  // local unknowns). Every rank must hold the same terms in the same order. Collective.
  void distribute(std::shared_ptr<parallel::Communicator> communicator, std::vector<char> const& owned_blocks,
                  std::vector<char> const& owned_tets, std::vector<double> lanczos_start,
                  std::unique_ptr<TermType> exchange);
  // Finishes the work the terms left in flight (Term::settle), so that every unknown of the part
  // holds its value between two steps (state, probes, snapshots call it); collective over ranks.
  void settle_terms() const { terms_.settle(context()); }

  // Steps every unknown at the level of plan (solver/local_steps.hpp) from now on, dt the coarse step:
  // operators with full block inverses, and terms that run with local steps
  // (Term::local_step_support) whose coarse tets the plan puts on the coarse level. Over ranks
  // (after distribute) the plan is the part's (LocalStepRanks) and the call collective.
  void set_local_steps(LocalStepPlan const& plan);
  // Back to one global step.
  void clear_local_steps()
  {
    local_steps_.reset();
    local_step_forcing_ = {};
    responses_measured_ = false;
  }
  // Null without local steps.
  LocalSteps<ExecutionSpace, TetLayout, FieldScalar> const* local_steps() const { return local_steps_.get(); }
  // The tets the terms need on the coarse level, or why they cannot run with local steps; whether a
  // term drives currents and the unknowns those enter (Term::local_step_support), on this rank.
  std::vector<Index> local_step_coarse_tets() const { return local_step_indices(&LocalStepSupport::coarse_tets); }
  bool local_step_drives_currents() const;
  std::vector<Index> local_step_current_rows() const { return local_step_indices(&LocalStepSupport::current_rows); }
  // Whether every current a term drives is one the levels solve for (Term::implicit_currents), and
  // whether at this dt and these levels they are solved: the step's response to their rates reaches
  // no other term's state (measured by stepping from the zero field, the state kept; collective). A
  // run whose currents are not solved extrapolates their forcing.
  bool local_step_currents_solvable() const;
  bool local_step_currents_solved()
  {
    measure_current_responses();
    return !current_responses_.empty();
  }

  // Steps taken since the initial field: the sources' clock.
  std::int64_t steps() const { return steps_; }
  // The whole state between two steps (u^n, f^(n-1/2), n), on the host, f^ row-major: with the
  // terms' state (terms().save(), restored after set_state) a later run continues bit for bit.
  void state(std::vector<double>& u, std::vector<double>& f) const;
  void set_state(std::vector<double> const& u, std::vector<double> const& f, std::int64_t steps);
  void restore_terms(std::vector<double> const& state) { terms_.restore(context(), state); }

  // Random free unknowns (u^) and zero f^: a field with every mode, for invariant and spectrum tests.
  void set_random_initial_field(std::uint64_t seed)
  {
    set_initial_field(random_free_unknowns(ops_.num_unknowns, ops_.num_free, seed));
  }

  // Sets u^ (all unknowns, as from project_field), zero f^, and every term to its start.
  void set_initial_field(std::vector<double> const& u);

  // One leapfrog step from (u^n, f^(n-1/2)) to (u^(n+1), f^(n+1/2)).
  void step() { advance(false); }

  // Takes one step and returns W^n = 1/2 u^n.Meps u^n + 1/2 f^(n-1/2).Mmu f^(n+1/2), the quantity
  // the leapfrog conserves exactly without sources. With local steps the same sum is the energy to
  // the scheme's second order, bounded by the scheme's own invariant (solver/local_steps.hpp).
  double step_with_energy() { return advance(true); }

  // u.Meps u over the free unknowns.
  double electric_energy(Kokkos::View<FieldScalar*, memory_space> const& u) const;

  // Before set_dt where a term writes into the operators with dt (the matched layers' implicit step of
  // their modal tets, in the lossless Faraday matrices), which the bound must not see.
  StabilityBound estimate_stability(double tolerance = 1e-6, int max_iterations = 20000,
                                    std::uint64_t seed = stability_seed);

private:
  Context context() const { return {space_, ops_, fields_, dt_, steps_}; }

  // How term runs with local steps; throws where it does not.
  static LocalStepSupport local_step_support_of(TermType const& term);
  // One of the terms' lists of LocalStepSupport, the terms' in turn.
  std::vector<Index> local_step_indices(std::vector<Index> LocalStepSupport::*which) const;
  // Throws unless term runs with the local steps set, its coarse tets on their coarse level.
  void check_local_step_support(TermType const& term) const;
  // The rows of the terms' impressed currents and their levels, which the levels' steps force
  // (LocalStepForcing); none without such a term.
  void set_local_step_forcing_rows();

  // f^(n-1/2).Mmu f^(n+1/2), with f^(n-1/2) saved in f_previous_.
  double magnetic_cross_energy() const;

  double advance(bool with_energy);
  // A step up to the terms' end_step (returning 1/2 u^n.Meps u^n where with_energy), and its end.
  double step_to_end(bool with_energy);
  void end_step();
  // The implicit currents of the terms, between correct and end_step.
  ImplicitCurrents implicit_currents() const;
  std::size_t implicit_current_count() const;
  // The step's response to each implicit current's rate, or none where it reaches another term's
  // state (current_responses_ empty); made once per dt and levels.
  void measure_current_responses();
  // Corrects the step's fields to the rates its own currents give, between correct and end_step.
  void solve_implicit_currents();

  ExecutionSpace space_;
  Operators ops_;
  FieldSet fields_;
  Kokkos::View<FieldScalar* [4], TetLayout, memory_space> f_previous_;
  TermList terms_;
  // A run over several ranks (distribute): the mask of this rank's own blocks, tets and free rows,
  // and the stability bound's start field.
  std::shared_ptr<parallel::Communicator> communicator_;
  kernels::OwnedMask<memory_space> owned_blocks_, owned_tets_, owned_rows_;
  std::vector<double> lanczos_start_;
  std::unique_ptr<LocalSteps<ExecutionSpace, TetLayout, FieldScalar> const> local_steps_;
  LocalStepForcing<memory_space, FieldScalar> local_step_forcing_;
  // Per implicit current its rate's response, the currents' change per unit of each rate
  // (current_slopes_[p * count + q]: current p per rate q) and the inverse of the rates' system.
  std::vector<CurrentResponse<memory_space, FieldScalar>> current_responses_;
  std::vector<double> current_slopes_, current_system_inverse_;
  bool responses_measured_ = false;
  double dt_ = 0;
  std::int64_t steps_ = 0;
};

// The members that launch kernels, defined outside the class so that the library's instances
// (dgatd/instances.hpp) are the only ones compiled for the spaces it instantiates for.

template <class ExecutionSpace, class TetLayout, class FieldScalar>
FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::FractionedLeapfrog(
    ExecutionSpace const& space, dga::HostOperators const& host, kernels::AmpereBlockPass block_pass,
    kernels::MatrixPrecision matrix_precision, OperatorTermsHeld const& held)
    : space_(space), ops_(kernels::upload<ExecutionSpace, TetLayout>(host, block_pass, matrix_precision)),
      fields_(kernels::make_fields<ExecutionSpace, TetLayout, FieldScalar>(ops_)),
      f_previous_("dgatd::f_hat_previous", ops_.num_tets)
{
  if (!std::is_same_v<FieldScalar, Real> && matrix_precision != kernels::MatrixPrecision::float32)
    throw std::invalid_argument("single precision steps float fields with float matrices");
  for (auto& term : operator_terms<ExecutionSpace, TetLayout, FieldScalar>(host, matrix_precision, held))
    add_term(std::move(term));
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
void FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::state(std::vector<double>& u,
                                                                       std::vector<double>& f) const
{
  settle_terms();
  auto const host_u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fields_.u);
  auto const host_f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fields_.f);
  u.assign(host_u.data(), host_u.data() + host_u.size());
  f.resize(4 * host_f.extent(0));
  for (std::size_t t = 0; t < host_f.extent(0); ++t)
    for (int j = 0; j < 4; ++j) f[4 * t + j] = host_f(t, j);
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
void FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::set_state(std::vector<double> const& u,
                                                                           std::vector<double> const& f,
                                                                           std::int64_t steps)
{
  settle_terms();
  Kokkos::deep_copy(fields_.u, kernels::upload_flat<Kokkos::View<FieldScalar*, memory_space>>("dgatd::u_state", u));
  auto host_f = Kokkos::create_mirror_view(fields_.f);
  for (std::size_t t = 0; t < host_f.extent(0); ++t)
    for (int j = 0; j < 4; ++j) host_f(t, j) = static_cast<FieldScalar>(f[4 * t + j]);
  Kokkos::deep_copy(fields_.f, host_f);
  steps_ = steps;
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
void FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::set_initial_field(std::vector<double> const& u)
{
  settle_terms();
  Kokkos::deep_copy(fields_.u, kernels::upload_flat<Kokkos::View<FieldScalar*, memory_space>>("dgatd::u_init", u));
  Kokkos::deep_copy(fields_.f, 0.0);
  steps_ = 0;
  terms_.at(&TermType::reset, context());
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
void FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::distribute(
    std::shared_ptr<parallel::Communicator> communicator, std::vector<char> const& owned_blocks,
    std::vector<char> const& owned_tets, std::vector<double> lanczos_start, std::unique_ptr<TermType> exchange)
{
  if constexpr (!std::is_same_v<FieldScalar, Real>) {
    throw std::invalid_argument("single precision runs in one process");
  } else {
    if (communicator_) throw std::logic_error("FractionedLeapfrog::distribute called twice");
    if (local_steps_) throw std::logic_error("FractionedLeapfrog::distribute comes before set_local_steps");
    if (owned_blocks.size() != static_cast<std::size_t>(ops_.num_blocks) ||
        owned_tets.size() != static_cast<std::size_t>(ops_.num_tets) ||
        lanczos_start.size() != static_cast<std::size_t>(ops_.num_unknowns))
      throw std::invalid_argument("the ownership given to FractionedLeapfrog::distribute does not fit its operators");
    using Flags = Kokkos::View<char*, memory_space>;
    owned_blocks_.flags = kernels::upload_flat<Flags>("dgatd::owned_blocks", owned_blocks);
    owned_tets_.flags = kernels::upload_flat<Flags>("dgatd::owned_tets", owned_tets);
    auto const host_block_offset = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ops_.block_offset);
    std::vector<char> owned_rows(ops_.num_free, 0);
    for (std::size_t b = 0; b < owned_blocks.size(); ++b)
      for (Index r = host_block_offset(b); r < host_block_offset(b + 1); ++r) owned_rows[r] = owned_blocks[b];
    owned_rows_.flags = kernels::upload_flat<Flags>("dgatd::owned_rows", owned_rows);
    lanczos_start_ = std::move(lanczos_start);
    communicator_ = std::move(communicator);
    for (std::size_t i = 0; i < terms_.size(); ++i) terms_[i].distribute(*communicator_, context());
    add_term(std::move(exchange));
  }
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
std::vector<Index> FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::local_step_indices(
    std::vector<Index> LocalStepSupport::*which) const
{
  std::vector<Index> indices;
  for (std::size_t i = 0; i < terms_.size(); ++i) {
    auto const support = local_step_support_of(terms_[i]);
    indices.insert(indices.end(), (support.*which).begin(), (support.*which).end());
  }
  return indices;
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
bool FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::local_step_drives_currents() const
{
  for (std::size_t i = 0; i < terms_.size(); ++i)
    if (local_step_support_of(terms_[i]).drives_currents) return true;
  return false;
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
bool FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::local_step_currents_solvable() const
{
  for (std::size_t i = 0; i < terms_.size(); ++i)
    if (local_step_support_of(terms_[i]).drives_currents && terms_[i].implicit_current_count() == 0) return false;
  return true;
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
LocalStepSupport FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::local_step_support_of(TermType const& term)
{
  auto support = term.local_step_support();
  if (!support.supported) throw std::logic_error("the term " + term.name() + " does not run with local steps");
  return support;
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
void FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::set_local_steps(LocalStepPlan const& plan)
{
  using Steps = LocalSteps<ExecutionSpace, TetLayout, FieldScalar>;
  typename Steps::OverRanks over_ranks;
  if constexpr (std::is_same_v<FieldScalar, Real>) {
    if (communicator_) {
      settle_terms();
      // Subset k of the exchange: the unknowns of level k's blocks, which its middle step moves.
      auto const block_offset = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ops_.block_offset);
      std::vector<std::vector<char>> moving(plan.levels.size() - 1, std::vector<char>(ops_.num_unknowns, 0));
      for (std::size_t k = 1; k < plan.levels.size(); ++k)
        for (Index const b : plan.levels[k].blocks)
          for (Index r = block_offset(b); r < block_offset(b + 1); ++r) moving[k - 1][r] = 1;
      terms_.set_shared_subsets(moving);
      over_ranks.communicator = communicator_.get();
      over_ranks.exchange = [this](Kokkos::View<Real*, memory_space> const& u, std::size_t subset) {
        terms_.share_unknowns(space_, u, subset);
      };
      over_ranks.owned_blocks = owned_blocks_;
      over_ranks.start = lanczos_start_;
    }
  }
  local_steps_ = std::make_unique<Steps const>(ops_, plan, std::move(over_ranks));
  try {
    for (std::size_t i = 0; i < terms_.size(); ++i) check_local_step_support(terms_[i]);
  } catch (...) {
    local_steps_.reset();
    throw;
  }
  set_local_step_forcing_rows();
  responses_measured_ = false;
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
void FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::set_local_step_forcing_rows()
{
  auto rows = local_step_current_rows();
  rows.erase(std::remove_if(rows.begin(), rows.end(), [&](Index r) { return r >= ops_.num_free; }), rows.end());
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  local_step_forcing_ = {};
  if (rows.empty()) return;
  auto const block_offset = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ops_.block_offset);
  auto const& block_level = local_steps_->plan().block_level;
  std::vector<int> row_level(rows.size());
  Index block = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    while (block_offset(block + 1) <= rows[i]) ++block;
    row_level[i] = block_level[block];
  }
  local_step_forcing_.rows = kernels::upload_flat<Kokkos::View<Index*, memory_space>>("dgatd::lts_forcing_rows", rows);
  local_step_forcing_.row_level =
      kernels::upload_flat<Kokkos::View<int*, memory_space>>("dgatd::lts_forcing_levels", row_level);
  local_step_forcing_.values = Kokkos::View<FieldScalar*, memory_space>("dgatd::lts_forcing", ops_.num_unknowns);
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
void FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::check_local_step_support(TermType const& term) const
{
  auto const support = local_step_support_of(term);
  auto const& tet_level = local_steps_->plan().tet_level;
  for (Index const t : support.coarse_tets)
    if (tet_level.at(t) != 0)
      throw std::logic_error("the local step plan steps a tet the term " + term.name() +
                             " needs on the coarse level at level " + std::to_string(tet_level[t]));
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
double FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::electric_energy(
    Kokkos::View<FieldScalar*, memory_space> const& u) const
{
  double sum = electric_product(space_, ops_, u, u, owned_blocks_);
  if (communicator_) communicator_->sum(&sum, 1);
  return sum;
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
StabilityBound FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::estimate_stability(double tolerance,
                                                                                              int max_iterations,
                                                                                              std::uint64_t seed)
{
  terms_.check_operators_untouched(dt_);
  if (!communicator_) return solver::estimate_stability(space_, ops_, tolerance, max_iterations, seed);
  settle_terms();
  DistributedLanczos<memory_space> distributed;
  distributed.communicator = communicator_.get();
  distributed.owned_rows = owned_rows_;
  distributed.exchange = [this](Kokkos::View<Real*, memory_space> const& u) { terms_.share_unknowns(space_, u); };
  distributed.start = lanczos_start_;
  return solver::estimate_stability(space_, ops_, tolerance, max_iterations, seed, &distributed);
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
double FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::magnetic_cross_energy() const
{
  double sum = 0;
  Kokkos::parallel_reduce(
      "dgatd::magnetic_energy", Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index>>(space_, 0, ops_.num_tets),
      kernels::TetQuadraticForm<TetLayout, memory_space, FieldScalar>{ops_.mu, f_previous_, fields_.f, owned_tets_},
      sum);
  return sum;
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
double FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::advance(bool with_energy)
{
  if (local_steps_) measure_current_responses();
  double energy = step_to_end(with_energy);
  if (!current_responses_.empty()) solve_implicit_currents();
  if (with_energy) energy += 0.5 * magnetic_cross_energy();
  end_step();
  if (with_energy && communicator_) communicator_->sum(&energy, 1);
  return energy;
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
double FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::step_to_end(bool with_energy)
{
  Context const c = context();
  double energy = 0;
  if (with_energy) {
    energy += 0.5 * electric_product(space_, ops_, fields_.u, fields_.u, owned_blocks_);
    Kokkos::deep_copy(space_, f_previous_, fields_.f);
  }
  terms_.at(&TermType::before_faraday, c);
  auto const dt = static_cast<FieldScalar>(dt_);
  auto const passes = terms_.faraday_passes();
  if (local_steps_) {
    // The levels read the halo unknowns at once (no overlap with the exchange).
    settle_terms();
    if (auto const& forcing = local_step_forcing_; forcing.rows.extent(0) > 0) {
      kernels::for_each("dgatd::lts_forcing_zero", space_, forcing.rows.extent(0),
                        local_steps_detail::ZeroRows<memory_space, FieldScalar>{forcing.rows, forcing.values});
      for (std::size_t i = 0; i < terms_.size(); ++i) terms_[i].add_local_step_forcing(c, forcing.values);
    }
    local_steps_->faraday(space_, ops_, fields_, dt_, local_step_forcing_);
  } else if (passes.split) {
    kernels::faraday_update(space_, ops_, fields_, dt, passes.before_settling);
    settle_terms();
    kernels::faraday_update(space_, ops_, fields_, dt, passes.after_settling);
  } else {
    kernels::faraday_update(space_, ops_, fields_, dt);
  }
  terms_.at(&TermType::after_faraday, c);
  kernels::ampere_update(space_, ops_, fields_, dt);
  terms_.at(&TermType::after_ampere, c);
  terms_.at(&TermType::correct, c);
  return energy;
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
void FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::end_step()
{
  // The terms end step n (context's step) with the counter already at n + 1.
  Context const c = context();
  ++steps_;
  terms_.at(&TermType::end_step, c);
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
std::size_t FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::implicit_current_count() const
{
  std::size_t count = 0;
  for (std::size_t i = 0; i < terms_.size(); ++i) count += terms_[i].implicit_current_count();
  return count;
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
ImplicitCurrents FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::implicit_currents() const
{
  ImplicitCurrents currents;
  for (std::size_t i = 0; i < terms_.size(); ++i) terms_[i].implicit_currents(context(), currents);
  return currents;
}

// The response to rate q is the difference of two steps from the zero field, before end_step: with
// every rate zero, and with rate q at one unit (a rate of one ampere per step, so that the field a
// source puts in at t = dt / 2 is negligible beside it). It replaces the step's own response only
// where the terms take the corrected field at end_step as they would have taken it from the step:
// so the zero rates' step, corrected by it, is ended and compared with the unit rate's step ended,
// fields and every term's state, each to 1e-9 of its largest value (rounding is 1e-16 of it; a
// term whose state the response reaches mid-step differs by the whole response there). The state
// is restored bit for bit, and the zero field makes the responses the same after a restart.
template <class ExecutionSpace, class TetLayout, class FieldScalar>
void FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::measure_current_responses()
{
  if (responses_measured_) return;
  responses_measured_ = true;
  current_responses_.clear();
  current_slopes_.clear();
  std::size_t const count = implicit_current_count();
  if (!local_steps_ || count == 0) return;

  std::vector<double> u_start, f_start;
  state(u_start, f_start);
  auto const steps_start = steps_;
  auto const terms_start = terms_.save();
  std::vector<double> const zero_field(u_start.size(), 0.0);
  auto impose = [&](std::vector<double> const& rates) {
    std::size_t first = 0;
    for (std::size_t i = 0; i < terms_.size(); ++i) {
      std::size_t const n = terms_[i].implicit_current_count();
      if (n == 0) continue;
      terms_[i].impose_implicit_rates(
          rates.empty() ? rates : std::vector<double>(rates.begin() + first, rates.begin() + first + n));
      first += n;
    }
  };
  auto step_from_zero = [&](std::vector<double> const& rates) {
    set_initial_field(zero_field);
    impose(rates);
    step_to_end(false);
    impose({});
  };
  // The fields and each term's state after the step, as blocks to compare.
  auto ended = [&] {
    end_step();
    std::vector<std::vector<double>> blocks(2);
    state(blocks[0], blocks[1]);
    auto const terms = terms_.save();
    std::size_t first = 0;
    for (auto const& layout : terms_.states(steps_)) {
      blocks.emplace_back(terms.begin() + first, terms.begin() + first + layout.size);
      first += layout.size;
    }
    return blocks;
  };

  std::vector<double> rates(count, 0.0);
  step_from_zero(rates);
  auto const at_zero = implicit_currents();
  std::vector<double> u_zero, f_zero;
  state(u_zero, f_zero);
  std::vector<CurrentResponse<memory_space, FieldScalar>> responses;
  std::vector<double> slopes(count * count);
  bool exact = true;
  for (std::size_t q = 0; q < count && exact; ++q) {
    double const unit = at_zero.slope[q] != 0 ? std::abs(at_zero.slope[q]) : 1.0;
    rates[q] = unit;
    step_from_zero(rates);
    rates[q] = 0;
    auto const at_unit = implicit_currents();
    std::vector<double> u_unit, f_unit;
    state(u_unit, f_unit);
    responses.push_back(upload_response<memory_space, FieldScalar>(sparse_difference(u_zero, u_unit, unit),
                                                                   sparse_difference(f_zero, f_unit, unit)));
    for (std::size_t p = 0; p < count; ++p) slopes[p * count + q] = (at_unit.current[p] - at_zero.current[p]) / unit;
    auto const stepped = ended();

    step_from_zero(rates);
    add_response(space_, responses[q], unit, fields_.u, fields_.f);
    auto const corrected = ended();
    bool differs = false;
    for (std::size_t b = 0; b < stepped.size(); ++b) {
      double difference = 0, scale = 0;
      for (std::size_t i = 0; i < stepped[b].size(); ++i) {
        difference = std::max(difference, std::abs(corrected[b][i] - stepped[b][i]));
        scale = std::max(scale, std::abs(stepped[b][i]));
      }
      differs = differs || difference > 1e-9 * scale;
    }
    exact = (communicator_ ? communicator_->max(differs ? 1 : 0) : (differs ? 1 : 0)) == 0;
  }

  set_state(u_start, f_start, steps_start);
  restore_terms(terms_start);
  if (!exact) return;
  // The rates solve (1 - s G) x = ... each step (solve_implicit_currents), s fixed by dt.
  std::vector<double> system(count * count);
  for (std::size_t p = 0; p < count; ++p)
    for (std::size_t q = 0; q < count; ++q)
      system[p * count + q] = (p == q ? 1.0 : 0.0) - at_zero.slope[p] * slopes[p * count + q];
  if (!dga::invert_general(system.data(), static_cast<int>(count)))
    throw std::runtime_error("the currents solved through the levels are singular");
  current_responses_ = std::move(responses);
  current_slopes_ = std::move(slopes);
  current_system_inverse_ = std::move(system);
}

// The currents now, I(x_used), are affine in the rates: I(x) = I(x_used) + G (x - x_used), G the
// slopes measured. The rates they give, x = slope I(x) + offset, solve
// (1 - slope G) x = slope (I(x_used) - G x_used) + offset (the matrix inverted when measured), and
// the fields take the responses to x - x_used: the step's own fields had the rates been x.
template <class ExecutionSpace, class TetLayout, class FieldScalar>
void FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::solve_implicit_currents()
{
  auto const now = implicit_currents();
  std::size_t const n = now.used.size();
  std::vector<double> right(n);
  for (std::size_t p = 0; p < n; ++p) {
    double known = now.current[p];
    for (std::size_t q = 0; q < n; ++q) known -= current_slopes_[p * n + q] * now.used[q];
    right[p] = now.slope[p] * known + now.offset[p];
  }
  for (std::size_t p = 0; p < n; ++p) {
    double rate = 0;
    for (std::size_t q = 0; q < n; ++q) rate += current_system_inverse_[p * n + q] * right[q];
    if (rate != now.used[p]) add_response(space_, current_responses_[p], rate - now.used[p], fields_.u, fields_.f);
  }
}

#define DGATD_LEAPFROG_INSTANCES(PREFIX, SPACE, LAYOUT)                                                                \
  PREFIX template class FractionedLeapfrog<SPACE, LAYOUT>;                                                             \
  PREFIX template class FractionedLeapfrog<SPACE, LAYOUT, float>;
DGATD_FOR_EACH_INSTANCE_LAYOUT(DGATD_LEAPFROG_INSTANCES, extern)

} // namespace dgatd::solver
