#pragma once
// The two formulations behind solver::Formulation, on one execution space: the fractioned leapfrog
// and the assembled SpMV baseline, with their probes recorded on the device.

#include "dgatd/dga/assembled.hpp"
#include "dgatd/dga/operators.hpp"
#include "dgatd/instances.hpp"
#include "dgatd/kernels/assembled.hpp"
#include "dgatd/mesh/topology.hpp"
#include "dgatd/parallel/term_states.hpp"
#include "dgatd/solver/current_source.hpp"
#include "dgatd/solver/formulation.hpp"
#include "dgatd/solver/halo_exchange.hpp"
#include "dgatd/solver/leapfrog.hpp"
#include "dgatd/solver/prescribed_field.hpp"
#include "dgatd/solver/probes.hpp"
#include "dgatd/solver/stability.hpp"
#include "dgatd/solver/stencils.hpp"
#include "dgatd/solver/term_recipe.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dgatd::solver {

// What the two formulations do alike around their leapfrog (Leapfrog: FractionedLeapfrog or
// kernels::AssembledLeapfrog, both with set_dt, steps, step, state and set_state).
template <class ExecutionSpace, class Leapfrog, FormulationKind Kind>
class LeapfrogFormulation : public Formulation {
public:
  Leapfrog& leapfrog() { return leapfrog_; }

  FormulationKind kind() const override { return Kind; }
  void set_dt(double dt) override { leapfrog_.set_dt(dt); }
  std::int64_t steps() const override { return leapfrog_.steps(); }
  void set_probes(std::vector<ProbeStencil> const& probes) override
  {
    probes_ = ProbeRecorder<ExecutionSpace>(space_, probes, topology_, layout_);
  }
  void step() override { leapfrog_.step(); }
  FormulationState state() const override
  {
    FormulationState s;
    s.kind = Kind;
    s.step = leapfrog_.steps();
    leapfrog_.state(s.e_unknowns, s.h_unknowns);
    return s;
  }
  void restore(FormulationState const& s) override { leapfrog_.set_state(s.e_unknowns, s.h_unknowns, s.step); }

protected:
  template <class... LeapfrogArguments>
  LeapfrogFormulation(ExecutionSpace const& space, mesh::Topology const& topology, dga::DofLayout const& layout,
                      LeapfrogArguments&&... arguments)
      : space_(space), topology_(topology), layout_(layout),
        leapfrog_(space, std::forward<LeapfrogArguments>(arguments)...)
  {
  }

  ExecutionSpace space_;
  mesh::Topology const& topology_;
  dga::DofLayout const& layout_;
  Leapfrog leapfrog_;
  ProbeRecorder<ExecutionSpace> probes_;
};

// FieldScalar float: single precision, which steps lossless problems with their current sources,
// prescribed values and probes in one process; the simulation refuses the rest before it gets here.
// held: the operators' terms a run over ranks holds on every part (OperatorTermsHeld).
template <class ExecutionSpace, class FieldScalar = Real>
class FractionedFormulation final
    : public LeapfrogFormulation<
          ExecutionSpace, FractionedLeapfrog<ExecutionSpace, kernels::DefaultTetLayout<ExecutionSpace>, FieldScalar>,
          FormulationKind::fractioned> {
  using Layout = kernels::DefaultTetLayout<ExecutionSpace>;
  using Leapfrog = FractionedLeapfrog<ExecutionSpace, Layout, FieldScalar>;
  using Base = LeapfrogFormulation<ExecutionSpace, Leapfrog, FormulationKind::fractioned>;
  static constexpr bool single = std::is_same_v<FieldScalar, float>;

public:
  FractionedFormulation(ExecutionSpace const& space, mesh::Topology const& topology, dga::HostOperators const& host,
                        kernels::AmpereBlockPass block_pass = kernels::default_block_pass<ExecutionSpace>(),
                        kernels::MatrixPrecision matrix_precision = kernels::MatrixPrecision::float64,
                        OperatorTermsHeld const& held = {})
      : Base(space, topology, host.layout, host, block_pass, matrix_precision, held)
  {
  }

  StabilityBound estimate_stability() override { return this->leapfrog_.estimate_stability(); }
  void add_current_source(CurrentStencil const& stencil, Signal waveform) override
  {
    this->leapfrog_.add_term(
        std::make_unique<CurrentSource<ExecutionSpace, Layout, FieldScalar>>(stencil, 1.0, std::move(waveform)));
  }
  void add_prescribed(PrescribedStencil const& stencil, Signal waveform) override
  {
    this->leapfrog_.add_term(
        std::make_unique<PrescribedField<ExecutionSpace, Layout, FieldScalar>>(stencil, 1.0, std::move(waveform)));
  }
  void add_term(TermRecipe const& recipe) override
  {
    if constexpr (single)
      throw std::logic_error("single precision takes no " + recipe.name());
    else
      this->leapfrog_.add_term(recipe.make(this->space_));
  }
  // The terms settle first: a far field adds the last step's e once u is whole.
  TermRecords records() const override
  {
    this->leapfrog_.settle_terms();
    return this->leapfrog_.terms().records();
  }
  TermSnapshots snapshots() const override
  {
    this->leapfrog_.settle_terms();
    return this->leapfrog_.terms().snapshots();
  }
  FormulationState state() const override
  {
    FormulationState s = Base::state();
    s.auxiliary = this->leapfrog_.terms().save();
    return distribution_.communicator ? whole_state(s) : s;
  }
  bool accepts(FormulationState const& s) const override
  {
    auto const& ops = this->leapfrog_.operators();
    auto const& d = distribution_;
    auto const unknowns = d.communicator ? d.global_unknowns : ops.num_unknowns;
    auto const tets = d.communicator ? d.global_tets : ops.num_tets;
    bool const fits =
        s.kind == FormulationKind::fractioned && s.step >= 0 &&
        s.e_unknowns.size() == static_cast<std::size_t>(unknowns) &&
        s.h_unknowns.size() == 4 * static_cast<std::size_t>(tets) &&
        s.auxiliary.size() == (d.communicator ? term_states_.whole_size(this->leapfrog_.terms().states(s.step))
                                              : this->leapfrog_.terms().state_size(s.step));
    if (!d.communicator) return fits;
    return d.communicator->max(d.communicator->rank() == 0 && !fits ? 1 : 0) == 0;
  }
  // Over several ranks every local unknown and tet, halo ones included, takes its global value from
  // rank 0, so the parts agree without an exchange.
  void restore(FormulationState const& s) override
  {
    auto const& d = distribution_;
    if (!d.communicator) {
      Base::restore(s);
      this->leapfrog_.restore_terms(s.auxiliary);
      return;
    }
    this->leapfrog_.set_state(parallel::from_root(*d.communicator, s.e_unknowns, d.unknown_global, 0),
                              parallel::from_root(*d.communicator, s.h_unknowns, d.tet_global, 0, 4), s.step);
    this->leapfrog_.restore_terms(
        term_states_.scatter(*d.communicator, s.auxiliary, this->leapfrog_.terms().states(s.step)));
  }
  bool has_energy() const override { return true; }
  double step_with_energy() override { return this->leapfrog_.step_with_energy(); }
  std::vector<Index> local_step_coarse_tets() const override { return this->leapfrog_.local_step_coarse_tets(); }
  bool local_step_drives_currents() const override { return this->leapfrog_.local_step_drives_currents(); }
  std::vector<Index> local_step_current_rows() const override { return this->leapfrog_.local_step_current_rows(); }
  bool local_step_currents_solvable() const override { return this->leapfrog_.local_step_currents_solvable(); }
  bool local_step_currents_solved() override { return this->leapfrog_.local_step_currents_solved(); }
  // One level is the leapfrog itself, its Faraday pass over all tets rather than the levels' lists.
  void set_local_steps(LocalStepPlan const& plan) override
  {
    if (plan.levels.size() > 1)
      this->leapfrog_.set_local_steps(plan);
    else
      this->leapfrog_.clear_local_steps();
  }
  LocalStepSpectrum local_step_spectrum(double dt, double tolerance, double margin) const override
  {
    auto const* local = this->leapfrog_.local_steps();
    if (!local) throw std::logic_error("the formulation has no local steps");
    this->leapfrog_.settle_terms();
    return local->spectrum(this->space_, this->leapfrog_.operators(), dt, max_local_spectrum_iterations, tolerance,
                           margin);
  }
  // A rank that reads a probe finishes the step's halo exchange first; the others read zeros.
  void record_probes() override
  {
    if (reads_probes_) this->leapfrog_.settle_terms();
    this->probes_.record(this->leapfrog_.fields());
  }
  void set_probes(std::vector<ProbeStencil> const& probes) override
  {
    Base::set_probes(probes);
    reads_probes_ = false;
    for (auto const& probe : probes)
      for (int k = 0; k < 12; ++k) reads_probes_ = reads_probes_ || norm(probe.w[k]) > 0 || norm(probe.w_dual[k]) > 0;
  }

  void distribute(Distribution distribution) override
  {
    if constexpr (single) {
      throw std::logic_error("single precision runs in one process");
    } else {
      distribution_ = std::move(distribution);
      auto& d = distribution_;
      auto exchange = std::make_unique<HaloExchange<ExecutionSpace, Layout>>(d.communicator, d.halo, d.overlap_halo,
                                                                             this->leapfrog_.operators().num_tets);
      halo_ = exchange.get();
      this->leapfrog_.distribute(d.communicator, d.owned_blocks, d.owned_tets, std::move(d.lanczos_start),
                                 std::move(exchange));
      term_states_ = parallel::TermStatesOverRanks(*d.communicator,
                                                   {d.owned_tets, d.tet_global, d.owned_tet_vertices, d.global_tets},
                                                   this->leapfrog_.terms().states(0));
    }
  }
  HaloStatistics halo() const override
  {
    if (!halo_) return {};
    HaloStatistics statistics{halo_->values_sent(), halo_->seconds(), to_string(halo_->buffers()),
                              halo_->share_after_exchange()};
    // Level k >= 1 (subset k) has 2^(k-1) middle steps per coarse step.
    for (std::size_t k = 1; k <= halo_->subsets(); ++k)
      statistics.local_step_values_sent += halo_->values_sent(k) << (k - 1);
    return statistics;
  }
  // A probe reads zero on every rank but the one that holds it.
  ProbeSamples take_probe_samples() override
  {
    auto samples = this->probes_.take_samples();
    if (!distribution_.communicator) return samples;
    auto values = samples.values();
    distribution_.communicator->sum(values.data(), values.size());
    return ProbeSamples(samples.probes(), std::move(values));
  }
  SharedFields shared_fields() const override
  {
    auto const local = part_fields();
    auto const& d = distribution_;
    if (!d.communicator) return local;
    return {
        parallel::gather_owned(*d.communicator, local.edge_circulations, d.owned_edge_global, {}, d.global_edges, 0),
        parallel::gather_owned(*d.communicator, local.face_circulations, d.owned_face_global, {}, d.global_faces, 0)};
  }
  SharedFields part_fields() const override
  {
    std::vector<double> u, f;
    this->leapfrog_.state(u, f);
    return {dga::sum_to_edges(this->topology_, this->layout_, u), dga::sum_to_faces(this->topology_, f)};
  }

private:
  static constexpr int max_local_spectrum_iterations = 400;

  // The state of the whole problem in its numbering, on rank 0 from what each rank owns: the
  // unknowns, f^ per tet and the terms' state (parallel::TermStatesOverRanks). The other ranks'
  // state holds no arrays.
  FormulationState whole_state(FormulationState local) const
  {
    auto const& d = distribution_;
    FormulationState whole = local;
    whole.e_unknowns = parallel::gather_owned(*d.communicator, local.e_unknowns, d.unknown_global, d.owned_unknowns,
                                              d.global_unknowns, 0);
    whole.h_unknowns =
        parallel::gather_owned(*d.communicator, local.h_unknowns, d.tet_global, d.owned_tets, d.global_tets, 0, 4);
    whole.auxiliary = term_states_.gather(*d.communicator, local.auxiliary, this->leapfrog_.terms().states(local.step));
    return whole;
  }

  HaloExchange<ExecutionSpace, Layout> const* halo_ = nullptr;
  Distribution distribution_;
  parallel::TermStatesOverRanks term_states_;
  bool reads_probes_ = false;
};

template <class ExecutionSpace>
class AssembledFormulation final
    : public LeapfrogFormulation<ExecutionSpace, kernels::AssembledLeapfrog<ExecutionSpace>,
                                 FormulationKind::assembled> {
  using Base =
      LeapfrogFormulation<ExecutionSpace, kernels::AssembledLeapfrog<ExecutionSpace>, FormulationKind::assembled>;

public:
  AssembledFormulation(ExecutionSpace const& space, mesh::Topology const& topology, dga::HostOperators const& host)
      : Base(space, topology, host.layout, dga::assemble_global(topology, host)), host_(host)
  {
  }

  // The assembled unknowns lack the half-edge mass matrices of the Meps inner product, so the bound
  // is the fractioned operator's (the same spectrum), uploaded for the estimate alone.
  StabilityBound estimate_stability() override
  {
    return solver::estimate_stability(this->space_, kernels::upload<ExecutionSpace>(host_));
  }

  void add_current_source(CurrentStencil const& stencil, Signal waveform) override
  {
    this->leapfrog_.add_current_source(
        dga::half_edge_rows_to_edges(this->topology_, this->layout_, stencil.rows, stencil.weights), 1.0,
        std::move(waveform));
  }
  // A port's two half-edges carry half the edge's circulation each: the edge gets their sum.
  void add_prescribed(PrescribedStencil const& stencil, Signal waveform) override
  {
    auto const per_edge = dga::half_edge_rows_to_edges(this->topology_, this->layout_, stencil.dofs, stencil.weights);
    std::vector<Index> edges;
    std::vector<double> weights;
    for (std::size_t e = 0; e < per_edge.size(); ++e)
      if (per_edge[e] != 0) {
        edges.push_back(static_cast<Index>(e));
        weights.push_back(per_edge[e]);
      }
    this->leapfrog_.add_prescribed(edges, weights, 1.0, std::move(waveform));
  }
  void add_term(TermRecipe const& recipe) override
  {
    throw std::logic_error("the assembled formulation takes no " + recipe.name());
  }
  TermRecords records() const override { return {}; }
  bool accepts(FormulationState const& s) const override
  {
    return s.kind == FormulationKind::assembled && s.step >= 0 &&
           s.e_unknowns.size() == static_cast<std::size_t>(this->topology_.num_edges()) &&
           s.h_unknowns.size() == static_cast<std::size_t>(this->topology_.num_faces()) && s.auxiliary.empty();
  }
  ProbeSamples take_probe_samples() override { return this->probes_.take_samples(); }
  bool has_energy() const override { return false; }
  double step_with_energy() override { throw std::logic_error("the assembled formulation has no energy"); }
  void distribute(Distribution) override
  {
    throw std::logic_error("the assembled formulation does not run over several ranks");
  }
  void record_probes() override
  {
    this->probes_.record(this->leapfrog_.edge_circulations(), this->leapfrog_.face_circulations());
  }
  SharedFields shared_fields() const override
  {
    SharedFields fields;
    this->leapfrog_.state(fields.edge_circulations, fields.face_circulations);
    return fields;
  }

private:
  dga::HostOperators const& host_;
};

// matrix_precision, field_precision: the fractioned step's local matrices and fields (the assembled
// baseline is double); float fields take float matrices (single precision). local_steps: the
// fractioned operators keep full block inverses, which the levels' passes multiply (LocalSteps).
template <class ExecutionSpace>
std::unique_ptr<Formulation>
make_formulation(FormulationKind kind, ExecutionSpace const& space, mesh::Topology const& topology,
                 dga::HostOperators const& host, kernels::MatrixPrecision matrix_precision,
                 kernels::FieldPrecision field_precision = kernels::FieldPrecision::float64,
                 OperatorTermsHeld const& held = {}, bool local_steps = false)
{
  if (kind == FormulationKind::assembled)
    return std::make_unique<AssembledFormulation<ExecutionSpace>>(space, topology, host);
  auto const block_pass =
      local_steps ? kernels::AmpereBlockPass::columns : kernels::default_block_pass<ExecutionSpace>();
  if (field_precision == kernels::FieldPrecision::float32)
    return std::make_unique<FractionedFormulation<ExecutionSpace, float>>(space, topology, host, block_pass,
                                                                          matrix_precision, held);
  return std::make_unique<FractionedFormulation<ExecutionSpace>>(space, topology, host, block_pass, matrix_precision,
                                                                 held);
}

#define DGATD_FORMULATION_INSTANCES(PREFIX, SPACE)                                                                     \
  PREFIX template class LeapfrogFormulation<SPACE, FractionedLeapfrog<SPACE>, FormulationKind::fractioned>;            \
  PREFIX template class LeapfrogFormulation<SPACE, kernels::AssembledLeapfrog<SPACE>, FormulationKind::assembled>;     \
  PREFIX template class LeapfrogFormulation<SPACE, FractionedLeapfrog<SPACE, kernels::DefaultTetLayout<SPACE>, float>, \
                                            FormulationKind::fractioned>;                                              \
  PREFIX template class FractionedFormulation<SPACE>;                                                                  \
  PREFIX template class FractionedFormulation<SPACE, float>;                                                           \
  PREFIX template class AssembledFormulation<SPACE>;                                                                   \
  PREFIX template std::unique_ptr<Formulation> make_formulation(                                                       \
      FormulationKind, SPACE const&, mesh::Topology const&, dga::HostOperators const&, kernels::MatrixPrecision,       \
      kernels::FieldPrecision, OperatorTermsHeld const&, bool);
DGATD_FOR_EACH_INSTANCE_SPACE(DGATD_FORMULATION_INSTANCES, extern)

} // namespace dgatd::solver
