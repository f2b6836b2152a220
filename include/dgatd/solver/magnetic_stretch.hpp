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
        rank_one_tets_(
            kernels::upload_flat<Kokkos::View<Index*, memory_space>>("dgatd::rank_one_tets", layer_.rank_one_tets)),
        rank_one_previous_("dgatd::rank_one_f_previous", layer_.rank_one_tets.size()),
        rank_one_phi_("dgatd::rank_one_phi", layer_.rank_one_tets.size()),
        rank_one_direction_(
            kernels::upload_table<16, memory_space>("dgatd::rank_one_tet_direction", layer_.rank_one_direction))
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
    rank_one_loss_ = kernels::upload_table<16, memory_space>("dgatd::rank_one_tet_loss", m.rank_one_loss);
    rank_one_step_inverse_ =
        kernels::upload_table<16, memory_space>("dgatd::rank_one_tet_step_inverse", m.rank_one_step_inverse);
    rank_one_rule_ = kernels::upload_table<3, memory_space>("dgatd::rank_one_tet_rule", m.rank_one_rule);
  }

  void reset(Context const&) override
  {
    Kokkos::deep_copy(phi_, 0.0);
    Kokkos::deep_copy(rank_one_phi_, 0.0);
  }

  std::string name() const override { return "layer_magnetic"; }
  // Per stretched tet: its index twice, f^ read twice and written once, f^(n-1/2) written and read,
  // L and K (16 each), X (18), the bases (48), phi (24) read and written, the advance (36) and drive
  // (18) matrices, the edge signs and the six edge pieces written; per rank-one tet the same with
  // W_lv^T n (16) and the rule (3) in place of X, the bases and the rule's matrices, and four phi.
  std::int64_t bytes_per_step() const override
  {
    auto const general = static_cast<std::int64_t>(
        2 * sizeof(Index) + (3 * 4 + 2 * 4 + 2 * 16 + 18 + 48 + 2 * 24 + 36 + 18 + 6) * sizeof(Real) +
        sizeof(std::uint32_t));
    auto const rank_one = static_cast<std::int64_t>(
        2 * sizeof(Index) + (3 * 4 + 2 * 4 + 2 * 16 + 16 + 3 + 2 * 4 + 6) * sizeof(Real) + sizeof(std::uint32_t));
    return static_cast<std::int64_t>(layer_.tets.size()) * general +
           static_cast<std::int64_t>(layer_.rank_one_tets.size()) * rank_one;
  }

  void before_faraday(Context const& c) override
  {
    kernels::for_each("dgatd::phi", c.space, layer_.tets.size(),
                      kernels::MagneticStretchBefore<TetLayout, memory_space>{tets_, c.fields.f, previous_});
    kernels::for_each(
        "dgatd::rank_one_phi", c.space, layer_.rank_one_tets.size(),
        kernels::MagneticStretchBefore<TetLayout, memory_space>{rank_one_tets_, c.fields.f, rank_one_previous_});
  }

  void after_faraday(Context const& c) override
  {
    kernels::for_each("dgatd::magnetic_stretching", c.space, layer_.tets.size(),
                      kernels::MagneticStretchAfter<TetLayout, memory_space>{
                          tets_, c.fields.f, previous_, loss_, step_inverse_, coupling_, basis_, phi_, advance_, drive_,
                          c.operators.tet_edge_signs, c.fields.edge_pieces});
    kernels::for_each("dgatd::magnetic_rank_one", c.space, layer_.rank_one_tets.size(),
                      kernels::MagneticRankOneAfter<TetLayout, memory_space>{
                          rank_one_tets_, c.fields.f, rank_one_previous_, rank_one_loss_, rank_one_step_inverse_,
                          rank_one_direction_, rank_one_rule_, rank_one_phi_, c.operators.tet_edge_signs,
                          c.fields.edge_pieces});
  }

  // phi, 24 per stretched tet of the general form, then 4 per rank-one tet.
  std::size_t state_size(std::int64_t) const override { return phi_.size() + rank_one_phi_.size(); }
  void save(std::vector<double>& state) const override
  {
    kernels::append_rows(phi_, state);
    kernels::append_rows(rank_one_phi_, state);
  }
  void restore(Context const&, double const* state) override
  {
    kernels::fill_rows(phi_, state);
    kernels::fill_rows(rank_one_phi_, state + phi_.size());
  }

private:
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
  // The tets whose stretch is rank one, one phi per subregion (kernels::MagneticRankOneAfter).
  Kokkos::View<Index*, memory_space> rank_one_tets_;
  Kokkos::View<Real* [4], memory_space> rank_one_previous_;
  Kokkos::View<Real* [4], memory_space> rank_one_phi_;
  Kokkos::View<Real* [16], memory_space> rank_one_direction_; // W_lv^T n by local faces, row lv
  Kokkos::View<Real* [16], memory_space> rank_one_loss_;
  Kokkos::View<Real* [16], memory_space> rank_one_step_inverse_;
  Kokkos::View<Real* [3], memory_space> rank_one_rule_;
};

#define DGATD_MAGNETIC_STRETCH_INSTANCES(PREFIX, SPACE)                                                                \
  PREFIX template class MagneticStretch<SPACE, Kokkos::LayoutLeft>;                                                    \
  PREFIX template class MagneticStretch<SPACE, Kokkos::LayoutRight>;
DGATD_FOR_EACH_INSTANCE_SPACE(DGATD_MAGNETIC_STRETCH_INSTANCES, extern)

} // namespace dgatd::solver
