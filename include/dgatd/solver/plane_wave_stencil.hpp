#pragma once
// Host-side preparation of a plane wave launched through a total-field/scattered-field (TF/SF)
// surface (docs/method/plane_waves.md). The tets of the named regions hold the total field, the others the
// scattered field; a vertex's dual block holds the total field when one of its tets does. The step
// is then the lossless one plus two corrections with the analytic incident field, both only at the
// surface: Faraday, in a scattered-field tet with a total-field vertex, adds back the incident e of
// the half-edges at those vertices; Ampere, in a total-field block at the surface, adds the incident
// h of the scattered-field tets around its edges to their dual curl.

#include "dgatd/dga/operators.hpp"
#include "dgatd/mesh/view.hpp"
#include "dgatd/parallel/communicator.hpp"
#include "dgatd/solver/waveform.hpp"
#include "dgatd/vec3.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace dgatd::solver {

struct PlaneWaveSpec {
  std::string name;           // the total-field region(s), for messages
  Vec3 direction{};           // of propagation, unit
  Vec3 polarization{};        // of e, unit, perpendicular to direction
  Waveform waveform;          // amplitude in V/m
  std::optional<Vec3> origin; // where the front is at t = waveform.t0; none: the surface's first point it reaches
};

// The homogeneous lossless medium the incident wave travels in at the surface, and where the
// surface is first reached.
struct TfsfSurface {
  double eps = 0;
  double mu = 0;
  Vec3 first_point{}; // a vertex of the surface where direction . x is least
};

// The vertices of the closed total-field region: those of its tets.
std::vector<char> total_field_vertices(mesh::Mesh const& mesh, std::vector<char> const& tet_total);

// A part of the whole problem that one rank holds (a run from parts on disk): the vertices it owns
// (it holds every tet and face around them) and the global ids of its tets and vertices.
struct SurfaceOverRanks {
  parallel::Communicator const& communicator;
  std::vector<char> const& owns_vertex;
  std::vector<Index> const& global_tet;
  std::vector<Index> const& global_vertex;
};

// Checks the surface between tet_total's tets and the rest on the whole problem (vertex_total from
// total_field_vertices): it exists, and every tet around it has the same eps and mu, no conductivity
// and no stretch, and no absorbing surface or port touches it. Throws dgatd::ModelError (a plane
// wave into region spec.name). With ranks, m is one rank's part (vertex_total as the whole mesh has
// it): each rank checks around the surface vertices it owns and all agree on the result the whole
// problem gives; collective, a failed check throws parallel::CollectiveError on every rank.
TfsfSurface tfsf_surface(mesh::MeshView const& m, dga::Materials const& materials,
                         std::vector<dga::FaceKind> const& face_kinds, std::vector<char> const& tet_total,
                         std::vector<char> const& vertex_total, PlaneWaveSpec const& spec,
                         SurfaceOverRanks const* ranks = nullptr);

// Signals with delays: value k at time t is the sum over i in [offsets[k], offsets[k+1]) of
// weights[i] g(t - delays[i]), g the waveform's shape (amplitude in the weights).
struct DelayedSignals {
  std::vector<Index> offsets{0};
  std::vector<double> weights;
  std::vector<double> delays;
  Index size() const { return static_cast<Index>(offsets.size()) - 1; }
};

struct PlaneWaveStencil {
  Waveform waveform;
  // Faraday's correction: per tet of tets, four signals (its local faces) of C_t U_inc at t^n over
  // the half-edges at total-field vertices; f^_t += dt (Mmu_t)^-1 times them.
  std::vector<Index> tets;
  std::vector<std::array<double, 10>> mu_inverse; // (Mmu_t)^-1 of each, packed as HostOperators'
  DelayedSignals face_circulations;
  // Ampere's correction: per entry a signal of the incident dual curl at t^(n+1/2) that a row of a
  // total-field block misses; u^(update_rows[r]) += dt sum over its update entries of
  // update_weights[i] value(update_entries[i]) ((Meps_v)^-1 applied once, on the host).
  DelayedSignals missing_curl;
  std::vector<Index> update_rows;
  std::vector<Index> update_offsets{0};
  std::vector<Index> update_entries;
  std::vector<double> update_weights;
  // The largest |g(-delay)| over the samples: the fraction of its peak the incident field already
  // has somewhere on the surface at t = 0 (a late origin or an early t0 switches it on abruptly).
  double start_value = 0;
};

// The stencil on the mesh m (one process, or one rank's part) with ops its operators: tet_total per
// tet of m, vertex_total per vertex of m (from the whole mesh: total_field_vertices), surface from
// tfsf_surface on the whole problem.
PlaneWaveStencil plane_wave_stencil(mesh::MeshView const& m, dga::HostOperators const& ops,
                                    std::vector<char> const& tet_total, std::vector<char> const& vertex_total,
                                    PlaneWaveSpec const& spec, TfsfSurface const& surface);

} // namespace dgatd::solver
