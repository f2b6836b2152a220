#pragma once
// Local time steps for the fractioned leapfrog (docs/method/local_time_stepping.md, section 3): the
// energy-conserving local time stepping of Diaz and Grote in the fractioned first-order form. It
// replaces the leapfrog's Faraday update alone; one coarse step of size dt is
//   f^(n+1/2) = f^(n-1/2) + F(u^n),   u^(n+1) = u^n + dt Meps^-1 C~ f^(n+1/2),
// where F(u) is -dt Mmu^-1 C u for the tets of level 0 and, for the finer ones, what two leapfrog
// steps of half the size give (level 1) when only the unknowns of level 1 and finer move, from zero
// magnetic values and with the coarser unknowns held: the sum of the two half-step magnetic values,
// the first step starting with a half kick. Inside, level 1's finer tets take level 2's two steps
// the same way, and so on. In second-order form u^(n+1) - 2 u^n + u^(n-1) = -dt^2 A_p u^n with A_p
// self-adjoint in the Meps inner product, so
//   E^(n+1/2) = |u^(n+1) - u^n|^2_Meps / (2 dt^2) + <A_p u^(n+1), u^n>_Meps / 2
// is conserved exactly. With one level this is the leapfrog, kernel for kernel. The terms run at the
// coarse step (solver/term.hpp, Term::local_step_support). Over ranks each level's middle step ends
// with the halo exchange of the level's unknowns, so its second step reads on every tet what one
// process reads.
//
// The levels' passes run over index lists and the block pass multiplies full inverses (the columns
// pass, the host backends' default), so the operators must hold them.

#include "dgatd/dga/operators.hpp"
#include "dgatd/kernels/ampere.hpp"
#include "dgatd/kernels/device_operators.hpp"
#include "dgatd/kernels/faraday.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/kokkos_compat.hpp"
#include "dgatd/solver/local_step_plan.hpp"
#include "dgatd/solver/stability.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace dgatd::solver {

namespace local_steps_detail {

template <class Kernel, class IndexList>
struct OnList {
  Kernel kernel;
  IndexList list;
  KOKKOS_INLINE_FUNCTION void operator()(Index i) const { kernel(list(i)); }
};

template <class Tag, class Kernel, class IndexList>
struct OnTaggedList {
  Kernel kernel;
  IndexList list;
  KOKKOS_INLINE_FUNCTION void operator()(Index i) const { kernel(Tag{}, list(i)); }
};

// The scheme's small passes, named functors rather than lambdas: nvcc refuses device lambdas in
// private member functions.
template <class IndexList, class Values>
struct CopyListed {
  IndexList list;
  Values to, from;
  KOKKOS_INLINE_FUNCTION void operator()(Index i) const { to(list(i)) = from(list(i)); }
};

// Which step a pass belongs to: the coarse step (the run's own fields), or a level's first or second
// step (LocalSteps::integrate). A level's two steps start from zero magnetic values and leave their
// sum in the level's integral: the first step's passes write both afresh and the second's add to the
// integral, in the update's own pass, which keeps them out of extra sweeps over the level's tets
// (each about as heavy as the update).
enum class Pass { coarse, first, second };

template <class TetValues, class FieldScalar>
KOKKOS_INLINE_FUNCTION void add_to_integral(Pass pass, TetValues const& integral, Index t, FieldScalar const (&f)[4])
{
  if (pass == Pass::coarse) return;
  for (int j = 0; j < 4; ++j) integral(t, j) = pass == Pass::first ? f[j] : integral(t, j) + f[j];
}

// The Faraday update of the listed tets at the level's step, then their magnetic values into the
// integral.
template <class Faraday, class IndexList, class TetValues>
struct FaradayIntoIntegral {
  Faraday faraday;
  IndexList tets;
  TetValues integral;
  Pass pass;
  KOKKOS_INLINE_FUNCTION void operator()(Index i) const
  {
    Index const t = tets(i);
    if (pass == Pass::first)
      for (int j = 0; j < 4; ++j) faraday.f(t, j) = 0;
    faraday(t);
    typename TetValues::value_type const f[4] = {faraday.f(t, 0), faraday.f(t, 1), faraday.f(t, 2), faraday.f(t, 3)};
    add_to_integral(pass, integral, t, f);
  }
};

// f += kick finer on the listed tets (f = kick finer in a level's first step), with their edge
// pieces from the new f, then, in a level's steps, f into the integral.
template <class IndexList, class TetValues, class Pieces, class Signs, class FieldScalar>
struct AddFiner {
  IndexList tets;
  TetValues f, finer, integral;
  Pieces pieces;
  Signs signs;
  FieldScalar kick;
  Pass pass;
  KOKKOS_INLINE_FUNCTION void operator()(Index i) const
  {
    Index const t = tets(i);
    FieldScalar updated[4];
    for (int j = 0; j < 4; ++j) {
      updated[j] = (pass == Pass::first ? FieldScalar(0) : f(t, j)) + kick * finer(t, j);
      f(t, j) = updated[j];
    }
    kernels::write_edge_pieces(pieces, t, signs(t), updated);
    add_to_integral(pass, integral, t, updated);
  }
};

// The Lanczos iteration's vector passes.
template <class Values>
struct Scaled {
  Values to, from;
  typename Values::value_type factor;
  KOKKOS_INLINE_FUNCTION void operator()(Index i) const { to(i) = factor * from(i); }
};

template <class Values>
struct Recurrence {
  Values w, v, previous;
  typename Values::value_type alpha, beta;
  KOKKOS_INLINE_FUNCTION void operator()(Index i) const { w(i) -= alpha * v(i) + beta * previous(i); }
};

template <class Values>
struct QuarterDifference {
  Values y, x, stepped;
  KOKKOS_INLINE_FUNCTION void operator()(Index i) const { y(i) = (x(i) - stepped(i)) / 4; }
};

// w(row) -= stretch_h2 F(row) on the forcing's rows of level k and finer: level k's middle step.
template <class MemorySpace, class FieldScalar>
struct ForceRows {
  Kokkos::View<Index*, MemorySpace> rows;
  Kokkos::View<int*, MemorySpace> row_level;
  Kokkos::View<FieldScalar*, MemorySpace> forcing, w;
  int level;
  FieldScalar stretch_h2;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i) const
  {
    if (row_level(i) >= level) w(rows(i)) -= stretch_h2 * forcing(rows(i));
  }
};

template <class MemorySpace, class FieldScalar>
struct ZeroRows {
  Kokkos::View<Index*, MemorySpace> rows;
  Kokkos::View<FieldScalar*, MemorySpace> values;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i) const { values(rows(i)) = 0; }
};

template <class ExecutionSpace, class IndexList, class Functor>
void for_list(char const* label, ExecutionSpace const& space, IndexList const& list, Functor const& functor)
{
  // Dynamic, as the whole passes' (kernels::FaradayKernel::policy_type).
  Kokkos::parallel_for(label,
                       Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<Index>>(
                           space, 0, static_cast<Index>(list.extent(0))),
                       functor);
}

} // namespace local_steps_detail

// One rank's part of a run over ranks (FractionedLeapfrog::distribute): the exchange that gives the
// halo unknowns of a field their owners' values (exchange(u, 0) all of them, exchange(u, k) those of
// level k's blocks, its moving unknowns; FractionedLeapfrog::set_local_steps), the mask of the blocks this rank owns
// (the spectrum's products count those, summed over the ranks) and the spectrum's start field, the one-process run's
// (u^ of the part's unknowns). No communicator: one process.
template <class MemorySpace, class FieldScalar>
struct LocalStepsOverRanks {
  parallel::Communicator const* communicator = nullptr;
  std::function<void(Kokkos::View<FieldScalar*, MemorySpace> const&, std::size_t)> exchange;
  kernels::OwnedMask<MemorySpace> owned_blocks;
  std::vector<double> start;
};

// The levels' passes timed one by one (LocalSteps::time_passes), for the lab: the seconds and items
// (tets, blocks, curled edges or unknowns) of each kind of pass at each level, summed over the coarse
// steps timed. A finer level's sums count at the level they are added to (level 0: the coarse step's).
// Each pass is then fenced on both sides, which a run's passes are not.
struct LocalStepPassTimes {
  enum Kind { faraday, finer, start, dual_curl, ampere, kinds };
  struct Total {
    double seconds = 0, items = 0;
  };
  std::vector<std::array<Total, kinds>> levels;
  static char const* name(int kind)
  {
    char const* const names[kinds] = {"Faraday", "finer sums", "start copy", "dual curl", "Ampere"};
    return names[kind];
  }
};

// The impressed currents' forcing of a coarse step (Term::add_local_step_forcing): per unknown, values,
// Meps^-1 (I^(n+1/2) - I^(n-1/2)) / dt; the rows where it can be nonzero and each one's level (the
// level of its block), so that each level's middle step forces the rows it moves. No rows: none.
template <class MemorySpace, class FieldScalar>
struct LocalStepForcing {
  Kokkos::View<Index*, MemorySpace> rows;
  Kokkos::View<int*, MemorySpace> row_level;
  Kokkos::View<FieldScalar*, MemorySpace> values;
};

template <class ExecutionSpace, class TetLayout = kernels::DefaultTetLayout<ExecutionSpace>, class FieldScalar = Real>
class LocalSteps {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using Operators = kernels::DeviceOperators<ExecutionSpace, TetLayout>;
  using FieldSet = kernels::Fields<ExecutionSpace, TetLayout, FieldScalar>;
  using IndexList = Kokkos::View<Index*, memory_space>;
  using TetValues = Kokkos::View<FieldScalar* [4], TetLayout, memory_space>;
  using OverRanks = LocalStepsOverRanks<memory_space, FieldScalar>;
  using Forcing = LocalStepForcing<memory_space, FieldScalar>;

  // over_ranks: one rank's part (its plan from local_step_plan with LocalStepRanks); collective from
  // then on, as faraday and spectrum are.
  LocalSteps(Operators const& ops, LocalStepPlan const& plan, OverRanks over_ranks = {});

  int levels() const { return static_cast<int>(levels_.size()); }
  LocalStepPlan const& plan() const { return plan_; }

  // The coarse step at safety times its limit (coarse_step_limit, local_step_plan.hpp).
  double coarse_step(double dt_max, double safety) const { return safety * coarse_step_limit(levels()) * dt_max; }

  // In place of the leapfrog's Faraday update: f^(n+1/2) = f^(n-1/2) + F(u^n) with the tets' edge
  // pieces, ready for the coarse Ampere update; the levels' steps forced by the impressed currents.
  void faraday(ExecutionSpace const& space, Operators const& ops, FieldSet const& fields, double dt,
               Forcing const& forcing = {}) const;

  // dt^2 lambda / 4 for the lowest and highest eigenvalues lambda of A_p at dt, by a Lanczos
  // iteration in the Meps inner product from a random field on fields of its own: the scheme is
  // stable where both lie in [0, 1) (its energy is then positive), and a mode of ratio r grows at most
  // to 1 / sqrt(1 - r) of its start. The Ritz values lie inside the spectrum, so one outside
  // [-unstable_margin, 1 - unstable_margin] proves the scheme unstable: with unstable_margin > 0 the
  // iteration stops there (an unstable step is refused in tens of iterations; a stable one takes
  // hundreds to settle at the slowly converging low end).
  using Spectrum = LocalStepSpectrum;
  Spectrum spectrum(ExecutionSpace const& space, Operators const& ops, double dt, int max_iterations = 400,
                    double tolerance = 1e-7, double unstable_margin = 0) const;

  // From now on, each pass fenced and timed into times (null: no more); times' levels start at zero.
  void time_passes(LocalStepPassTimes* times)
  {
    pass_times_ = times;
    if (times) times->levels.assign(levels_.size(), {});
  }

private:
  struct Level {
    IndexList own_tets, tets, blocks, curled_edges, read_unknowns;
    FieldSet fields;    // from level 1 on: u^ the level's moving unknowns, f^ its magnetic values
    TetValues integral; // from level 1 on: the sum of its two steps' magnetic values
  };

  template <class MatrixScalar>
  void faraday_with(ExecutionSpace const& space, Operators const& ops, FieldSet const& fields, double dt,
                    Forcing const& forcing) const;
  template <class MatrixScalar>
  void integrate(ExecutionSpace const& space, Operators const& ops, std::size_t k, FieldSet const& coarsest, double dt,
                 Forcing const& forcing) const;
  void add_finer(ExecutionSpace const& space, Operators const& ops, std::size_t k, FieldSet const& fields,
                 FieldScalar kick, local_steps_detail::Pass pass) const;
  template <class Functor>
  void run_pass(LocalStepPassTimes::Kind kind, std::size_t k, ExecutionSpace const& space, IndexList const& list,
                Functor const& functor) const;
  using Values = Kokkos::View<FieldScalar*, memory_space>;
  void apply_quarter_dt2_ap(ExecutionSpace const& space, Operators const& ops, FieldSet const& scratch, Values const& x,
                            Values const& y, double dt) const;

  LocalStepPlan plan_;
  std::vector<Level> levels_;
  OverRanks over_ranks_;
  LocalStepPassTimes* pass_times_ = nullptr;
};

template <class ExecutionSpace, class TetLayout, class FieldScalar>
LocalSteps<ExecutionSpace, TetLayout, FieldScalar>::LocalSteps(Operators const& ops, LocalStepPlan const& plan,
                                                               OverRanks over_ranks)
    : plan_(plan), over_ranks_(std::move(over_ranks))
{
  if (plan.levels.empty() || plan.tet_level.size() != static_cast<std::size_t>(ops.num_tets) ||
      plan.block_level.size() != static_cast<std::size_t>(ops.num_blocks))
    throw std::invalid_argument("the local step plan is not for these operators");
  if (kernels::stores_packed_blocks(ops.block_pass))
    throw std::invalid_argument("local steps multiply full block inverses: upload the operators for the columns or "
                                "team_rows block pass");
  if (over_ranks_.communicator &&
      (!over_ranks_.exchange || over_ranks_.start.size() != static_cast<std::size_t>(ops.num_unknowns)))
    throw std::invalid_argument("local steps over ranks need the halo exchange and the spectrum's start field");
  for (std::size_t k = 0; k < plan.levels.size(); ++k) {
    auto const& from = plan.levels[k];
    Level level;
    level.own_tets = kernels::upload_flat<IndexList>("dgatd::lts_own_tets", from.own_tets);
    level.tets = kernels::upload_flat<IndexList>("dgatd::lts_tets", from.tets);
    level.blocks = kernels::upload_flat<IndexList>("dgatd::lts_blocks", from.blocks);
    level.curled_edges = kernels::upload_flat<IndexList>("dgatd::lts_curled_edges", from.curled_edges);
    level.read_unknowns = kernels::upload_flat<IndexList>("dgatd::lts_read_unknowns", from.read_unknowns);
    if (k > 0) {
      level.fields = kernels::make_fields<ExecutionSpace, TetLayout, FieldScalar>(ops);
      level.integral = TetValues("dgatd::lts_integral", ops.num_tets);
    }
    levels_.push_back(level);
  }
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
void LocalSteps<ExecutionSpace, TetLayout, FieldScalar>::faraday(ExecutionSpace const& space, Operators const& ops,
                                                                 FieldSet const& fields, double dt,
                                                                 Forcing const& forcing) const
{
  compat::ScopedRegion region("dgatd::Faraday_local_steps");
  if constexpr (std::is_same_v<FieldScalar, float>) {
    faraday_with<float>(space, ops, fields, dt, forcing);
  } else {
    if (ops.matrix_precision == kernels::MatrixPrecision::float32)
      faraday_with<float>(space, ops, fields, dt, forcing);
    else
      faraday_with<double>(space, ops, fields, dt, forcing);
  }
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
template <class MatrixScalar>
void LocalSteps<ExecutionSpace, TetLayout, FieldScalar>::faraday_with(ExecutionSpace const& space, Operators const& ops,
                                                                      FieldSet const& fields, double dt,
                                                                      Forcing const& forcing) const
{
  using Kernel = kernels::FaradayKernel<ExecutionSpace, TetLayout, MatrixScalar, FieldScalar>;
  run_pass(LocalStepPassTimes::faraday, 0, space, levels_[0].own_tets,
           local_steps_detail::OnList<Kernel, IndexList>{Kernel(ops, fields, static_cast<FieldScalar>(dt)),
                                                         levels_[0].own_tets});
  if (levels_.size() > 1) {
    integrate<MatrixScalar>(space, ops, 1, fields, dt, forcing);
    add_finer(space, ops, 0, fields, 1, local_steps_detail::Pass::coarse);
  }
}

// Level k's two steps (k >= 1) from level k - 1's current unknowns, leaving the sum of their magnetic
// values in levels_[k].integral: what one step of level k - 1 adds to the magnetic values of level
// k's tets.
template <class ExecutionSpace, class TetLayout, class FieldScalar>
template <class MatrixScalar>
void LocalSteps<ExecutionSpace, TetLayout, FieldScalar>::integrate(ExecutionSpace const& space, Operators const& ops,
                                                                   std::size_t k, FieldSet const& coarsest, double dt,
                                                                   Forcing const& forcing) const
{
  namespace d = local_steps_detail;
  Level const& level = levels_[k];
  using Values = Kokkos::View<FieldScalar*, memory_space>;
  Values const coarser_u = k == 1 ? coarsest.u : levels_[k - 1].fields.u;
  run_pass(LocalStepPassTimes::start, k, space, level.read_unknowns,
           d::CopyListed<IndexList, Values>{level.read_unknowns, level.fields.u, coarser_u});
  double const h = dt / static_cast<double>(std::int64_t{1} << k);
  // The middle step's length, 2 - 1 / nu_k^2 of h, makes the two steps' polynomial the stabilised
  // T_2(nu_k - w lambda) / T_2(nu_k) while their first-order term stays h^2 lambda (consistency).
  double const nu = local_step_stabilisation(k);
  double const stretch = 2 - 1 / (nu * nu);
  using Faraday = kernels::FaradayKernel<ExecutionSpace, TetLayout, MatrixScalar, FieldScalar>;
  for (int substep = 0; substep < 2; ++substep) {
    // A half kick first: the symmetric start (zero magnetic values at the level's time origin).
    double const kick = substep == 0 ? 0.5 : 1.0;
    auto const pass = substep == 0 ? d::Pass::first : d::Pass::second;
    run_pass(LocalStepPassTimes::faraday, k, space, level.own_tets,
             d::FaradayIntoIntegral<Faraday, IndexList, TetValues>{
                 Faraday(ops, level.fields, static_cast<FieldScalar>(kick * h)), level.own_tets, level.integral, pass});
    if (k + 1 < levels_.size()) {
      integrate<MatrixScalar>(space, ops, k + 1, coarsest, dt, forcing);
      add_finer(space, ops, k, level.fields, static_cast<FieldScalar>(kick), pass);
    }
    if (substep == 0) {
      using Curl = kernels::DualCurlKernel<ExecutionSpace, TetLayout, FieldScalar>;
      run_pass(LocalStepPassTimes::dual_curl, k, space, level.curled_edges,
               d::OnList<Curl, IndexList>{Curl(ops, level.fields), level.curled_edges});
      using Ampere = kernels::AmpereKernel<ExecutionSpace, MatrixScalar, FieldScalar>;
      run_pass(LocalStepPassTimes::ampere, k, space, level.blocks,
               d::OnTaggedList<typename Ampere::ColumnsTag, Ampere, IndexList>{
                   Ampere(ops, level.fields, static_cast<FieldScalar>(stretch * h)), level.blocks});
      // The level integrates w'' = -A w - F over its two steps from w'(0) = 0, so its middle step
      // takes the forcing's share as it takes A w's: stretch h (h / 2) F on the rows it moves.
      if (forcing.rows.extent(0) > 0)
        kernels::for_each("dgatd::lts_forcing", space, forcing.rows.extent(0),
                          d::ForceRows<memory_space, FieldScalar>{forcing.rows, forcing.row_level, forcing.values,
                                                                  level.fields.u, static_cast<int>(k),
                                                                  static_cast<FieldScalar>(stretch * h * h / 2)});
      // A halo block lacks some of its tets' pieces: its owner's value, for the second step.
      if (over_ranks_.communicator) over_ranks_.exchange(level.fields.u, k);
    }
  }
}

// Level k's fields.f += kick times level k + 1's sum on that level's tets, with their edge pieces; in
// a level's steps (k >= 1) also into level k's integral (AddFiner).
template <class ExecutionSpace, class TetLayout, class FieldScalar>
void LocalSteps<ExecutionSpace, TetLayout, FieldScalar>::add_finer(ExecutionSpace const& space, Operators const& ops,
                                                                   std::size_t k, FieldSet const& fields,
                                                                   FieldScalar kick,
                                                                   local_steps_detail::Pass pass) const
{
  using Pieces = decltype(fields.edge_pieces);
  using Signs = decltype(ops.tet_edge_signs);
  Level const& finer = levels_[k + 1];
  run_pass(LocalStepPassTimes::finer, k, space, finer.tets,
           local_steps_detail::AddFiner<IndexList, TetValues, Pieces, Signs, FieldScalar>{
               finer.tets, fields.f, finer.integral, levels_[k].integral, fields.edge_pieces, ops.tet_edge_signs, kick,
               pass});
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
template <class Functor>
void LocalSteps<ExecutionSpace, TetLayout, FieldScalar>::run_pass(LocalStepPassTimes::Kind kind, std::size_t k,
                                                                  ExecutionSpace const& space, IndexList const& list,
                                                                  Functor const& functor) const
{
  char const* const labels[LocalStepPassTimes::kinds] = {"dgatd::lts_faraday", "dgatd::lts_finer", "dgatd::lts_start",
                                                         "dgatd::lts_dual_curl", "dgatd::lts_ampere"};
  if (!pass_times_) {
    local_steps_detail::for_list(labels[kind], space, list, functor);
    return;
  }
  space.fence();
  auto const start = std::chrono::steady_clock::now();
  local_steps_detail::for_list(labels[kind], space, list, functor);
  space.fence();
  auto& total = pass_times_->levels[k][kind];
  total.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  total.items += static_cast<double>(list.extent(0));
}

template <class ExecutionSpace, class TetLayout, class FieldScalar>
typename LocalSteps<ExecutionSpace, TetLayout, FieldScalar>::Spectrum
LocalSteps<ExecutionSpace, TetLayout, FieldScalar>::spectrum(ExecutionSpace const& space, Operators const& ops,
                                                             double dt, int max_iterations, double tolerance,
                                                             double unstable_margin) const
{
  namespace d = local_steps_detail;
  using Values = Kokkos::View<FieldScalar*, memory_space>;
  auto const scratch = kernels::make_fields<ExecutionSpace, TetLayout, FieldScalar>(ops);
  Index const n = ops.num_unknowns;
  Values v("dgatd::lts_lanczos_v", n), w("dgatd::lts_lanczos_w", n), previous("dgatd::lts_lanczos_previous", n);
  auto const product = [&](Values const& x, Values const& y) {
    double sum = electric_product(space, ops, x, y, over_ranks_.owned_blocks);
    if (over_ranks_.communicator) over_ranks_.communicator->sum(&sum, 1);
    return sum;
  };
  auto const rescale = [&](Values const& to, Values const& from, double factor) {
    kernels::for_each("dgatd::lts_lanczos_scale", space, n,
                      d::Scaled<Values>{to, from, static_cast<FieldScalar>(factor)});
  };
  // The start is A_p of a random field: no component in the static null space.
  auto const start =
      over_ranks_.communicator ? over_ranks_.start : random_free_unknowns(n, ops.num_free, stability_seed);
  apply_quarter_dt2_ap(space, ops, scratch, kernels::upload_flat<Values>("dgatd::lts_lanczos_start", start), v, dt);
  rescale(v, v, 1 / std::sqrt(product(v, v)));
  std::vector<double> alpha, beta;
  Spectrum result;
  for (int it = 1; it <= max_iterations; ++it) {
    apply_quarter_dt2_ap(space, ops, scratch, v, w, dt);
    alpha.push_back(product(v, w));
    double const b_previous = beta.empty() ? 0.0 : beta.back();
    kernels::for_each("dgatd::lts_lanczos_recurrence", space, n,
                      d::Recurrence<Values>{w, v, previous, static_cast<FieldScalar>(alpha.back()),
                                            static_cast<FieldScalar>(b_previous)});
    double const highest = stability_detail::largest_tridiagonal_eigenvalue(alpha, beta, result.highest);
    std::vector<double> negated(alpha.size());
    for (std::size_t i = 0; i < alpha.size(); ++i) negated[i] = -alpha[i];
    double const lowest = -stability_detail::largest_tridiagonal_eigenvalue(negated, beta, -alpha.front());
    bool const settled = it > 1 && std::abs(highest - result.highest) <= tolerance * std::abs(highest) &&
                         std::abs(lowest - result.lowest) <= tolerance * std::abs(highest);
    result = {lowest, highest, it};
    bool const unstable = unstable_margin > 0 && (lowest < -unstable_margin || highest > 1 - unstable_margin);
    double const b = std::sqrt(std::max(0.0, product(w, w)));
    if (settled || unstable || b == 0) break;
    beta.push_back(b);
    std::swap(previous, v);
    rescale(v, w, 1 / b);
  }
  return result;
}

// y = dt^2 A_p x / 4 = (x - x') / 4, x' the step's u^ from u^ = x and zero f^.
template <class ExecutionSpace, class TetLayout, class FieldScalar>
void LocalSteps<ExecutionSpace, TetLayout, FieldScalar>::apply_quarter_dt2_ap(ExecutionSpace const& space,
                                                                              Operators const& ops,
                                                                              FieldSet const& scratch, Values const& x,
                                                                              Values const& y, double dt) const
{
  Kokkos::deep_copy(space, scratch.u, x);
  Kokkos::deep_copy(space, scratch.f, FieldScalar(0));
  faraday(space, ops, scratch, dt);
  kernels::ampere_update(space, ops, scratch, static_cast<FieldScalar>(dt));
  kernels::for_each("dgatd::lts_quarter_difference", space, ops.num_unknowns,
                    local_steps_detail::QuarterDifference<Values>{y, x, scratch.u});
  if (over_ranks_.communicator) over_ranks_.exchange(y, 0);
}

} // namespace dgatd::solver
