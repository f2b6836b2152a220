#pragma once
// A matched TE10 port as a term of the leapfrog (docs/method/open_regions.md section 5): it launches the
// modal voltage incident(t) = amplitude peak_voltage g(t) and absorbs the TE10 wave that comes back
// through it, its modal current entering Ampere like an impressed current on the port's edges
// (solver/port_admittance.hpp has the discrete admittance). The correction runs after the lossless
// update; a port's blocks are lossless (matched_te10_port_stencil), so it commutes with the losses'.

#include "dgatd/instances.hpp"
#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/solver/port_admittance.hpp"
#include "dgatd/solver/stencils.hpp"
#include "dgatd/solver/term.hpp"
#include "dgatd/solver/term_recipe.hpp"
#include "dgatd/solver/waveform.hpp"

#include <Kokkos_Core.hpp>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dgatd::solver {

template <class ExecutionSpace, class TetLayout = kernels::DefaultTetLayout<ExecutionSpace>>
class MatchedPort final : public Term<ExecutionSpace, TetLayout> {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using Context = typename Term<ExecutionSpace, TetLayout>::Context;

  MatchedPort(std::string name, MatchedPortStencil const& stencil, double amplitude, Signal waveform)
      : name_(std::move(name)), self_coupling_(stencil.self_coupling),
        admittance_(
            stencil.admittance, stencil.cutoff,
            [scale = amplitude * stencil.peak_voltage, g = std::move(waveform)](double t) { return scale * g(t); })
  {
    using IndexView = Kokkos::View<Index*, memory_space>;
    using Flat = Kokkos::View<Real*, memory_space>;
    rows_ = kernels::upload_flat<IndexView>("dgatd::matched_port_rows", stencil.rows);
    projection_ = kernels::upload_flat<Flat>("dgatd::matched_port_projection", stencil.projection);
    response_rows_ = kernels::upload_flat<IndexView>("dgatd::matched_port_response_rows", stencil.response.rows);
    response_ = kernels::upload_flat<Flat>("dgatd::matched_port_response", stencil.response.weights);
  }

  // Its incident and total modal voltages after each step m = 0..n (0: the initial field).
  PortSeries series() const { return admittance_.series(name_); }
  void add_records(TermRecords& records) const override { records.ports.push_back(series()); }

  std::string name() const override { return "matched_port:" + name_; }
  // The modal voltage's gather (index, projection and u^ per row) and the two scatters of the
  // current (index, response, u^ read and written per response row).
  std::int64_t bytes_per_step() const override
  {
    return static_cast<std::int64_t>(rows_.extent(0)) * (sizeof(Index) + 2 * sizeof(Real)) +
           2 * static_cast<std::int64_t>(response_rows_.extent(0)) * (sizeof(Index) + 3 * sizeof(Real));
  }

  // Each rank holds the port's rows of the blocks it owns: the voltage and the self-coupling are
  // sums over the ranks.
  void distribute(parallel::Communicator const& communicator, Context const& c) override
  {
    communicator_ = &communicator;
    communicator.sum(&self_coupling_, 1);
    admittance_.restart({modal_voltage(c)});
  }

  void set_dt(Context const& c) override { admittance_.set_dt(c.dt); }
  void reset(Context const& c) override { admittance_.restart({modal_voltage(c)}); }

  void correct(Context const& c) override
  {
    scatter_current(c, -c.dt * admittance_.explicit_current());
    double const implicit = admittance_.implicit_weight();
    double const voltage = modal_voltage(c) / (1 + implicit * self_coupling_);
    scatter_current(c, -implicit * voltage);
    admittance_.record(voltage);
  }

  // The voltages V^0..V^n: n + 1 after n steps.
  std::size_t state_size(std::int64_t steps) const override { return static_cast<std::size_t>(steps) + 1; }
  void save(std::vector<double>& state) const override
  {
    state.insert(state.end(), admittance_.voltage().begin(), admittance_.voltage().end());
  }
  void restore(Context const& c, double const* state) override
  {
    admittance_.restart(std::vector<double>(state, state + state_size(c.step)));
  }

private:
  double modal_voltage(Context const& c) const
  {
    double voltage = kernels::sum_over("dgatd::matched_port_voltage", c.space, rows_.extent(0),
                                       kernels::WeightedGather<memory_space>{rows_, projection_, c.fields.u});
    if (communicator_) communicator_->sum(&voltage, 1);
    return voltage;
  }

  void scatter_current(Context const& c, double factor) const
  {
    kernels::for_each("dgatd::matched_port_current", c.space, response_rows_.extent(0),
                      kernels::ScatterAdd<memory_space>{response_rows_, response_, c.fields.u, factor});
  }

  std::string name_;
  parallel::Communicator const* communicator_ = nullptr;
  double self_coupling_;
  PortAdmittance admittance_;
  Kokkos::View<Index*, memory_space> rows_, response_rows_;
  Kokkos::View<Real*, memory_space> projection_, response_;
};

// A matched port called name as a formulation adds it (Formulation::add_term).
inline TermRecipe matched_port_term(std::string const& name, MatchedPortStencil const& stencil, Signal waveform)
{
  return {"matched ports", [name, stencil, waveform](auto const& space) {
            return std::make_unique<MatchedPort<std::decay_t<decltype(space)>>>(name, stencil, 1.0, waveform);
          }};
}

#define DGATD_MATCHED_PORT_INSTANCES(PREFIX, SPACE) PREFIX template class MatchedPort<SPACE>;
DGATD_FOR_EACH_INSTANCE_SPACE(DGATD_MATCHED_PORT_INSTANCES, extern)

} // namespace dgatd::solver
