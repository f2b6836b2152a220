#pragma once
// The term of an impressed current density: at t^(n+1/2) the currents I g(t) through the dual faces
// (Ampere's right-hand side, as a current source), and the work they do on the field over the step,
//   -dt g(t^(n+1/2)) I . (u^n + u^(n+1)) / 2,
// which is exactly the change of the leapfrog's energy W over the step in a lossless problem
// (docs/developer/adding_a_capability.md derives it). That work is the term's record, one value per
// step, and its state for checkpoints. Over ranks each part holds the currents of the blocks it
// owns, and the work is summed over the ranks, the same on every one.

#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/parallel/communicator.hpp"
#include "dgatd/solver/stencils.hpp"
#include "dgatd/solver/term.hpp"
#include "dgatd/solver/waveform.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dgatd::capabilities {

// The currents of a density: I per unknown of current_rows (A, for g = 1), and (Meps)^-1 I over the
// rows of their blocks (solver::apply_block_inverses).
struct CurrentDensityStencil {
  std::vector<Index> current_rows;
  std::vector<double> currents;
  solver::CurrentStencil update;
};

// sum over k of I_k (u^n_k + u^(n+1)_k), the two already summed in both.
template <class MemorySpace>
struct CurrentTimesField {
  Kokkos::View<Real*, MemorySpace> currents, both;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k, double& sum) const { sum += currents(k) * both(k); }
};

template <class ExecutionSpace, class TetLayout = kernels::DefaultTetLayout<ExecutionSpace>>
class CurrentDensityTerm final : public solver::Term<ExecutionSpace, TetLayout> {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using Context = typename solver::Term<ExecutionSpace, TetLayout>::Context;
  using IndexView = Kokkos::View<Index*, memory_space>;
  using RealView = Kokkos::View<Real*, memory_space>;

  CurrentDensityTerm(std::string name, CurrentDensityStencil const& stencil, solver::Signal waveform)
      : name_(std::move(name)), waveform_(std::move(waveform)),
        update_rows_(kernels::upload_flat<IndexView>("dgatd::density_rows", stencil.update.rows)),
        update_weights_(kernels::upload_flat<RealView>("dgatd::density_weights", stencil.update.weights)),
        current_rows_(kernels::upload_flat<IndexView>("dgatd::density_current_rows", stencil.current_rows)),
        currents_(kernels::upload_flat<RealView>("dgatd::density_currents", stencil.currents)),
        both_("dgatd::density_u_both", stencil.current_rows.size())
  {
  }

  std::string name() const override { return "current_density"; }
  // An impressed current, at the coarse step wherever it lies (docs/method/local_time_stepping.md).
  solver::LocalStepSupport local_step_support() const override { return {true, {}, true}; }
  // Per update row its index and weight, u^ read and written; per current row its index, I, u^ read
  // twice and the sum written and read twice.
  std::int64_t bytes_per_step() const override
  {
    auto const updates = static_cast<std::int64_t>(update_rows_.extent(0));
    auto const currents = static_cast<std::int64_t>(current_rows_.extent(0));
    return updates * static_cast<std::int64_t>(sizeof(Index) + 3 * sizeof(Real)) +
           currents * static_cast<std::int64_t>(sizeof(Index) + 6 * sizeof(Real));
  }

  void reset(Context const&) override { work_.clear(); }
  void distribute(parallel::Communicator const& communicator, Context const&) override
  {
    communicator_ = &communicator;
  }
  void before_faraday(Context const& c) override
  {
    kernels::for_each("dgatd::density_u_before", c.space, current_rows_.extent(0),
                      kernels::GatherRows<memory_space>{current_rows_, c.fields.u, both_, false});
  }
  void after_ampere(Context const& c) override
  {
    kernels::for_each("dgatd::current_density", c.space, update_rows_.extent(0),
                      kernels::ScatterAdd<memory_space, Real>{update_rows_, update_weights_, c.fields.u,
                                                              -c.dt * waveform_((c.step + 0.5) * c.dt)});
  }
  void end_step(Context const& c) override
  {
    kernels::for_each("dgatd::density_u_after", c.space, current_rows_.extent(0),
                      kernels::GatherRows<memory_space>{current_rows_, c.fields.u, both_, true});
    double sum = 0;
    Kokkos::parallel_reduce("dgatd::density_work", Kokkos::RangePolicy<ExecutionSpace>(c.space, 0, both_.extent(0)),
                            CurrentTimesField<memory_space>{currents_, both_}, sum);
    if (communicator_) communicator_->sum(&sum, 1);
    work_.push_back(-c.dt * waveform_((c.step + 0.5) * c.dt) * 0.5 * sum);
  }

  std::size_t state_size(std::int64_t steps) const override { return static_cast<std::size_t>(steps); }
  void save(std::vector<double>& state) const override { state.insert(state.end(), work_.begin(), work_.end()); }
  void restore(Context const& c, double const* state) override { work_.assign(state, state + c.step); }
  void add_records(solver::TermRecords& records) const override
  {
    records.series.push_back({name_, "work of the impressed current on the field per step", "J", work_});
  }

private:
  std::string name_;
  solver::Signal waveform_;
  IndexView update_rows_;
  RealView update_weights_;
  IndexView current_rows_;
  RealView currents_, both_;
  std::vector<double> work_;
  parallel::Communicator const* communicator_ = nullptr;
};

} // namespace dgatd::capabilities
