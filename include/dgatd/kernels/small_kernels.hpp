#pragma once
// The short, non-hot loops of the leapfrog (sources, ports, scaling, quadratic forms, probes) as
// named functors: nvcc 11.8 miscompiles extended lambdas inside member functions of the solver's
// class templates, and functors compile the same on every backend.

#include "dgatd/types.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

namespace dgatd::kernels {

// Which rows, blocks or tets a sum over ranks counts on this one (its own; the others' copies count
// on their owners): all where flags is empty, as in a run of one process.
template <class MemorySpace>
struct OwnedMask {
  Kokkos::View<char*, MemorySpace> flags;
  KOKKOS_INLINE_FUNCTION bool has(Index i) const { return flags.extent(0) == 0 || flags(i) != 0; }
};

// u(rows(i)) += factor weights(i): a current source's contribution, in the fields' precision.
template <class MemorySpace, class FieldScalar = Real>
struct ScatterAdd {
  Kokkos::View<Index*, MemorySpace> rows;
  Kokkos::View<Real*, MemorySpace> weights;
  Kokkos::View<FieldScalar*, MemorySpace> u;
  Real factor;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i) const
  {
    u(rows(i)) += static_cast<FieldScalar>(factor * weights(i));
  }
};

// sum_i weights(i) u(rows(i)): a matched port's modal voltage.
template <class MemorySpace>
struct WeightedGather {
  Kokkos::View<Index*, MemorySpace> rows;
  Kokkos::View<Real*, MemorySpace> weights;
  Kokkos::View<Real*, MemorySpace> u;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i, double& sum) const { sum += weights(i) * u(rows(i)); }
};

// u(rows(i)) = value weights(i): prescribed (port) unknowns, in the fields' precision.
template <class MemorySpace, class FieldScalar = Real>
struct ScatterSet {
  Kokkos::View<Index*, MemorySpace> rows;
  Kokkos::View<Real*, MemorySpace> weights;
  Kokkos::View<FieldScalar*, MemorySpace> u;
  Real value;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i) const
  {
    u(rows(i)) = static_cast<FieldScalar>(value * weights(i));
  }
};

// out(r) = u(rows(r)), or out(r) += u(rows(r)) with accumulate: the lossy rows' u^n, then
// u^n + u~^(n+1).
template <class MemorySpace>
struct GatherRows {
  Kokkos::View<Index*, MemorySpace> rows;
  Kokkos::View<Real*, MemorySpace> u;
  Kokkos::View<Real*, MemorySpace> out;
  bool accumulate;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t r) const { out(r) = (accumulate ? out(r) : 0) + u(rows(r)); }
};

// GatherRows' accumulating pass in layers with a complex frequency shift a: the lossy rows'
// u^n + u~^(n+1) - weight p^n, weight 2 a in the blocks of the layers (solver/losses.hpp).
template <class MemorySpace>
struct GatherShiftedRows {
  Kokkos::View<Index*, MemorySpace> rows;
  Kokkos::View<Real*, MemorySpace> u;
  Kokkos::View<Real*, MemorySpace> out;
  Kokkos::View<Real*, MemorySpace> weight;
  Kokkos::View<Real*, MemorySpace> shifted;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t r) const { out(r) += u(rows(r)) - weight(r) * shifted(r); }
};

// u^n of lossy row `row` less its weight p^n where the layers are shifted (no shift: p is empty;
// a PEC half-edge, row < 0, has u = p = 0).
template <class Weight, class Shifted>
KOKKOS_INLINE_FUNCTION Real shifted_value(Real value, Index row, Weight const& weight, Shifted const& shifted)
{
  return shifted.extent(0) > 0 && row >= 0 ? value - weight(row) * shifted(row) : value;
}

// Where a stretched tet k of a group of n leaves the force piece of its subregion lv's half-edge r
// (slot 3 lv + r), from the group's first piece: in the tet's column, slot n + k, by columns
// (GPUs: a warp's work items write neighbouring numbers), else in its row, 12 k + slot (CPUs: a lossy
// row that gathers its pieces from the tets around its edge then finds each tet's twelve in one or
// two cache lines; 8 % off the dipole's step on 2 cores, docs/method/open_regions.md).
struct PiecePlace {
  std::size_t slot_stride, tet_stride;
  static PiecePlace of(bool by_columns, std::size_t tets)
  {
    return by_columns ? PiecePlace{tets, 1} : PiecePlace{1, 12};
  }
  KOKKOS_INLINE_FUNCTION std::size_t operator()(int slot, std::size_t k) const
  {
    return static_cast<std::size_t>(slot) * slot_stride + k * tet_stride;
  }
};

// The stretched tets k of a matched layer (FractionedLeapfrog's losses), Ampere's side. Before
// Ampere, each of the tet's subregions lv keeps its half-edges' u^n and computes W_lv^T X psi_lv^n,
// its piece of the force of each of its lossy rows (X already holds the weight of psi^n in the
// step's average), where place puts it. A subregion's numbers sit in its tet's row (3 lv + r,
// 9 lv + i, 6 lv + c), so the work items of a GPU warp read neighbouring numbers.
template <class MemorySpace>
struct StretchedTetForce {
  Kokkos::View<Index* [12], MemorySpace> unknowns; // per tet, 3 lv + k for subregion lv
  Kokkos::View<Index* [12], MemorySpace> rows;
  Kokkos::View<Real* [36], MemorySpace> basis;    // 9 lv + i
  Kokkos::View<Real* [18], MemorySpace> coupling; // X, 3 x 6 row-major
  Kokkos::View<Real*, MemorySpace> u;
  Kokkos::View<Real* [24], MemorySpace> psi; // 6 lv + c
  Kokkos::View<Real* [12], MemorySpace> previous;
  Kokkos::View<Real*, MemorySpace> pieces;
  PiecePlace place;
  Kokkos::View<Real*, MemorySpace> shift_weight, shifted; // per lossy row, empty without a shift
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    Real x[18];
    for (int i = 0; i < 18; ++i) x[i] = coupling(k, i);
    for (int lv = 0; lv < 4; ++lv) {
      Real y[3];
      for (int m = 0; m < 3; ++m) {
        // u^n - 2 a p^n: the auxiliaries' rule then reads the step's average of u - a p.
        previous(k, 3 * lv + m) = shifted_value(u(unknowns(k, 3 * lv + m)), rows(k, 3 * lv + m), shift_weight, shifted);
        y[m] = 0;
        for (int c = 0; c < 6; ++c) y[m] += x[6 * m + c] * psi(k, 6 * lv + c);
      }
      for (int r = 0; r < 3; ++r) {
        if (rows(k, 3 * lv + r) < 0) continue;
        Real g = 0;
        for (int m = 0; m < 3; ++m) g += basis(k, 9 * lv + 3 * m + r) * y[m];
        pieces(place(3 * lv + r, k)) = g;
      }
    }
  }
};

// The stretched tets whose stretch splits into Modes scalar modes (HostOperators::StretchModes: one
// where it is rank one, three where G has three distinct real eigenvalues), one auxiliary q per mode
// and subregion, q^(n+1) = a q^n + d / 2 (W^T n) . (u^n + u^(n+1)). After the step's loss correction,
// which leaves u^n + u^(n+1) (less 2 a p^n with a shift) of every lossy row in drive, each tet
// advances its q and writes at once the pieces the next step's force needs, sum_m weight_m (1 + a_m) / 2
// q_lv,m^(n+1) (W_lv^T n_m)_r where place puts them after first_piece (as StretchedTetForce): its
// half-edges, directions and rule are read once per step, and u not at all. Without advance it only
// writes the pieces of the q it holds (a new dt's rule, a reset, a restart). Per tet, mode m's rule
// at 3 m, subregion lv's q at Modes lv + m and its W^T n_m at 3 (Modes lv + m); a PEC half-edge
// (row < 0) has u = 0 and no force.
template <int Modes, class MemorySpace, class Matrix = Real>
struct ModalTetStep {
  Kokkos::View<Index* [12], MemorySpace> rows;                // per tet, 3 lv + r for subregion lv
  Kokkos::View<Matrix * [12 * Modes], MemorySpace> direction; // W_lv^T n_m
  Kokkos::View<Real * [3 * Modes], MemorySpace> rule;         // a, d / 2, weight (1 + a) / 2 per mode
  Kokkos::View<Real*, MemorySpace> drive;                     // per lossy row
  Kokkos::View<Real * [4 * Modes], MemorySpace> q;
  Kokkos::View<Real*, MemorySpace> pieces;
  std::size_t first_piece;
  PiecePlace place;
  bool advance;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    // Everything read before anything is written: the writes to q and pieces could alias the reads
    // as far as the compiler knows.
    Real advance_by[Modes], half_drive[Modes], weight[Modes];
    for (int m = 0; m < Modes; ++m) {
      advance_by[m] = rule(k, 3 * m);
      half_drive[m] = rule(k, 3 * m + 1);
      weight[m] = rule(k, 3 * m + 2);
    }
    for (int lv = 0; lv < 4; ++lv) {
      Index row[3];
      Real along[Modes][3], in[3], next[Modes];
      for (int j = 0; j < 3; ++j) row[j] = rows(k, 3 * lv + j);
      for (int m = 0; m < Modes; ++m)
        for (int j = 0; j < 3; ++j) along[m][j] = direction(k, 3 * (Modes * lv + m) + j);
      for (int j = 0; j < 3; ++j) in[j] = advance && row[j] >= 0 ? drive(row[j]) : Real(0);
      for (int m = 0; m < Modes; ++m) next[m] = q(k, Modes * lv + m);
      if (advance)
        for (int m = 0; m < Modes; ++m) {
          Real x = 0;
          for (int j = 0; j < 3; ++j) x += along[m][j] * in[j];
          next[m] = advance_by[m] * next[m] + half_drive[m] * x;
          q(k, Modes * lv + m) = next[m];
        }
      for (int r = 0; r < 3; ++r) {
        if (row[r] < 0) continue;
        Real piece = 0;
        for (int m = 0; m < Modes; ++m) piece += weight[m] * next[m] * along[m][r];
        pieces(first_piece + place(3 * lv + r, k)) = piece;
      }
    }
  }
};

// Dispersive media (solver/losses.hpp, dga/dispersion.hpp). Per dispersive tet k, its model's poles
// are rules(p) for p from model_first_pole(model(k)) on, each of pole_order(p) states per field
// component; the states lie in x(k, slice lv + 3 j + r) for subregion lv, state j (counted over the
// model's poles) and component r (the subregion's three half-edges), slice = 3 times the most states
// any model has. The force pieces, at first + 12 k + 3 lv + r, are eps_t |s| G_s times the poles'
// history . x^n (mass: G_s's upper triangle, six per subregion).
template <class MemorySpace>
struct DispersiveTetForce {
  Kokkos::View<int*, MemorySpace> model, model_first_pole, pole_order;
  Kokkos::View<Real* [8], MemorySpace> rules;
  Kokkos::View<Real**, MemorySpace> x;
  Kokkos::View<Real* [24], MemorySpace> mass;
  Kokkos::View<Real*, MemorySpace> pieces;
  std::size_t first;
  int slice;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    int const m = model(k);
    for (int lv = 0; lv < 4; ++lv) {
      Real y[3] = {0, 0, 0};
      int state = 0;
      for (int p = model_first_pole(m); p < model_first_pole(m + 1); ++p)
        for (int i = 0; i < pole_order(p); ++i, ++state)
          for (int r = 0; r < 3; ++r) y[r] += rules(p, 6 + i) * x(k, slice * lv + 3 * state + r);
      Real const g00 = mass(k, 6 * lv), g01 = mass(k, 6 * lv + 1), g02 = mass(k, 6 * lv + 2);
      Real const g11 = mass(k, 6 * lv + 3), g12 = mass(k, 6 * lv + 4), g22 = mass(k, 6 * lv + 5);
      std::size_t const at = first + 12 * k + 3 * static_cast<std::size_t>(lv);
      pieces(at) = g00 * y[0] + g01 * y[1] + g02 * y[2];
      pieces(at + 1) = g01 * y[0] + g11 * y[1] + g12 * y[2];
      pieces(at + 2) = g02 * y[0] + g12 * y[1] + g22 * y[2];
    }
  }
};

// x^(n+1) = advance x^n + drive e_avg per pole, e_avg = (u^n + u^(n+1)) / 2 of each subregion half-edge
// from the lossy rows' sums (0 at a PEC half-edge, row -1).
template <class MemorySpace>
struct DispersiveTetStep {
  Kokkos::View<int*, MemorySpace> model, model_first_pole, pole_order;
  Kokkos::View<Real* [8], MemorySpace> rules;
  Kokkos::View<Real**, MemorySpace> x;
  Kokkos::View<Index* [12], MemorySpace> rows;
  Kokkos::View<Real*, MemorySpace> step_sum; // u^n + u^(n+1) per lossy row
  int slice;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    int const m = model(k);
    for (int lv = 0; lv < 4; ++lv)
      for (int r = 0; r < 3; ++r) {
        Index const row = rows(k, 3 * lv + r);
        Real const e = row >= 0 ? Real(0.5) * step_sum(row) : Real(0);
        int state = 0;
        for (int p = model_first_pole(m); p < model_first_pole(m + 1); ++p) {
          int const at = slice * lv + 3 * state + r;
          if (pole_order(p) == 1) {
            x(k, at) = rules(p, 0) * x(k, at) + rules(p, 4) * e;
          } else {
            Real const x0 = x(k, at), x1 = x(k, at + 3);
            x(k, at) = rules(p, 0) * x0 + rules(p, 1) * x1 + rules(p, 4) * e;
            x(k, at + 3) = rules(p, 2) * x0 + rules(p, 3) * x1 + rules(p, 5) * e;
          }
          state += pole_order(p);
        }
      }
  }
};

// The force of each lossy row: the pieces of the subregions that share it, added in the order of
// the subregions, so that a run gives the same bits on every thread count and every time (atomic
// adds summed them in whichever order the threads came, and a checkpointed run then differed from
// the whole run in the last bits).
template <class MemorySpace>
struct GatherForce {
  Kokkos::View<Index*, MemorySpace> offsets;
  Kokkos::View<Index*, MemorySpace> pieces_of_row;
  Kokkos::View<Real*, MemorySpace> pieces;
  Kokkos::View<Real*, MemorySpace> force;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t row) const
  {
    Real sum = 0;
    for (Index k = offsets(row); k < offsets(row + 1); ++k) sum += pieces(pieces_of_row(k));
    force(row) = sum;
  }
};

// The general form's auxiliaries are kept as psi = [z / dt; z'] (six per subregion, at 6 lv), so a
// new dt rescales their first three by the old dt over the new one (both sides of the layers).
template <class MemorySpace>
struct RescaleDisplacements {
  Kokkos::View<Real* [24], MemorySpace> psi;
  Real old_over_new;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    for (int lv = 0; lv < 4; ++lv)
      for (int c = 0; c < 3; ++c) psi(k, 6 * lv + c) *= old_over_new;
  }
};

// Keeps psi scaled by dt: scaled_by is the dt it holds (0 before the first), rescaled when dt differs.
template <class ExecutionSpace, class MemorySpace>
void rescale_displacements(char const* label, ExecutionSpace const& space,
                           Kokkos::View<Real* [24], MemorySpace> const& psi, double& scaled_by, double dt)
{
  if (scaled_by > 0 && dt != scaled_by)
    Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecutionSpace>(space, 0, psi.extent(0)),
                         RescaleDisplacements<MemorySpace>{psi, scaled_by / dt});
  scaled_by = dt;
}

// After the step, the trapezoidal rule for the auxiliaries of a stretched tet's four subregions:
// psi^(n+1) = advance psi^n + drive W (u^n + u^(n+1)) / 2 (advance 6 x 6 and drive 6 x 3 per tet,
// row-major; W per subregion).
template <class MemorySpace>
struct StretchedTetAuxiliary {
  Kokkos::View<Index* [12], MemorySpace> unknowns;
  Kokkos::View<Real* [36], MemorySpace> basis;
  Kokkos::View<Real* [36], MemorySpace> advance;
  Kokkos::View<Real* [18], MemorySpace> drive;
  Kokkos::View<Real*, MemorySpace> u;
  Kokkos::View<Real* [12], MemorySpace> previous;
  Kokkos::View<Real* [24], MemorySpace> psi;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    for (int lv = 0; lv < 4; ++lv) {
      Real average[3], e[3], old[6];
      // u^n as StretchedTetForce kept it in previous.
      for (int j = 0; j < 3; ++j) average[j] = (previous(k, 3 * lv + j) + u(unknowns(k, 3 * lv + j))) * Real(0.5);
      for (int c = 0; c < 3; ++c)
        e[c] = basis(k, 9 * lv + 3 * c) * average[0] + basis(k, 9 * lv + 3 * c + 1) * average[1] +
               basis(k, 9 * lv + 3 * c + 2) * average[2];
      for (int a = 0; a < 6; ++a) old[a] = psi(k, 6 * lv + a);
      for (int a = 0; a < 6; ++a) {
        Real next = 0;
        for (int b = 0; b < 6; ++b) next += advance(k, 6 * a + b) * old[b];
        for (int c = 0; c < 3; ++c) next += drive(k, 3 * a + c) * e[c];
        psi(k, 6 * lv + a) = next;
      }
    }
  }
};

// The loss term of a lossy dual block: u(rows(r)) -= sum_j L_ij sum(block_first(r) + j), j over the
// block's size(r) rows, and in matched layers also sum_j K_ij force(block_first(r) + j) (see
// FractionedLeapfrog's losses). A block's L and K are stored by columns, L_ij at
// row_entry(r) + j size(r) (row_entry(r) its entry i, j = 0), so that the rows of a block, on
// neighbouring threads of a GPU warp, read neighbouring entries, or by rows, L_ij at
// row_entry(r) + j, so that a CPU core reads each row in one run. In layers with a complex frequency
// shift each row then steps its p, p^(n+1) = advance p^n + half_drive (u^n + u^(n+1)), u^n from its
// sum u^n + u~ - weight p^n. With modal tets each row also leaves that sum less the correction,
// u^n + u^(n+1) - weight p^n, in drive for their auxiliaries.
template <class MemorySpace, class Matrix = Real>
struct LossCorrection {
  Kokkos::View<Index*, MemorySpace> rows;
  Kokkos::View<Index*, MemorySpace> block_first;
  Kokkos::View<Index*, MemorySpace> size;
  Kokkos::View<std::int64_t*, MemorySpace> row_entry;
  Kokkos::View<Matrix*, MemorySpace> loss;
  Kokkos::View<Real*, MemorySpace> sum;
  Kokkos::View<Matrix*, MemorySpace> step_inverse; // K, empty without matched layers
  Kokkos::View<Real*, MemorySpace> force;
  Kokkos::View<Real*, MemorySpace> u;
  Kokkos::View<Real*, MemorySpace> shift_weight, shifted; // empty without a shift
  Real shift_advance, shift_half_drive;
  Kokkos::View<Real*, MemorySpace> drive; // empty without modal tets (ModalTetStep)
  bool by_columns;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t r) const
  {
    double correction = 0;
    std::int64_t const first = row_entry(r), stride = by_columns ? size(r) : 1;
    for (Index j = 0; j < size(r); ++j) correction += loss(first + j * stride) * sum(block_first(r) + j);
    if (step_inverse.extent(0) > 0)
      for (Index j = 0; j < size(r); ++j) correction += step_inverse(first + j * stride) * force(block_first(r) + j);
    Real const lossless = u(rows(r));
    u(rows(r)) = lossless - correction;
    if (drive.extent(0) > 0) drive(r) = sum(r) - correction;
    if (shifted.extent(0) == 0) return;
    Real const step_sum = sum(r) + shift_weight(r) * shifted(r) - correction;
    shifted(r) = shift_advance * shifted(r) + shift_half_drive * step_sum;
  }
};

// The Lanczos iteration of the stability bound (solver/stability.hpp) in the Meps inner product.
// After the two kernels from zero fields with dt = 1, u = -K q and, at free row r,
// -curl(row_curl(r)) = (Meps K q)_r: the dual curl gives the mass matrix's product for free.
// LanczosAlpha sums alpha = q . Meps K q.
template <class MemorySpace>
struct LanczosAlpha {
  Kokkos::View<Real*, MemorySpace> q;
  Kokkos::View<Index*, MemorySpace> row_curl;
  Kokkos::View<Real*, MemorySpace> curl;
  OwnedMask<MemorySpace> owned;
  KOKKOS_INLINE_FUNCTION void operator()(Index r, double& sum) const
  {
    if (owned.has(r)) sum -= q(r) * curl(row_curl(r));
  }
};

// The three-term recurrence w = K q - alpha q - beta q_previous, and the same on the products with
// Meps (p = Meps q), written over q_previous and p_previous; sums w . Meps w.
template <class MemorySpace>
struct LanczosRecurrence {
  Kokkos::View<Real*, MemorySpace> minus_k_q;
  Kokkos::View<Index*, MemorySpace> row_curl;
  Kokkos::View<Real*, MemorySpace> curl;
  Kokkos::View<Real*, MemorySpace> q;
  Kokkos::View<Real*, MemorySpace> q_previous;
  Kokkos::View<Real*, MemorySpace> p;
  Kokkos::View<Real*, MemorySpace> p_previous;
  Real alpha;
  Real beta;
  OwnedMask<MemorySpace> owned;
  KOKKOS_INLINE_FUNCTION void operator()(Index r, double& sum) const
  {
    Real const w = -minus_k_q(r) - alpha * q(r) - beta * q_previous(r);
    Real const meps_w = -curl(row_curl(r)) - alpha * p(r) - beta * p_previous(r);
    q_previous(r) = w;
    p_previous(r) = meps_w;
    if (owned.has(r)) sum += w * meps_w;
  }
};

template <class MemorySpace>
struct ScalePair {
  Kokkos::View<Real*, MemorySpace> first;
  Kokkos::View<Real*, MemorySpace> second;
  Real factor;
  KOKKOS_INLINE_FUNCTION void operator()(Index r) const
  {
    first(r) *= factor;
    second(r) *= factor;
  }
};

// sum over dual blocks of x_b . Meps_b y_b, summed in double whatever the fields' precision.
template <class MemorySpace, class FieldScalar = Real>
struct BlockQuadraticForm {
  Kokkos::View<Real*, MemorySpace> eps;
  Kokkos::View<Index*, MemorySpace> block_offset;
  Kokkos::View<std::int64_t*, MemorySpace> block_matrix_offset;
  Kokkos::View<FieldScalar*, MemorySpace> x;
  Kokkos::View<FieldScalar*, MemorySpace> y;
  OwnedMask<MemorySpace> owned;
  KOKKOS_INLINE_FUNCTION void operator()(Index b, double& acc) const
  {
    if (!owned.has(b)) return;
    Index const first = block_offset(b);
    Index const d = block_offset(b + 1) - first;
    std::int64_t const m = block_matrix_offset(b);
    for (Index i = 0; i < d; ++i) {
      double row = 0;
      for (Index j = 0; j < d; ++j) row += eps(m + i * d + j) * y(first + j);
      acc += x(first + i) * row;
    }
  }
};

// sum over tets of f_old_t . Mmu_t f_new_t, summed in double whatever the fields' precision.
template <class TetLayout, class MemorySpace, class FieldScalar = Real>
struct TetQuadraticForm {
  Kokkos::View<Real* [16], TetLayout, MemorySpace> mu;
  Kokkos::View<FieldScalar* [4], TetLayout, MemorySpace> f_old;
  Kokkos::View<FieldScalar* [4], TetLayout, MemorySpace> f_new;
  OwnedMask<MemorySpace> owned;
  KOKKOS_INLINE_FUNCTION void operator()(Index t, double& acc) const
  {
    if (!owned.has(t)) return;
    for (int i = 0; i < 4; ++i) {
      double row = 0;
      for (int j = 0; j < 4; ++j) row += mu(t, 4 * i + j) * f_new(t, j);
      acc += f_old(t, i) * row;
    }
  }
};

// Probes read what both formulations share: the edge circulations U of e and the dual-edge
// circulations F of h, e = sum_k U_k w_k and h = sum_k F_k w~_k over twelve terms (w: 36 entries,
// then w~: 36). The fractioned unknowns give U_k as the sum of the edge's two halves and F_k as the
// sum of the face's one or two tet pieces, so both formulations' traces agree to rounding.
template <class TetLayout, class MemorySpace, class FieldScalar = Real>
struct FractionedProbeSampler {
  Kokkos::View<Index* [12][2], MemorySpace> half_edge_dofs;
  Kokkos::View<Index* [12][2], MemorySpace> piece_tets; // -1: a boundary face has one piece
  Kokkos::View<int* [12][2], MemorySpace> piece_faces;
  Kokkos::View<double* [72], MemorySpace> w;
  Kokkos::View<FieldScalar*, MemorySpace> u;
  Kokkos::View<FieldScalar* [4], TetLayout, MemorySpace> f;
  Kokkos::View<double** [6], MemorySpace> buffer;
  std::size_t row;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t p) const
  {
    sample_probe(w, buffer, row, p, [&](int k, double& edge, double& face) {
      edge = static_cast<double>(u(half_edge_dofs(p, k, 0))) + u(half_edge_dofs(p, k, 1));
      face = f(piece_tets(p, k, 0), piece_faces(p, k, 0));
      if (piece_tets(p, k, 1) >= 0) face += f(piece_tets(p, k, 1), piece_faces(p, k, 1));
    });
  }
};

// A probe's e and h from its twelve edge and face circulations and its weights w (probes.hpp),
// into row `row` of the buffer: what both formulations' samplers share.
template <class WeightView, class BufferView, class Circulations>
KOKKOS_INLINE_FUNCTION void sample_probe(WeightView const& w, BufferView const& buffer, std::size_t row, std::size_t p,
                                         Circulations const& circulations)
{
  double e[3] = {0, 0, 0}, h[3] = {0, 0, 0};
  for (int k = 0; k < 12; ++k) {
    double edge = 0, face = 0;
    circulations(k, edge, face);
    for (int c = 0; c < 3; ++c) {
      e[c] += edge * w(p, 3 * k + c);
      h[c] += face * w(p, 36 + 3 * k + c);
    }
  }
  for (int c = 0; c < 3; ++c) {
    buffer(row, p, c) = e[c];
    buffer(row, p, 3 + c) = h[c];
  }
}

template <class MemorySpace>
struct AssembledProbeSampler {
  Kokkos::View<Index* [12], MemorySpace> edges;
  Kokkos::View<Index* [12], MemorySpace> faces;
  Kokkos::View<double* [72], MemorySpace> w;
  Kokkos::View<Real*, MemorySpace> edge_circulations;
  Kokkos::View<Real*, MemorySpace> face_circulations;
  Kokkos::View<double** [6], MemorySpace> buffer;
  std::size_t row;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t p) const
  {
    sample_probe(w, buffer, row, p, [&](int k, double& edge, double& face) {
      edge = edge_circulations(edges(p, k));
      face = face_circulations(faces(p, k));
    });
  }
};

} // namespace dgatd::kernels
