#pragma once
// The assembled DGATD baseline stepped with Kokkos Kernels' SpMV (cuSPARSE underneath on CUDA when
// Kokkos Kernels enables it), the formulation the papers compare their custom kernels against.

#include "dgatd/dga/assembled.hpp"
#include "dgatd/kernels/device_operators.hpp"
#include "dgatd/kernels/small_kernels.hpp"

#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dgatd::kernels {

template <class ExecutionSpace>
class AssembledLeapfrog {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using device_type = Kokkos::Device<ExecutionSpace, memory_space>;
  using Matrix = KokkosSparse::CrsMatrix<Real, Index, device_type, void, Index>;
  using Vector = Kokkos::View<Real*, memory_space>;

  AssembledLeapfrog(ExecutionSpace const& space, dga::AssembledOperators const& host)
      : space_(space), faraday_(to_device("dgatd::assembled_faraday", host.faraday)),
        ampere_(to_device("dgatd::assembled_ampere", host.ampere)), u_("dgatd::U", host.ampere.rows),
        f_("dgatd::F", host.faraday.rows)
  {
  }

  Vector const& edge_circulations() const { return u_; }
  Vector const& face_circulations() const { return f_; }
  Matrix const& faraday_matrix() const { return faraday_; }
  Matrix const& ampere_matrix() const { return ampere_; }
  void set_dt(double dt) { dt_ = dt; }
  double dt() const { return dt_; }

  void set_initial_field(std::vector<double> const& edge_values)
  {
    Kokkos::deep_copy(u_, upload_flat<Vector>("dgatd::U_init", edge_values));
    Kokkos::deep_copy(f_, 0.0);
    steps_ = 0;
  }

  // A current source as an edge vector already multiplied by Meps^-1 (see half_edge_rows_to_edges).
  void add_current_source(std::vector<double> const& edge_weights, double amplitude,
                          std::function<double(double)> waveform)
  {
    std::vector<Index> rows;
    std::vector<double> weights;
    for (std::size_t e = 0; e < edge_weights.size(); ++e)
      if (edge_weights[e] != 0) {
        rows.push_back(static_cast<Index>(e));
        weights.push_back(amplitude * edge_weights[e]);
      }
    sources_.push_back({upload_flat<Kokkos::View<Index*, memory_space>>("dgatd::assembled_source_rows", rows),
                        upload_flat<Vector>("dgatd::assembled_source_weights", weights), std::move(waveform)});
  }

  // Prescribed edge values U_e = g(t) weight_e (ports), set after each step like the fractioned
  // prescribed half-edges.
  void add_prescribed(std::vector<Index> const& edges, std::vector<double> const& weights, double amplitude,
                      std::function<double(double)> waveform)
  {
    std::vector<double> scaled(weights);
    for (auto& w : scaled) w *= amplitude;
    prescribed_.push_back(
        {upload_flat<Kokkos::View<Index*, memory_space>>("dgatd::assembled_port_edges", edges),
         upload_flat<Vector>("dgatd::assembled_port_weights", scaled), std::move(waveform)});
  }

  std::int64_t steps() const { return steps_; }

  // The whole state between two steps (U^n, F^(n-1/2), n) on the host.
  void state(std::vector<double>& edge_values, std::vector<double>& face_values) const
  {
    auto const host_u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u_);
    auto const host_f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f_);
    edge_values.assign(host_u.data(), host_u.data() + host_u.size());
    face_values.assign(host_f.data(), host_f.data() + host_f.size());
  }

  void set_state(std::vector<double> const& edge_values, std::vector<double> const& face_values, std::int64_t steps)
  {
    Kokkos::deep_copy(u_, upload_flat<Vector>("dgatd::U_state", edge_values));
    Kokkos::deep_copy(f_, upload_flat<Vector>("dgatd::F_state", face_values));
    steps_ = steps;
  }

  // F <- F - dt (Mmu^-1 Cg) U, then U <- U + dt (Meps^-1 Cg^T) F - dt g(t) Meps^-1 I.
  void step()
  {
    {
      compat::ScopedRegion region("dgatd::assembled_Faraday");
      KokkosSparse::spmv("N", -dt_, faraday_, u_, 1.0, f_);
    }
    {
      compat::ScopedRegion region("dgatd::assembled_Ampere");
      KokkosSparse::spmv("N", dt_, ampere_, f_, 1.0, u_);
    }
    double const t_half = (steps_ + 0.5) * dt_;
    for (auto const& s : sources_) {
      for_each("dgatd::assembled_source", space_, s.rows.extent(0),
               ScatterAdd<memory_space>{s.rows, s.weights, u_, -dt_ * s.waveform(t_half)});
    }
    ++steps_;
    for (auto const& p : prescribed_)
      for_each("dgatd::assembled_port", space_, p.rows.extent(0),
               ScatterSet<memory_space>{p.rows, p.weights, u_, p.waveform(steps_ * dt_)});
  }

  // Compulsory traffic of one SpMV y <- y + a A x: values and column indices once, row offsets,
  // x read once, y read and written.
  static std::int64_t spmv_bytes(Matrix const& a)
  {
    return static_cast<std::int64_t>(a.nnz()) * (sizeof(Real) + sizeof(Index)) +
           static_cast<std::int64_t>(a.numRows() + 1) * sizeof(Index) +
           static_cast<std::int64_t>(a.numCols()) * sizeof(Real) +
           static_cast<std::int64_t>(a.numRows()) * 2 * sizeof(Real);
  }

private:
  struct Source {
    Kokkos::View<Index*, memory_space> rows;
    Vector weights;
    std::function<double(double)> waveform;
  };

  static Matrix to_device(std::string const& label, dga::HostCsr const& m)
  {
    using RowMap = typename Matrix::row_map_type::non_const_type;
    using Entries = typename Matrix::index_type::non_const_type;
    using Values = typename Matrix::values_type::non_const_type;
    auto const row_map = upload_flat<RowMap>(label + "_row_map", m.row_offsets);
    auto const entries = upload_flat<Entries>(label + "_entries", m.column_indices);
    auto const values = upload_flat<Values>(label + "_values", m.values);
    return Matrix(label, m.rows, m.columns, static_cast<Index>(m.values.size()), values, row_map, entries);
  }

  ExecutionSpace space_;
  Matrix faraday_;
  Matrix ampere_;
  Vector u_;
  Vector f_;
  std::vector<Source> sources_;
  std::vector<Source> prescribed_;
  double dt_ = 0;
  std::int64_t steps_ = 0;
};

} // namespace dgatd::kernels
