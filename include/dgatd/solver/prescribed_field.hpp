#pragma once
// A prescribed tangential field (a hard port) as a term of the leapfrog: at the end of every step
// its half-edge unknowns are set to amplitude g(t^(n+1)) times their weights (solver/stencils.hpp).

#include "dgatd/instances.hpp"
#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/solver/current_source.hpp"
#include "dgatd/solver/stencils.hpp"
#include "dgatd/solver/term.hpp"
#include "dgatd/solver/waveform.hpp"

#include <utility>

namespace dgatd::solver {

template <class ExecutionSpace, class TetLayout = kernels::DefaultTetLayout<ExecutionSpace>, class FieldScalar = Real>
class PrescribedField final : public Term<ExecutionSpace, TetLayout, FieldScalar> {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using Context = typename Term<ExecutionSpace, TetLayout, FieldScalar>::Context;

  PrescribedField(PrescribedStencil const& stencil, double amplitude, Signal waveform)
      : stencil_("dgatd::port", stencil.dofs, stencil.weights, amplitude), waveform_(std::move(waveform))
  {
  }

  std::string name() const override { return "prescribed_port"; }
  // Prescribed unknowns are held through the finer levels' steps, as the coarser unknowns are.
  LocalStepSupport local_step_support() const override { return {true, {}}; }
  // Per row: its index and weight, u^ written.
  std::int64_t bytes_per_step() const override
  {
    return static_cast<std::int64_t>(stencil_.rows.extent(0)) * (sizeof(Index) + sizeof(Real) + sizeof(FieldScalar));
  }

  void end_step(Context const& c) override
  {
    kernels::for_each(
        "dgatd::prescribed_port", c.space, stencil_.rows.extent(0),
        kernels::ScatterSet<memory_space, FieldScalar>{stencil_.rows, stencil_.weights, c.fields.u,
                                                       waveform_(static_cast<double>(c.step + 1) * c.dt)});
  }

private:
  ScaledStencil<memory_space> stencil_;
  Signal waveform_;
};

#define DGATD_PRESCRIBED_FIELD_INSTANCES(PREFIX, SPACE)                                                                \
  PREFIX template class PrescribedField<SPACE>;                                                                        \
  PREFIX template class PrescribedField<SPACE, kernels::DefaultTetLayout<SPACE>, float>;
DGATD_FOR_EACH_INSTANCE_SPACE(DGATD_PRESCRIBED_FIELD_INSTANCES, extern)

} // namespace dgatd::solver
