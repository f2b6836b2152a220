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
        previous_("dgatd::stretched_f_previous", layer_.tets.size()), phi_("dgatd::phi", layer_.tets.size())
  {
  }

  void set_dt(Context const& c) override
  {
    auto const m = magnetic_step_matrices(layer_, c.dt);
    advance_ = kernels::upload_table<36, memory_space>("dgatd::phi_advance", m.advance);
    drive_ = kernels::upload_table<96, memory_space>("dgatd::phi_drive", m.drive);
    loss_ = kernels::upload_table<16, memory_space>("dgatd::stretched_tet_loss", m.loss);
    coupling_ = kernels::upload_table<96, memory_space>("dgatd::stretched_tet_coupling", m.coupling);
  }

  void reset(Context const&) override { Kokkos::deep_copy(phi_, 0.0); }

  std::string name() const override { return "layer_magnetic"; }
  // Per stretched tet: its index twice, f^ read twice and written once, f^(n-1/2) written and read,
  // L (16), Q (96), phi (24) read and written, the advance (36) and drive (96) matrices, the edge
  // signs and the six edge pieces written.
  std::int64_t bytes_per_step() const override
  {
    return static_cast<std::int64_t>(layer_.tets.size()) *
           static_cast<std::int64_t>(2 * sizeof(Index) +
                                     (3 * 4 + 2 * 4 + 16 + 96 + 2 * 24 + 36 + 96 + 6) * sizeof(Real) +
                                     sizeof(std::uint32_t));
  }

  void before_faraday(Context const& c) override
  {
    kernels::for_each("dgatd::phi", c.space, layer_.tets.size(),
                      kernels::MagneticStretchBefore<TetLayout, memory_space>{tets_, c.fields.f, previous_});
  }

  void after_faraday(Context const& c) override
  {
    kernels::for_each("dgatd::magnetic_stretching", c.space, layer_.tets.size(),
                      kernels::MagneticStretchAfter<TetLayout, memory_space>{
                          tets_, c.fields.f, previous_, loss_, coupling_, phi_, advance_, drive_,
                          c.operators.tet_edge_signs, c.fields.edge_pieces});
  }

  // phi, 24 per stretched tet.
  std::size_t state_size(std::int64_t) const override { return phi_.size(); }
  void save(std::vector<double>& state) const override { kernels::append_rows(phi_, state); }
  void restore(Context const&, double const* state) override { kernels::fill_rows(phi_, state); }

private:
  MagneticLayer layer_;
  Kokkos::View<Index*, memory_space> tets_;
  Kokkos::View<Real* [4], memory_space> previous_; // f^(n-1/2)
  Kokkos::View<Real* [24], memory_space> phi_;
  Kokkos::View<Real* [36], memory_space> advance_;
  Kokkos::View<Real* [96], memory_space> drive_;    // per subregion 6 x 4, from the tet's f^
  Kokkos::View<Real* [16], memory_space> loss_;     // L
  Kokkos::View<Real* [96], memory_space> coupling_; // Q
};

#define DGATD_MAGNETIC_STRETCH_INSTANCES(PREFIX, SPACE)                                                                \
  PREFIX template class MagneticStretch<SPACE, Kokkos::LayoutLeft>;                                                    \
  PREFIX template class MagneticStretch<SPACE, Kokkos::LayoutRight>;
DGATD_FOR_EACH_INSTANCE_SPACE(DGATD_MAGNETIC_STRETCH_INSTANCES, extern)

} // namespace dgatd::solver
