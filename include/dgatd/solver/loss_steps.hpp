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
  std::vector<dga::HostOperators::StretchedSubregion> subregions;
};
LossyRows lossy_rows(dga::HostOperators const& host);

// Per lossy block L = K S' / 2 and, with matched layers, K = (Meps / dt + S' / 2)^-1; per stretched
// subregion its auxiliaries' advance A (6 x 6), drive D W (6 x 3) and force coupling B (I + A) / 2
// (3 x 6), all row-major (solver/losses.hpp has the equations).
struct LossStepMatrices {
  std::vector<double> loss;
  std::vector<double> step_inverse;
  std::vector<double> advance, drive, coupling;
};
// Throws dgatd::ModelError (the time step, with the fact dt) when a block's implicit step is singular at dt.
LossStepMatrices loss_step_matrices(LossyRows const& rows, double dt);

// Faraday's side of the matched layers, per stretched tet (HostOperators' magnetic terms).
struct MagneticLayer {
  std::vector<Index> tets;
  std::vector<std::array<double, 18>> rates; // S then P
  std::vector<std::array<double, 16>> mu;
  std::vector<std::array<double, 16>> loss;
  std::vector<std::array<double, 96>> coupling;
  std::vector<std::array<double, 48>> basis;
};
MagneticLayer magnetic_layer(dga::HostOperators const& host);

// Per stretched tet the advance of its 24 auxiliaries (36 per subregion rule, one rule per tet), their
// drive from the tet's four f^ (96), the loss L (16) and the coupling Q (96) of its implicit step.
struct MagneticStepMatrices {
  std::vector<double> advance, drive, loss, coupling;
};
// Throws dgatd::ModelError (the time step, with the fact dt) when a tet's implicit step is singular at dt.
MagneticStepMatrices magnetic_step_matrices(MagneticLayer const& layer, double dt);

} // namespace dgatd::solver
