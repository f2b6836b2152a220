#pragma once
// A near-to-far-field surface as a term of the leapfrog (solver/far_field_stencil.hpp): every step
// each face of the surface adds e at t^(n+1) and h at t^(n+1/2), times exp(-i 2 pi f t) dt, to its
// running Fourier transforms at the surface's frequencies, on the device; no time series is kept. The
// transforms are the term's state, so a checkpoint carries them. Over ranks a face is the rank's that
// owns its inside tet (which also steps the tet outside), its row of the state is placed by the
// face's place on the whole surface, and the record is gathered on rank 0. h is added at the end of
// the step; e once u^(n+1) is whole on the part, which over ranks is after the halo exchange: at the
// next step's after_faraday, or when the core settles the terms before it reads anything.

#include "dgatd/instances.hpp"
#include "dgatd/kernels/device_operators.hpp"
#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/kokkos_compat.hpp"
#include "dgatd/parallel/decomposition.hpp"
#include "dgatd/solver/far_field_stencil.hpp"
#include "dgatd/solver/term.hpp"
#include "dgatd/solver/term_recipe.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace dgatd::solver {

// Per frequency m, once a step: dt exp(-i w t) at e's time and at h's, as (Re, -Im, Re, -Im), so
// that the faces do no trigonometry (it cost a fifth of a patch antenna's step with 15 frequencies).
template <class MemorySpace>
struct FarFieldPhasors {
  Kokkos::View<Real*, MemorySpace> angular_frequencies;
  Kokkos::View<Real* [4], MemorySpace> phasors;
  double time_e, time_h;
  Real dt;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t m) const
  {
    double const omega = angular_frequencies(m);
    phasors(m, 0) = dt * kmath::cos(omega * time_e);
    phasors(m, 1) = dt * kmath::sin(omega * time_e);
    phasors(m, 2) = dt * kmath::cos(omega * time_h);
    phasors(m, 3) = dt * kmath::sin(omega * time_h);
  }
};

// Per face k and frequency m, at 12 m of its row: Re e, Im e, Re h, Im h (three each). e at the
// centroid from the face's edges' circulations, times the phasors at e's time (columns 0, 1).
template <class MemorySpace>
struct FarFieldAccumulateE {
  Kokkos::View<Index* [6], MemorySpace> unknowns;
  Kokkos::View<Real* [9], MemorySpace> edge_weights;
  Kokkos::View<Real* [4], MemorySpace> phasors;
  Kokkos::View<Real*, MemorySpace> u;
  Kokkos::View<Real**, Kokkos::LayoutRight, MemorySpace> transforms;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    Real e[3] = {0, 0, 0};
    for (int edge = 0; edge < 3; ++edge) {
      Real const circulation = u(unknowns(k, 2 * edge)) + u(unknowns(k, 2 * edge + 1));
      for (int c = 0; c < 3; ++c) e[c] += circulation * edge_weights(k, 3 * edge + c);
    }
    for (std::size_t m = 0; m < phasors.extent(0); ++m) {
      Real const cos_e = phasors(m, 0), sin_e = phasors(m, 1);
      for (int c = 0; c < 3; ++c) {
        transforms(k, 12 * m + c) += e[c] * cos_e;
        transforms(k, 12 * m + 3 + c) -= e[c] * sin_e;
      }
    }
  }
};

// h on the face from the f^ of its two tets, times the phasors at h's time (columns 2, 3).
template <class TetLayout, class MemorySpace>
struct FarFieldAccumulateH {
  Kokkos::View<Index* [2], MemorySpace> tets;
  Kokkos::View<Real* [24], MemorySpace> tet_weights;
  Kokkos::View<Real* [4], MemorySpace> phasors;
  Kokkos::View<Real* [4], TetLayout, MemorySpace> f;
  Kokkos::View<Real**, Kokkos::LayoutRight, MemorySpace> transforms;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    Real h[3] = {0, 0, 0};
    for (int side = 0; side < 2; ++side)
      for (int j = 0; j < 4; ++j) {
        Real const value = f(tets(k, side), j);
        for (int c = 0; c < 3; ++c) h[c] += tet_weights(k, 12 * side + 4 * c + j) * value;
      }
    for (std::size_t m = 0; m < phasors.extent(0); ++m) {
      Real const cos_h = phasors(m, 2), sin_h = phasors(m, 3);
      for (int c = 0; c < 3; ++c) {
        transforms(k, 12 * m + 6 + c) += h[c] * cos_h;
        transforms(k, 12 * m + 9 + c) -= h[c] * sin_h;
      }
    }
  }
};

template <class ExecutionSpace, class TetLayout = kernels::DefaultTetLayout<ExecutionSpace>>
class FarField final : public Term<ExecutionSpace, TetLayout> {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using Context = typename Term<ExecutionSpace, TetLayout>::Context;

  explicit FarField(FarFieldStencil stencil);

  std::string name() const override { return "far_field"; }
  // It only reads the fields, at the coarse step.
  LocalStepSupport local_step_support() const override { return {true, {}}; }
  // Per face: its unknowns' indices and weights, the six u^ and eight f^ it reads, the tets' indices
  // and weights, and its transforms read and written; the step's phasors once.
  std::int64_t bytes_per_step() const override;

  void reset(Context const&) override
  {
    Kokkos::deep_copy(transforms_, 0.0);
    incident_.assign(incident_.size(), 0.0);
    e_pending_ = false;
  }
  void distribute(parallel::Communicator const& communicator, Context const&) override
  {
    communicator_ = &communicator;
  }
  void settle(Context const& c) override { add_pending_e(c); }
  void after_faraday(Context const& c) override { add_pending_e(c); }
  void end_step(Context const& c) override;
  std::size_t state_size(std::int64_t) const override { return transforms_.size() + incident_.size(); }
  // Saved, as anything that reads the fields, after the core settled the terms: nothing is pending.
  void save(std::vector<double>& state) const override
  {
    kernels::append_rows(transforms_, state);
    state.insert(state.end(), incident_.begin(), incident_.end());
  }
  void restore(Context const&, double const* state) override
  {
    kernels::fill_rows(transforms_, state);
    std::copy_n(state + transforms_.size(), incident_.size(), incident_.begin());
    e_pending_ = false;
  }
  // A row per face, at its place on the whole surface; the incident transform is the same on every rank.
  std::vector<StateRows> state_rows() const override
  {
    StateRows rows;
    rows.width = transforms_.extent(1);
    rows.places = stencil_.places;
    rows.whole_rows = stencil_.whole_faces;
    return {rows};
  }

  // The transforms so far, with the surface's geometry; over ranks gathered on rank 0 (collective),
  // whose record alone is whole.
  FarFieldRecord record() const;
  void add_records(TermRecords& records) const override { records.far_fields.push_back(record()); }

private:
  FarFieldStencil stencil_;
  Kokkos::View<Index* [6], memory_space> unknowns_;
  Kokkos::View<Real* [9], memory_space> edge_weights_;
  Kokkos::View<Index* [2], memory_space> tets_;
  Kokkos::View<Real* [24], memory_space> tet_weights_;
  Kokkos::View<Real*, memory_space> angular_frequencies_;
  Kokkos::View<Real* [4], memory_space> phasors_;
  Kokkos::View<Real**, Kokkos::LayoutRight, memory_space> transforms_;
  std::vector<double> incident_; // Re, Im per frequency: the plane wave's e at its origin, transformed
  bool e_pending_ = false;       // the phasors' e columns wait for u^(n+1) to be whole
  parallel::Communicator const* communicator_ = nullptr;

  void add_pending_e(Context const& c);
};

template <class ExecutionSpace, class TetLayout>
FarField<ExecutionSpace, TetLayout>::FarField(FarFieldStencil stencil)
    : stencil_(std::move(stencil)),
      unknowns_(kernels::upload_rows<decltype(unknowns_)>("dgatd::far_field_unknowns", stencil_.edge_unknowns)),
      tets_(kernels::upload_rows<decltype(tets_)>("dgatd::far_field_tets", stencil_.tets)),
      phasors_("dgatd::far_field_phasors", stencil_.frequencies.size()),
      transforms_("dgatd::far_field_transforms", stencil_.centroids.size(), 12 * stencil_.frequencies.size()),
      incident_(stencil_.has_incident ? 2 * stencil_.frequencies.size() : 0, 0.0)
{
  std::vector<std::array<double, 9>> edge_weights;
  for (auto const& w : stencil_.edge_weights)
    edge_weights.push_back({w[0][0], w[0][1], w[0][2], w[1][0], w[1][1], w[1][2], w[2][0], w[2][1], w[2][2]});
  edge_weights_ = kernels::upload_rows<decltype(edge_weights_)>("dgatd::far_field_edge_weights", edge_weights);
  std::vector<std::array<double, 24>> tet_weights;
  for (auto const& sides : stencil_.tet_weights) {
    std::array<double, 24> row{};
    std::copy(sides[0].begin(), sides[0].end(), row.begin());
    std::copy(sides[1].begin(), sides[1].end(), row.begin() + 12);
    tet_weights.push_back(row);
  }
  tet_weights_ = kernels::upload_rows<decltype(tet_weights_)>("dgatd::far_field_tet_weights", tet_weights);
  std::vector<double> omegas;
  for (double frequency : stencil_.frequencies) omegas.push_back(6.283185307179586476925286766559 * frequency);
  angular_frequencies_ = kernels::upload_flat<decltype(angular_frequencies_)>("dgatd::far_field_omegas", omegas);
}

template <class ExecutionSpace, class TetLayout>
std::int64_t FarField<ExecutionSpace, TetLayout>::bytes_per_step() const
{
  auto const faces = static_cast<std::int64_t>(stencil_.centroids.size());
  // The step's phasors, written once and read from cache by every face, count once each way.
  auto const phasors = 2 * static_cast<std::int64_t>(phasors_.size() * sizeof(Real));
  return phasors + faces * (static_cast<std::int64_t>(8 * sizeof(Index)) + (9 + 24 + 6 + 8) * sizeof(Real) +
                            2 * static_cast<std::int64_t>(transforms_.extent(1)) * sizeof(Real));
}

template <class ExecutionSpace, class TetLayout>
void FarField<ExecutionSpace, TetLayout>::end_step(Context const& c)
{
  double const step = static_cast<double>(c.step);
  kernels::for_each(
      "dgatd::far_field_phasors", c.space, phasors_.extent(0),
      FarFieldPhasors<memory_space>{angular_frequencies_, phasors_, (step + 1) * c.dt, (step + 0.5) * c.dt, c.dt});
  kernels::for_each(
      "dgatd::far_field_h", c.space, transforms_.extent(0),
      FarFieldAccumulateH<TetLayout, memory_space>{tets_, tet_weights_, phasors_, c.fields.f, transforms_});
  e_pending_ = true;
  if (incident_.empty()) return;
  double const time = (step + 1) * c.dt;
  double const value = stencil_.incident_waveform.amplitude * stencil_.incident_waveform.value(time) * c.dt;
  for (std::size_t m = 0; m < stencil_.frequencies.size(); ++m) {
    double const angle = 6.283185307179586476925286766559 * stencil_.frequencies[m] * time;
    incident_[2 * m] += value * std::cos(angle);
    incident_[2 * m + 1] -= value * std::sin(angle);
  }
}

template <class ExecutionSpace, class TetLayout>
void FarField<ExecutionSpace, TetLayout>::add_pending_e(Context const& c)
{
  if (!e_pending_) return;
  e_pending_ = false;
  kernels::for_each("dgatd::far_field_e", c.space, transforms_.extent(0),
                    FarFieldAccumulateE<memory_space>{unknowns_, edge_weights_, phasors_, c.fields.u, transforms_});
}

template <class ExecutionSpace, class TetLayout>
FarFieldRecord FarField<ExecutionSpace, TetLayout>::record() const
{
  FarFieldRecord r;
  r.name = stencil_.name;
  r.frequencies = stencil_.frequencies;
  r.eps = stencil_.eps;
  r.mu = stencil_.mu;
  r.has_incident = stencil_.has_incident;
  r.incident_direction = stencil_.incident_direction;
  r.incident_polarization = stencil_.incident_polarization;
  r.has_origin = stencil_.has_incident;
  r.incident_origin = stencil_.incident_origin;
  for (std::size_t m = 0; 2 * m < incident_.size(); ++m) r.incident.push_back({incident_[2 * m], incident_[2 * m + 1]});
  auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), transforms_);
  std::vector<double> rows(host.data(), host.data() + host.size()), geometry;
  for (std::size_t k = 0; k < stencil_.centroids.size(); ++k) {
    auto const& x = stencil_.centroids[k];
    auto const& n = stencil_.normals[k];
    geometry.insert(geometry.end(), {x[0], x[1], x[2], n[0], n[1], n[2], stencil_.areas[k]});
  }
  if (communicator_) {
    std::vector<char> const owned(stencil_.places.size(), 1);
    auto const whole = static_cast<std::size_t>(stencil_.whole_faces);
    rows = parallel::gather_owned(*communicator_, rows, stencil_.places, owned, whole, 0, host.extent(1));
    geometry = parallel::gather_owned(*communicator_, geometry, stencil_.places, owned, whole, 0, 7);
  }
  std::size_t const faces = geometry.size() / 7, width = 12 * r.frequencies.size();
  for (std::size_t k = 0; k < faces; ++k) {
    double const* g = &geometry[7 * k];
    r.centroids.push_back({g[0], g[1], g[2]});
    r.normals.push_back({g[3], g[4], g[5]});
    r.areas.push_back(g[6]);
  }
  for (std::size_t m = 0; m < r.frequencies.size(); ++m)
    for (std::size_t k = 0; k < faces; ++k) {
      double const* row = &rows[width * k + 12 * m];
      std::array<std::complex<double>, 3> e, h;
      for (int c = 0; c < 3; ++c) {
        e[c] = {row[c], row[3 + c]};
        h[c] = {row[6 + c], row[9 + c]};
      }
      r.e.push_back(e);
      r.h.push_back(h);
    }
  return r;
}

// A far-field surface as a formulation adds it (Formulation::add_term).
inline TermRecipe far_field_term(FarFieldStencil const& stencil)
{
  return {"far-field surfaces",
          [stencil](auto const& space) { return std::make_unique<FarField<std::decay_t<decltype(space)>>>(stencil); }};
}

#define DGATD_FAR_FIELD_INSTANCES(PREFIX, SPACE) PREFIX template class FarField<SPACE>;
DGATD_FOR_EACH_INSTANCE_SPACE(DGATD_FAR_FIELD_INSTANCES, extern)

} // namespace dgatd::solver
