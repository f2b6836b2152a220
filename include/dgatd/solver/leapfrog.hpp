#pragma once
// The fractioned DGATD leapfrog on one execution space: a short core plus terms. The core owns the
// fields and the order of a step, Faraday (eq. 5) then Ampere (eq. 6), both as Kokkos kernels;
// everything optional (sources, prescribed port values, losses, the matched layers' two sides,
// matched ports, and whatever comes next) is a Term (solver/term.hpp, which names the points of the
// step) with its own state for checkpoints. It also gives the energy invariant and the stability
// bound (solver/stability.hpp).

#include "dgatd/instances.hpp"
#include "dgatd/kernels/ampere.hpp"
#include "dgatd/kernels/device_operators.hpp"
#include "dgatd/kernels/faraday.hpp"
#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/parallel/communicator.hpp"
#include "dgatd/parallel/decomposition.hpp"
#include "dgatd/solver/formulation.hpp"
#include "dgatd/solver/halo_exchange.hpp"
#include "dgatd/solver/losses.hpp"
#include "dgatd/solver/magnetic_stretch.hpp"
#include "dgatd/solver/stability.hpp"
#include "dgatd/solver/term.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
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
  using Context = StepContext<ExecutionSpace, TetLayout, FieldScalar>;

  // block_pass: how Ampere multiplies the dual-block inverses (kernels::AmpereBlockPass); the
  // default is the one chosen for this kind of backend (kernels::default_block_pass).
  // matrix_precision: float32 stores the step's local matrices in float (mixed precision), the
  // loss and layer terms' included; the fields and every sum stay in double. The operators' own terms come with them:
  // losses when they have lossy blocks (conductivity, absorbing surfaces, the layers' electric side) and the layers'
  // magnetic side when they have stretched tets.
  // FieldScalar float (single precision) keeps the fields and the kernels' sums in float too, with
  // float matrices; it steps lossless problems alone (no loss or layer terms) in one process, and
  // measures its energy and bound in double.
  FractionedLeapfrog(ExecutionSpace const& space, dga::HostOperators const& host,
                     kernels::AmpereBlockPass block_pass = kernels::default_block_pass<ExecutionSpace>(),
                     kernels::MatrixPrecision matrix_precision = kernels::MatrixPrecision::float64);

  // Adds a term after those already there: at each point of a step the terms run in the order they
  // were added. It starts from the current field and, once dt is set, from the current dt.
  // A run over several ranks keeps its halo exchange the last term, so that the halo unknowns take
  // their owners' values once every other term has set u^(n+1).
  template <class SomeTerm>
  SomeTerm& add_term(std::unique_ptr<SomeTerm> term)
  {
    SomeTerm& added = *term;
    terms_.insert(halo_ ? terms_.end() - 1 : terms_.end(), std::move(term));
    if (dt_ > 0) added.set_dt(context());
    added.reset(context());
    return added;
  }

  ExecutionSpace const& space() const { return space_; }
  Operators const& operators() const { return ops_; }
  FieldSet const& fields() const { return fields_; }
  double dt() const { return dt_; }
  void set_dt(double dt)
  {
    dt_ = dt;
    for (auto& term : terms_) term->set_dt(context());
  }
  // The terms in the order they run, and one step's points of term i alone on the current fields:
  // the roofline lab (dgatd bench --config) times each.
  std::size_t num_terms() const { return terms_.size(); }
  TermType const& term(std::size_t i) const { return *terms_[i]; }
  void run_term_points(std::size_t i)
  {
    Context const c = context();
    TermType& t = *terms_[i];
    t.before_faraday(c);
    t.after_faraday(c);
    t.after_ampere(c);
    t.correct(c);
    t.end_step(c);
  }

  // Steps one rank's part of a problem over several ranks (parallel/decomposition.hpp): the halo
  // exchange joins the terms (and runs once now), energies and the stability bound's sums count what
  // this rank owns and are summed over the ranks, and the bound starts from the one-process run's
  // field (lanczos_start: u^ of the local unknowns). Collective.
  // overlap_halo: each step's exchange flies while Faraday steps the tets that read no halo unknown.
  void distribute(std::shared_ptr<parallel::Communicator> communicator, parallel::HaloPlan const& plan,
                  std::vector<char> const& owned_blocks, std::vector<char> const& owned_tets,
                  std::vector<double> lanczos_start, bool overlap_halo);
  bool distributed() const { return halo_ != nullptr; }
  // Finishes an overlapped halo exchange still in flight, so that every unknown of the part holds its
  // value between two steps (state, probes, snapshots call it); collective, and nothing in one
  // process. Only the halo unknowns change, to what they stand for.
  void complete_exchange() const
  {
    if constexpr (std::is_same_v<FieldScalar, Real>)
      if (halo_) halo_->finish(space_, fields_.u);
  }
  // This rank's halo exchange: the values it sends per step and its time so far (zero in one process).
  HaloStatistics halo() const
  {
    return halo_ ? HaloStatistics{halo_->values_sent(), halo_->seconds(), to_string(halo_->buffers()),
                                  halo_->share_after_exchange()}
                 : HaloStatistics{};
  }

  // Steps taken since the initial field: the sources' clock.
  std::int64_t steps() const { return steps_; }

  // The whole state between two steps (u^n, f^(n-1/2), n), on the host, f^ row-major: with the
  // terms' state (auxiliary_state) a later run continues bit for bit.
  void state(std::vector<double>& u, std::vector<double>& f) const;
  void set_state(std::vector<double> const& u, std::vector<double> const& f, std::int64_t steps);

  // The terms' state after `steps` steps (the matched layers' auxiliary unknowns, the ports'
  // voltage histories), in the order the terms were added; set_state first when restoring.
  std::size_t auxiliary_size(std::int64_t steps) const
  {
    std::size_t size = 0;
    for (auto const& term : terms_) size += term->state_size(steps);
    return size;
  }
  // Each term's share of that state after `steps` steps: its size and its rows over tets
  // (Term::state_rows), in the order of auxiliary_state.
  struct TermState {
    std::size_t size = 0;
    std::vector<TetRows> rows;
  };
  std::vector<TermState> term_states(std::int64_t steps) const
  {
    std::vector<TermState> states;
    for (auto const& term : terms_) states.push_back({term->state_size(steps), term->state_rows()});
    return states;
  }
  std::vector<double> auxiliary_state() const
  {
    std::vector<double> state;
    for (auto const& term : terms_) term->save(state);
    return state;
  }
  void set_auxiliary_state(std::vector<double> const& state)
  {
    if (state.size() != auxiliary_size(steps_))
      throw std::invalid_argument("the terms' state does not fit this leapfrog at this step");
    double const* next = state.data();
    for (auto& term : terms_) {
      term->restore(context(), next);
      next += term->state_size(steps_);
    }
  }

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
  // the leapfrog conserves exactly without sources.
  double step_with_energy() { return advance(true); }

  // u.Meps u over the free unknowns.
  double electric_energy(Kokkos::View<FieldScalar*, memory_space> const& u) const;

  // Before set_dt where the problem has matched layers: their term then writes the implicit step of
  // its modal tets into the lossless Faraday matrices (MagneticStretch), which the bound must not see.
  StabilityBound estimate_stability(double tolerance = 1e-6, int max_iterations = 20000,
                                    std::uint64_t seed = stability_seed);

private:
  Context context() const { return {space_, ops_, fields_, dt_, steps_}; }

  // f^(n-1/2).Mmu f^(n+1/2), with f^(n-1/2) saved in f_previous_.
  double magnetic_cross_energy() const;

  template <class Point>
  void at(Point point, Context const& c)
  {
    for (auto& term : terms_) ((*term).*point)(c);
  }

  double advance(bool with_energy);

  ExecutionSpace space_;
  Operators ops_;
  FieldSet fields_;
  Kokkos::View<FieldScalar* [4], TetLayout, memory_space> f_previous_;
  std::vector<std::unique_ptr<TermType>> terms_;
  template <class Kind>
  bool holds_term() const
  {
    return std::any_of(terms_.begin(), terms_.end(),
                       [](auto const& term) { return dynamic_cast<Kind const*>(term.get()) != nullptr; });
  }
  // Adds a term at position among the terms, like add_term.
  void insert_term(std::size_t position, std::unique_ptr<TermType> term)
  {
    auto& inserted = **terms_.insert(terms_.begin() + static_cast<std::ptrdiff_t>(position), std::move(term));
    if (dt_ > 0) inserted.set_dt(context());
    inserted.reset(context());
  }
  // A run over several ranks (distribute): the exchange among terms_, the mask of this rank's own
  // blocks, tets and free rows, and the stability bound's start field.
  HaloExchange<ExecutionSpace, TetLayout>* halo_ = nullptr;
  std::shared_ptr<parallel::Communicator> communicator_;
  kernels::OwnedMask<memory_space> owned_blocks_, owned_tets_, owned_rows_;
  std::vector<double> lanczos_start_;
  double dt_ = 0;
  std::int64_t steps_ = 0;
};

// The members that launch kernels, defined outside the class so that the library's instances
// (dgatd/instances.hpp) are the only ones compiled for the spaces it instantiates for.

template <class ExecutionSpace, class TetLayout, class FieldScalar>
FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::FractionedLeapfrog(
    ExecutionSpace const& space, dga::HostOperators const& host, kernels::AmpereBlockPass block_pass,
    kernels::MatrixPrecision matrix_precision)
    : space_(space), ops_(kernels::upload<ExecutionSpace, TetLayout>(host, block_pass, matrix_precision)),
      fields_(kernels::make_fields<ExecutionSpace, TetLayout, FieldScalar>(ops_)),
      f_previous_("dgatd::f_hat_previous", ops_.num_tets)
{
  if constexpr (std::is_same_v<FieldScalar, Real>) {
    if (!host.lossy_blocks.empty())
      add_term(std::make_unique<Losses<ExecutionSpace, TetLayout>>(host, matrix_precision));
    if (!host.stretched_tets.empty())
      add_term(std::make_unique<MagneticStretch<ExecutionSpace, TetLayout>>(host, matrix_precision));
  } else {
    if (matrix_precision != kernels::MatrixPrecision::float32)
      throw std::invalid_argument("single precision steps float fields with float matrices");
    if (!host.lossy_blocks.empty() || !host.stretched_tets.empty())
      throw std::invalid_argument("single precision steps lossless problems: the operators hold lossy blocks or "
                                  "stretched tets");
  }
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
void FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::state(std::vector<double>& u,
                                                                       std::vector<double>& f) const
{
  complete_exchange();
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
  complete_exchange();
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
  complete_exchange();
  Kokkos::deep_copy(fields_.u, kernels::upload_flat<Kokkos::View<FieldScalar*, memory_space>>("dgatd::u_init", u));
  Kokkos::deep_copy(fields_.f, 0.0);
  steps_ = 0;
  for (auto& term : terms_) term->reset(context());
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
void FractionedLeapfrog<ExecutionSpace, TetLayout, FieldScalar>::distribute(
    std::shared_ptr<parallel::Communicator> communicator, parallel::HaloPlan const& plan,
    std::vector<char> const& owned_blocks, std::vector<char> const& owned_tets, std::vector<double> lanczos_start,
    bool overlap_halo)
{
  if constexpr (!std::is_same_v<FieldScalar, Real>) {
    throw std::invalid_argument("single precision runs in one process");
  } else {
    if (halo_) throw std::logic_error("FractionedLeapfrog::distribute called twice");
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
    communicator_ = communicator;
    // Every rank holds the same terms in the same order (their collectives and the checkpoint's state
    // rely on it): a part without lossy blocks or stretched tets takes the empty loss or layer term
    // that another part has, where the constructor would have put it.
    using LossTerm = Losses<ExecutionSpace, TetLayout>;
    using StretchTerm = MagneticStretch<ExecutionSpace, TetLayout>;
    bool const losses = holds_term<LossTerm>(), stretch = holds_term<StretchTerm>();
    bool const any_losses = communicator->max(losses ? 1 : 0) > 0;
    bool const any_stretch = communicator->max(stretch ? 1 : 0) > 0;
    dga::HostOperators const none{};
    if (any_losses && !losses) insert_term(0, std::make_unique<LossTerm>(none, ops_.matrix_precision));
    if (any_stretch && !stretch)
      insert_term(any_losses ? 1 : 0, std::make_unique<StretchTerm>(none, ops_.matrix_precision));
    for (auto& term : terms_) term->distribute(*communicator_, context());
    halo_ = &add_term(std::make_unique<HaloExchange<ExecutionSpace, TetLayout>>(std::move(communicator), plan,
                                                                                overlap_halo, ops_.num_tets));
  }
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
  if (dt_ > 0 && holds_term<MagneticStretch<ExecutionSpace, TetLayout>>())
    throw std::logic_error("FractionedLeapfrog::estimate_stability after set_dt in a problem with matched layers: "
                           "their implicit steps are in the Faraday matrices now; estimate the bound first");
  if (!halo_) return solver::estimate_stability(space_, ops_, tolerance, max_iterations, seed);
  complete_exchange();
  DistributedLanczos<memory_space> distributed;
  distributed.communicator = communicator_.get();
  distributed.owned_rows = owned_rows_;
  distributed.exchange = [this](Kokkos::View<Real*, memory_space> const& u) { halo_->exchange(space_, u); };
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
  Context const c = context();
  double energy = 0;
  if (with_energy) {
    energy += 0.5 * electric_product(space_, ops_, fields_.u, fields_.u, owned_blocks_);
    Kokkos::deep_copy(space_, f_previous_, fields_.f);
  }
  at(&TermType::before_faraday, c);
  auto const dt = static_cast<FieldScalar>(dt_);
  if (halo_ && halo_->pending()) {
    kernels::faraday_update(space_, ops_, fields_, dt, halo_->interior_runs());
    complete_exchange();
    kernels::faraday_update(space_, ops_, fields_, dt, halo_->rim_runs());
  } else {
    kernels::faraday_update(space_, ops_, fields_, dt);
  }
  // A domain-decomposed run exchanges here, as a term: the edge pieces Faraday (and the layers'
  // correction) left for the tets around vertices shared with other ranks, before Ampere's
  // dual-curl pass sums them per edge.
  at(&TermType::after_faraday, c);
  if (with_energy) energy += 0.5 * magnetic_cross_energy();
  kernels::ampere_update(space_, ops_, fields_, dt);
  at(&TermType::after_ampere, c);
  at(&TermType::correct, c);
  ++steps_;
  at(&TermType::end_step, c);
  if (with_energy && communicator_) communicator_->sum(&energy, 1);
  return energy;
}

#define DGATD_LEAPFROG_INSTANCES(PREFIX, SPACE)                                                                        \
  PREFIX template class FractionedLeapfrog<SPACE, Kokkos::LayoutLeft>;                                                 \
  PREFIX template class FractionedLeapfrog<SPACE, Kokkos::LayoutRight>;                                                \
  PREFIX template class FractionedLeapfrog<SPACE, Kokkos::LayoutLeft, float>;                                          \
  PREFIX template class FractionedLeapfrog<SPACE, Kokkos::LayoutRight, float>;
DGATD_FOR_EACH_INSTANCE_SPACE(DGATD_LEAPFROG_INSTANCES, extern)

} // namespace dgatd::solver
