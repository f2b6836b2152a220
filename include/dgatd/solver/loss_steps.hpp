#pragma once
// The host arithmetic behind the lossy terms (solver/losses.hpp, solver/magnetic_stretch.hpp): the
// step matrices of the time-averaged losses and of the matched layers' auxiliary unknowns, rebuilt
// whenever dt changes. Plain C++ on the host, compiled once in src/solver/loss_steps.cpp.

#include "dgatd/dga/operators.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace dgatd::solver {

// Ampere's side of the stretched tets whose stretch splits into Modes scalar modes: per tet and
// mode m its rate gamma and weight eps |t|/4 kappa at Modes k + m; per subregion (4 k + lv) its
// unknowns, rows and W^T n_m at 3 m + r.
template <int Modes>
struct ModalTets {
  static constexpr int modes = Modes;
  struct Subregion {
    std::array<Index, 3> unknowns;
    std::array<Index, 3> lossy_rows;
    std::array<double, 3 * Modes> direction;
  };
  std::vector<std::array<double, 2>> rates;
  std::vector<Subregion> subregions;
  std::vector<Index> tets; // the tets, ascending
  std::size_t num_tets() const { return subregions.size() / 4; }
};

// The lossy rows of Ampere's update: the unknowns of every dual block with losses, with per row its
// block's first row among the lossy rows, the block's size and where the row of its matrices starts
// (matrices packed like HostOperators::conductance).
struct LossyRows {
  std::vector<Index> rows;
  std::vector<Index> block_first;
  std::vector<Index> block_size;
  std::vector<std::int64_t> matrix_row;
  std::vector<double> eps;                 // Meps_v of the lossy blocks
  std::vector<double> conductance;         // S_v: conductivity and absorbing faces
  std::vector<double> stretch_conductance; // the layers' share of S_v, eps |r| w^i . (c2 I - S) w^j
  // The layers' complex frequency shift a (HostOperators::stretch_shift) and, with a > 0, per lossy
  // row the weight 2 a of its p in the loss's sum where its block holds stretched subregions, 0
  // elsewhere (solver/losses.hpp).
  double shift = 0;
  std::vector<double> shift_weight;
  // The matched layers' stretched tets in the general form (ascending): per tet its rates and
  // coupling (HostOperators), its subregions at 4 k + lv.
  std::vector<Index> stretched_tets;
  std::vector<std::array<double, 18>> tet_rates;
  std::vector<std::array<double, 18>> tet_coupling;
  std::vector<dga::HostOperators::StretchedSubregion> subregions;
  // Those whose stretch splits into one or three scalar modes (HostOperators::StretchModes).
  ModalTets<1> one_mode;
  ModalTets<3> three_modes;
  // The lumped sheets' kites (dga::LumpedKite) with their half-edges' rows among the lossy rows (-1
  // where not free), and each sheet's circuit: the kite adds Y(dt) area along along^T to its block.
  struct Kite {
    Index sheet;
    std::array<Index, 2> lossy_rows;
    std::array<double, 2> along;
    double area;
  };
  std::vector<Kite> lumped_kites;
  std::vector<dga::SheetCircuit> sheet_circuits;
  // The dispersive media, as HostOperators holds them (their rows are these lossy rows).
  std::vector<dga::Dispersion> dispersions;
  std::vector<Index> dispersive_tets;
  std::vector<int> dispersive_model;
  std::vector<std::array<Index, 12>> dispersive_rows;
  std::vector<std::array<double, 24>> dispersive_mass;
};
LossyRows lossy_rows(dga::HostOperators const& host);

// Per lossy block L = K S' / 2 and, with matched layers, K = (Meps / dt + S' / 2)^-1, each stored by
// columns (entry (i, j) at the block's offset + j d + i) or by rows (i d + j: kernels::LossCorrection); per stretched
// tet its subregions' common auxiliary advance A (6 x 6), drive D (6 x 3, from the Cartesian e_r =
// W_r u^_r) and force coupling X = c |t|/4 [R0 | R1] (I + A) / 2 (3 x 6, the force on the
// subregion's rows W_r^T X psi_r), all row-major (solver/losses.hpp has the equations).
// Per modal tet and mode (a, d / 2, weight (1 + a) / 2), at 3 (Modes k + m):
// q^(n+1) = a q^n + d/2 (W^T n) . (u^n + u^(n+1)), the force weight (1 + a) / 2 q^n W^T n.
// With a complex frequency shift a_s every rate is gamma + a_s, the drives d scale by
// beta = 1 / (1 + a_s dt / 2), the layers' share of S' too, and each lossy row's p' + a_s p = u
// steps by p^(n+1) = shift_rule[0] p^n + shift_rule[1] (u^n + u^(n+1)) (docs/method/open_regions.md).
// With dispersive media each model's poles add conductance times the subregions' masses to S'
// (dga::PoleRule), K is built as with layers, and pole_rules holds every model's poles in order,
// eight numbers each: advance (2 x 2, row-major), drive (2), history (2), the first of each for a
// real pole.
struct LossStepMatrices {
  std::vector<double> loss;
  std::vector<double> pole_rules;
  std::vector<double> step_inverse;
  std::vector<double> advance, drive, coupling;
  std::vector<double> one_mode_rule, three_mode_rule;
  std::array<double, 2> shift_rule{1, 0};
};
// Throws dgatd::ModelError (the time step, with the fact dt) when a block's implicit step is singular at dt.
LossStepMatrices loss_step_matrices(LossyRows const& rows, double dt, bool by_columns);

// Faraday's side of the tets whose stretch splits into Modes scalar modes: per tet its mu and loss,
// per mode its rate gamma and weight mu |t|/4 kappa (at Modes k + m), and per subregion lv and mode
// m W_lv^T n_m by local faces (at 16 Modes k + 4 (Modes lv + m)).
template <int Modes>
struct MagneticModalTets {
  static constexpr int modes = Modes;
  std::vector<Index> tets;
  std::vector<std::array<double, 16>> mu, loss;
  std::vector<std::array<double, 2>> rates;
  std::vector<double> direction;
};

// Faraday's side of the matched layers, per stretched tet (HostOperators' magnetic terms).
struct MagneticLayer {
  double shift = 0; // the complex frequency shift, as LossyRows::shift
  std::vector<Index> tets;
  std::vector<std::array<double, 18>> rates; // S then P
  std::vector<std::array<double, 16>> mu;
  std::vector<std::array<double, 16>> loss;
  std::vector<std::array<double, 18>> coupling;
  std::vector<double> basis; // 48 per tet (HostOperators::magnetic_basis)
  MagneticModalTets<1> one_mode;
  MagneticModalTets<3> three_modes;
};
MagneticLayer magnetic_layer(dga::HostOperators const& host);

// Per stretched tet the rule of its subregions' auxiliaries (advance 6 x 6 and drive 6 x 3 from the
// Cartesian h, as on Ampere's side), the loss L = K S' / 2 and K = (Mmu / dt + S' / 2)^-1 of its
// implicit step (4 x 4) and the force coupling X = c |t|/4 [R0 | R1] (I + A) / 2 (3 x 6): the tet's
// force is sum_lv W_lv^T X phi_lv, with W_lv its subregions' dual bases (MagneticLayer::basis).
// For the modal tets, their implicit loss S' and their step matrix (Mmu + dt S' / 2)^-1 = K / dt,
// both symmetric and packed as HostOperators::mu_inverse (10 each), and the rule (a, d / 2,
// weight (1 + a) / 2 per mode) as on Ampere's side: the lossless Faraday kernel multiplies by that
// step matrix in these tets (MagneticStretch).
struct MagneticModalMatrices {
  std::vector<double> implicit_loss, step, rule;
};
struct MagneticStepMatrices {
  std::vector<double> advance, drive, loss, step_inverse, coupling;
  MagneticModalMatrices one_mode, three_modes;
  std::array<double, 2> shift_rule{1, 0}; // each stretched tet's p, as LossStepMatrices::shift_rule
};
// Throws dgatd::ModelError (the time step, with the fact dt) when a tet's implicit step is singular at dt.
MagneticStepMatrices magnetic_step_matrices(MagneticLayer const& layer, double dt);

} // namespace dgatd::solver
