#pragma once
// Losses in Ampere's law as a term of the leapfrog: conductivity, absorbing surfaces and the
// electric side of the matched layers, time-averaged (semi-implicit):
//   Meps (u^(n+1) - u^n) / dt + S (u^(n+1) + u^n) / 2 + sum_r B_r (psi_r^(n+1) + psi_r^n) / 2 = C~ f^(n+1/2) - I,
// B_r the coupling of stretched subregion r to its auxiliary unknowns psi_r = [z; z'], which follow
// psi' = M psi + [0; W u^_r] (z'' + S z' + P z = e) by the same trapezoidal rule,
// psi^(n+1) = A psi^n + D (u^n + u^(n+1)) / 2, A = (I - dt M / 2)^-1 (I + dt M / 2),
// D = dt (I - dt M / 2)^-1 [0; W] (explicit psi^n in the force made fast layers unstable).
// Eliminating psi^(n+1) leaves S' = S + sum_r B_r D_r / 2 and the force g = sum_r B_r (I + A_r) / 2 psi_r^n;
// with u~ = u^n + dt Meps^-1 (C~ f - I), the lossless update the core and the explicit terms make,
//   u^(n+1) = u~ - L (u~ + u^n) - K g,   K = (Meps / dt + S' / 2)^-1,   L = K S' / 2,
// per lossy dual block (S' is block-diagonal like Meps), so lossless blocks cost nothing. A, D and
// the coupling B_r = W_r^T X (X = c |t|/4 [R0 | R1] diag(scale)) depend on the tet only, so a
// stretched tet's four subregions are stepped together and share them; each keeps its W_r. For any
// S >= 0 (no layers) the energy cannot grow at the lossless time step (docs/open_regions.md).
// The matrices are built on the host (solver/loss_steps.hpp) whenever dt changes.

#include "dgatd/instances.hpp"
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
class Losses final : public Term<ExecutionSpace, TetLayout> {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using Context = typename Term<ExecutionSpace, TetLayout>::Context;

  explicit Losses(dga::HostOperators const& host) : lossy_(lossy_rows(host))
  {
    rows_ = kernels::upload_flat<IndexView>("dgatd::loss_rows", lossy_.rows);
    block_first_ = kernels::upload_flat<IndexView>("dgatd::loss_block_first", lossy_.block_first);
    block_size_ = kernels::upload_flat<IndexView>("dgatd::loss_block_size", lossy_.block_size);
    matrix_row_ =
        kernels::upload_flat<Kokkos::View<std::int64_t*, memory_space>>("dgatd::loss_matrix_row", lossy_.matrix_row);
    sum_ = Kokkos::View<Real*, memory_space>("dgatd::loss_sum", lossy_.rows.size());
    if (!with_layers()) return;
    force_ = Kokkos::View<Real*, memory_space>("dgatd::stretch_force", lossy_.rows.size());
    std::size_t const n = lossy_.subregions.size(), ones = lossy_.rank_one_subregions.size();
    psi_ = Kokkos::View<Real* [24], memory_space>("dgatd::psi", n / 4);
    psi_previous_ = Kokkos::View<Real* [12], memory_space>("dgatd::psi_u_previous", n / 4);
    subregion_unknowns_ = upload_indices("dgatd::stretched_unknowns", lossy_.subregions, &Subregion::unknowns);
    subregion_rows_ = upload_indices("dgatd::stretched_rows", lossy_.subregions, &Subregion::lossy_rows);
    std::vector<double> basis, direction;
    for (auto const& subregion : lossy_.subregions)
      basis.insert(basis.end(), subregion.basis.begin(), subregion.basis.end());
    subregion_basis_ = kernels::upload_table<36, memory_space>("dgatd::stretched_basis", basis);
    q_ = Kokkos::View<Real* [4], memory_space>("dgatd::q", ones / 4);
    q_previous_ = Kokkos::View<Real* [12], memory_space>("dgatd::q_u_previous", ones / 4);
    rank_one_unknowns_ =
        upload_indices("dgatd::rank_one_unknowns", lossy_.rank_one_subregions, &RankOneSubregion::unknowns);
    rank_one_rows_ = upload_indices("dgatd::rank_one_rows", lossy_.rank_one_subregions, &RankOneSubregion::lossy_rows);
    for (auto const& subregion : lossy_.rank_one_subregions)
      direction.insert(direction.end(), subregion.direction.begin(), subregion.direction.end());
    rank_one_direction_ = kernels::upload_table<12, memory_space>("dgatd::rank_one_direction", direction);
    // Each lossy row's pieces of force (kernels::GatherForce), subregion by subregion: the general
    // tets' at 3 s + r, then the rank-one tets' at 3 (n + s) + r.
    std::vector<Index> offsets(lossy_.rows.size() + 1, 0);
    auto count = [&](auto const& subregions) {
      for (auto const& subregion : subregions)
        for (Index const row : subregion.lossy_rows)
          if (row >= 0) ++offsets[static_cast<std::size_t>(row) + 1];
    };
    count(lossy_.subregions);
    count(lossy_.rank_one_subregions);
    for (std::size_t r = 0; r < lossy_.rows.size(); ++r) offsets[r + 1] += offsets[r];
    std::vector<Index> pieces_of_row(static_cast<std::size_t>(offsets.back()));
    std::vector<Index> next(offsets.begin(), offsets.end() - 1);
    auto place = [&](auto const& subregions, std::size_t first) {
      for (std::size_t s = 0; s < subregions.size(); ++s)
        for (int k = 0; k < 3; ++k)
          if (Index const row = subregions[s].lossy_rows[k]; row >= 0)
            pieces_of_row[static_cast<std::size_t>(next[static_cast<std::size_t>(row)]++)] =
                static_cast<Index>(first + 3 * s + k);
    };
    place(lossy_.subregions, 0);
    place(lossy_.rank_one_subregions, 3 * n);
    force_offsets_ = kernels::upload_flat<IndexView>("dgatd::stretch_force_offsets", offsets);
    force_pieces_of_row_ = kernels::upload_flat<IndexView>("dgatd::stretch_force_pieces_of_row", pieces_of_row);
    force_pieces_ = Kokkos::View<Real*, memory_space>("dgatd::stretch_force_pieces", 3 * (n + ones));
  }

  void set_dt(Context const& c) override
  {
    auto const m = loss_step_matrices(lossy_, c.dt);
    using Flat = Kokkos::View<Real*, memory_space>;
    matrices_ = kernels::upload_flat<Flat>("dgatd::loss_matrices", m.loss);
    if (!with_layers()) return;
    step_inverse_ = kernels::upload_flat<Flat>("dgatd::loss_step_inverse", m.step_inverse);
    tet_advance_ = kernels::upload_table<36, memory_space>("dgatd::stretched_advance", m.advance);
    tet_drive_ = kernels::upload_table<18, memory_space>("dgatd::stretched_drive", m.drive);
    tet_coupling_ = kernels::upload_table<18, memory_space>("dgatd::stretched_coupling", m.coupling);
    rank_one_rule_ = kernels::upload_table<3, memory_space>("dgatd::rank_one_rule", m.rank_one);
  }

  void reset(Context const&) override
  {
    Kokkos::deep_copy(psi_, 0.0);
    Kokkos::deep_copy(q_, 0.0);
  }

  std::string name() const override { return with_layers() ? "losses_and_layer_electric" : "losses"; }
  // Per lossy row: its index, block start, size and matrix row, u^ read twice and written once, the
  // row sums written, read and written, and its row of L (and of K with layers) from the block's
  // entries; with layers also the force per row (its offset, written and read), per stretched tet
  // the coupling X (18), advance (36) and drive (18) matrices, and per subregion its unknowns (read
  // twice) and rows, its basis (9, read twice), psi read twice and written, u^ of its half-edges
  // read twice and kept (written and read), its three force pieces written, then gathered by index;
  // per rank-one tet its rule (3, read twice), per subregion its unknowns (twice), rows, W^T n (3,
  // twice), q read twice and written, u^ and the pieces as above.
  std::int64_t bytes_per_step() const override
  {
    auto const rows = static_cast<std::int64_t>(lossy_.rows.size());
    auto const entries = static_cast<std::int64_t>(matrices_.extent(0));
    constexpr auto index = static_cast<std::int64_t>(sizeof(Index));
    constexpr auto real = static_cast<std::int64_t>(sizeof(Real));
    std::int64_t bytes =
        rows * (3 * index + static_cast<std::int64_t>(sizeof(std::int64_t)) + 6 * real) + entries * real;
    if (!with_layers()) return bytes;
    auto const subregions = static_cast<std::int64_t>(lossy_.subregions.size());
    auto const ones = static_cast<std::int64_t>(lossy_.rank_one_subregions.size());
    auto const pieces = static_cast<std::int64_t>(force_pieces_of_row_.extent(0));
    bytes += entries * real + rows * (index + 2 * real) + pieces * (index + real) +
             subregions / 4 * (18 + 36 + 18) * real + subregions * (9 * index + (2 * 9 + 3 * 6 + 4 * 3 + 3) * real) +
             ones / 4 * 2 * 3 * real + ones * (9 * index + (2 * 3 + 3 + 4 * 3 + 3) * real);
    return bytes;
  }

  // u^n of the lossy rows and, in the layers, each subregion's u^n and its force g from psi^n.
  void before_faraday(Context const& c) override
  {
    gather_rows(c, false);
    if (!with_layers()) return;
    kernels::for_each("dgatd::psi_force", c.space, lossy_.subregions.size() / 4,
                      kernels::StretchedTetForce<memory_space>{subregion_unknowns_, subregion_rows_, subregion_basis_,
                                                               tet_coupling_, c.fields.u, psi_, psi_previous_,
                                                               force_pieces_});
    kernels::for_each("dgatd::q_force", c.space, lossy_.rank_one_subregions.size() / 4,
                      kernels::RankOneTetForce<memory_space>{rank_one_unknowns_, rank_one_rows_, rank_one_direction_,
                                                             rank_one_rule_, c.fields.u, q_, q_previous_, force_pieces_,
                                                             3 * lossy_.subregions.size()});
    kernels::for_each("dgatd::psi_force_rows", c.space, lossy_.rows.size(),
                      kernels::GatherForce<memory_space>{force_offsets_, force_pieces_of_row_, force_pieces_, force_});
  }

  void correct(Context const& c) override
  {
    gather_rows(c, true);
    kernels::for_each("dgatd::losses", c.space, lossy_.rows.size(),
                      kernels::LossCorrection<memory_space>{rows_, block_first_, block_size_, matrix_row_, matrices_,
                                                            sum_, step_inverse_, force_, c.fields.u});
    if (!with_layers()) return;
    kernels::for_each("dgatd::psi", c.space, lossy_.subregions.size() / 4,
                      kernels::StretchedTetAuxiliary<memory_space>{subregion_unknowns_, subregion_basis_, tet_advance_,
                                                                   tet_drive_, c.fields.u, psi_previous_, psi_});
    kernels::for_each("dgatd::q", c.space, lossy_.rank_one_subregions.size() / 4,
                      kernels::RankOneTetAuxiliary<memory_space>{rank_one_unknowns_, rank_one_direction_,
                                                                 rank_one_rule_, c.fields.u, q_previous_, q_});
  }

  // psi, six per stretched subregion of the general form, then q, one per subregion of a rank-one tet.
  std::size_t state_size(std::int64_t) const override { return psi_.size() + q_.size(); }
  void save(std::vector<double>& state) const override
  {
    kernels::append_rows(psi_, state);
    kernels::append_rows(q_, state);
  }
  void restore(Context const&, double const* state) override
  {
    kernels::fill_rows(psi_, state);
    kernels::fill_rows(q_, state + psi_.size());
  }

private:
  using IndexView = Kokkos::View<Index*, memory_space>;
  using Subregion = dga::HostOperators::StretchedSubregion;
  using RankOneSubregion = LossyRows::RankOneSubregion;

  bool with_layers() const { return !lossy_.subregions.empty() || !lossy_.rank_one_subregions.empty(); }

  // Three indices per subregion (its unknowns or its rows), a tet's four subregions in its row.
  template <class Item>
  static Kokkos::View<Index* [12], memory_space>
  upload_indices(std::string const& label, std::vector<Item> const& items, std::array<Index, 3> Item::*member) {
    Kokkos::View<Index* [12], memory_space> view(label, items.size() / 4);
    auto host = Kokkos::create_mirror_view(view);
    for (std::size_t s = 0; s < items.size(); ++s)
      for (int k = 0; k < 3; ++k) host(s / 4, 3 * (s % 4) + k) = (items[s].*member)[k];
    Kokkos::deep_copy(view, host);
    return view;
  }

  void gather_rows(Context const& c, bool accumulate) const
  {
    kernels::for_each("dgatd::loss_rows", c.space, lossy_.rows.size(),
                      kernels::GatherRows<memory_space>{rows_, c.fields.u, sum_, accumulate});
  }

  LossyRows lossy_;
  Kokkos::View<Index*, memory_space> rows_, block_first_, block_size_;
  Kokkos::View<std::int64_t*, memory_space> matrix_row_;
  Kokkos::View<Real*, memory_space> matrices_;                             // L_v, packed like the conductance
  Kokkos::View<Real*, memory_space> sum_;                                  // u^n, then u^n + u~, of the lossy rows
  Kokkos::View<Real*, memory_space> step_inverse_;                         // K_v, with layers only
  Kokkos::View<Real*, memory_space> force_;                                // g, per lossy row
  Kokkos::View<Real*, memory_space> force_pieces_;                         // each subregion's part of g, at 3 s + r
  Kokkos::View<Index*, memory_space> force_offsets_, force_pieces_of_row_; // the pieces of each row
  // The stretched tets' subregions, a tet's four in its row (kernels::StretchedTetForce): their
  // unknowns, lossy rows and basis W, psi, u^n of their half-edges; per tet the rule and the force's
  // coupling.
  Kokkos::View<Index*[12], memory_space> subregion_unknowns_, subregion_rows_;
  Kokkos::View<Real* [36], memory_space> subregion_basis_;
  Kokkos::View<Real* [24], memory_space> psi_;
  Kokkos::View<Real* [12], memory_space> psi_previous_;
  Kokkos::View<Real* [36], memory_space> tet_advance_;  // A
  Kokkos::View<Real* [18], memory_space> tet_drive_;    // D
  Kokkos::View<Real* [18], memory_space> tet_coupling_; // X = c |t|/4 [R0 | R1] (I + A) / 2
  // The rank-one tets' subregions, by tet: unknowns, rows, W^T n, u^n of their half-edges, q by
  // tet; per tet the rule (a, d / 2, weight (1 + a) / 2).
  Kokkos::View<Index*[12], memory_space> rank_one_unknowns_, rank_one_rows_;
  Kokkos::View<Real* [12], memory_space> rank_one_direction_;
  Kokkos::View<Real* [12], memory_space> q_previous_;
  Kokkos::View<Real* [4], memory_space> q_;
  Kokkos::View<Real* [3], memory_space> rank_one_rule_;
};

#define DGATD_LOSSES_INSTANCES(PREFIX, SPACE)                                                                          \
  PREFIX template class Losses<SPACE, Kokkos::LayoutLeft>;                                                             \
  PREFIX template class Losses<SPACE, Kokkos::LayoutRight>;
DGATD_FOR_EACH_INSTANCE_SPACE(DGATD_LOSSES_INSTANCES, extern)

} // namespace dgatd::solver
