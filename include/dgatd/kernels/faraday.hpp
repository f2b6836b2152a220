#pragma once
// Faraday update, eq. (5) of the paper: f^_t <- f^_t - dt K_t U_t for every tet, where U_t are the
// six full-edge circulations U_e = u^(a,e) + u^(b,e) of the tet and K_t = (Mmu_t)^-1 C_t. The
// kernel forms the four face circulations C_t U_t from the edge signs and multiplies them by the
// packed symmetric (Mmu_t)^-1: 10 numbers per tet instead of K_t's 24, and in float the operator
// is still the exact incidence times a symmetric positive definite matrix, so the step still
// conserves an energy (DeviceOperators::mu). While the new f^_t are in registers it also writes the
// tet's six edge pieces of the dual curl (its share of C~ f^, see HostOperators::tet_edge_signs):
// the Ampere update then only adds them up per edge. On CPU cores picking the faces and signs out
// of the f^ there cost more than streaming the pieces.

#include "dgatd/error.hpp"
#include "dgatd/instances.hpp"
#include "dgatd/kernels/device_operators.hpp"
#include "dgatd/mesh/reference_tet.hpp"
#include "dgatd/types.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>

namespace dgatd::kernels {

// Tet t's six edge pieces of the dual curl from its four new f^ (HostOperators::tet_edge_signs).
// Signs by table, not ?: which compiles to branches the meshes make unpredictable.
template <class PieceView, class FieldScalar>
KOKKOS_INLINE_FUNCTION void write_edge_pieces(PieceView const& edge_pieces, Index t, std::uint32_t signs,
                                              FieldScalar const (&updated)[4])
{
  FieldScalar const sign[2] = {1, -1};
  for (int k = 0; k < 6; ++k)
    edge_pieces(t, k) = sign[(signs >> (2 * k + 1)) & 1u] * updated[mesh::tet_edge_face(k, 0)] +
                        sign[(signs >> (2 * k)) & 1u] * updated[mesh::tet_edge_face(k, 1)];
}

template <class ExecutionSpace, class TetLayout, class MatrixScalar, class FieldScalar>
struct FaradayKernel {
  using memory_space = typename ExecutionSpace::memory_space;
  Kokkos::View<Index const* [12], TetLayout, memory_space> tet_dofs;
  Kokkos::View<MatrixScalar const* [10], TetLayout, memory_space> mu_inverse;
  Kokkos::View<FieldScalar const*, memory_space, Kokkos::MemoryTraits<Kokkos::RandomAccess>> u;
  Kokkos::View<FieldScalar* [4], TetLayout, memory_space> f;
  Kokkos::View<std::uint32_t const*, memory_space> edge_signs;
  Kokkos::View<FieldScalar* [6], TetLayout, memory_space> edge_pieces;
  FieldScalar dt;

  FaradayKernel(DeviceOperators<ExecutionSpace, TetLayout> const& ops,
                Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields, FieldScalar time_step)
      : tet_dofs(ops.tet_dofs), mu_inverse(ops.template matrices<MatrixScalar>().mu_inverse), u(fields.u), f(fields.f),
        edge_signs(ops.tet_edge_signs), edge_pieces(fields.edge_pieces), dt(time_step)
  {
    if (static_cast<Index>(mu_inverse.extent(0)) != ops.num_tets)
      throw Error("Faraday update",
                  std::string("the operators hold no ") + matrix_precision_name(matrix_precision_of<MatrixScalar>()) +
                      " matrices",
                  "upload them in the precision the update runs in");
  }

  KOKKOS_INLINE_FUNCTION void operator()(Index t) const
  {
    FieldScalar const sign[2] = {1, -1};
    std::uint32_t const signs = edge_signs(t);
    FieldScalar face[4] = {0, 0, 0, 0};
    for (int k = 0; k < 6; ++k) {
      FieldScalar const circulation = u(tet_dofs(t, 2 * k)) + u(tet_dofs(t, 2 * k + 1));
      face[mesh::tet_edge_face(k, 0)] += sign[(signs >> (2 * k + 1)) & 1u] * circulation;
      face[mesh::tet_edge_face(k, 1)] += sign[(signs >> (2 * k)) & 1u] * circulation;
    }
    FieldScalar updated[4];
    for (int j = 0; j < 4; ++j) {
      FieldScalar s = 0;
      for (int n = 0; n < 4; ++n)
        s += static_cast<FieldScalar>(mu_inverse(t, packed_symmetric_index(4, j, n))) * face[n];
      updated[j] = f(t, j) - dt * s;
      f(t, j) = updated[j];
    }
    write_edge_pieces(edge_pieces, t, signs, updated);
  }

  // Dynamic: on a shared host a descheduled thread would otherwise hold up the whole launch with its
  // static share of tets (GPUs ignore the schedule).
  using policy_type = Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<Index>>;

  policy_type policy(ExecutionSpace const& space) const
  {
    return policy_type(space, 0, static_cast<Index>(f.extent(0)));
  }

  // Compulsory traffic, each array element moved once: (Mmu_t)^-1 (10 per tet), the 12 unknown indices and
  // the edge signs read, f^ read and written (4 per tet), the 6 edge pieces written, and every
  // unknown u^ read once.
  static std::int64_t bytes_moved(Index num_tets, Index num_unknowns)
  {
    return static_cast<std::int64_t>(num_tets) * (10 * sizeof(MatrixScalar) + 12 * sizeof(Index) +
                                                  sizeof(std::uint32_t) + (2 * 4 + 6) * sizeof(FieldScalar)) +
           static_cast<std::int64_t>(num_unknowns) * sizeof(FieldScalar);
  }
};

// Matched layers on Faraday's side, per stretched tet k (tet tets(k)), around the lossless kernel:
// before it, the tet's f^(n-1/2) is kept in previous; after it, with f~ what the kernel wrote,
//   f^(n+1/2) = f~ - L (f~ + f^(n-1/2)) - K sum_lv W_lv^T X phi_lv^(n-1/2),
// the six auxiliary unknowns of each of its four subregions advance,
// phi_lv^(n+1/2) = advance phi_lv^(n-1/2) + drive W_lv (f^(n-1/2) + f^(n+1/2)) / 2,
// and the tet's edge pieces are written again from the corrected f^ (FractionedLeapfrog).
template <class TetLayout, class MemorySpace>
struct MagneticStretchBefore {
  Kokkos::View<Index*, MemorySpace> tets;
  Kokkos::View<Real* [4], TetLayout, MemorySpace> f;
  Kokkos::View<Real* [4], MemorySpace> previous;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    for (int j = 0; j < 4; ++j) previous(k, j) = f(tets(k), j);
  }
};

// The complex frequency shift a of a layer on Faraday's side: per stretched tet p' + a p = f^,
// four numbers (its subregions share f^), stepped by p <- advance p + half_drive (f^(n-1/2) + f^(n+1/2));
// weight 2 a. Empty (and weight 0) without a shift.
template <class MemorySpace>
struct TetShift {
  Kokkos::View<Real* [4], MemorySpace> p;
  Real weight = 0, advance = 1, half_drive = 0;
  // The layers' shift a and p's rule at this dt (solver::MagneticStepMatrices::shift_rule).
  void set_rule(double shift, std::array<double, 2> const& rule)
  {
    weight = 2 * shift;
    advance = rule[0];
    half_drive = rule[1];
  }
  // f^(n-1/2) - 2 a p^(n-1/2) of tet k's faces: the loss and the auxiliaries then read the step's
  // average of f^ - a p, with p^(n+1/2) eliminated (docs/method/open_regions.md, section 3).
  template <class Previous>
  KOKKOS_INLINE_FUNCTION void shifted_previous(Previous const& previous, std::size_t k, Real (&out)[4]) const
  {
    for (int j = 0; j < 4; ++j) out[j] = p.extent(0) > 0 ? previous(k, j) - weight * p(k, j) : previous(k, j);
  }
  template <class Previous>
  KOKKOS_INLINE_FUNCTION void advance_tet(Previous const& previous, std::size_t k, Real const (&updated)[4]) const
  {
    if (p.extent(0) == 0) return;
    for (int j = 0; j < 4; ++j) p(k, j) = advance * p(k, j) + half_drive * (previous(k, j) + updated[j]);
  }
};

// f^(n+1/2) = f~ - L (f~ + f^(n-1/2) - 2 a p) - K force on stretched tet k (tet t, its row k of L and
// K), written to f and to updated; shifted_previous returns f^(n-1/2) - 2 a p (MagneticStretchAfter).
template <class Matrices, class Field>
KOKKOS_INLINE_FUNCTION void correct_stretched_tet(Matrices const& loss, Matrices const& step_inverse,
                                                  Real const (&shifted_previous)[4], Field const& f, std::size_t k,
                                                  Index t, Real const (&force)[4], Real (&updated)[4])
{
  Real lossless[4];
  for (int j = 0; j < 4; ++j) lossless[j] = f(t, j);
  for (int i = 0; i < 4; ++i) {
    Real correction = 0;
    for (int j = 0; j < 4; ++j)
      correction += loss(k, 4 * i + j) * (lossless[j] + shifted_previous[j]) + step_inverse(k, 4 * i + j) * force[j];
    updated[i] = lossless[i] - correction;
    f(t, i) = updated[i];
  }
}

template <class TetLayout, class MemorySpace, class Matrix = Real>
struct MagneticStretchAfter {
  Kokkos::View<Index*, MemorySpace> tets;
  Kokkos::View<Real* [4], TetLayout, MemorySpace> f;
  Kokkos::View<Real* [4], MemorySpace> previous;
  Kokkos::View<Matrix* [16], MemorySpace> loss;         // L, 4 x 4 row-major
  Kokkos::View<Matrix* [16], MemorySpace> step_inverse; // K, 4 x 4 row-major
  Kokkos::View<Real* [18], MemorySpace> coupling;       // X, 3 x 6 row-major
  Kokkos::View<Real* [48], MemorySpace> basis;          // W_lv, 3 x 4 per subregion
  Kokkos::View<Real* [24], MemorySpace> phi;            // six per subregion
  Kokkos::View<Real* [36], MemorySpace> advance;        // 6 x 6, the tet's four subregions alike
  Kokkos::View<Real* [18], MemorySpace> drive;          // 6 x 3, from the subregion's Cartesian h
  Kokkos::View<std::uint32_t const*, MemorySpace> edge_signs;
  Kokkos::View<Real* [6], TetLayout, MemorySpace> edge_pieces;
  TetShift<MemorySpace> shift;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    Index const t = tets(k);
    Real updated[4], force[4] = {0, 0, 0, 0}, shifted_previous[4];
    for (int lv = 0; lv < 4; ++lv)
      for (int m = 0; m < 3; ++m) {
        Real y = 0;
        for (int c = 0; c < 6; ++c) y += coupling(k, 6 * m + c) * phi(k, 6 * lv + c);
        for (int face = 0; face < 4; ++face) force[face] += basis(k, 12 * lv + 4 * m + face) * y;
      }
    shift.shifted_previous(previous, k, shifted_previous);
    correct_stretched_tet(loss, step_inverse, shifted_previous, f, k, t, force, updated);
    Real average[4];
    for (int j = 0; j < 4; ++j) average[j] = Real(0.5) * (shifted_previous[j] + updated[j]);
    for (int lv = 0; lv < 4; ++lv) {
      Real h[3], old[6];
      for (int m = 0; m < 3; ++m) {
        h[m] = 0;
        for (int face = 0; face < 4; ++face) h[m] += basis(k, 12 * lv + 4 * m + face) * average[face];
      }
      for (int a = 0; a < 6; ++a) old[a] = phi(k, 6 * lv + a);
      for (int a = 0; a < 6; ++a) {
        Real next = 0;
        for (int b = 0; b < 6; ++b) next += advance(k, 6 * a + b) * old[b];
        for (int m = 0; m < 3; ++m) next += drive(k, 3 * a + m) * h[m];
        phi(k, 6 * lv + a) = next;
      }
    }
    shift.advance_tet(previous, k, updated);
    write_edge_pieces(edge_pieces, t, edge_signs(t), updated);
  }
};

// The stretched tets whose stretch splits into Modes scalar modes (HostOperators::StretchModes), one
// auxiliary phi per mode and subregion, in one pass before the lossless kernel. The trapezoidal rule
//   Mmu (f^(n+1/2) - f^(n-1/2)) / dt + S' (f^(n+1/2) + f^(n-1/2)) / 2 - S' a p + g = -C U^n
// is f^(n+1/2) = f^(n-1/2) - dt M (S' (f^(n-1/2) - a p) + g) - dt M C U^n with M = (Mmu + dt S' / 2)^-1,
// symmetric like (Mmu)^-1: in these tets the lossless kernel multiplies by M where it would by
// (Mmu)^-1 (MagneticStretch writes it there), so this pass leaves f^(n-1/2) - dt M (S' (f - a p) + g)
// and the kernel adds the rest and writes the edge pieces. The force is
// g = sum_m weight_m (1 + a_m) / 2 sum_lv phi_lv,m^(n-1/2) b_lv,m and the auxiliaries step by
//   phi_lv,m^(n+1/2) = a_m phi_lv,m^(n-1/2) + d_m / 2 b_lv,m . (f^(n-1/2) - 2 a p^(n-1/2) + f^(n+1/2)),
// b_lv,m = W_lv^T n_m, p^(n+1/2) = advance p^(n-1/2) + half_drive (f^(n-1/2) + f^(n+1/2)) with a shift
// a. f^(n+1/2) is known only at the next step's start, so phi and p hold between steps all but its
// share, d_m / 2 b_lv,m . f^(n+1/2) and half_drive f^(n+1/2), which this pass adds first
// (MagneticModalRebase keeps that so when the rule changes). Per tet mode m's rule at 3 m, phi_lv,m
// at Modes lv + m and b_lv,m by local faces at 4 (Modes lv + m); S' and M packed symmetric.
template <int Modes, class TetLayout, class MemorySpace, class Matrix, class StepMatrix>
struct MagneticModalStep {
  Kokkos::View<Index*, MemorySpace> tets;
  Kokkos::View<Real* [4], TetLayout, MemorySpace> f;
  Kokkos::View<StepMatrix* [10], TetLayout, MemorySpace> step; // the lossless kernel's matrices: M here
  Kokkos::View<Matrix* [10], MemorySpace> implicit_loss;       // S'
  Kokkos::View<Matrix * [16 * Modes], MemorySpace> direction;  // b_lv,m
  Kokkos::View<Real * [3 * Modes], MemorySpace> rule;          // a, d / 2, weight (1 + a) / 2 per mode
  Kokkos::View<Real * [4 * Modes], MemorySpace> phi;           // one per mode and subregion, less its last share
  TetShift<MemorySpace> shift;                                 // p, less its last share
  Real dt;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    Index const t = tets(k);
    bool const shifted = shift.p.extent(0) > 0;
    Real field[4], p[4], shifted_previous[4], half_shifted[4], y[4];
    for (int j = 0; j < 4; ++j) {
      field[j] = f(t, j);
      p[j] = shifted ? shift.p(k, j) + shift.half_drive * field[j] : Real(0);
      // The weight is 2 a.
      shifted_previous[j] = field[j] - shift.weight * p[j];
      half_shifted[j] = field[j] - Real(0.5) * shift.weight * p[j];
    }
    for (int i = 0; i < 4; ++i) {
      y[i] = 0;
      for (int j = 0; j < 4; ++j)
        y[i] += static_cast<Real>(implicit_loss(k, packed_symmetric_index(4, i, j))) * half_shifted[j];
    }
    for (int lv = 0; lv < 4; ++lv)
      for (int m = 0; m < Modes; ++m) {
        int const at = Modes * lv + m;
        Real along = 0;
        for (int face = 0; face < 4; ++face) along += direction(k, 4 * at + face) * field[face];
        Real along_shifted = along;
        if (shifted) {
          along_shifted = 0;
          for (int face = 0; face < 4; ++face) along_shifted += direction(k, 4 * at + face) * shifted_previous[face];
        }
        Real const previous = phi(k, at) + rule(k, 3 * m + 1) * along;
        Real const weighted = rule(k, 3 * m + 2) * previous;
        for (int face = 0; face < 4; ++face) y[face] += weighted * direction(k, 4 * at + face);
        phi(k, at) = rule(k, 3 * m) * previous + rule(k, 3 * m + 1) * along_shifted;
      }
    for (int i = 0; i < 4; ++i) {
      Real s = 0;
      for (int j = 0; j < 4; ++j) s += static_cast<Real>(step(t, packed_symmetric_index(4, i, j))) * y[j];
      f(t, i) = field[i] - dt * s;
    }
    if (shifted)
      for (int j = 0; j < 4; ++j) shift.p(k, j) = shift.advance * p[j] + shift.half_drive * field[j];
  }
};

// What MagneticModalStep's phi and p hold between steps when the rule changes from `from` (d / 2
// per mode at 3 m + 1, half_drive; empty and 0 when there was none, phi and p then whole) to `to`:
// the next pass adds the new rule's share of f^(n+1/2), so the old share goes in now and the new one out.
template <int Modes, class TetLayout, class MemorySpace, class Matrix>
struct MagneticModalRebase {
  Kokkos::View<Index*, MemorySpace> tets;
  Kokkos::View<Real* [4], TetLayout, MemorySpace> f;
  Kokkos::View<Matrix * [16 * Modes], MemorySpace> direction;
  Kokkos::View<Real * [3 * Modes], MemorySpace> from, to;
  Kokkos::View<Real * [4 * Modes], MemorySpace> phi;
  Kokkos::View<Real* [4], MemorySpace> p;
  Real from_half_drive, to_half_drive;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    Index const t = tets(k);
    for (int lv = 0; lv < 4; ++lv)
      for (int m = 0; m < Modes; ++m) {
        int const at = Modes * lv + m;
        Real along = 0;
        for (int face = 0; face < 4; ++face) along += direction(k, 4 * at + face) * f(t, face);
        Real const old_share = from.extent(0) > 0 ? from(k, 3 * m + 1) : Real(0);
        phi(k, at) += (old_share - to(k, 3 * m + 1)) * along;
      }
    if (p.extent(0) > 0)
      for (int j = 0; j < 4; ++j) p(k, j) += (from_half_drive - to_half_drive) * f(t, j);
  }
};

// Rows of the lossless kernel's matrices replaced: row tets(k) of step takes row k of rows.
template <class TetLayout, class MemorySpace, class StepMatrix>
struct ReplaceTetRows {
  Kokkos::View<Index*, MemorySpace> tets;
  Kokkos::View<StepMatrix* [10], MemorySpace> rows;
  Kokkos::View<StepMatrix* [10], TetLayout, MemorySpace> step;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    for (int j = 0; j < 10; ++j) step(tets(k), j) = rows(k, j);
  }
};

// Traffic of the update in the precision the operators were uploaded in (ampere_bytes_moved's twin).
template <class FieldScalar = Real, class ExecutionSpace, class TetLayout>
std::int64_t faraday_bytes_moved(DeviceOperators<ExecutionSpace, TetLayout> const& ops)
{
  if (ops.matrix_precision == MatrixPrecision::float32)
    return FaradayKernel<ExecutionSpace, TetLayout, float, FieldScalar>::bytes_moved(ops.num_tets, ops.num_unknowns);
  return FaradayKernel<ExecutionSpace, TetLayout, double, FieldScalar>::bytes_moved(ops.num_tets, ops.num_unknowns);
}

// launch(kernel) with the update's kernel in the precision of the operators' matrices (float fields
// take float matrices alone: single precision).
template <class ExecutionSpace, class TetLayout, class FieldScalar, class Launch>
void with_faraday_kernel(DeviceOperators<ExecutionSpace, TetLayout> const& ops,
                         Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields, FieldScalar dt,
                         Launch const& launch)
{
  compat::ScopedRegion region("dgatd::Faraday");
  with_step_matrix_scalar<FieldScalar>(ops.matrix_precision, [&](auto matrix_scalar) {
    launch(FaradayKernel<ExecutionSpace, TetLayout, decltype(matrix_scalar), FieldScalar>(ops, fields, dt));
  });
}

// In the precision of the operators' matrices.
template <class ExecutionSpace, class TetLayout, class FieldScalar>
void faraday_update(ExecutionSpace const& space, DeviceOperators<ExecutionSpace, TetLayout> const& ops,
                    Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields, FieldScalar dt)
{
  with_faraday_kernel(ops, fields, dt, [&](auto const& kernel) {
    Kokkos::parallel_for("dgatd::Faraday", kernel.policy(space), kernel);
  });
}

// Faraday on some runs of tets only: a run over several ranks steps, while the halo messages fly,
// the runs that read no halo unknown, then the runs that hold a tet that does (a rim tet;
// solver/halo_exchange.hpp). A run is tets_per_run consecutive tets, so both passes stream through
// consecutive tets with one index read per run: a per-tet flag or a list of the scattered rim tets
// made the split Faraday about 10 % slower than one pass over all tets (docs/method/parallel.md, "Overlap").
inline constexpr Index tets_per_run = 32;

// A host takes a run per work item, a plain loop over consecutive tets as in one pass over all (per-tet
// index arithmetic in that loop made Faraday about 20 % slower on 2 cores); a GPU takes a tet per
// work item, so that a warp reads consecutive tets. The tests run both forms on the host.
template <class Kernel,
          bool RunPerItem = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Kernel::memory_space>::accessible>
struct TetRuns {
  static constexpr bool run_per_item = RunPerItem;
  Kernel kernel;
  Kokkos::View<Index const*, typename Kernel::memory_space> first_tets;
  Index num_tets;
  Index work_items() const { return static_cast<Index>(first_tets.extent(0)) * (run_per_item ? 1 : tets_per_run); }
  KOKKOS_INLINE_FUNCTION void operator()(Index i) const
  {
    if constexpr (run_per_item) {
      Index const first = first_tets(i);
      Index const end = first + tets_per_run < num_tets ? first + tets_per_run : num_tets;
      for (Index t = first; t < end; ++t) kernel(t);
    } else {
      Index const t = first_tets(i / tets_per_run) + i % tets_per_run;
      if (t < num_tets) kernel(t);
    }
  }
};

template <class ExecutionSpace, class TetLayout, class FieldScalar>
void faraday_update(ExecutionSpace const& space, DeviceOperators<ExecutionSpace, TetLayout> const& ops,
                    Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields, FieldScalar dt,
                    Kokkos::View<Index const*, typename ExecutionSpace::memory_space> const& first_tets)
{
  with_faraday_kernel(ops, fields, dt, [&](auto const& kernel) {
    using Kernel = std::decay_t<decltype(kernel)>;
    TetRuns<Kernel> const runs{kernel, first_tets, ops.num_tets};
    Kokkos::parallel_for("dgatd::Faraday_runs", typename Kernel::policy_type(space, 0, runs.work_items()), runs);
  });
}

// The library compiles the update on its instance spaces and layouts for double and float
// fields (dgatd/instances.hpp), so the benchmarks and tests that call it link those.
#define DGATD_FARADAY_UPDATE_INSTANCES(PREFIX, SPACE, LAYOUT)                                                          \
  DGATD_FARADAY_UPDATE_FIELD_INSTANCES(PREFIX, SPACE, LAYOUT, Real)                                                    \
  DGATD_FARADAY_UPDATE_FIELD_INSTANCES(PREFIX, SPACE, LAYOUT, float)
#define DGATD_FARADAY_UPDATE_FIELD_INSTANCES(PREFIX, SPACE, LAYOUT, FIELD)                                             \
  PREFIX template void faraday_update(SPACE const&, DeviceOperators<SPACE, LAYOUT> const&,                             \
                                      Fields<SPACE, LAYOUT, FIELD> const&, FIELD);                                     \
  PREFIX template void faraday_update(SPACE const&, DeviceOperators<SPACE, LAYOUT> const&,                             \
                                      Fields<SPACE, LAYOUT, FIELD> const&, FIELD,                                      \
                                      Kokkos::View<Index const*, SPACE::memory_space> const&);
DGATD_FOR_EACH_INSTANCE_LAYOUT(DGATD_FARADAY_UPDATE_INSTANCES, extern)

} // namespace dgatd::kernels
