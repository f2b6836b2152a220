#pragma once
// The fractioned DGATD leapfrog on one execution space: Faraday (eq. 5) then Ampere (eq. 6) per
// step, sources and prescribed port values, the energy invariant, the stability bound by power
// iteration. Everything in the step runs as Kokkos kernels.

#include "dgatd/kernels/ampere.hpp"
#include "dgatd/kernels/device_operators.hpp"
#include "dgatd/kernels/faraday.hpp"
#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/solver/stencils.hpp"
#include "dgatd/solver/waveform.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dgatd::solver {

struct PowerIterationResult {
  double rho = 0;    // estimate of the spectral radius of K = (Meps)^-1 C~ (Mmu)^-1 C
  double dt_max = 0; // 2 / sqrt(rho)
  int iterations = 0;
  bool converged = false;
};

template <class ExecutionSpace, class TetLayout = kernels::DefaultTetLayout<ExecutionSpace>>
class FractionedLeapfrog {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using Operators = kernels::DeviceOperators<ExecutionSpace, TetLayout, Real>;
  using FieldSet = kernels::Fields<ExecutionSpace, TetLayout, Real>;

  // block_pass: how Ampere multiplies the dual-block inverses (kernels::AmpereBlockPass); the
  // default is the one chosen for this kind of backend (kernels::default_block_pass).
  FractionedLeapfrog(ExecutionSpace const& space, dga::HostOperators const& host,
                     kernels::AmpereBlockPass block_pass = kernels::default_block_pass<ExecutionSpace>())
      : space_(space), ops_(kernels::upload<ExecutionSpace, TetLayout, Real>(host, block_pass)),
        fields_(kernels::make_fields<ExecutionSpace, TetLayout, Real>(ops_)),
        f_previous_("dgatd::f_hat_previous", ops_.num_tets)
  {
    set_up_losses(host);
  }

  Operators const& operators() const { return ops_; }
  FieldSet const& fields() const { return fields_; }
  double dt() const { return dt_; }
  void set_dt(double dt)
  {
    dt_ = dt;
    update_loss_matrices();
  }
  bool lossy() const { return !loss_.eps.empty(); }
  // Steps taken since the initial field: the sources' clock.
  std::int64_t steps() const { return steps_; }

  // The whole state between two steps (u^n, f^(n-1/2), n), on the host, f^ row-major: with it a
  // later run continues bit for bit.
  void state(std::vector<double>& u, std::vector<double>& f) const
  {
    auto const host_u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fields_.u);
    auto const host_f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fields_.f);
    u.assign(host_u.data(), host_u.data() + host_u.size());
    f.resize(4 * host_f.extent(0));
    for (std::size_t t = 0; t < host_f.extent(0); ++t)
      for (int j = 0; j < 4; ++j) f[4 * t + j] = host_f(t, j);
  }

  void set_state(std::vector<double> const& u, std::vector<double> const& f, std::int64_t steps)
  {
    Kokkos::deep_copy(fields_.u, kernels::detail::upload_flat<Kokkos::View<Real*, memory_space>>("dgatd::u_state", u));
    auto host_f = Kokkos::create_mirror_view(fields_.f);
    for (std::size_t t = 0; t < host_f.extent(0); ++t)
      for (int j = 0; j < 4; ++j) host_f(t, j) = f[4 * t + j];
    Kokkos::deep_copy(fields_.f, host_f);
    steps_ = steps;
  }

  void add_current_source(CurrentStencil const& stencil, double amplitude, Signal waveform)
  {
    std::vector<double> weights(stencil.weights);
    for (auto& w : weights) w *= amplitude;
    sources_.push_back(
        {kernels::detail::upload_flat<Kokkos::View<Index*, memory_space>>("dgatd::source_rows", stencil.rows),
         kernels::detail::upload_flat<Kokkos::View<Real*, memory_space>>("dgatd::source_weights", weights),
         std::move(waveform)});
  }

  void add_prescribed(PrescribedStencil const& stencil, double amplitude, Signal waveform)
  {
    std::vector<double> weights(stencil.weights);
    for (auto& w : weights) w *= amplitude;
    prescribed_.push_back(
        {kernels::detail::upload_flat<Kokkos::View<Index*, memory_space>>("dgatd::port_dofs", stencil.dofs),
         kernels::detail::upload_flat<Kokkos::View<Real*, memory_space>>("dgatd::port_weights", weights),
         std::move(waveform)});
  }

  // Random free unknowns (u^) and zero f^: a field with every mode, for invariant and spectrum tests.
  void set_random_initial_field(std::uint64_t seed)
  {
    std::vector<double> values(ops_.num_unknowns, 0.0);
    std::uint64_t state = seed;
    for (Index i = 0; i < ops_.num_free; ++i) values[i] = uniform(state);
    Kokkos::deep_copy(fields_.u,
                      kernels::detail::upload_flat<Kokkos::View<Real*, memory_space>>("dgatd::u_init", values));
    Kokkos::deep_copy(fields_.f, 0.0);
    steps_ = 0;
  }

  // Sets u^ (all unknowns, as from project_field) and zero f^.
  void set_initial_field(std::vector<double> const& u)
  {
    Kokkos::deep_copy(fields_.u, kernels::detail::upload_flat<Kokkos::View<Real*, memory_space>>("dgatd::u_init", u));
    Kokkos::deep_copy(fields_.f, 0.0);
    steps_ = 0;
  }

  // One leapfrog step from (u^n, f^(n-1/2)) to (u^(n+1), f^(n+1/2)).
  void step() { advance(false); }

  // Takes one step and returns W^n = 1/2 u^n.Meps u^n + 1/2 f^(n-1/2).Mmu f^(n+1/2), the quantity
  // the leapfrog conserves exactly without sources.
  double step_with_energy() { return advance(true); }

  // u.Meps u over the free unknowns.
  double electric_energy(Kokkos::View<Real*, memory_space> const& u) const { return mixed_electric(u, u); }

  // Power iteration on K = (Meps)^-1 C~ (Mmu)^-1 C with the Rayleigh quotient in the Meps inner
  // product (K is self-adjoint there, so the estimate rises monotonically to rho). The two kernels
  // applied with dt = 1 from zero fields give -K x. The static null space of K (differences of the
  // two halves of an edge) is annihilated by the first application and never returns.
  PowerIterationResult estimate_stability(double tolerance = 1e-6, int max_iterations = 20000, std::uint64_t seed = 7)
  {
    FieldSet work = kernels::make_fields<ExecutionSpace, TetLayout, Real>(ops_);
    Kokkos::View<Real*, memory_space> x("dgatd::power_x", ops_.num_unknowns);
    std::vector<double> start(ops_.num_unknowns, 0.0);
    std::uint64_t state = seed;
    for (Index i = 0; i < ops_.num_free; ++i) start[i] = uniform(state);
    Kokkos::deep_copy(x, kernels::detail::upload_flat<Kokkos::View<Real*, memory_space>>("dgatd::power_start", start));
    PowerIterationResult result;
    double previous = 0;
    for (int it = 1; it <= max_iterations; ++it) {
      double const norm = std::sqrt(electric_energy(x));
      scale_into(work.u, x, 1.0 / norm);
      Kokkos::deep_copy(space_, x, work.u);
      Kokkos::deep_copy(space_, work.f, 0.0);
      kernels::faraday_update(space_, ops_, work, 1.0);
      Kokkos::deep_copy(space_, work.u, 0.0);
      kernels::ampere_update(space_, ops_, work, 1.0);
      // work.u = -K x; with <x, x>_Meps = 1 the Rayleigh quotient is <x, K x>_Meps.
      double const rho = -mixed_electric(x, work.u);
      Kokkos::deep_copy(space_, x, work.u);
      result.rho = rho;
      result.iterations = it;
      if (it > 1 && std::abs(rho - previous) < tolerance * std::abs(rho)) {
        result.converged = true;
        break;
      }
      previous = rho;
    }
    result.dt_max = 2.0 / std::sqrt(result.rho);
    return result;
  }

  ExecutionSpace const& space() const { return space_; }

private:
  struct Source {
    Kokkos::View<Index*, memory_space> rows;
    Kokkos::View<Real*, memory_space> weights;
    Signal waveform;
  };

  void apply_source(Source const& s, double factor) const
  {
    Kokkos::parallel_for("dgatd::current_source", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, s.rows.extent(0)),
                         kernels::ScatterAdd<memory_space>{s.rows, s.weights, fields_.u, factor});
  }

  void apply_prescribed(Source const& s, double value) const
  {
    Kokkos::parallel_for("dgatd::prescribed_port", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, s.rows.extent(0)),
                         kernels::ScatterSet<memory_space>{s.rows, s.weights, fields_.u, value});
  }

  void scale_into(Kokkos::View<Real*, memory_space> const& out, Kokkos::View<Real*, memory_space> const& in,
                  double factor) const
  {
    Kokkos::parallel_for("dgatd::scale", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, in.extent(0)),
                         kernels::Scale<memory_space>{out, in, factor});
  }

  // x.Meps y over the free unknowns.
  double mixed_electric(Kokkos::View<Real*, memory_space> const& x, Kokkos::View<Real*, memory_space> const& y) const
  {
    double sum = 0;
    Kokkos::parallel_reduce(
        "dgatd::electric_product",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index>>(space_, 0, ops_.num_blocks),
        kernels::BlockQuadraticForm<memory_space>{ops_.eps, ops_.block_offset, ops_.block_matrix_offset, x, y}, sum);
    return sum;
  }

  // f^(n-1/2).Mmu f^(n+1/2), with f^(n-1/2) saved in f_previous_.
  double magnetic_cross_energy() const
  {
    double sum = 0;
    Kokkos::parallel_reduce("dgatd::magnetic_energy",
                            Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Index>>(space_, 0, ops_.num_tets),
                            kernels::TetQuadraticForm<TetLayout, memory_space>{ops_.mu, f_previous_, fields_.f}, sum);
    return sum;
  }

  // Losses (sigma, absorbing surfaces) in Ampere's law, time-averaged (semi-implicit):
  //   Meps (u^(n+1) - u^n) / dt + S (u^(n+1) + u^n) / 2 = C~ f^(n+1/2) - I.
  // With u~ = u^n + dt Meps^-1 (C~ f - I), the lossless update the kernels make, this is
  //   u^(n+1) = u~ - L (u~ + u^n),   L = (Meps / dt + S / 2)^-1 S / 2,
  // per lossy dual block (S is block-diagonal like Meps), so lossless blocks cost nothing. For any
  // S >= 0 the energy cannot grow at the lossless time step (docs/open_regions.md).
  void set_up_losses(dga::HostOperators const& host)
  {
    if (host.lossy_blocks.empty()) return;
    auto const& layout = host.layout;
    std::vector<Index> rows, first, size;
    std::vector<std::int64_t> matrix_row;
    for (std::size_t k = 0; k < host.lossy_blocks.size(); ++k) {
      Index const b = host.lossy_blocks[k];
      Index const begin = layout.block_offset[b];
      Index const d = layout.block_offset[b + 1] - begin;
      Index const block_first = static_cast<Index>(rows.size());
      auto const* eps = host.eps.data() + layout.block_matrix_offset[b];
      loss_.eps.insert(loss_.eps.end(), eps, eps + static_cast<std::ptrdiff_t>(d) * d);
      for (Index i = 0; i < d; ++i) {
        rows.push_back(begin + i);
        first.push_back(block_first);
        size.push_back(d);
        matrix_row.push_back(host.lossy_matrix_offset[k] + static_cast<std::int64_t>(i) * d);
      }
    }
    loss_.conductance = host.conductance;
    loss_.block_size.assign(size.begin(), size.end());
    using IndexView = Kokkos::View<Index*, memory_space>;
    loss_.rows = kernels::detail::upload_flat<IndexView>("dgatd::loss_rows", rows);
    loss_.block_first = kernels::detail::upload_flat<IndexView>("dgatd::loss_block_first", first);
    loss_.size = kernels::detail::upload_flat<IndexView>("dgatd::loss_block_size", size);
    loss_.matrix_row =
        kernels::detail::upload_flat<Kokkos::View<std::int64_t*, memory_space>>("dgatd::loss_matrix_row", matrix_row);
    loss_.sum = Kokkos::View<Real*, memory_space>("dgatd::loss_sum", rows.size());
  }

  void update_loss_matrices()
  {
    if (!lossy()) return;
    std::vector<double> loss(loss_.conductance.size());
    std::vector<double> a;
    std::size_t offset = 0;
    for (std::size_t r = 0; r < loss_.block_size.size(); r += loss_.block_size[r]) {
      int const d = loss_.block_size[r];
      std::size_t const n = static_cast<std::size_t>(d) * d;
      a.resize(n);
      for (std::size_t i = 0; i < n; ++i) a[i] = loss_.eps[offset + i] / dt_ + 0.5 * loss_.conductance[offset + i];
      dga::invert_spd(a.data(), d);
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) {
          double l = 0;
          for (int m = 0; m < d; ++m) l += a[i * d + m] * 0.5 * loss_.conductance[offset + m * d + j];
          loss[offset + i * d + j] = l;
        }
      offset += n;
    }
    loss_.matrices = kernels::detail::upload_flat<Kokkos::View<Real*, memory_space>>("dgatd::loss_matrices", loss);
  }

  void gather_lossy_rows(bool accumulate) const
  {
    Kokkos::parallel_for("dgatd::loss_rows", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, loss_.rows.extent(0)),
                         kernels::GatherRows<memory_space>{loss_.rows, fields_.u, loss_.sum, accumulate});
  }

  void apply_losses() const
  {
    gather_lossy_rows(true);
    Kokkos::parallel_for("dgatd::losses", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, loss_.rows.extent(0)),
                         kernels::LossCorrection<memory_space>{loss_.rows, loss_.block_first, loss_.size,
                                                               loss_.matrix_row, loss_.matrices, loss_.sum, fields_.u});
  }

  static double uniform(std::uint64_t& state)
  {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return 2.0 * static_cast<double>(z >> 11) / static_cast<double>(1ULL << 53) - 1.0;
  }

  double advance(bool with_energy)
  {
    double energy = 0;
    if (with_energy) {
      energy += 0.5 * electric_energy(fields_.u);
      Kokkos::deep_copy(space_, f_previous_, fields_.f);
    }
    kernels::faraday_update(space_, ops_, fields_, dt_);
    // A domain-decomposed run exchanges here, and only here: the edge pieces Faraday left in
    // fields_.edge_pieces for the tets around vertices shared with other ranks, before Ampere's
    // dual-curl pass sums them per edge.
    if (with_energy) energy += 0.5 * magnetic_cross_energy();
    if (lossy()) gather_lossy_rows(false);
    kernels::ampere_update(space_, ops_, fields_, dt_);
    double const t_half = (steps_ + 0.5) * dt_;
    for (auto const& s : sources_) apply_source(s, -dt_ * s.waveform(t_half));
    if (lossy()) apply_losses();
    ++steps_;
    for (auto const& p : prescribed_) apply_prescribed(p, p.waveform(steps_ * dt_));
    return energy;
  }

  ExecutionSpace space_;
  Operators ops_;
  FieldSet fields_;
  Kokkos::View<Real* [4], TetLayout, memory_space> f_previous_;
  std::vector<Source> sources_;
  std::vector<Source> prescribed_;
  double dt_ = 0;
  std::int64_t steps_ = 0;

  struct Losses {
    std::vector<double> eps;         // Meps_v of the lossy blocks, packed like conductance
    std::vector<double> conductance; // S_v
    std::vector<Index> block_size;   // per lossy row: its block's size
    Kokkos::View<Index*, memory_space> rows;
    Kokkos::View<Index*, memory_space> block_first;
    Kokkos::View<Index*, memory_space> size;
    Kokkos::View<std::int64_t*, memory_space> matrix_row;
    Kokkos::View<Real*, memory_space> matrices; // L_v, packed like conductance
    Kokkos::View<Real*, memory_space> sum;      // u^n, then u^n + u~, of the lossy rows
  };
  Losses loss_;
};

} // namespace dgatd::solver
