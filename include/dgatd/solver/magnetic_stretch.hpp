#pragma once
// Faraday's side of the matched layers as a term of the leapfrog, per stretched tet, the trapezoidal
// rule around step n:
//   Mmu (f^(n+1/2) - f^(n-1/2)) / dt + A (f^(n+1/2) + f^(n-1/2)) / 2 + B (phi^(n+1/2) + phi^(n-1/2)) / 2 = -C U^n,
// phi the auxiliary unknowns of each of the tet's four subregions. The tets whose stretch splits
// into scalar modes (all but a few) step in one pass before Faraday (kernels::MagneticModalStep),
// the lossless kernel multiplying by their implicit step matrix (Mmu + dt S' / 2)^-1, which this term
// writes in place of (Mmu)^-1 whenever dt changes: neither f^(n-1/2) kept nor the edge pieces
// written twice. The general form's tets (kernels::MagneticStretchBefore/After): before Faraday
// their f^(n-1/2) is kept; after it the lossless f~ is corrected, phi advances and their edge pieces
// are written again, before any exchange or Ampere reads them. The matrices are built on the host
// (solver/loss_steps.hpp) whenever dt changes; in float32 L, K, S' and the modal tets' directions
// are stored in float where the layer is shifted, as on Ampere's side (solver/losses.hpp says why
// only there), and the step matrix in the lossless kernel's precision: a symmetric rounding of it is
// the exact step of a slightly different Mmu, which keeps the static response's Jordan block whole.

#include "dgatd/instances.hpp"
#include "dgatd/kernels/faraday.hpp"
#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/solver/loss_steps.hpp"
#include "dgatd/solver/term.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dgatd::solver {

template <class ExecutionSpace, class TetLayout = kernels::DefaultTetLayout<ExecutionSpace>>
class MagneticStretch final : public Term<ExecutionSpace, TetLayout> {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using Context = typename Term<ExecutionSpace, TetLayout>::Context;

  explicit MagneticStretch(dga::HostOperators const& host,
                           kernels::MatrixPrecision precision = kernels::MatrixPrecision::float64)
      : layer_(rounded(magnetic_layer(host), precision)), layer_tets_(host.stretched_tets),
        precision_(effective(precision, layer_.shift)),
        tets_(kernels::upload_flat<Kokkos::View<Index*, memory_space>>("dgatd::stretched_tets", layer_.tets)),
        previous_("dgatd::stretched_f_previous", layer_.tets.size()), phi_("dgatd::phi", layer_.tets.size()),
        basis_(kernels::upload_table<48, memory_space>("dgatd::stretched_tet_basis", layer_.basis)),
        one_mode_(layer_.one_mode, "one_mode", precision_, precision, layer_.shift > 0),
        three_modes_(layer_.three_modes, "three_modes", precision_, precision, layer_.shift > 0)
  {
    if (layer_.shift > 0) shift_.p = Kokkos::View<Real* [4], memory_space>("dgatd::shifted_p", layer_.tets.size());
  }

  void set_dt(Context const& c) override
  {
    kernels::rescale_displacements("dgatd::phi_rescale", c.space, phi_, dt_, c.dt);
    auto const m = magnetic_step_matrices(layer_, c.dt);
    advance_ = kernels::upload_table<36, memory_space>("dgatd::phi_advance", m.advance);
    drive_ = kernels::upload_table<18, memory_space>("dgatd::phi_drive", m.drive);
    loss_ = TetMatrices("dgatd::stretched_tet_loss", m.loss, precision_);
    step_inverse_ = TetMatrices("dgatd::stretched_tet_step_inverse", m.step_inverse, precision_);
    coupling_ = kernels::upload_table<18, memory_space>("dgatd::stretched_tet_coupling", m.coupling);
    one_mode_.set_matrices(c, m.one_mode, m.shift_rule, layer_.shift);
    three_modes_.set_matrices(c, m.three_modes, m.shift_rule, layer_.shift);
    shift_.set_rule(layer_.shift, m.shift_rule);
  }

  void reset(Context const& c) override
  {
    Kokkos::deep_copy(phi_, 0.0);
    Kokkos::deep_copy(shift_.p, 0.0);
    one_mode_.reset(c);
    three_modes_.reset(c);
  }

  std::string name() const override { return "layer_magnetic"; }
  // set_dt writes the implicit step of the modal tets into the lossless Faraday matrices.
  bool writes_operators_on_set_dt() const override { return true; }
  // The layer's step matrices replace its tets' Faraday matrices for the coarse dt.
  LocalStepSupport local_step_support() const override { return {true, layer_tets_}; }
  // Per stretched tet of the general form: its index twice, f^ read twice and written once,
  // f^(n-1/2) written and read, L and K (16 each, in the matrices' precision), X (18), the bases
  // (48), phi (24) read and written, the advance (36) and drive (18) matrices, the edge signs and
  // the six edge pieces written; per modal tet its index, f^ read and written, its step matrix (10,
  // in the lossless kernel's precision), S' (10) and W_lv^T n_m (16 per mode) in the matrices'
  // precision, the rule (3 per mode) and four phi per mode read and written; with a shift, each
  // tet's p (4) read and written.
  std::int64_t bytes_per_step() const override
  {
    auto const general = static_cast<std::int64_t>(
        2 * sizeof(Index) + (3 * 4 + 2 * 4 + 18 + 48 + 2 * 24 + 36 + 18 + 6) * sizeof(Real) + sizeof(std::uint32_t));
    return static_cast<std::int64_t>(layer_.tets.size()) * general + loss_.bytes() + step_inverse_.bytes() +
           static_cast<std::int64_t>(2 * shift_.p.size() * sizeof(Real)) + one_mode_.bytes_per_step() +
           three_modes_.bytes_per_step();
  }

  void before_faraday(Context const& c) override
  {
    kernels::for_each("dgatd::phi", c.space, layer_.tets.size(),
                      kernels::MagneticStretchBefore<TetLayout, memory_space>{tets_, c.fields.f, previous_});
    one_mode_.step_fields(c);
    three_modes_.step_fields(c);
  }

  void after_faraday(Context const& c) override
  {
    kernels::with_matrix_scalar(precision_, [&](auto scalar) {
      using Matrix = decltype(scalar);
      kernels::for_each("dgatd::magnetic_stretching", c.space, layer_.tets.size(),
                        kernels::MagneticStretchAfter<TetLayout, memory_space, Matrix>{
                            tets_, c.fields.f, previous_, loss_.template view<Matrix>(),
                            step_inverse_.template view<Matrix>(), coupling_, basis_, phi_, advance_, drive_,
                            c.operators.tet_edge_signs, c.fields.edge_pieces, shift_});
    });
  }

  // phi, 24 per stretched tet of the general form, then one per mode and subregion of the one-mode
  // tets, then of the three-mode tets (less their share of f^(n+1/2), kernels::MagneticModalStep);
  // with a shift then each group's p, four per tet (the modal tets' likewise).
  std::size_t state_size(std::int64_t) const override
  {
    return phi_.size() + one_mode_.phi.size() + three_modes_.phi.size() + shift_.p.size() + one_mode_.shift.p.size() +
           three_modes_.shift.p.size();
  }
  void save(std::vector<double>& state) const override
  {
    kernels::append_rows(phi_, state);
    kernels::append_rows(one_mode_.phi, state);
    kernels::append_rows(three_modes_.phi, state);
    for (auto const* shift : {&shift_, &one_mode_.shift, &three_modes_.shift}) kernels::append_rows(shift->p, state);
  }
  void restore(Context const&, double const* state) override
  {
    kernels::fill_rows(phi_, state);
    state += phi_.size();
    kernels::fill_rows(one_mode_.phi, state);
    state += one_mode_.phi.size();
    kernels::fill_rows(three_modes_.phi, state);
    state += three_modes_.phi.size();
    for (auto const* shift : {&shift_, &one_mode_.shift, &three_modes_.shift}) {
      kernels::fill_rows(shift->p, state);
      state += shift->p.size();
    }
  }
  std::vector<StateRows> state_rows() const override
  {
    std::vector<StateRows> rows{parallel::tet_rows(layer_.tets, phi_.extent(1)),
                                parallel::tet_rows(layer_.one_mode.tets, one_mode_.phi.extent(1)),
                                parallel::tet_rows(layer_.three_modes.tets, three_modes_.phi.extent(1))};
    if (layer_.shift > 0)
      for (auto const& tets : {layer_.tets, layer_.one_mode.tets, layer_.three_modes.tets})
        rows.push_back(parallel::tet_rows(tets, 4));
    return rows;
  }

private:
  using TetMatrices = kernels::MatrixTable<16, memory_space>;

  // The precision of the matrices: float32 only for a shifted layer (solver/losses.hpp says why).
  static kernels::MatrixPrecision effective(kernels::MatrixPrecision precision, double shift)
  {
    return shift > 0 ? precision : kernels::MatrixPrecision::float64;
  }

  // The layer with its modal tets' directions rounded to the matrices' precision, before the
  // implicit steps are built from them (solver/losses.hpp says why).
  static MagneticLayer rounded(MagneticLayer layer, kernels::MatrixPrecision precision)
  {
    auto const matrices = effective(precision, layer.shift);
    for (double& x : layer.one_mode.direction) x = kernels::round_to(matrices, x);
    for (double& x : layer.three_modes.direction) x = kernels::round_to(matrices, x);
    return layer;
  }

  // The tets whose stretch splits into Modes scalar modes (kernels::MagneticModalStep): phi per
  // mode and subregion, W_lv^T n_m, S', the step matrix M = (Mmu + dt S' / 2)^-1 in the lossless
  // kernel's precision and the rule per mode.
  template <int Modes>
  struct Modal {
    Kokkos::View<Index*, memory_space> tets;
    Kokkos::View<Real * [4 * Modes], memory_space> phi;
    kernels::MatrixTable<16 * Modes, memory_space> direction;
    kernels::MatrixTable<10, memory_space> implicit_loss;
    kernels::MatrixPrecision step_precision;
    Kokkos::View<Real * [3 * Modes], memory_space> rule;
    kernels::TetShift<memory_space> shift;
    std::string name;

    Modal(MagneticModalTets<Modes> const& group, std::string const& label, kernels::MatrixPrecision precision,
          kernels::MatrixPrecision lossless_precision, bool shifted)
        : tets(kernels::upload_flat<Kokkos::View<Index*, memory_space>>("dgatd::" + label + "_tets", group.tets)),
          phi("dgatd::" + label + "_phi", group.tets.size()),
          direction("dgatd::" + label + "_tet_direction", group.direction, precision),
          step_precision(lossless_precision), name(label)
    {
      if (shifted) shift.p = Kokkos::View<Real* [4], memory_space>("dgatd::" + label + "_shifted_p", group.tets.size());
    }
    // The new rule, and M in the lossless kernel's rows of these tets; phi and p then hold what
    // the new rule's next pass completes.
    void set_matrices(Context const& c, MagneticModalMatrices const& m, std::array<double, 2> const& shift_rule,
                      double layer_shift)
    {
      auto const previous = rule;
      double const previous_half_drive = shift.half_drive;
      implicit_loss = kernels::MatrixTable<10, memory_space>("dgatd::" + name + "_tet_implicit_loss", m.implicit_loss,
                                                             direction.precision());
      kernels::MatrixTable<10, memory_space> const step("dgatd::" + name + "_tet_step", m.step, step_precision);
      rule = kernels::upload_table<3 * Modes, memory_space>("dgatd::" + name + "_tet_rule", m.rule);
      shift.set_rule(layer_shift, shift_rule);
      kernels::with_matrix_scalar(step_precision, [&](auto scalar) {
        using StepMatrix = decltype(scalar);
        kernels::for_each(
            ("dgatd::" + name + "_step_matrices").c_str(), c.space, tets.extent(0),
            kernels::ReplaceTetRows<TetLayout, memory_space, StepMatrix>{
                tets, step.template view<StepMatrix>(), c.operators.template matrices<StepMatrix>().mu_inverse});
      });
      rebase(c, previous, previous_half_drive);
    }
    void reset(Context const& c) const
    {
      Kokkos::deep_copy(phi, 0.0);
      Kokkos::deep_copy(shift.p, 0.0);
      if (rule.extent(0) == tets.extent(0)) rebase(c, {}, 0.0);
    }
    void rebase(Context const& c, Kokkos::View<Real * [3 * Modes], memory_space> const& from,
                double from_half_drive) const
    {
      kernels::with_matrix_scalar(direction.precision(), [&](auto scalar) {
        using Matrix = decltype(scalar);
        kernels::for_each(("dgatd::" + name + "_rebase").c_str(), c.space, tets.extent(0),
                          kernels::MagneticModalRebase<Modes, TetLayout, memory_space, Matrix>{
                              tets, c.fields.f, direction.template view<Matrix>(), from, rule, phi, shift.p,
                              from_half_drive, shift.half_drive});
      });
    }
    void step_fields(Context const& c) const
    {
      kernels::with_matrix_scalar(direction.precision(), [&](auto scalar) {
        using Matrix = decltype(scalar);
        kernels::with_matrix_scalar(step_precision, [&](auto step_scalar) {
          using StepMatrix = decltype(step_scalar);
          kernels::for_each(("dgatd::magnetic_" + name).c_str(), c.space, tets.extent(0),
                            kernels::MagneticModalStep<Modes, TetLayout, memory_space, Matrix, StepMatrix>{
                                tets, c.fields.f, c.operators.template matrices<StepMatrix>().mu_inverse,
                                implicit_loss.template view<Matrix>(), direction.template view<Matrix>(), rule, phi,
                                shift, c.dt});
        });
      });
    }
    // Its index, f^ read and written, M, S', the directions and rule, phi read and written.
    std::int64_t bytes_per_step() const
    {
      return static_cast<std::int64_t>(tets.extent(0) * 10 * kernels::matrix_scalar_size(step_precision)) +
             implicit_loss.bytes() + direction.bytes() + static_cast<std::int64_t>(2 * shift.p.size() * sizeof(Real)) +
             static_cast<std::int64_t>(tets.extent(0)) *
                 static_cast<std::int64_t>(sizeof(Index) + (2 * 4 + 3 * Modes + 2 * 4 * Modes) * sizeof(Real));
    }
  };

  MagneticLayer layer_;
  std::vector<Index> layer_tets_;
  kernels::MatrixPrecision precision_;
  double dt_ = 0; // the one the general form's auxiliaries are scaled by
  Kokkos::View<Index*, memory_space> tets_;
  Kokkos::View<Real* [4], memory_space> previous_; // f^(n-1/2)
  Kokkos::View<Real* [24], memory_space> phi_;
  Kokkos::View<Real* [48], memory_space> basis_; // W_lv, 3 x 4 per subregion
  Kokkos::View<Real* [36], memory_space> advance_;
  Kokkos::View<Real* [18], memory_space> drive_;    // from a subregion's Cartesian h
  TetMatrices loss_;                                // L
  TetMatrices step_inverse_;                        // K
  Kokkos::View<Real* [18], memory_space> coupling_; // X
  kernels::TetShift<memory_space> shift_;           // the general form's tets' p
  Modal<1> one_mode_;
  Modal<3> three_modes_;
};

#define DGATD_MAGNETIC_STRETCH_INSTANCES(PREFIX, SPACE, LAYOUT) PREFIX template class MagneticStretch<SPACE, LAYOUT>;
DGATD_FOR_EACH_INSTANCE_LAYOUT(DGATD_MAGNETIC_STRETCH_INSTANCES, extern)

} // namespace dgatd::solver
