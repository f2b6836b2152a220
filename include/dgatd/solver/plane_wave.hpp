#pragma once
// A plane wave launched through a total-field/scattered-field surface as a term of the leapfrog
// (solver/plane_wave_stencil.hpp, docs/method/plane_waves.md): after Faraday, the scattered-field tets at
// the surface take back the incident e at t^n of their total-field half-edges (and their edge pieces
// follow); after Ampere, the total-field blocks at the surface take the incident h at t^(n+1/2) of
// the scattered-field tets around their edges. The incident field is evaluated on the device from
// the waveform and each sample's delay; the term keeps no state between steps.

#include "dgatd/instances.hpp"
#include "dgatd/kernels/device_operators.hpp"
#include "dgatd/kernels/faraday.hpp"
#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/solver/plane_wave_stencil.hpp"
#include "dgatd/solver/term.hpp"
#include "dgatd/solver/term_recipe.hpp"
#include "dgatd/solver/waveform_shape.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace dgatd::solver {

// DelayedSignals on the device.
template <class MemorySpace>
struct DeviceSignals {
  Kokkos::View<Index*, MemorySpace> offsets;
  Kokkos::View<Real*, MemorySpace> weights;
  Kokkos::View<Real*, MemorySpace> delays;

  DeviceSignals() = default;
  explicit DeviceSignals(DelayedSignals const& host)
      : offsets(kernels::upload_flat<decltype(offsets)>("dgatd::plane_wave_offsets", host.offsets)),
        weights(kernels::upload_flat<decltype(weights)>("dgatd::plane_wave_weights", host.weights)),
        delays(kernels::upload_flat<decltype(delays)>("dgatd::plane_wave_delays", host.delays))
  {
  }
  KOKKOS_INLINE_FUNCTION Real value(Index k, Waveform const& waveform, double t) const
  {
    Real sum = 0;
    for (Index i = offsets(k); i < offsets(k + 1); ++i) sum += weights(i) * waveform_shape(waveform, t - delays(i));
    return sum;
  }
  std::int64_t bytes() const
  {
    return static_cast<std::int64_t>(offsets.extent(0)) * sizeof(Index) +
           static_cast<std::int64_t>(weights.extent(0)) * 2 * sizeof(Real);
  }
};

// Faraday's side, per corrected tet k (tet tets(k)): f^_t += dt (Mmu_t)^-1 (C_t U_inc), then the
// tet's edge pieces again.
template <class TetLayout, class MemorySpace>
struct IncidentFaraday {
  Kokkos::View<Index*, MemorySpace> tets;
  Kokkos::View<Real* [10], MemorySpace> mu_inverse; // packed symmetric, per corrected tet
  DeviceSignals<MemorySpace> faces;
  Waveform waveform;
  double time;
  Real dt;
  Kokkos::View<Real* [4], TetLayout, MemorySpace> f;
  Kokkos::View<std::uint32_t const*, MemorySpace> edge_signs;
  Kokkos::View<Real* [6], TetLayout, MemorySpace> edge_pieces;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    Index const t = tets(k);
    Real face[4], updated[4];
    for (int j = 0; j < 4; ++j) face[j] = faces.value(static_cast<Index>(4 * k + j), waveform, time);
    for (int j = 0; j < 4; ++j) {
      Real s = 0;
      for (int n = 0; n < 4; ++n) s += mu_inverse(k, kernels::packed_symmetric_index(4, j, n)) * face[n];
      updated[j] = f(t, j) + dt * s;
      f(t, j) = updated[j];
    }
    kernels::write_edge_pieces(edge_pieces, t, edge_signs(t), updated);
  }
};

// Ampere's side: the incident dual curl each entry misses, at time.
template <class MemorySpace>
struct IncidentCurl {
  DeviceSignals<MemorySpace> signals;
  Waveform waveform;
  double time;
  Kokkos::View<Real*, MemorySpace> values;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    values(k) = signals.value(static_cast<Index>(k), waveform, time);
  }
};

// u(rows(r)) += dt sum_i weights(i) values(entries(i)) over r's entries: (Meps_v)^-1 times the
// missing curl.
template <class MemorySpace>
struct IncidentUpdate {
  Kokkos::View<Index*, MemorySpace> rows;
  Kokkos::View<Index*, MemorySpace> offsets;
  Kokkos::View<Index*, MemorySpace> entries;
  Kokkos::View<Real*, MemorySpace> weights;
  Kokkos::View<Real*, MemorySpace> values;
  Kokkos::View<Real*, MemorySpace> u;
  Real dt;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t r) const
  {
    Real sum = 0;
    for (Index i = offsets(r); i < offsets(r + 1); ++i) sum += weights(i) * values(entries(i));
    u(rows(r)) += dt * sum;
  }
};

template <class ExecutionSpace, class TetLayout = kernels::DefaultTetLayout<ExecutionSpace>>
class PlaneWave final : public Term<ExecutionSpace, TetLayout> {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using Context = typename Term<ExecutionSpace, TetLayout>::Context;

  explicit PlaneWave(PlaneWaveStencil const& stencil);

  std::string name() const override { return "plane_wave"; }
  // The surface's corrections are the coarse step's own curls of the incident field: the tets beside
  // it step the coarse step.
  LocalStepSupport local_step_support() const override { return {true, corrected_tets_}; }
  // Faraday's side: per tet its index, (Mmu_t)^-1, f^ read and written, its edge signs and pieces;
  // Ampere's side: the curl values written and read, the update's rows and entries, u^ read and
  // written; both sides' samples.
  std::int64_t bytes_per_step() const override;

  void after_faraday(Context const& c) override;
  void after_ampere(Context const& c) override;

private:
  Waveform waveform_;
  std::vector<Index> corrected_tets_;
  Kokkos::View<Index*, memory_space> tets_;
  Kokkos::View<Real* [10], memory_space> mu_inverse_;
  DeviceSignals<memory_space> faces_;
  DeviceSignals<memory_space> curl_;
  Kokkos::View<Real*, memory_space> curl_values_;
  Kokkos::View<Index*, memory_space> update_rows_;
  Kokkos::View<Index*, memory_space> update_offsets_;
  Kokkos::View<Index*, memory_space> update_entries_;
  Kokkos::View<Real*, memory_space> update_weights_;
};

template <class ExecutionSpace, class TetLayout>
PlaneWave<ExecutionSpace, TetLayout>::PlaneWave(PlaneWaveStencil const& stencil)
    : waveform_(stencil.waveform), corrected_tets_(stencil.tets),
      tets_(kernels::upload_flat<decltype(tets_)>("dgatd::plane_wave_tets", stencil.tets)),
      mu_inverse_(kernels::upload_rows<decltype(mu_inverse_)>("dgatd::plane_wave_mu_inverse", stencil.mu_inverse)),
      faces_(stencil.face_circulations), curl_(stencil.missing_curl),
      curl_values_("dgatd::plane_wave_curl", stencil.missing_curl.size()),
      update_rows_(kernels::upload_flat<decltype(update_rows_)>("dgatd::plane_wave_rows", stencil.update_rows)),
      update_offsets_(
          kernels::upload_flat<decltype(update_offsets_)>("dgatd::plane_wave_offsets", stencil.update_offsets)),
      update_entries_(
          kernels::upload_flat<decltype(update_entries_)>("dgatd::plane_wave_entries", stencil.update_entries)),
      update_weights_(
          kernels::upload_flat<decltype(update_weights_)>("dgatd::plane_wave_weights", stencil.update_weights))
{
}

template <class ExecutionSpace, class TetLayout>
std::int64_t PlaneWave<ExecutionSpace, TetLayout>::bytes_per_step() const
{
  auto const tets = static_cast<std::int64_t>(tets_.extent(0));
  auto const rows = static_cast<std::int64_t>(update_rows_.extent(0));
  auto const entries = static_cast<std::int64_t>(update_entries_.extent(0));
  return tets * (static_cast<std::int64_t>(sizeof(Index) + sizeof(std::uint32_t)) + (10 + 2 * 4 + 6) * sizeof(Real)) +
         2 * static_cast<std::int64_t>(curl_values_.extent(0)) * sizeof(Real) +
         rows * (2 * sizeof(Index) + 2 * sizeof(Real)) + entries * (sizeof(Index) + sizeof(Real)) + faces_.bytes() +
         curl_.bytes();
}

template <class ExecutionSpace, class TetLayout>
void PlaneWave<ExecutionSpace, TetLayout>::after_faraday(Context const& c)
{
  kernels::for_each("dgatd::plane_wave_faraday", c.space, tets_.extent(0),
                    IncidentFaraday<TetLayout, memory_space>{tets_, mu_inverse_, faces_, waveform_,
                                                             static_cast<double>(c.step) * c.dt, c.dt, c.fields.f,
                                                             c.operators.tet_edge_signs, c.fields.edge_pieces});
}

template <class ExecutionSpace, class TetLayout>
void PlaneWave<ExecutionSpace, TetLayout>::after_ampere(Context const& c)
{
  double const t_half = (static_cast<double>(c.step) + 0.5) * c.dt;
  kernels::for_each("dgatd::plane_wave_curl", c.space, curl_values_.extent(0),
                    IncidentCurl<memory_space>{curl_, waveform_, t_half, curl_values_});
  kernels::for_each("dgatd::plane_wave_ampere", c.space, update_rows_.extent(0),
                    IncidentUpdate<memory_space>{update_rows_, update_offsets_, update_entries_, update_weights_,
                                                 curl_values_, c.fields.u, c.dt});
}

// A plane wave as a formulation adds it (Formulation::add_term).
inline TermRecipe plane_wave_term(PlaneWaveStencil const& stencil)
{
  return {"plane waves",
          [stencil](auto const& space) { return std::make_unique<PlaneWave<std::decay_t<decltype(space)>>>(stencil); }};
}

#define DGATD_PLANE_WAVE_INSTANCES(PREFIX, SPACE) PREFIX template class PlaneWave<SPACE>;
DGATD_FOR_EACH_INSTANCE_SPACE(DGATD_PLANE_WAVE_INSTANCES, extern)

} // namespace dgatd::solver
