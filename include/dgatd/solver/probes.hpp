#pragma once
// Point probes on the device: after each recorded step every probe's e and h go into a device
// buffer, so recording costs no host transfer until the buffer is drained. Both formulations record
// through the same stencils (ProbeStencil), read from the unknowns they share.

#include "dgatd/dga/operators.hpp"
#include "dgatd/instances.hpp"
#include "dgatd/kernels/device_operators.hpp"
#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/mesh/topology.hpp"
#include "dgatd/solver/formulation.hpp"
#include "dgatd/solver/stencils.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <utility>
#include <vector>

namespace dgatd::solver {

template <class ExecutionSpace>
class ProbeRecorder {
public:
  using memory_space = typename ExecutionSpace::memory_space;

  ProbeRecorder() = default;
  ProbeRecorder(ExecutionSpace const& space, std::vector<ProbeStencil> const& probes, mesh::Topology const& topology,
                dga::DofLayout const& layout)
      : space_(space), count_(probes.size())
  {
    Index const n = static_cast<Index>(probes.size());
    edges_ = decltype(edges_)("dgatd::probe_edges", n);
    faces_ = decltype(faces_)("dgatd::probe_faces", n);
    half_edge_dofs_ = decltype(half_edge_dofs_)("dgatd::probe_half_edge_dofs", n);
    piece_tets_ = decltype(piece_tets_)("dgatd::probe_piece_tets", n);
    piece_faces_ = decltype(piece_faces_)("dgatd::probe_piece_faces", n);
    w_ = decltype(w_)("dgatd::probe_weights", n);
    auto edges = Kokkos::create_mirror_view(edges_);
    auto faces = Kokkos::create_mirror_view(faces_);
    auto dofs = Kokkos::create_mirror_view(half_edge_dofs_);
    auto tets = Kokkos::create_mirror_view(piece_tets_);
    auto local_faces = Kokkos::create_mirror_view(piece_faces_);
    auto w = Kokkos::create_mirror_view(w_);
    for (Index p = 0; p < n; ++p)
      for (int k = 0; k < 12; ++k) {
        Index const edge = probes[p].edges[k];
        Index const face = probes[p].faces[k];
        edges(p, k) = edge;
        faces(p, k) = face;
        for (int side = 0; side < 2; ++side) {
          dofs(p, k, side) = layout.dof_of_half_edge[topology.edge_half_edges[edge][side]];
          Index const t = topology.face_tets[face][side];
          tets(p, k, side) = t;
          local_faces(p, k, side) = 0;
          if (t >= 0)
            for (int j = 0; j < 4; ++j)
              if (topology.tet_faces[t][j] == face) local_faces(p, k, side) = j;
        }
        for (int c = 0; c < 3; ++c) {
          w(p, 3 * k + c) = probes[p].w[k][c];
          w(p, 36 + 3 * k + c) = probes[p].w_dual[k][c];
        }
      }
    Kokkos::deep_copy(edges_, edges);
    Kokkos::deep_copy(faces_, faces);
    Kokkos::deep_copy(half_edge_dofs_, dofs);
    Kokkos::deep_copy(piece_tets_, tets);
    Kokkos::deep_copy(piece_faces_, local_faces);
    Kokkos::deep_copy(w_, w);
    buffer_ = decltype(buffer_)("dgatd::probe_buffer", buffer_rows, n);
  }

  std::size_t size() const { return count_; }

  // From the fractioned unknowns u^ and f^.
  template <class TetLayout, class FieldScalar>
  void record(kernels::Fields<ExecutionSpace, TetLayout, FieldScalar> const& fields)
  {
    if (count_ == 0) return;
    make_room();
    kernels::for_each("dgatd::probes", space_, count_,
                      kernels::FractionedProbeSampler<TetLayout, memory_space, FieldScalar>{
                          half_edge_dofs_, piece_tets_, piece_faces_, w_, fields.u, fields.f, buffer_, buffered_});
    ++buffered_;
  }

  // From the assembled unknowns U (per edge) and F (per face).
  void record(Kokkos::View<Real*, memory_space> const& edge_circulations,
              Kokkos::View<Real*, memory_space> const& face_circulations)
  {
    if (count_ == 0) return;
    make_room();
    kernels::for_each("dgatd::probes", space_, count_,
                      kernels::AssembledProbeSampler<memory_space>{edges_, faces_, w_, edge_circulations,
                                                                   face_circulations, buffer_, buffered_});
    ++buffered_;
  }

  // All rows recorded since the last call.
  ProbeSamples take_samples()
  {
    drain_into_host();
    std::vector<double> out;
    out.swap(samples_);
    return {count_, std::move(out)};
  }

private:
  static constexpr std::size_t buffer_rows = 4096;

  void make_room()
  {
    if (buffered_ == buffer_.extent(0)) drain_into_host();
  }

  void drain_into_host()
  {
    if (buffered_ == 0) return;
    auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), buffer_);
    for (std::size_t r = 0; r < buffered_; ++r)
      for (std::size_t p = 0; p < count_; ++p)
        for (int c = 0; c < 6; ++c) samples_.push_back(host(r, p, c));
    buffered_ = 0;
  }

  ExecutionSpace space_;
  std::size_t count_ = 0;
  Kokkos::View<Index* [12], memory_space> edges_;
  Kokkos::View<Index* [12], memory_space> faces_;
  Kokkos::View<Index* [12][2], memory_space> half_edge_dofs_;
  Kokkos::View<Index* [12][2], memory_space> piece_tets_;
  Kokkos::View<int* [12][2], memory_space> piece_faces_;
  Kokkos::View<double* [72], memory_space> w_;
  Kokkos::View<double** [6], memory_space> buffer_;
  std::size_t buffered_ = 0;
  std::vector<double> samples_; // the layout ProbeSamples reads: [row][probe][Ex Ey Ez Hx Hy Hz]
};

#define DGATD_PROBE_RECORDER_INSTANCES(PREFIX, SPACE) PREFIX template class ProbeRecorder<SPACE>;
DGATD_FOR_EACH_INSTANCE_SPACE(DGATD_PROBE_RECORDER_INSTANCES, extern)

} // namespace dgatd::solver
