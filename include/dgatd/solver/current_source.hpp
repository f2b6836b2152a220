#pragma once
// An impressed current as a term of the leapfrog: I(t) = amplitude g(t) times its stencil, entering
// Ampere (eq. 6) at t^(n+1/2) as u~ -= dt g(t^(n+1/2)) (Meps^-1 I) (the stencil's weights already
// hold the block inverses, solver/stencils.hpp).

#include "dgatd/instances.hpp"
#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/solver/stencils.hpp"
#include "dgatd/solver/term.hpp"
#include "dgatd/solver/waveform.hpp"

#include <Kokkos_Core.hpp>

#include <utility>
#include <vector>

namespace dgatd::solver {

// The stencil's rows and its weights times amplitude on the device.
template <class MemorySpace>
struct ScaledStencil {
  Kokkos::View<Index*, MemorySpace> rows;
  Kokkos::View<Real*, MemorySpace> weights;

  ScaledStencil(char const* label, std::vector<Index> const& host_rows, std::vector<double> weights_host,
                double amplitude)
  {
    for (auto& w : weights_host) w *= amplitude;
    rows = kernels::upload_flat<Kokkos::View<Index*, MemorySpace>>(label, host_rows);
    weights = kernels::upload_flat<Kokkos::View<Real*, MemorySpace>>(label, weights_host);
  }
};

template <class ExecutionSpace, class TetLayout = kernels::DefaultTetLayout<ExecutionSpace>, class FieldScalar = Real>
class CurrentSource final : public Term<ExecutionSpace, TetLayout, FieldScalar> {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using Context = typename Term<ExecutionSpace, TetLayout, FieldScalar>::Context;

  CurrentSource(CurrentStencil const& stencil, double amplitude, Signal waveform)
      : stencil_("dgatd::source", stencil.rows, stencil.weights, amplitude), waveform_(std::move(waveform)),
        rows_(stencil.rows)
  {
  }

  std::string name() const override { return "current_source"; }
  // A current impressed at the coarse step, and inside the finer levels' steps through their
  // forcing, is second order wherever it lies (docs/method/local_time_stepping.md, section 4).
  LocalStepSupport local_step_support() const override { return {true, {}, true, rows_}; }
  // Per row: its index and weight, u^ read and written.
  std::int64_t bytes_per_step() const override
  {
    return static_cast<std::int64_t>(stencil_.rows.extent(0)) *
           (sizeof(Index) + sizeof(Real) + 2 * sizeof(FieldScalar));
  }

  void add_local_step_forcing(Context const& c, Kokkos::View<FieldScalar*, memory_space> const& forcing) const override
  {
    // The field starts at rest, so the first step switches the current on: a jump, which enters at
    // the coarse step alone, as a kick of u^ (held over the levels' steps, a jump would lose the
    // high frequencies the finer levels resolve).
    if (c.step == 0) return;
    double const rate = (waveform_((c.step + 0.5) * c.dt) - waveform_((c.step - 0.5) * c.dt)) / c.dt;
    kernels::for_each("dgatd::current_source_forcing", c.space, stencil_.rows.extent(0),
                      kernels::ScatterAdd<memory_space, FieldScalar>{stencil_.rows, stencil_.weights, forcing, rate});
  }

  void after_ampere(Context const& c) override
  {
    double const t_half = (c.step + 0.5) * c.dt;
    kernels::for_each("dgatd::current_source", c.space, stencil_.rows.extent(0),
                      kernels::ScatterAdd<memory_space, FieldScalar>{stencil_.rows, stencil_.weights, c.fields.u,
                                                                     -c.dt * waveform_(t_half)});
  }

private:
  ScaledStencil<memory_space> stencil_;
  Signal waveform_;
  std::vector<Index> rows_; // the stencil's rows, for local_step_support
};

#define DGATD_CURRENT_SOURCE_INSTANCES(PREFIX, SPACE)                                                                  \
  PREFIX template class CurrentSource<SPACE>;                                                                          \
  PREFIX template class CurrentSource<SPACE, kernels::DefaultTetLayout<SPACE>, float>;
DGATD_FOR_EACH_INSTANCE_SPACE(DGATD_CURRENT_SOURCE_INSTANCES, extern)

} // namespace dgatd::solver
