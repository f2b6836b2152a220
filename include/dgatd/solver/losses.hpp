#pragma once
// Losses in Ampere's law as a term of the leapfrog: conductivity, absorbing surfaces, the dispersive
// media's poles and the electric side of the matched layers, time-averaged (semi-implicit):
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
// S >= 0 (no layers) the energy cannot grow at the lossless time step (docs/method/open_regions.md).
// With a complex frequency shift a the layers see e - a p instead of e, p' + a p = e. p is kept per
// lossy row (p = W p^_r in a subregion) and its explicit part, -a beta S'_layer p^n, rides on L:
// the sum becomes u^n + u~ - 2 a p^n in the layers' blocks, whose S' is their share alone.
// The dispersive media's poles (dga/dispersion.hpp) enter the same way: per dispersive subregion s,
// sum over the poles of |s| G_s (J_p^n + J_p^(n+1)) / 2 = eps_t |s| G_s (history . x^n +
// conductance (u^n + u^(n+1)) / 2) (the models hold chi / eps_inf), the conductance joining S', the
// history the force g (docs/method/dispersive_media.md).
// The matrices are built on the host (solver/loss_steps.hpp) whenever dt changes. In float32
// (precision = "mixed") L, K and the modal tets' directions W^T n are stored in float, the
// directions rounded before S' is built from them so that the implicit step and the auxiliaries'
// rule use the same numbers; the rules (the auxiliaries' poles) and the few general-form tets'
// tables stay double. Only where no integrator is left: a plain layer (a static field's normal part
// grows linearly in it) and a lumped inductor respond to a static field by a Jordan block at 1,
// which rounding splits into growth at sqrt(6e-8) per step (measured: 1e5 steps of a box shell
// overflowed), so with them the matrices stay double; a shifted layer has no integrator.

#include "dgatd/instances.hpp"
#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/solver/loss_steps.hpp"
#include "dgatd/solver/term.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace dgatd::solver {

template <class ExecutionSpace, class TetLayout = kernels::DefaultTetLayout<ExecutionSpace>>
class Losses final : public Term<ExecutionSpace, TetLayout> {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using Context = typename Term<ExecutionSpace, TetLayout>::Context;

  explicit Losses(dga::HostOperators const& host,
                  kernels::MatrixPrecision precision = kernels::MatrixPrecision::float64)
      : lossy_(lossy_rows(host)), layer_tets_(host.stretched_tets),
        precision_(keeps_double_matrices() ? kernels::MatrixPrecision::float64 : precision)
  {
    round_directions(lossy_.one_mode);
    round_directions(lossy_.three_modes);
    rows_ = kernels::upload_flat<IndexView>("dgatd::loss_rows", lossy_.rows);
    block_first_ = kernels::upload_flat<IndexView>("dgatd::loss_block_first", lossy_.block_first);
    block_size_ = kernels::upload_flat<IndexView>("dgatd::loss_block_size", lossy_.block_size);
    // Entry (i, 0) of each row's block, whose matrices loss_step_matrices stores by columns or rows.
    std::vector<std::int64_t> row_entry(lossy_.rows.size());
    for (std::size_t r = 0; r < row_entry.size(); ++r) {
      std::int64_t const i = static_cast<std::int64_t>(r) - lossy_.block_first[r];
      row_entry[r] = by_columns ? lossy_.matrix_row[r] - i * lossy_.block_size[r] + i : lossy_.matrix_row[r];
    }
    row_entry_ = kernels::upload_flat<Kokkos::View<std::int64_t*, memory_space>>("dgatd::loss_row_entry", row_entry);
    sum_ = Kokkos::View<Real*, memory_space>("dgatd::loss_sum", lossy_.rows.size());
    if (!lossy_.shift_weight.empty()) {
      shift_weight_ =
          kernels::upload_flat<Kokkos::View<Real*, memory_space>>("dgatd::shift_weight", lossy_.shift_weight);
      shifted_ = Kokkos::View<Real*, memory_space>("dgatd::shifted_p", lossy_.rows.size());
    }
    if (!with_force()) return;
    force_ = Kokkos::View<Real*, memory_space>("dgatd::stretch_force", lossy_.rows.size());
    std::size_t const n = lossy_.subregions.size();
    if (with_layers()) {
      psi_ = Kokkos::View<Real* [24], memory_space>("dgatd::psi", n / 4);
      psi_previous_ = Kokkos::View<Real* [12], memory_space>("dgatd::psi_u_previous", n / 4);
      subregion_unknowns_ = upload_indices("dgatd::stretched_unknowns", lossy_.subregions, &Subregion::unknowns);
      subregion_rows_ = upload_indices("dgatd::stretched_rows", lossy_.subregions, &Subregion::lossy_rows);
      std::vector<double> basis;
      for (auto const& subregion : lossy_.subregions)
        basis.insert(basis.end(), subregion.basis.begin(), subregion.basis.end());
      subregion_basis_ = kernels::upload_table<36, memory_space>("dgatd::stretched_basis", basis);
      one_mode_ = Modal<1>(lossy_.one_mode, "one_mode", 3 * n, precision_);
      three_modes_ =
          Modal<3>(lossy_.three_modes, "three_modes", 3 * (n + lossy_.one_mode.subregions.size()), precision_);
    }
    std::size_t const pole_first_piece =
        3 * (n + lossy_.one_mode.subregions.size() + lossy_.three_modes.subregions.size());
    if (with_poles()) upload_poles(pole_first_piece);
    // Each lossy row's pieces of force (kernels::GatherForce), subregion by subregion: those of the
    // general tets' subregions s = 4 k + lv where kernels::PiecePlace puts slot 3 lv + r of tet k,
    // then the one-mode and the three-mode tets' likewise after them.
    std::vector<Index> offsets(lossy_.rows.size() + 1, 0);
    auto count = [&](auto const& subregions) {
      for (auto const& subregion : subregions)
        for (Index const row : subregion.lossy_rows)
          if (row >= 0) ++offsets[static_cast<std::size_t>(row) + 1];
    };
    count(lossy_.subregions);
    count(lossy_.one_mode.subregions);
    count(lossy_.three_modes.subregions);
    for (auto const& rows : lossy_.dispersive_rows)
      for (Index const row : rows)
        if (row >= 0) ++offsets[static_cast<std::size_t>(row) + 1];
    for (std::size_t r = 0; r < lossy_.rows.size(); ++r) offsets[r + 1] += offsets[r];
    std::vector<Index> pieces_of_row(static_cast<std::size_t>(offsets.back()));
    std::vector<Index> next(offsets.begin(), offsets.end() - 1);
    auto place = [&](auto const& subregions, std::size_t first) {
      auto const piece_place = kernels::PiecePlace::of(by_columns, subregions.size() / 4);
      for (std::size_t s = 0; s < subregions.size(); ++s)
        for (int r = 0; r < 3; ++r)
          if (Index const row = subregions[s].lossy_rows[r]; row >= 0)
            pieces_of_row[static_cast<std::size_t>(next[static_cast<std::size_t>(row)]++)] =
                static_cast<Index>(first + piece_place(3 * static_cast<int>(s % 4) + r, s / 4));
    };
    place(lossy_.subregions, 0);
    place(lossy_.one_mode.subregions, one_mode_.first_piece);
    place(lossy_.three_modes.subregions, three_modes_.first_piece);
    for (std::size_t k = 0; k < lossy_.dispersive_rows.size(); ++k)
      for (int i = 0; i < 12; ++i)
        if (Index const row = lossy_.dispersive_rows[k][i]; row >= 0)
          pieces_of_row[static_cast<std::size_t>(next[static_cast<std::size_t>(row)]++)] =
              static_cast<Index>(pole_first_piece + 12 * k + i);
    if (!lossy_.one_mode.subregions.empty() || !lossy_.three_modes.subregions.empty() || with_poles())
      modal_drive_ = Kokkos::View<Real*, memory_space>("dgatd::modal_drive", lossy_.rows.size());
    force_offsets_ = kernels::upload_flat<IndexView>("dgatd::stretch_force_offsets", offsets);
    force_pieces_of_row_ = kernels::upload_flat<IndexView>("dgatd::stretch_force_pieces_of_row", pieces_of_row);
    force_pieces_ = Kokkos::View<Real*, memory_space>("dgatd::stretch_force_pieces",
                                                      pole_first_piece + 12 * lossy_.dispersive_tets.size());
  }

  void set_dt(Context const& c) override
  {
    kernels::rescale_displacements("dgatd::psi_rescale", c.space, psi_, dt_, c.dt);
    auto const m = loss_step_matrices(lossy_, c.dt, by_columns);
    matrices_ = BlockMatrices("dgatd::loss_matrices", m.loss, precision_);
    if (with_force()) step_inverse_ = BlockMatrices("dgatd::loss_step_inverse", m.step_inverse, precision_);
    if (with_poles()) pole_rules_ = kernels::upload_table<8, memory_space>("dgatd::pole_rules", m.pole_rules);
    if (!with_layers()) return;
    tet_advance_ = kernels::upload_table<36, memory_space>("dgatd::stretched_advance", m.advance);
    tet_drive_ = kernels::upload_table<18, memory_space>("dgatd::stretched_drive", m.drive);
    tet_coupling_ = kernels::upload_table<18, memory_space>("dgatd::stretched_coupling", m.coupling);
    one_mode_.set_rule(m.one_mode_rule);
    three_modes_.set_rule(m.three_mode_rule);
    shift_rule_ = m.shift_rule;
    // The pieces of the next step's force carry the rule's weight.
    write_modal_pieces(c);
  }

  void reset(Context const& c) override
  {
    Kokkos::deep_copy(shifted_, 0.0);
    Kokkos::deep_copy(psi_, 0.0);
    Kokkos::deep_copy(one_mode_.q, 0.0);
    Kokkos::deep_copy(three_modes_.q, 0.0);
    Kokkos::deep_copy(poles_, 0.0);
    write_modal_pieces(c);
  }

  std::string name() const override { return with_layers() ? "losses_and_layer_electric" : "losses"; }
  // Conductivity and absorbing faces are dissipative at the coarse step wherever they lie; the layers'
  // auxiliaries follow the field of a step at their own dt, so the stretched tets step the coarse step.
  LocalStepSupport local_step_support() const override { return {true, layer_tets_}; }
  // Per lossy row: its index, block start, size and first entry, u^ read twice and written once, the
  // row sums written, read and written, and its row of L (and of K with layers) from the block's
  // entries, in the matrices' precision; with layers also the force per row (its offset, written and read), per
  // stretched tet the coupling X (18), advance (36) and drive (18) matrices, and per subregion its unknowns (read
  // twice) and rows, its basis (9, read twice), psi read twice and written, u^ of its half-edges
  // read twice and kept (written and read), its three force pieces written, then gathered by index;
  // per modal tet its rule (3 per mode), per subregion its rows, their drive (written by the lossy
  // rows, read by the tet), W^T n (3 per mode), q (one per mode) read and written and its three
  // force pieces as above, all once. With a shift, per lossy row its weight and p read in the
  // gather and again, with p written, in the correction, and per subregion its rows' weights and p.
  std::int64_t bytes_per_step() const override
  {
    auto const rows = static_cast<std::int64_t>(lossy_.rows.size());
    constexpr auto index = static_cast<std::int64_t>(sizeof(Index));
    constexpr auto real = static_cast<std::int64_t>(sizeof(Real));
    std::int64_t bytes =
        rows * (3 * index + static_cast<std::int64_t>(sizeof(std::int64_t)) + 6 * real) + matrices_.bytes();
    if (!with_force()) return bytes;
    auto const pieces = static_cast<std::int64_t>(force_pieces_of_row_.extent(0));
    bytes += step_inverse_.bytes() + rows * (index + 2 * real) + pieces * (index + real) +
             static_cast<std::int64_t>(modal_drive_.size()) * real;
    // Per dispersive tet its model, rows (12) and masses (24) read twice, the states read twice and
    // written, twelve pieces written and twelve sums read.
    auto const pole_tets = static_cast<std::int64_t>(poles_.extent(0));
    bytes += pole_tets * (2 * (static_cast<std::int64_t>(sizeof(int)) + 12 * index + 24 * real) +
                          3 * static_cast<std::int64_t>(poles_.extent(1)) * real + 24 * real);
    if (!with_layers()) return bytes;
    auto const subregions = static_cast<std::int64_t>(lossy_.subregions.size());
    bytes += subregions / 4 * (18 + 36 + 18) * real + subregions * (9 * index + (2 * 9 + 3 * 6 + 4 * 3 + 3) * real) +
             one_mode_.bytes_per_step() + three_modes_.bytes_per_step();
    if (shifted_.extent(0) > 0)
      bytes += rows * 5 * real + (subregions + static_cast<std::int64_t>(lossy_.one_mode.subregions.size() +
                                                                         lossy_.three_modes.subregions.size())) *
                                     6 * real;
    return bytes;
  }

  // u^n of the lossy rows and, in the layers, each general subregion's u^n and its force g from
  // psi^n (the modal tets left theirs at the end of the last step).
  void before_faraday(Context const& c) override
  {
    gather_rows(c, false);
    if (!with_force()) return;
    if (with_layers())
      kernels::for_each("dgatd::psi_force", c.space, lossy_.subregions.size() / 4,
                        kernels::StretchedTetForce<memory_space>{
                            subregion_unknowns_, subregion_rows_, subregion_basis_, tet_coupling_, c.fields.u, psi_,
                            psi_previous_, force_pieces_, kernels::PiecePlace::of(by_columns, psi_.extent(0)),
                            shift_weight_, shifted_});
    if (with_poles())
      kernels::for_each("dgatd::pole_force", c.space, poles_.extent(0),
                        kernels::DispersiveTetForce<memory_space>{pole_model_, model_first_pole_, pole_order_,
                                                                  pole_rules_, poles_, pole_mass_, force_pieces_,
                                                                  pole_first_piece_, pole_slice_});
    kernels::for_each("dgatd::psi_force_rows", c.space, lossy_.rows.size(),
                      kernels::GatherForce<memory_space>{force_offsets_, force_pieces_of_row_, force_pieces_, force_});
  }

  void correct(Context const& c) override
  {
    if (shifted_.extent(0) > 0)
      kernels::for_each("dgatd::loss_rows", c.space, lossy_.rows.size(),
                        kernels::GatherShiftedRows<memory_space>{rows_, c.fields.u, sum_, shift_weight_, shifted_});
    else
      gather_rows(c, true);
    kernels::with_matrix_scalar(precision_, [&](auto scalar) {
      using Matrix = decltype(scalar);
      kernels::for_each("dgatd::losses", c.space, lossy_.rows.size(),
                        kernels::LossCorrection<memory_space, Matrix>{
                            rows_, block_first_, block_size_, row_entry_, matrices_.template view<Matrix>(), sum_,
                            step_inverse_.template view<Matrix>(), force_, c.fields.u, shift_weight_, shifted_,
                            shift_rule_[0], shift_rule_[1], modal_drive_, by_columns});
    });
    if (with_poles())
      kernels::for_each("dgatd::pole_step", c.space, poles_.extent(0),
                        kernels::DispersiveTetStep<memory_space>{pole_model_, model_first_pole_, pole_order_,
                                                                 pole_rules_, poles_, pole_rows_, modal_drive_,
                                                                 pole_slice_});
    if (!with_layers()) return;
    kernels::for_each("dgatd::psi", c.space, lossy_.subregions.size() / 4,
                      kernels::StretchedTetAuxiliary<memory_space>{subregion_unknowns_, subregion_basis_, tet_advance_,
                                                                   tet_drive_, c.fields.u, psi_previous_, psi_});
    one_mode_.step(c, modal_drive_, force_pieces_, true);
    three_modes_.step(c, modal_drive_, force_pieces_, true);
  }

  // psi, six per stretched subregion of the general form, then q, one per mode and subregion of the
  // one-mode tets, then of the three-mode tets, then the dispersive tets' pole states, then with a
  // shift p per lossy row (a run with a shift stays in one process: simulation::describe_problem).
  std::size_t state_size(std::int64_t) const override
  {
    return psi_.size() + one_mode_.q.size() + three_modes_.q.size() + poles_.size() + shifted_.size();
  }
  void save(std::vector<double>& state) const override
  {
    kernels::append_rows(psi_, state);
    kernels::append_rows(one_mode_.q, state);
    kernels::append_rows(three_modes_.q, state);
    kernels::append_rows(poles_, state);
    auto const p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), shifted_);
    state.insert(state.end(), p.data(), p.data() + p.size());
  }
  void restore(Context const& c, double const* state) override
  {
    kernels::fill_rows(psi_, state);
    kernels::fill_rows(one_mode_.q, state + psi_.size());
    kernels::fill_rows(three_modes_.q, state + psi_.size() + one_mode_.q.size());
    std::size_t const poles_first = psi_.size() + one_mode_.q.size() + three_modes_.q.size();
    kernels::fill_rows(poles_, state + poles_first);
    std::size_t const p_first = poles_first + poles_.size();
    Kokkos::deep_copy(shifted_,
                      kernels::upload_flat<Kokkos::View<Real*, memory_space>>(
                          "dgatd::shifted_p", std::vector<double>(state + p_first, state + p_first + shifted_.size())));
    write_modal_pieces(c);
  }
  // A dispersive tet's states lie in four slices, one per subregion (kernels::DispersiveTetForce).
  std::vector<StateRows> state_rows() const override
  {
    return {parallel::tet_rows(lossy_.stretched_tets, psi_.extent(1), true),
            parallel::tet_rows(lossy_.one_mode.tets, one_mode_.q.extent(1), true),
            parallel::tet_rows(lossy_.three_modes.tets, three_modes_.q.extent(1), true),
            parallel::tet_rows(lossy_.dispersive_tets, poles_.extent(1), true)};
  }

private:
  using IndexView = Kokkos::View<Index*, memory_space>;
  // The lossy blocks' L and K, and the force pieces (kernels::PiecePlace), by columns where the tets'
  // numbers are (GPUs: the rows of a block on neighbouring threads read neighbouring entries), by rows
  // where each tet's numbers are one row (CPUs: a row is one contiguous run; the correction took a
  // third less time on the dipole's shell on 2 cores, docs/method/open_regions.md).
  static constexpr bool by_columns = std::is_same<TetLayout, Kokkos::LayoutLeft>::value;
  using Subregion = dga::HostOperators::StretchedSubregion;

  bool with_layers() const
  {
    return !lossy_.subregions.empty() || !lossy_.one_mode.subregions.empty() || !lossy_.three_modes.subregions.empty();
  }
  bool with_poles() const { return !lossy_.dispersive_tets.empty(); }
  // A force g on the lossy rows from auxiliary states, and K to apply it.
  bool with_force() const { return with_layers() || with_poles(); }
  // Matrices that must stay double in mixed precision: an integrator's (a plain layer, a lumped
  // inductor) and the poles' (rounded, their conductance turns a lossless medium's constant energy
  // into a drift of 1e-8 per step: +1.7e-4 over 20,000 steps of a Drude-Lorentz box).
  bool keeps_double_matrices() const
  {
    return (with_layers() && lossy_.shift == 0) || !lossy_.lumped_kites.empty() || !lossy_.dispersive_tets.empty();
  }

  // The dispersive tets' rows, masses and models, the models' poles, and their states, zero.
  void upload_poles(std::size_t first_piece)
  {
    std::vector<int> model_first_pole{0}, pole_order;
    int most_states = 0;
    for (auto const& model : lossy_.dispersions) {
      int states = 0;
      for (auto const& pole : model.poles) {
        pole_order.push_back(pole.order);
        states += pole.order;
      }
      most_states = std::max(most_states, states);
      model_first_pole.push_back(static_cast<int>(pole_order.size()));
    }
    pole_slice_ = 3 * most_states;
    pole_first_piece_ = first_piece;
    model_first_pole_ =
        kernels::upload_flat<Kokkos::View<int*, memory_space>>("dgatd::model_first_pole", model_first_pole);
    pole_order_ = kernels::upload_flat<Kokkos::View<int*, memory_space>>("dgatd::pole_order", pole_order);
    pole_model_ = kernels::upload_flat<Kokkos::View<int*, memory_space>>("dgatd::pole_model", lossy_.dispersive_model);
    pole_rows_ = kernels::upload_rows<decltype(pole_rows_)>("dgatd::pole_rows", lossy_.dispersive_rows);
    pole_mass_ = kernels::upload_rows<decltype(pole_mass_)>("dgatd::pole_mass", lossy_.dispersive_mass);
    poles_ = Kokkos::View<Real**, memory_space>("dgatd::poles", lossy_.dispersive_tets.size(),
                                                static_cast<std::size_t>(4 * pole_slice_));
  }

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

  // The stretched tets whose stretch splits into Modes scalar modes (LossyRows::ModalTets), by tet:
  // their subregions' rows and W^T n_m, q per mode and subregion, per tet the rule
  // (a, d / 2, weight (1 + a) / 2 per mode); their force pieces start at first_piece.
  template <int Modes>
  struct Modal {
    Kokkos::View<Index* [12], memory_space> rows;
    kernels::MatrixTable<12 * Modes, memory_space> direction;
    Kokkos::View<Real * [4 * Modes], memory_space> q;
    Kokkos::View<Real * [3 * Modes], memory_space> rule;
    std::size_t first_piece = 0;
    std::string name;

    Modal() = default;
    Modal(ModalTets<Modes> const& tets, std::string const& group, std::size_t first, kernels::MatrixPrecision precision)
        : rows(upload_indices("dgatd::" + group + "_rows", tets.subregions, &ModalTets<Modes>::Subregion::lossy_rows)),
          q("dgatd::" + group + "_q", tets.num_tets()), first_piece(first), name(group)
    {
      std::vector<double> along;
      for (auto const& subregion : tets.subregions)
        along.insert(along.end(), subregion.direction.begin(), subregion.direction.end());
      direction = kernels::MatrixTable<12 * Modes, memory_space>("dgatd::" + group + "_direction", along, precision);
    }
    void set_rule(std::vector<double> const& rules)
    {
      rule = kernels::upload_table<3 * Modes, memory_space>("dgatd::" + name + "_rule", rules);
    }
    // ModalTetStep: q advanced by the step's drive (advance), then the next step's force pieces.
    void step(Context const& c, Kokkos::View<Real*, memory_space> const& drive,
              Kokkos::View<Real*, memory_space> const& pieces, bool advance) const
    {
      if (rule.extent(0) != q.extent(0)) return; // no dt yet: set_dt writes the pieces
      kernels::with_matrix_scalar(direction.precision(), [&](auto scalar) {
        using Matrix = decltype(scalar);
        kernels::for_each(("dgatd::" + name + (advance ? "_step" : "_pieces")).c_str(), c.space, q.extent(0),
                          kernels::ModalTetStep<Modes, memory_space, Matrix>{
                              rows, direction.template view<Matrix>(), rule, drive, q, pieces, first_piece,
                              kernels::PiecePlace::of(by_columns, q.extent(0)), advance});
      });
    }
    std::int64_t bytes_per_step() const
    {
      auto const tets = static_cast<std::int64_t>(q.extent(0));
      constexpr auto index = static_cast<std::int64_t>(sizeof(Index));
      constexpr auto real = static_cast<std::int64_t>(sizeof(Real));
      return direction.bytes() + tets * (3 * Modes * real + 4 * (3 * index + (3 + 2 * Modes + 3) * real));
    }
  };

  // The modal tets' force pieces from the q they hold, for the next step.
  void write_modal_pieces(Context const& c) const
  {
    if (!with_layers()) return;
    one_mode_.step(c, modal_drive_, force_pieces_, false);
    three_modes_.step(c, modal_drive_, force_pieces_, false);
  }

  void gather_rows(Context const& c, bool accumulate) const
  {
    kernels::for_each("dgatd::loss_rows", c.space, lossy_.rows.size(),
                      kernels::GatherRows<memory_space>{rows_, c.fields.u, sum_, accumulate});
  }

  using BlockMatrices = kernels::MatrixTable<0, memory_space>;

  template <int Modes>
  void round_directions(ModalTets<Modes>& tets) const
  {
    for (auto& subregion : tets.subregions)
      for (double& x : subregion.direction) x = kernels::round_to(precision_, x);
  }

  LossyRows lossy_;
  std::vector<Index> layer_tets_;
  kernels::MatrixPrecision precision_;
  double dt_ = 0; // the one the auxiliaries are scaled by
  Kokkos::View<Index*, memory_space> rows_, block_first_, block_size_;
  Kokkos::View<std::int64_t*, memory_space> row_entry_;
  BlockMatrices matrices_;                                   // L_v, block by block, by columns
  Kokkos::View<Real*, memory_space> sum_;                    // u^n, then u^n + u~, of the lossy rows
  BlockMatrices step_inverse_;                               // K_v, with layers only
  Kokkos::View<Real*, memory_space> shift_weight_, shifted_; // 2 a and p per lossy row, with a shift
  std::array<double, 2> shift_rule_{1, 0};
  Kokkos::View<Real*, memory_space> force_;        // g, per lossy row
  Kokkos::View<Real*, memory_space> force_pieces_; // each subregion's part of g, by tet group
  Kokkos::View<Real*, memory_space> modal_drive_;  // u^n + u^(n+1) (- 2 a p^n) per lossy row, with modal tets
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
  Modal<1> one_mode_;
  Modal<3> three_modes_;
  // The dispersive tets (kernels::DispersiveTetForce): per tet its model, rows and masses, the
  // states; per model its first pole, per pole its order and rule; where their force pieces start.
  Kokkos::View<int*, memory_space> pole_model_, model_first_pole_, pole_order_;
  Kokkos::View<Index* [12], memory_space> pole_rows_;
  Kokkos::View<Real* [24], memory_space> pole_mass_;
  Kokkos::View<Real* [8], memory_space> pole_rules_;
  Kokkos::View<Real**, memory_space> poles_;
  std::size_t pole_first_piece_ = 0;
  int pole_slice_ = 0;
};

#define DGATD_LOSSES_INSTANCES(PREFIX, SPACE, LAYOUT) PREFIX template class Losses<SPACE, LAYOUT>;
DGATD_FOR_EACH_INSTANCE_LAYOUT(DGATD_LOSSES_INSTANCES, extern)

} // namespace dgatd::solver
