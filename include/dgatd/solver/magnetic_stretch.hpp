#pragma once
// Faraday's side of the matched layers as a term of the leapfrog, per stretched tet
// (kernels::MagneticStretchBefore/After), the trapezoidal rule around step n:
//   Mmu (f^(n+1/2) - f^(n-1/2)) / dt + A (f^(n+1/2) + f^(n-1/2)) / 2 + B (phi^(n+1/2) + phi^(n-1/2)) / 2 = -C U^n,
// phi the six auxiliary unknowns of each of the tet's four subregions. Before Faraday the tets'
// f^(n-1/2) is kept; after it the lossless f~ is corrected, phi advances and the tets' edge pieces
// are written again, before any exchange or Ampere reads them. The matrices are built on the host
// (solver/loss_steps.hpp) whenever dt changes.

#include "dgatd/instances.hpp"
#include "dgatd/kernels/faraday.hpp"
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

  explicit MagneticStretch(dga::HostOperators const& host)
      : layer_(magnetic_layer(host)),
        tets_(kernels::upload_flat<Kokkos::View<Index*, memory_space>>("dgatd::stretched_tets", layer_.tets)),
        previous_("dgatd::stretched_f_previous", layer_.tets.size()), phi_("dgatd::phi", layer_.tets.size()),
        basis_(kernels::upload_table<48, memory_space>("dgatd::stretched_tet_basis", layer_.basis)),
        one_mode_(layer_.one_mode, "one_mode"), three_modes_(layer_.three_modes, "three_modes")
  {
  }

  void set_dt(Context const& c) override
  {
    auto const m = magnetic_step_matrices(layer_, c.dt);
    advance_ = kernels::upload_table<36, memory_space>("dgatd::phi_advance", m.advance);
    drive_ = kernels::upload_table<18, memory_space>("dgatd::phi_drive", m.drive);
    loss_ = kernels::upload_table<16, memory_space>("dgatd::stretched_tet_loss", m.loss);
    step_inverse_ = kernels::upload_table<16, memory_space>("dgatd::stretched_tet_step_inverse", m.step_inverse);
    coupling_ = kernels::upload_table<18, memory_space>("dgatd::stretched_tet_coupling", m.coupling);
    one_mode_.set_matrices(m.one_mode);
    three_modes_.set_matrices(m.three_modes);
  }

  void reset(Context const&) override
  {
    Kokkos::deep_copy(phi_, 0.0);
    Kokkos::deep_copy(one_mode_.phi, 0.0);
    Kokkos::deep_copy(three_modes_.phi, 0.0);
  }

  std::string name() const override { return "layer_magnetic"; }
  // Per stretched tet: its index twice, f^ read twice and written once, f^(n-1/2) written and read,
  // L and K (16 each), X (18), the bases (48), phi (24) read and written, the advance (36) and drive
  // (18) matrices, the edge signs and the six edge pieces written; per modal tet the same with
  // W_lv^T n_m (16 per mode) and the rule (3 per mode) in place of X, the bases and the rule's
  // matrices, and four phi per mode.
  std::int64_t bytes_per_step() const override
  {
    auto const general = static_cast<std::int64_t>(
        2 * sizeof(Index) + (3 * 4 + 2 * 4 + 2 * 16 + 18 + 48 + 2 * 24 + 36 + 18 + 6) * sizeof(Real) +
        sizeof(std::uint32_t));
    return static_cast<std::int64_t>(layer_.tets.size()) * general + one_mode_.bytes_per_step() +
           three_modes_.bytes_per_step();
  }

  void before_faraday(Context const& c) override
  {
    kernels::for_each("dgatd::phi", c.space, layer_.tets.size(),
                      kernels::MagneticStretchBefore<TetLayout, memory_space>{tets_, c.fields.f, previous_});
    one_mode_.before(c);
    three_modes_.before(c);
  }

  void after_faraday(Context const& c) override
  {
    kernels::for_each("dgatd::magnetic_stretching", c.space, layer_.tets.size(),
                      kernels::MagneticStretchAfter<TetLayout, memory_space>{
                          tets_, c.fields.f, previous_, loss_, step_inverse_, coupling_, basis_, phi_, advance_, drive_,
                          c.operators.tet_edge_signs, c.fields.edge_pieces});
    one_mode_.after(c);
    three_modes_.after(c);
  }

  // phi, 24 per stretched tet of the general form, then one per mode and subregion of the one-mode
  // tets, then of the three-mode tets.
  std::size_t state_size(std::int64_t) const override
  {
    return phi_.size() + one_mode_.phi.size() + three_modes_.phi.size();
  }
  void save(std::vector<double>& state) const override
  {
    kernels::append_rows(phi_, state);
    kernels::append_rows(one_mode_.phi, state);
    kernels::append_rows(three_modes_.phi, state);
  }
  void restore(Context const&, double const* state) override
  {
    kernels::fill_rows(phi_, state);
    kernels::fill_rows(one_mode_.phi, state + phi_.size());
    kernels::fill_rows(three_modes_.phi, state + phi_.size() + one_mode_.phi.size());
  }
  std::vector<TetRows> state_rows() const override
  {
    return {{layer_.tets, phi_.extent(1)},
            {layer_.one_mode.tets, one_mode_.phi.extent(1)},
            {layer_.three_modes.tets, three_modes_.phi.extent(1)}};
  }

private:
  // The tets whose stretch splits into Modes scalar modes (kernels::MagneticModalAfter): their
  // f^(n-1/2), phi per mode and subregion, W_lv^T n_m, L, K and the rule per mode.
  template <int Modes>
  struct Modal {
    Kokkos::View<Index*, memory_space> tets;
    Kokkos::View<Real* [4], memory_space> previous;
    Kokkos::View<Real * [4 * Modes], memory_space> phi;
    Kokkos::View<Real * [16 * Modes], memory_space> direction;
    Kokkos::View<Real*[16], memory_space> loss, step_inverse;
    Kokkos::View<Real * [3 * Modes], memory_space> rule;
    std::string name;

    Modal(MagneticModalTets<Modes> const& group, std::string const& label)
        : tets(kernels::upload_flat<Kokkos::View<Index*, memory_space>>("dgatd::" + label + "_tets", group.tets)),
          previous("dgatd::" + label + "_f_previous", group.tets.size()),
          phi("dgatd::" + label + "_phi", group.tets.size()),
          direction(
              kernels::upload_table<16 * Modes, memory_space>("dgatd::" + label + "_tet_direction", group.direction)),
          name(label)
    {
    }
    void set_matrices(MagneticModalMatrices const& m)
    {
      loss = kernels::upload_table<16, memory_space>("dgatd::" + name + "_tet_loss", m.loss);
      step_inverse = kernels::upload_table<16, memory_space>("dgatd::" + name + "_tet_step_inverse", m.step_inverse);
      rule = kernels::upload_table<3 * Modes, memory_space>("dgatd::" + name + "_tet_rule", m.rule);
    }
    void before(Context const& c) const
    {
      kernels::for_each(("dgatd::" + name + "_phi").c_str(), c.space, tets.extent(0),
                        kernels::MagneticStretchBefore<TetLayout, memory_space>{tets, c.fields.f, previous});
    }
    void after(Context const& c) const
    {
      kernels::for_each(("dgatd::magnetic_" + name).c_str(), c.space, tets.extent(0),
                        kernels::MagneticModalAfter<Modes, TetLayout, memory_space>{
                            tets, c.fields.f, previous, loss, step_inverse, direction, rule, phi,
                            c.operators.tet_edge_signs, c.fields.edge_pieces});
    }
    // Its index twice, f^ read twice and written once, f^(n-1/2) written and read, L and K, the
    // directions and rule, phi read and written, the edge signs and the six edge pieces written.
    std::int64_t bytes_per_step() const
    {
      return static_cast<std::int64_t>(tets.extent(0)) *
             static_cast<std::int64_t>(2 * sizeof(Index) +
                                       (3 * 4 + 2 * 4 + 2 * 16 + 16 * Modes + 3 * Modes + 2 * 4 * Modes + 6) *
                                           sizeof(Real) +
                                       sizeof(std::uint32_t));
    }
  };

  MagneticLayer layer_;
  Kokkos::View<Index*, memory_space> tets_;
  Kokkos::View<Real* [4], memory_space> previous_; // f^(n-1/2)
  Kokkos::View<Real* [24], memory_space> phi_;
  Kokkos::View<Real* [48], memory_space> basis_; // W_lv, 3 x 4 per subregion
  Kokkos::View<Real* [36], memory_space> advance_;
  Kokkos::View<Real* [18], memory_space> drive_;        // from a subregion's Cartesian h
  Kokkos::View<Real* [16], memory_space> loss_;         // L
  Kokkos::View<Real* [16], memory_space> step_inverse_; // K
  Kokkos::View<Real* [18], memory_space> coupling_;     // X
  Modal<1> one_mode_;
  Modal<3> three_modes_;
};

#define DGATD_MAGNETIC_STRETCH_INSTANCES(PREFIX, SPACE)                                                                \
  PREFIX template class MagneticStretch<SPACE, Kokkos::LayoutLeft>;                                                    \
  PREFIX template class MagneticStretch<SPACE, Kokkos::LayoutRight>;
DGATD_FOR_EACH_INSTANCE_SPACE(DGATD_MAGNETIC_STRETCH_INSTANCES, extern)

} // namespace dgatd::solver
