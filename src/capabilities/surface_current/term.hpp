#pragma once
// The term of [[surface_current]]: every step, on each face of the surface and each side of it, the
// surface current J_s = n x h from the side's tet's f^ at t^(n+1/2) and the charge rho_s = eps n . e
// from its half-edges' u^ at t^(n+1), added times exp(-i 2 pi f t) dt to their running Fourier
// transforms on the device (the far field's phasors: no trigonometry per face); and, when the run
// takes a snapshot, their values then. The transforms are the term's state. Over ranks a face is the
// rank's that owns its lowest vertex, which steps both its tets; its row of the state is placed by the
// face's place on the whole surface, and records and snapshots are gathered on rank 0. rho_s is added
// once u^(n+1) is whole on the part (over ranks after the halo exchange), as the far field adds e.

#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/parallel/decomposition.hpp"
#include "dgatd/solver/far_field.hpp"
#include "dgatd/solver/surface_current_record.hpp"
#include "dgatd/solver/term.hpp"

#include <Kokkos_Core.hpp>

#include <array>
#include <complex>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dgatd::capabilities {

// What a face's values read (surface_values: J_s and rho_s on its front, then its back): J_s's
// entries [current_offsets[k], current_offsets[k + 1]) add current_weights[i] f^(current_tets[i],
// current_faces[i]) to the three values from current_values[i] (0: front, 4: back), and rho_s's
// entries add charge_weights[i] u^(charge_dofs[i]) to value charge_values[i] (3 or 7). The weights
// fold in the side's normal, eps and the reading of the fields at the face (model.cpp).
struct SurfaceCurrentStencil {
  std::string name;
  std::vector<double> frequencies;
  std::vector<Index> current_offsets{0}, current_tets, current_faces, current_values;
  std::vector<std::array<double, 3>> current_weights;
  std::vector<Index> charge_offsets{0}, charge_dofs, charge_values;
  std::vector<double> charge_weights;
  std::vector<Index> places; // of the faces among the whole surface's (one process's order)
  Index whole_faces = 0;
  solver::SurfaceGeometry geometry; // of the faces held here; two_sided is the whole surface's
  std::size_t faces() const { return current_offsets.size() - 1; }
};

// Reads J_s and rho_s of face k.
template <class TetLayout, class MemorySpace>
struct SurfaceReading {
  Kokkos::View<Index*, MemorySpace> current_offsets, current_tets, current_faces, current_values;
  Kokkos::View<Real* [3], MemorySpace> current_weights;
  Kokkos::View<Index*, MemorySpace> charge_offsets, charge_dofs, charge_values;
  Kokkos::View<Real*, MemorySpace> charge_weights;
  Kokkos::View<Real* [4], TetLayout, MemorySpace> f;
  Kokkos::View<Real*, MemorySpace> u;

  // J_s of both sides in values[0..2] and [4..6].
  KOKKOS_INLINE_FUNCTION void currents(std::size_t k, Real* values) const
  {
    for (int c = 0; c < 3; ++c) values[c] = values[4 + c] = 0;
    for (Index i = current_offsets(k); i < current_offsets(k + 1); ++i) {
      Real const circulation = f(current_tets(i), current_faces(i));
      for (int c = 0; c < 3; ++c) values[current_values(i) + c] += current_weights(i, c) * circulation;
    }
  }
  // rho_s of both sides in values[3] and [7].
  KOKKOS_INLINE_FUNCTION void charges(std::size_t k, Real* values) const
  {
    values[3] = values[7] = 0;
    for (Index i = charge_offsets(k); i < charge_offsets(k + 1); ++i)
      values[charge_values(i)] += charge_weights(i) * u(charge_dofs(i));
  }
};

// Per face k and frequency m, at 16 m of its row: (Re, Im) of each of its eight values. first, last:
// the values added (0..2 and 4..6, J_s, at h's time; 3 and 7, rho_s, at e's), with the phasors'
// columns phase (0: e's time, 2: h's).
template <class TetLayout, class MemorySpace>
struct SurfaceAccumulate {
  SurfaceReading<TetLayout, MemorySpace> reading;
  Kokkos::View<Real* [4], MemorySpace> phasors;
  Kokkos::View<Real**, Kokkos::LayoutRight, MemorySpace> transforms;
  bool add_currents;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    Real values[solver::surface_values];
    int const column = add_currents ? 2 : 0;
    if (add_currents)
      reading.currents(k, values);
    else
      reading.charges(k, values);
    for (std::size_t m = 0; m < phasors.extent(0); ++m) {
      Real const cosine = phasors(m, column), sine = phasors(m, column + 1);
      for (int i = 0; i < static_cast<int>(solver::surface_values); ++i) {
        bool const current = i % 4 != 3;
        if (current != add_currents) continue;
        transforms(k, 16 * m + 2 * i) += values[i] * cosine;
        transforms(k, 16 * m + 2 * i + 1) -= values[i] * sine;
      }
    }
  }
};

template <class TetLayout, class MemorySpace>
struct SurfaceSnapshotValues {
  SurfaceReading<TetLayout, MemorySpace> reading;
  Kokkos::View<Real * [solver::surface_values], MemorySpace> snapshot;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    Real values[solver::surface_values];
    reading.currents(k, values);
    reading.charges(k, values);
    for (std::size_t i = 0; i < solver::surface_values; ++i) snapshot(k, i) = values[i];
  }
};

template <class ExecutionSpace, class TetLayout = kernels::DefaultTetLayout<ExecutionSpace>>
class SurfaceCurrentTerm final : public solver::Term<ExecutionSpace, TetLayout> {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using Context = typename solver::Term<ExecutionSpace, TetLayout>::Context;

  explicit SurfaceCurrentTerm(SurfaceCurrentStencil stencil)
      : stencil_(std::move(stencil)), phasors_("dgatd::surface_phasors", stencil_.frequencies.size()),
        transforms_("dgatd::surface_transforms", stencil_.faces(), 16 * stencil_.frequencies.size()),
        snapshot_("dgatd::surface_snapshot", stencil_.faces())
  {
    using IndexView = Kokkos::View<Index*, memory_space>;
    auto& r = stencil_reading_;
    r.current_offsets = kernels::upload_flat<IndexView>("dgatd::surface_current_offsets", stencil_.current_offsets);
    r.current_tets = kernels::upload_flat<IndexView>("dgatd::surface_current_tets", stencil_.current_tets);
    r.current_faces = kernels::upload_flat<IndexView>("dgatd::surface_current_faces", stencil_.current_faces);
    r.current_values = kernels::upload_flat<IndexView>("dgatd::surface_current_values", stencil_.current_values);
    r.current_weights =
        kernels::upload_rows<decltype(r.current_weights)>("dgatd::surface_current_weights", stencil_.current_weights);
    r.charge_offsets = kernels::upload_flat<IndexView>("dgatd::surface_charge_offsets", stencil_.charge_offsets);
    r.charge_dofs = kernels::upload_flat<IndexView>("dgatd::surface_charge_dofs", stencil_.charge_dofs);
    r.charge_values = kernels::upload_flat<IndexView>("dgatd::surface_charge_values", stencil_.charge_values);
    r.charge_weights =
        kernels::upload_flat<decltype(r.charge_weights)>("dgatd::surface_charge_weights", stencil_.charge_weights);
    std::vector<double> omegas;
    for (double frequency : stencil_.frequencies) omegas.push_back(6.283185307179586476925286766559 * frequency);
    angular_frequencies_ = kernels::upload_flat<decltype(angular_frequencies_)>("dgatd::surface_omegas", omegas);
  }

  std::string name() const override { return "surface_current"; }
  // It only reads the fields, at the coarse step.
  solver::LocalStepSupport local_step_support() const override { return {true, {}}; }
  // Per face its offsets and its transforms read and written, per entry its indices, weights and
  // the f^ or u^ it reads; the step's phasors once.
  std::int64_t bytes_per_step() const override
  {
    if (stencil_.frequencies.empty()) return 0;
    auto const faces = static_cast<std::int64_t>(stencil_.faces());
    auto const currents = static_cast<std::int64_t>(stencil_.current_tets.size());
    auto const charges = static_cast<std::int64_t>(stencil_.charge_dofs.size());
    auto const phasors = 2 * static_cast<std::int64_t>(phasors_.size() * sizeof(Real));
    auto const index = static_cast<std::int64_t>(sizeof(Index)), real = static_cast<std::int64_t>(sizeof(Real));
    return phasors + faces * (2 * index + 2 * static_cast<std::int64_t>(transforms_.extent(1)) * real) +
           currents * (3 * index + 4 * real) + charges * (2 * index + 2 * real);
  }

  void reset(Context const&) override
  {
    Kokkos::deep_copy(transforms_, 0.0);
    charges_pending_ = false;
  }
  void distribute(parallel::Communicator const& communicator, Context const&) override
  {
    communicator_ = &communicator;
  }
  void settle(Context const& c) override
  {
    add_pending_charges(c);
    fields_ = reading(c);
    space_ = c.space;
  }
  void after_faraday(Context const& c) override { add_pending_charges(c); }
  void end_step(Context const& c) override
  {
    if (stencil_.frequencies.empty()) return;
    double const step = static_cast<double>(c.step);
    kernels::for_each("dgatd::surface_phasors", c.space, phasors_.extent(0),
                      solver::FarFieldPhasors<memory_space>{angular_frequencies_, phasors_, (step + 1) * c.dt,
                                                            (step + 0.5) * c.dt, c.dt});
    kernels::for_each("dgatd::surface_currents", c.space, transforms_.extent(0),
                      SurfaceAccumulate<TetLayout, memory_space>{reading(c), phasors_, transforms_, true});
    charges_pending_ = true;
  }

  std::size_t state_size(std::int64_t) const override { return transforms_.size(); }
  // Saved after the core settled the terms: nothing is pending.
  void save(std::vector<double>& state) const override { kernels::append_rows(transforms_, state); }
  void restore(Context const&, double const* state) override
  {
    kernels::fill_rows(transforms_, state);
    charges_pending_ = false;
  }
  std::vector<solver::StateRows> state_rows() const override
  {
    solver::StateRows rows;
    rows.width = transforms_.extent(1);
    rows.places = stencil_.places;
    rows.whole_rows = stencil_.whole_faces;
    return {rows};
  }

  void add_records(solver::TermRecords& records) const override
  {
    solver::SurfaceCurrentRecord r;
    r.name = stencil_.name;
    r.frequencies = stencil_.frequencies;
    r.geometry = whole_geometry();
    auto const rows = whole_rows(transforms_);
    std::size_t const faces = r.geometry.faces(), width = transforms_.extent(1);
    for (std::size_t m = 0; m < r.frequencies.size(); ++m)
      for (std::size_t k = 0; k < faces; ++k) {
        std::array<std::complex<double>, solver::surface_values> values;
        for (std::size_t i = 0; i < values.size(); ++i)
          values[i] = {rows[width * k + 16 * m + 2 * i], rows[width * k + 16 * m + 2 * i + 1]};
        r.transforms.push_back(values);
      }
    records.surface_currents.push_back(std::move(r));
  }
  // The fields as the core settled them before the snapshot (Term::settle).
  void add_snapshot(solver::TermSnapshots& snapshots) const override
  {
    kernels::for_each("dgatd::surface_snapshot", space_, snapshot_.extent(0),
                      SurfaceSnapshotValues<TetLayout, memory_space>{fields_, snapshot_});
    space_.fence();
    snapshots.surfaces.push_back({stencil_.name, stencil_.geometry.two_sided, whole_rows(snapshot_)});
  }

private:
  SurfaceCurrentStencil stencil_;
  SurfaceReading<TetLayout, memory_space> stencil_reading_; // without the fields
  Kokkos::View<Real*, memory_space> angular_frequencies_;
  Kokkos::View<Real* [4], memory_space> phasors_;
  Kokkos::View<Real**, Kokkos::LayoutRight, memory_space> transforms_;
  Kokkos::View<Real * [solver::surface_values], memory_space> snapshot_;
  SurfaceReading<TetLayout, memory_space> fields_{}; // and the space they are read on, as last settled
  ExecutionSpace space_{};
  bool charges_pending_ = false; // rho_s's transforms wait for u^(n+1) to be whole
  parallel::Communicator const* communicator_ = nullptr;

  SurfaceReading<TetLayout, memory_space> reading(Context const& c) const
  {
    auto r = stencil_reading_;
    r.f = c.fields.f;
    r.u = c.fields.u;
    return r;
  }
  void add_pending_charges(Context const& c)
  {
    if (!charges_pending_) return;
    charges_pending_ = false;
    kernels::for_each("dgatd::surface_charges", c.space, transforms_.extent(0),
                      SurfaceAccumulate<TetLayout, memory_space>{reading(c), phasors_, transforms_, false});
  }

  // A view's rows (one per face held here) over the whole surface, on rank 0 over ranks (collective).
  template <class View>
  std::vector<double> whole_rows(View const& view) const
  {
    auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
    std::vector<double> rows(host.data(), host.data() + host.size());
    if (!communicator_) return rows;
    std::vector<char> const owned(stencil_.places.size(), 1);
    return parallel::gather_owned(*communicator_, rows, stencil_.places, owned,
                                  static_cast<std::size_t>(stencil_.whole_faces), 0, host.extent(1));
  }
  solver::SurfaceGeometry whole_geometry() const
  {
    auto const& g = stencil_.geometry;
    std::vector<double> rows;
    for (std::size_t k = 0; k < g.faces(); ++k) {
      for (auto const& corner : g.corners[k]) rows.insert(rows.end(), corner.begin(), corner.end());
      rows.insert(rows.end(),
                  {g.normals[k][0], g.normals[k][1], g.normals[k][2], g.areas[k], static_cast<double>(g.sides[k])});
    }
    constexpr std::size_t width = 14;
    if (communicator_) {
      std::vector<char> const owned(stencil_.places.size(), 1);
      rows = parallel::gather_owned(*communicator_, rows, stencil_.places, owned,
                                    static_cast<std::size_t>(stencil_.whole_faces), 0, width);
    }
    solver::SurfaceGeometry whole;
    whole.two_sided = g.two_sided;
    for (std::size_t k = 0; width * k < rows.size(); ++k) {
      double const* row = &rows[width * k];
      whole.corners.push_back(
          {Vec3{row[0], row[1], row[2]}, Vec3{row[3], row[4], row[5]}, Vec3{row[6], row[7], row[8]}});
      whole.normals.push_back({row[9], row[10], row[11]});
      whole.areas.push_back(row[12]);
      whole.sides.push_back(static_cast<int>(row[13]));
    }
    return whole;
  }
};

} // namespace dgatd::capabilities
