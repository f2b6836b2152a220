#pragma once
// The fractioned DGATD leapfrog on one execution space: Faraday (eq. 5) then Ampere (eq. 6) per
// step, sources and prescribed port values, the energy invariant, the stability bound by power
// iteration. Everything in the step runs as Kokkos kernels.

#include "dgatd/error.hpp"
#include "dgatd/kernels/ampere.hpp"
#include "dgatd/kernels/device_operators.hpp"
#include "dgatd/kernels/faraday.hpp"
#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/solver/formulation.hpp"
#include "dgatd/solver/stencils.hpp"
#include "dgatd/solver/waveform.hpp"

#include <Kokkos_Core.hpp>

#include <array>
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
    set_up_magnetic_stretching(host);
  }

  Operators const& operators() const { return ops_; }
  FieldSet const& fields() const { return fields_; }
  double dt() const { return dt_; }
  void set_dt(double dt)
  {
    dt_ = dt;
    update_loss_matrices();
    update_magnetic_stretching();
    for (auto& port : ports_) {
      port.kernel.clear();
      restart_port_history(port, port.voltage);
    }
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

  // The matched layers' auxiliary unknowns (psi, six per stretched subregion, then phi, 24 per
  // stretched tet); empty without layers.
  std::vector<double> auxiliary_state() const
  {
    std::vector<double> aux;
    auto append = [&](auto const& view) {
      auto const host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
      for (std::size_t k = 0; k < host.extent(0); ++k)
        for (std::size_t j = 0; j < host.extent(1); ++j) aux.push_back(host(k, j));
    };
    append(loss_.psi);
    append(magnetic_.phi);
    for (auto const& port : ports_) aux.insert(aux.end(), port.voltage.begin(), port.voltage.end());
    return aux;
  }

  void set_auxiliary_state(std::vector<double> const& aux)
  {
    std::size_t next = 0;
    auto fill = [&](auto const& view) {
      auto host = Kokkos::create_mirror_view(view);
      for (std::size_t k = 0; k < host.extent(0); ++k)
        for (std::size_t j = 0; j < host.extent(1); ++j) host(k, j) = aux[next++];
      Kokkos::deep_copy(view, host);
    };
    fill(loss_.psi);
    fill(magnetic_.phi);
    // The ports' histories, V^0..V^n each, share what is left (their convolution needs all of it).
    std::size_t const history = ports_.empty() ? 0 : (aux.size() - next) / ports_.size();
    for (auto& port : ports_) {
      restart_port_history(port, std::vector<double>(aux.begin() + static_cast<std::ptrdiff_t>(next),
                                                     aux.begin() + static_cast<std::ptrdiff_t>(next + history)));
      next += history;
    }
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

  // A matched TE10 port (docs/open_regions.md section 4) launching the modal voltage
  // incident(t) = amplitude peak_voltage g(t) and absorbing the TE10 wave that comes back through it.
  void add_matched_port(MatchedPortStencil const& stencil, double amplitude, Signal waveform)
  {
    MatchedPort port;
    using IndexView = Kokkos::View<Index*, memory_space>;
    using Flat = Kokkos::View<Real*, memory_space>;
    port.rows = kernels::detail::upload_flat<IndexView>("dgatd::matched_port_rows", stencil.rows);
    port.projection = kernels::detail::upload_flat<Flat>("dgatd::matched_port_projection", stencil.projection);
    port.response_rows =
        kernels::detail::upload_flat<IndexView>("dgatd::matched_port_response_rows", stencil.response.rows);
    port.response = kernels::detail::upload_flat<Flat>("dgatd::matched_port_response", stencil.response.weights);
    port.self_coupling = stencil.self_coupling;
    port.admittance = stencil.admittance;
    port.cutoff = stencil.cutoff;
    double const scale = amplitude * stencil.peak_voltage;
    port.incident = [scale, g = std::move(waveform)](double t) { return scale * g(t); };
    ports_.push_back(std::move(port));
    restart_port_history(ports_.back(), {modal_voltage(ports_.back())});
  }

  // Per matched port, its incident and total modal voltages after each step m = 0..steps() (0: the
  // initial field).
  std::vector<PortSeries> port_series() const
  {
    std::vector<PortSeries> series;
    for (auto const& port : ports_) {
      series.emplace_back();
      series.back().voltage = port.voltage;
      for (std::size_t m = 0; m < port.voltage.size(); ++m) series.back().incident.push_back(port.incident(m * dt_));
    }
    return series;
  }

  // Random free unknowns (u^) and zero f^: a field with every mode, for invariant and spectrum tests.
  void set_random_initial_field(std::uint64_t seed)
  {
    std::vector<double> values(ops_.num_unknowns, 0.0);
    std::uint64_t state = seed;
    for (Index i = 0; i < ops_.num_free; ++i) values[i] = uniform(state);
    set_initial_field(values);
  }

  // Sets u^ (all unknowns, as from project_field) and zero f^.
  void set_initial_field(std::vector<double> const& u)
  {
    Kokkos::deep_copy(fields_.u, kernels::detail::upload_flat<Kokkos::View<Real*, memory_space>>("dgatd::u_init", u));
    Kokkos::deep_copy(fields_.f, 0.0);
    Kokkos::deep_copy(loss_.psi, 0.0);
    Kokkos::deep_copy(magnetic_.phi, 0.0);
    steps_ = 0;
    for (auto& port : ports_) restart_port_history(port, {modal_voltage(port)});
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

  // Losses (sigma, absorbing surfaces, matched layers) in Ampere's law, time-averaged (semi-implicit):
  //   Meps (u^(n+1) - u^n) / dt + S (u^(n+1) + u^n) / 2 + sum_r B_r (psi_r^(n+1) + psi_r^n) / 2 = C~ f^(n+1/2) - I,
  // B_r the coupling of stretched subregion r to its auxiliary unknowns psi_r = [z; z'], which follow
  // psi' = M psi + [0; W u^_r] (z'' + S z' + P z = e) by the same trapezoidal rule,
  // psi^(n+1) = A psi^n + D (u^n + u^(n+1)) / 2, A = (I - dt M / 2)^-1 (I + dt M / 2),
  // D = dt (I - dt M / 2)^-1 [0; W] (explicit psi^n in the force made fast layers unstable).
  // Eliminating psi^(n+1) leaves S' = S + sum_r B_r D_r / 2 and the force g = sum_r B_r (I + A_r) / 2 psi_r^n;
  // with u~ = u^n + dt Meps^-1 (C~ f - I), the lossless update the kernels make,
  //   u^(n+1) = u~ - L (u~ + u^n) - K g,   K = (Meps / dt + S' / 2)^-1,   L = K S' / 2,
  // per lossy dual block (S' is block-diagonal like Meps), so lossless blocks cost nothing. For any
  // S >= 0 (no layers) the energy cannot grow at the lossless time step (docs/open_regions.md).
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
    loss_.subregions = host.stretched_subregions;
    loss_.row_block_first.assign(first.begin(), first.end());
    loss_.row_matrix.assign(matrix_row.begin(), matrix_row.end());
    using IndexView = Kokkos::View<Index*, memory_space>;
    loss_.rows = kernels::detail::upload_flat<IndexView>("dgatd::loss_rows", rows);
    loss_.block_first = kernels::detail::upload_flat<IndexView>("dgatd::loss_block_first", first);
    loss_.size = kernels::detail::upload_flat<IndexView>("dgatd::loss_block_size", size);
    loss_.matrix_row =
        kernels::detail::upload_flat<Kokkos::View<std::int64_t*, memory_space>>("dgatd::loss_matrix_row", matrix_row);
    loss_.sum = Kokkos::View<Real*, memory_space>("dgatd::loss_sum", rows.size());
    std::size_t const n = loss_.subregions.size();
    if (n == 0) return;
    loss_.force = Kokkos::View<Real*, memory_space>("dgatd::stretch_force", rows.size());
    loss_.psi = Kokkos::View<Real* [6], memory_space>("dgatd::psi", n);
    loss_.psi_previous = Kokkos::View<Real* [3], memory_space>("dgatd::psi_u_previous", n);
    loss_.subregion_unknowns = Kokkos::View<Index* [3], memory_space>("dgatd::stretched_unknowns", n);
    loss_.subregion_rows = Kokkos::View<Index* [3], memory_space>("dgatd::stretched_rows", n);
    auto unknowns = Kokkos::create_mirror_view(loss_.subregion_unknowns);
    auto lossy_rows = Kokkos::create_mirror_view(loss_.subregion_rows);
    for (std::size_t s = 0; s < n; ++s)
      for (int k = 0; k < 3; ++k) {
        unknowns(s, k) = loss_.subregions[s].unknowns[k];
        lossy_rows(s, k) = loss_.subregions[s].lossy_rows[k];
      }
    Kokkos::deep_copy(loss_.subregion_unknowns, unknowns);
    Kokkos::deep_copy(loss_.subregion_rows, lossy_rows);
  }

  // Faraday's side of the matched layers, per stretched tet (kernels::MagneticStretchBefore/After),
  // the same trapezoidal rule around step n:
  //   Mmu (f^(n+1/2) - f^(n-1/2)) / dt + A (f^(n+1/2) + f^(n-1/2)) / 2 + B (phi^(n+1/2) + phi^(n-1/2)) / 2 = -C U^n,
  // phi the six auxiliary unknowns of each of the tet's four subregions.
  void set_up_magnetic_stretching(dga::HostOperators const& host)
  {
    if (host.stretched_tets.empty()) return;
    std::size_t const n = host.stretched_tets.size();
    magnetic_.rates = host.stretched_tet_rates;
    magnetic_.loss_terms = host.magnetic_loss;
    magnetic_.coupling_terms = host.magnetic_coupling;
    magnetic_.basis = host.magnetic_basis;
    for (Index t : host.stretched_tets) magnetic_.mu.push_back(host.mu[t]);
    magnetic_.tets =
        kernels::detail::upload_flat<Kokkos::View<Index*, memory_space>>("dgatd::stretched_tets", host.stretched_tets);
    magnetic_.previous = Kokkos::View<Real* [4], memory_space>("dgatd::stretched_f_previous", n);
    magnetic_.phi = Kokkos::View<Real* [24], memory_space>("dgatd::phi", n);
  }

  // The trapezoidal rule for z'' + S z' + P z = x over one step, on the auxiliaries kept as
  // psi = [z / dt; z'] so that the rule's matrices are of order one whatever the layer's rates:
  // psi' = M psi + [0; x], M = [[0, I / dt], [-dt P, -S]], and psi <- advance psi + drive x_average,
  // advance = (I - dt M / 2)^-1 (I + dt M / 2) (6 x 6), drive = dt (I - dt M / 2)^-1 [0; I] (6 x 3).
  struct AuxiliaryRule {
    std::array<double, 36> advance;
    std::array<double, 18> drive;
  };
  AuxiliaryRule auxiliary_rule(std::array<double, 18> const& rates) const
  {
    std::array<double, 36> left{}, right{};
    for (int i = 0; i < 6; ++i) left[7 * i] = right[7 * i] = 1;
    for (int i = 0; i < 3; ++i) {
      left[6 * i + 3 + i] -= 0.5;
      right[6 * i + 3 + i] += 0.5;
      for (int j = 0; j < 3; ++j) {
        double const stiffness = 0.5 * dt_ * dt_ * rates[9 + 3 * i + j], damping = 0.5 * dt_ * rates[3 * i + j];
        left[6 * (3 + i) + j] += stiffness;
        left[6 * (3 + i) + 3 + j] += damping;
        right[6 * (3 + i) + j] -= stiffness;
        right[6 * (3 + i) + 3 + j] -= damping;
      }
    }
    if (!dga::invert_general(left.data(), 6))
      throw Error("dt = " + format_number(dt_), "a matched layer's auxiliary step is singular at this time step",
                  "use a smaller dt or a gentler [[pml]] profile (larger reflection)");
    AuxiliaryRule rule{};
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j)
        for (int m = 0; m < 6; ++m) rule.advance[6 * i + j] += left[6 * i + m] * right[6 * m + j];
      for (int j = 0; j < 3; ++j) rule.drive[3 * i + j] = dt_ * left[6 * i + 3 + j];
    }
    return rule;
  }
  // The couplings act on [z; z'] = [dt psi_0..2; psi_3..5].
  double auxiliary_scale(int c) const { return c < 3 ? dt_ : 1.0; }

  // (mass / dt + loss / 2)^-1 in place of a (d x d); with matched layers it is not symmetric.
  void invert_step_matrix(double* a, int d, bool symmetric) const
  {
    if (!(symmetric ? dga::invert_spd(a, d) : dga::invert_general(a, d)))
      throw Error("dt = " + format_number(dt_),
                  "a lossy or matched block's implicit step matrix is singular at this time step",
                  "use a smaller dt or a gentler [[pml]] profile (larger reflection)");
  }

  void update_magnetic_stretching()
  {
    std::size_t const n = magnetic_.rates.size();
    if (n == 0) return;
    std::vector<double> advance(36 * n), drive(96 * n), loss(16 * n), coupling(96 * n);
    for (std::size_t k = 0; k < n; ++k) {
      auto const rule = auxiliary_rule(magnetic_.rates[k]);
      std::copy(rule.advance.begin(), rule.advance.end(), advance.begin() + 36 * k);
      // Per subregion lv: its drive from the tet's four f^ (6 x 4) and B (I + A) / 2 (4 x 6).
      std::array<double, 96> tet_drive{}, force{};
      for (int lv = 0; lv < 4; ++lv)
        for (int a = 0; a < 6; ++a)
          for (int face = 0; face < 4; ++face) {
            double sum = 0;
            for (int m = 0; m < 3; ++m) sum += rule.drive[3 * a + m] * magnetic_.basis[k][12 * lv + 4 * m + face];
            tet_drive[24 * lv + 4 * a + face] = sum;
          }
      std::array<double, 16> a, implicit_loss = magnetic_.loss_terms[k];
      for (int i = 0; i < 4; ++i)
        for (int lv = 0; lv < 4; ++lv)
          for (int c = 0; c < 6; ++c) {
            double const b = magnetic_.coupling_terms[k][24 * i + 6 * lv + c] * auxiliary_scale(c);
            for (int j = 0; j < 4; ++j) implicit_loss[4 * i + j] += 0.5 * b * tet_drive[24 * lv + 4 * c + j];
            for (int j = 0; j < 6; ++j)
              force[24 * i + 6 * lv + j] += 0.5 * b * ((c == j ? 1.0 : 0.0) + rule.advance[6 * c + j]);
          }
      for (int i = 0; i < 16; ++i) a[i] = magnetic_.mu[k][i] / dt_ + 0.5 * implicit_loss[i];
      invert_step_matrix(a.data(), 4, false);
      for (int i = 0; i < 4; ++i)
        for (int m = 0; m < 4; ++m) {
          for (int j = 0; j < 4; ++j) loss[16 * k + 4 * i + j] += a[4 * i + m] * 0.5 * implicit_loss[4 * m + j];
          for (int j = 0; j < 24; ++j) coupling[96 * k + 24 * i + j] += a[4 * i + m] * force[24 * m + j];
        }
      std::copy(tet_drive.begin(), tet_drive.end(), drive.begin() + 96 * k);
    }
    magnetic_.advance = upload_rows<36>("dgatd::phi_advance", advance);
    magnetic_.drive = upload_rows<96>("dgatd::phi_drive", drive);
    magnetic_.loss = upload_rows<16>("dgatd::stretched_tet_loss", loss);
    magnetic_.coupling = upload_rows<96>("dgatd::stretched_tet_coupling", coupling);
  }

  // A host array of rows of N numbers as an (rows x N) device view.
  template <int N>
  Kokkos::View<Real* [N], memory_space> upload_rows(std::string const& label, std::vector<double> const& values) const {
    std::size_t const rows = values.size() / N;
    Kokkos::View<Real* [N], memory_space> view(label, rows);
    auto host = Kokkos::create_mirror_view(view);
    for (std::size_t r = 0; r < rows; ++r)
      for (int j = 0; j < N; ++j) host(r, j) = static_cast<Real>(values[N * r + j]);
    Kokkos::deep_copy(view, host);
    return view;
  }

  void update_loss_matrices()
  {
    if (!lossy()) return;
    bool const with_layers = !loss_.subregions.empty();
    std::vector<double> loss(loss_.conductance.size()), inverse(with_layers ? loss.size() : 0);
    // S' = S + sum_r B_r D_r / 2 over the stretched subregions, placed at their rows.
    std::vector<double> implicit_loss = loss_.conductance;
    std::size_t const n = loss_.subregions.size();
    std::vector<double> advance(36 * n), drive(18 * n), coupling(18 * n);
    for (std::size_t k = 0; k < n; ++k) {
      auto const& s = loss_.subregions[k];
      auto const rule = auxiliary_rule(s.rates);
      std::copy(rule.advance.begin(), rule.advance.end(), advance.begin() + 36 * k);
      for (int a = 0; a < 6; ++a)
        for (int j = 0; j < 3; ++j)
          for (int m = 0; m < 3; ++m) drive[18 * k + 3 * a + j] += rule.drive[3 * a + m] * s.basis[3 * m + j];
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 6; ++c) {
          double const b = s.coupling[6 * r + c] * auxiliary_scale(c);
          for (int j = 0; j < 6; ++j)
            coupling[18 * k + 6 * r + j] += 0.5 * b * ((c == j ? 1.0 : 0.0) + rule.advance[6 * c + j]);
          if (s.lossy_rows[r] < 0) continue;
          for (int j = 0; j < 3; ++j)
            if (s.lossy_rows[j] >= 0)
              implicit_loss[loss_.row_matrix[s.lossy_rows[r]] + s.lossy_rows[j] -
                            loss_.row_block_first[s.lossy_rows[r]]] += 0.5 * b * drive[18 * k + 3 * c + j];
        }
    }
    std::vector<double> a;
    std::size_t offset = 0;
    for (std::size_t r = 0; r < loss_.block_size.size(); r += loss_.block_size[r]) {
      int const d = loss_.block_size[r];
      std::size_t const size = static_cast<std::size_t>(d) * d;
      a.resize(size);
      for (std::size_t i = 0; i < size; ++i) a[i] = loss_.eps[offset + i] / dt_ + 0.5 * implicit_loss[offset + i];
      invert_step_matrix(a.data(), d, !with_layers);
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) {
          double l = 0;
          for (int m = 0; m < d; ++m) l += a[i * d + m] * 0.5 * implicit_loss[offset + m * d + j];
          loss[offset + i * d + j] = l;
          if (with_layers) inverse[offset + i * d + j] = a[i * d + j];
        }
      offset += size;
    }
    using Flat = Kokkos::View<Real*, memory_space>;
    loss_.matrices = kernels::detail::upload_flat<Flat>("dgatd::loss_matrices", loss);
    if (with_layers) {
      loss_.step_inverse = kernels::detail::upload_flat<Flat>("dgatd::loss_step_inverse", inverse);
      loss_.subregion_advance = upload_rows<36>("dgatd::stretched_advance", advance);
      loss_.subregion_drive = upload_rows<18>("dgatd::stretched_drive", drive);
      loss_.subregion_coupling = upload_rows<18>("dgatd::stretched_coupling", coupling);
    }
  }

  void gather_lossy_rows(bool accumulate) const
  {
    Kokkos::parallel_for("dgatd::loss_rows", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, loss_.rows.extent(0)),
                         kernels::GatherRows<memory_space>{loss_.rows, fields_.u, loss_.sum, accumulate});
    if (!accumulate && !loss_.subregions.empty()) {
      Kokkos::deep_copy(space_, loss_.force, 0.0);
      Kokkos::parallel_for("dgatd::psi_force", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, loss_.subregions.size()),
                           kernels::SubregionForce<memory_space>{loss_.subregion_unknowns, loss_.subregion_rows,
                                                                 loss_.subregion_coupling, fields_.u, loss_.psi,
                                                                 loss_.psi_previous, loss_.force});
    }
  }

  // Faraday with the matched layers' correction on the stretched tets around the lossless kernel.
  void faraday_step() const
  {
    std::size_t const n = magnetic_.rates.size();
    if (n > 0)
      Kokkos::parallel_for(
          "dgatd::phi", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, n),
          kernels::MagneticStretchBefore<TetLayout, memory_space>{magnetic_.tets, fields_.f, magnetic_.previous});
    kernels::faraday_update(space_, ops_, fields_, dt_);
    if (n > 0)
      Kokkos::parallel_for("dgatd::magnetic_stretching", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, n),
                           kernels::MagneticStretchAfter<TetLayout, memory_space>{
                               magnetic_.tets, fields_.f, magnetic_.previous, magnetic_.loss, magnetic_.coupling,
                               magnetic_.phi, magnetic_.advance, magnetic_.drive, ops_.tet_edge_signs,
                               fields_.edge_pieces});
  }

  void apply_losses() const
  {
    gather_lossy_rows(true);
    Kokkos::parallel_for("dgatd::losses", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, loss_.rows.extent(0)),
                         kernels::LossCorrection<memory_space>{loss_.rows, loss_.block_first, loss_.size,
                                                               loss_.matrix_row, loss_.matrices, loss_.sum,
                                                               loss_.step_inverse, loss_.force, fields_.u});
    if (!loss_.subregions.empty())
      Kokkos::parallel_for("dgatd::psi", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, loss_.subregions.size()),
                           kernels::SubregionAuxiliary<memory_space>{loss_.subregion_unknowns, loss_.subregion_advance,
                                                                     loss_.subregion_drive, fields_.u,
                                                                     loss_.psi_previous, loss_.psi});
  }

  // A matched port closes the guide with the TE10 wave admittance Y(s) = Y0 sqrt(s^2 + wc^2) / s.
  // With the drive s = V - 2 V_inc the modal current I = Y s enters Ampere like an impressed current
  // c_e I on the port's edges, at t^(n+1/2), and the leapfrog's energy changes by
  // -dt I^(n+1/2) (V^n + V^(n+1)) / 2. Y is discretised by the bilinear map
  // s = (2 / dt) (1 - z^-1) / (1 + z^-1) acting on the half-step drives
  // s^(j+1/2) = (V^j + V^(j+1)) / 2 - 2 (V_inc^j + V_inc^(j+1)) / 2:
  //   I^(n+1/2) = Y0 sum_(k=0..n) y_k s^(n+1/2-k),   sum_k y_k z^-k = sqrt((1 - w)^2 + q (1 + w)^2) / (1 - w),
  // w = z^-1, q = (wc dt / 2)^2. The bilinear map sends the unit circle onto the imaginary axis, so
  // the discrete admittance keeps Re >= 0 and the port cannot feed the field (docs/open_regions.md
  // section 5; the midpoint rule on the continuous kernel dipped to -0.2 % of Y0 just below cutoff
  // and slowly grew a sub-cutoff field). y_0 enters time-averaged, a rank-one implicit solve:
  // V^(n+1) = q.u* / (1 + dt Y0 y_0 q.Meps^-1 q / 2); the rest of the sum is explicit.
  struct MatchedPort {
    Kokkos::View<Index*, memory_space> rows, response_rows;
    Kokkos::View<Real*, memory_space> projection, response;
    double self_coupling = 0, admittance = 0, cutoff = 0;
    std::function<double(double)> incident;
    std::vector<double> voltage;                    // V^0..V^n
    std::vector<double> drive;                      // s^(1/2)..s^(n-1/2)
    std::vector<double> kernel;                     // y_0, y_1, ..., grown as the run goes
    long double series_last = 0, series_before = 0; // the last two coefficients of sqrt(...)
  };

  void restart_port_history(MatchedPort& port, std::vector<double> voltage) const
  {
    port.voltage = std::move(voltage);
    port.drive.clear();
    for (std::size_t j = 0; j + 1 < port.voltage.size(); ++j)
      port.drive.push_back(half_step_drive(port, j, port.voltage[j + 1]));
  }

  double half_step_drive(MatchedPort const& port, std::size_t j, double next_voltage) const
  {
    return 0.5 * (port.voltage[j] + next_voltage) - (port.incident(j * dt_) + port.incident((j + 1) * dt_));
  }

  double modal_voltage(MatchedPort const& port) const
  {
    double sum = 0;
    Kokkos::parallel_reduce("dgatd::matched_port_voltage",
                            Kokkos::RangePolicy<ExecutionSpace>(space_, 0, port.rows.extent(0)),
                            kernels::WeightedGather<memory_space>{port.rows, port.projection, fields_.u}, sum);
    return sum;
  }

  // y_k up to k = size - 1. With P(w) = (1 - w)^2 + q (1 + w)^2 = a + b w + a w^2, the series S of
  // sqrt(P) obeys P S' = P' S / 2, so (n + 1) a S_(n+1) = b (1/2 - n) S_n + a (2 - n) S_(n-1); y_k is
  // the running sum of S (the division by 1 - w).
  void extend_kernel(MatchedPort& port, std::size_t size) const
  {
    long double const x = port.cutoff * dt_, q = x * x / 4, a = 1 + q, b = -2 * (1 - q);
    while (port.kernel.size() < size) {
      std::size_t const n = port.kernel.size();
      long double next;
      if (n == 0) {
        port.series_last = 0; // S_(-1)
        next = std::sqrt(a);
      } else {
        long double const m = static_cast<long double>(n - 1);
        next = (b * (0.5L - m) * port.series_last + a * (2 - m) * port.series_before) / (a * (m + 1));
      }
      port.series_before = port.series_last;
      port.series_last = next;
      port.kernel.push_back(static_cast<double>((n == 0 ? 0.0L : port.kernel.back()) + next));
    }
  }

  void apply_matched_port(MatchedPort& port)
  {
    std::size_t const n = port.voltage.size() - 1;
    extend_kernel(port, n + 1);
    double history = 0;
    for (std::size_t k = 1; k <= n; ++k) history += port.kernel[k] * port.drive[n - k];
    double const y0 = port.admittance, instantaneous = port.kernel[0];
    double const explicit_current =
        y0 *
        (instantaneous * (0.5 * port.voltage[n] - port.incident(n * dt_) - port.incident((n + 1) * dt_)) + history);
    auto const policy = Kokkos::RangePolicy<ExecutionSpace>(space_, 0, port.response_rows.extent(0));
    Kokkos::parallel_for(
        "dgatd::matched_port_explicit", policy,
        kernels::ScatterAdd<memory_space>{port.response_rows, port.response, fields_.u, -dt_ * explicit_current});
    double const implicit = 0.5 * dt_ * y0 * instantaneous;
    double const voltage = modal_voltage(port) / (1 + implicit * port.self_coupling);
    Kokkos::parallel_for(
        "dgatd::matched_port_implicit", policy,
        kernels::ScatterAdd<memory_space>{port.response_rows, port.response, fields_.u, -implicit * voltage});
    port.drive.push_back(half_step_drive(port, n, voltage));
    port.voltage.push_back(voltage);
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
    faraday_step();
    // A domain-decomposed run exchanges here, and only here: the edge pieces Faraday left in
    // fields_.edge_pieces for the tets around vertices shared with other ranks, before Ampere's
    // dual-curl pass sums them per edge.
    if (with_energy) energy += 0.5 * magnetic_cross_energy();
    if (lossy()) gather_lossy_rows(false);
    kernels::ampere_update(space_, ops_, fields_, dt_);
    double const t_half = (steps_ + 0.5) * dt_;
    for (auto const& s : sources_) apply_source(s, -dt_ * s.waveform(t_half));
    if (lossy()) apply_losses();
    // A port's blocks are lossless (matched_te10_port_stencil), so the two corrections commute.
    for (auto& port : ports_) apply_matched_port(port);
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
  std::vector<MatchedPort> ports_;
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
    // Matched layers: the stretched subregions, their psi and its rule, K and the force g per row.
    std::vector<dga::HostOperators::StretchedSubregion> subregions;
    Kokkos::View<Index* [3], memory_space> subregion_unknowns;
    Kokkos::View<Index* [3], memory_space> subregion_rows;
    Kokkos::View<Real* [18], memory_space> subregion_coupling; // B (I + A) / 2
    Kokkos::View<Real* [36], memory_space> subregion_advance;  // A
    Kokkos::View<Real* [18], memory_space> subregion_drive;    // D
    Kokkos::View<Real* [6], memory_space> psi;
    Kokkos::View<Real* [3], memory_space> psi_previous; // u^n of each subregion's half-edges
    std::vector<Index> row_block_first;                 // per lossy row, on the host
    std::vector<std::int64_t> row_matrix;
    Kokkos::View<Real*, memory_space> step_inverse; // K, packed like conductance
    Kokkos::View<Real*, memory_space> force;        // g, per lossy row
  };
  Losses loss_;

  struct MagneticStretching {
    std::vector<std::array<double, 18>> rates; // per stretched tet: S then P
    std::vector<std::array<double, 16>> mu, loss_terms;
    std::vector<std::array<double, 96>> coupling_terms;
    std::vector<std::array<double, 48>> basis;
    Kokkos::View<Index*, memory_space> tets;
    Kokkos::View<Real* [4], memory_space> previous; // f^(n-1/2)
    Kokkos::View<Real* [24], memory_space> phi;
    Kokkos::View<Real* [36], memory_space> advance;
    Kokkos::View<Real* [96], memory_space> drive;    // per subregion 6 x 4, from the tet's f^
    Kokkos::View<Real* [16], memory_space> loss;     // L
    Kokkos::View<Real* [96], memory_space> coupling; // Q
  };
  MagneticStretching magnetic_;
};

} // namespace dgatd::solver
