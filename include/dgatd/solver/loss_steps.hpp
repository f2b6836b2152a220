#pragma once
// The host arithmetic behind the lossy terms (solver/losses.hpp, solver/magnetic_stretch.hpp): the
// step matrices of the time-averaged losses and of the matched layers' auxiliary unknowns, rebuilt
// whenever dt changes. Plain C++ on the host, compiled once in src/solver/loss_steps.cpp.

#include "dgatd/dga/operators.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace dgatd::solver {

// The lossy rows of Ampere's update: the unknowns of every dual block with losses, with per row its
// block's first row among the lossy rows, the block's size and where the row of its matrices starts
// (matrices packed like HostOperators::conductance).
struct LossyRows {
  std::vector<Index> rows;
  std::vector<Index> block_first;
  std::vector<Index> block_size;
  std::vector<std::int64_t> matrix_row;
  std::vector<double> eps;         // Meps_v of the lossy blocks
  std::vector<double> conductance; // S_v
  // The matched layers' stretched tets in the general form: per tet its rates and coupling
  // (HostOperators), its subregions at 4 k + lv.
  std::vector<std::array<double, 18>> tet_rates;
  std::vector<std::array<double, 18>> tet_coupling;
  std::vector<dga::HostOperators::StretchedSubregion> subregions;
  // Those whose stretch is rank one (HostOperators::RankOneStretch): per tet its rate gamma and
  // weight eps |t|/4 |g|^2, per subregion (4 k + lv) its unknowns, rows and W^T n.
  struct RankOneSubregion {
    std::array<Index, 3> unknowns;
    std::array<Index, 3> lossy_rows;
    std::array<double, 3> direction;
  };
  std::vector<std::array<double, 2>> rank_one_tets;
  std::vector<RankOneSubregion> rank_one_subregions;
};
LossyRows lossy_rows(dga::HostOperators const& host);

// Per lossy block L = K S' / 2 and, with matched layers, K = (Meps / dt + S' / 2)^-1; per stretched
// tet its subregions' common auxiliary advance A (6 x 6), drive D (6 x 3, from the Cartesian e_r =
// W_r u^_r) and force coupling X = c |t|/4 [R0 | R1] (I + A) / 2 (3 x 6, the force on the
// subregion's rows W_r^T X psi_r), all row-major (solver/losses.hpp has the equations).
// Per rank-one tet (a, d / 2, weight (1 + a) / 2): q^(n+1) = a q^n + d/2 (W^T n) . (u^n + u^(n+1)),
// the force weight (1 + a) / 2 q^n W^T n.
struct LossStepMatrices {
  std::vector<double> loss;
  std::vector<double> step_inverse;
  std::vector<double> advance, drive, coupling;
  std::vector<double> rank_one;
};
// Throws dgatd::ModelError (the time step, with the fact dt) when a block's implicit step is singular at dt.
LossStepMatrices loss_step_matrices(LossyRows const& rows, double dt);

// Faraday's side of the matched layers, per stretched tet (HostOperators' magnetic terms).
struct MagneticLayer {
  std::vector<Index> tets;
  std::vector<std::array<double, 18>> rates; // S then P
  std::vector<std::array<double, 16>> mu;
  std::vector<std::array<double, 16>> loss;
  std::vector<std::array<double, 18>> coupling;
  std::vector<double> basis; // 48 per tet (HostOperators::magnetic_basis)
  // The rank-one tets: per tet its mu and loss (as above), rate gamma and weight mu |t|/4 |g|^2, and
  // per subregion lv W_lv^T n by local faces (4 x 4, row lv).
  std::vector<Index> rank_one_tets;
  std::vector<std::array<double, 16>> rank_one_mu, rank_one_loss;
  std::vector<std::array<double, 2>> rank_one_rates;
  std::vector<double> rank_one_direction; // 16 per tet
};
MagneticLayer magnetic_layer(dga::HostOperators const& host);

// Per stretched tet the rule of its subregions' auxiliaries (advance 6 x 6 and drive 6 x 3 from the
// Cartesian h, as on Ampere's side), the loss L = K S' / 2 and K = (Mmu / dt + S' / 2)^-1 of its
// implicit step (4 x 4) and the force coupling X = c |t|/4 [R0 | R1] (I + A) / 2 (3 x 6): the tet's
// force is sum_lv W_lv^T X phi_lv, with W_lv its subregions' dual bases (MagneticLayer::basis).
// For the rank-one tets, L and K (16 each) and the rule (a, d / 2, weight (1 + a) / 2) as on Ampere's side.
struct MagneticStepMatrices {
  std::vector<double> advance, drive, loss, step_inverse, coupling;
  std::vector<double> rank_one_loss, rank_one_step_inverse, rank_one_rule;
};
// Throws dgatd::ModelError (the time step, with the fact dt) when a tet's implicit step is singular at dt.
MagneticStepMatrices magnetic_step_matrices(MagneticLayer const& layer, double dt);

} // namespace dgatd::solver
