#pragma once
// Lumped ports and elements on sheets as a term of the leapfrog (dga/lumped.hpp has the circuit
// model, docs/method/antennas.md the derivation). Each kite k of a sheet carries the surface current
// k_bar = Y(dt) x_bar + h^n over the step, x = e . d on the kite. Y(dt) is part of the loss blocks
// (solver/losses.hpp), which take it implicitly; this term adds the rest:
//   after_ampere  h^n from the kite's state (and a port's source at t^(n+1/2)), entering Ampere as
//                 an impressed current: u~ -= dt Meps^-1 sum_k a_k h_k
//   end_step      x^(n+1) from u^(n+1), the circuit's state advanced, and each sheet's voltage
//                 V = sum area x_bar / w and current I = sum area k_bar / l over the step
// A port records, per step (at t^(n+1/2)), half its source voltage (the wave it launches, in volts
// across its resistance R: a sqrt(R)), its voltage and the current it drives into the structure,
// -I: S11 = (V - V_s / 2) / (V_s / 2) in the frequency domain, Z_in = V / I_in.
// Over ranks a part holds the kites of the blocks it owns (LumpedStencil), each placed among the
// whole problem's kites in one process's order: the sheets' sums add the same numbers in that order
// on every rank, and checkpoints hold the kites' state by place.

#include "dgatd/instances.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/solver/lumped_stencil.hpp"
#include "dgatd/solver/port_series.hpp"
#include "dgatd/solver/term.hpp"
#include "dgatd/solver/term_recipe.hpp"
#include "dgatd/solver/waveform_shape.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dgatd::solver {

// Per sheet on the device: its circuit per square, Y(dt), and a port's source per square
// (-g V_s(t) / l = -V_s(t) / (r l), from source.amplitude).
struct SheetOnDevice {
  dga::SheetCircuit circuit;
  double admittance = 0;
  double source_scale = 0; // -1 / (r l) for a port, 0 otherwise
  Waveform source{};
};

namespace kernels_lumped {

template <class MemorySpace>
struct KiteView {
  Kokkos::View<Index* [2], MemorySpace> unknowns;
  Kokkos::View<Real* [2], MemorySpace> along;
  Kokkos::View<Index*, MemorySpace> sheet;
  Kokkos::View<SheetOnDevice*, MemorySpace> sheets;
  // x^n, then j_L (parallel) or k^n (series), then q^n (series)
  Kokkos::View<Real* [3], MemorySpace> state;
  Kokkos::View<Real*, MemorySpace> history;

  KOKKOS_INLINE_FUNCTION Real field_along(Kokkos::View<Real*, MemorySpace> const& u, std::size_t k) const
  {
    return along(k, 0) * u(unknowns(k, 0)) + along(k, 1) * u(unknowns(k, 1));
  }
  // k_bar = Y x_bar + h^n of kite k (dga/lumped.hpp).
  KOKKOS_INLINE_FUNCTION Real k_bar(Real x_bar, std::size_t k) const
  {
    return sheets(sheet(k)).admittance * x_bar + history(k);
  }
};

// h^n of each kite (dga/lumped.hpp).
template <class MemorySpace>
struct KiteHistory {
  KiteView<MemorySpace> kites;
  double dt;
  double t_half;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    auto const& s = kites.sheets(kites.sheet(k));
    auto const& c = s.circuit;
    Real h = 0;
    if (!c.series) {
      h = kites.state(k, 1) - 2 * c.capacitance * kites.state(k, 0) / dt;
      if (s.source_scale != 0) h += s.source_scale * s.source.amplitude * waveform_shape(s.source, t_half);
    } else {
      h = s.admittance *
          (2 * c.inductance * kites.state(k, 1) / dt - (c.capacitance > 0 ? kites.state(k, 2) / c.capacitance : 0.0));
    }
    kites.history(k) = h;
  }
};

// u~ -= dt sum over the row's entries of weight h_kite.
template <class MemorySpace>
struct HistoryCurrent {
  Kokkos::View<Index*, MemorySpace> rows, offsets, entry_kite;
  Kokkos::View<Real*, MemorySpace> entry_weight, history, u;
  double dt;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t r) const
  {
    Real sum = 0;
    for (Index e = offsets(r); e < offsets(r + 1); ++e) sum += entry_weight(e) * history(entry_kite(e));
    u(rows(r)) -= dt * sum;
  }
};

// Each kite's rate of current over the coarse step (its sheet's), for the local steps' forcing.
template <class MemorySpace>
struct KiteCurrentRate {
  Kokkos::View<Index*, MemorySpace> sheet;
  Kokkos::View<Real*, MemorySpace> sheet_rate, rate;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const { rate(k) = sheet_rate(sheet(k)); }
};

// forcing += the sum over the row's entries of weight times its kite's rate of current.
template <class MemorySpace>
struct CurrentForcing {
  Kokkos::View<Index*, MemorySpace> rows, offsets, entry_kite;
  Kokkos::View<Real*, MemorySpace> entry_weight, rate, forcing;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t r) const
  {
    Real sum = 0;
    for (Index e = offsets(r); e < offsets(r + 1); ++e) sum += entry_weight(e) * rate(entry_kite(e));
    forcing(rows(r)) += sum;
  }
};

// The step's x_bar and k_bar of each kite (times its area, for the sheets' sums), and the state at
// t^(n+1).
template <class MemorySpace>
struct KiteAdvance {
  KiteView<MemorySpace> kites;
  Kokkos::View<Real*, MemorySpace> u;
  Kokkos::View<Real*, Kokkos::LayoutRight, MemorySpace> field_sums, current_sums;
  Kokkos::View<Real*, MemorySpace> area;
  double dt;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    auto const& s = kites.sheets(kites.sheet(k));
    auto const& c = s.circuit;
    Real const x = kites.field_along(u, k);
    Real const x_bar = 0.5 * (kites.state(k, 0) + x);
    Real const k_bar = kites.k_bar(x_bar, k);
    if (!c.series) {
      if (c.inductance > 0) kites.state(k, 1) += dt * x_bar / c.inductance;
    } else {
      kites.state(k, 1) = 2 * k_bar - kites.state(k, 1);
      kites.state(k, 2) += dt * k_bar;
    }
    kites.state(k, 0) = x;
    field_sums(k) = area(k) * x_bar;
    current_sums(k) = area(k) * k_bar;
  }
};

// Each kite's k_bar times its area as end_step will find it, the state left as it is.
template <class MemorySpace>
struct KiteCurrent {
  KiteView<MemorySpace> kites;
  Kokkos::View<Real*, MemorySpace> u;
  Kokkos::View<Real*, Kokkos::LayoutRight, MemorySpace> current_sums;
  Kokkos::View<Real*, MemorySpace> area;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    Real const x_bar = 0.5 * (kites.state(k, 0) + kites.field_along(u, k));
    current_sums(k) = area(k) * kites.k_bar(x_bar, k);
  }
};

template <class MemorySpace>
struct KiteStart {
  KiteView<MemorySpace> kites;
  Kokkos::View<Real*, MemorySpace> u;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t k) const
  {
    kites.state(k, 0) = kites.field_along(u, k);
    kites.state(k, 1) = 0;
    kites.state(k, 2) = 0;
  }
};

} // namespace kernels_lumped

template <class ExecutionSpace, class TetLayout = kernels::DefaultTetLayout<ExecutionSpace>>
class LumpedElements final : public Term<ExecutionSpace, TetLayout> {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using Context = typename Term<ExecutionSpace, TetLayout>::Context;

  explicit LumpedElements(LumpedStencil const& stencil) : sheets_(stencil.sheets)
  {
    std::size_t const n = stencil.kites.size();
    std::vector<std::array<Index, 2>> unknowns(n);
    std::vector<double> along(2 * n), area(n);
    std::vector<Index> sheet(n);
    for (std::size_t k = 0; k < n; ++k) {
      auto const& kite = stencil.kites[k];
      for (int i = 0; i < 2; ++i) {
        unknowns[k][i] = kite.unknowns[i];
        along[2 * k + i] = kite.along[i];
      }
      sheet[k] = kite.sheet;
      area[k] = kite.area;
    }
    kites_.unknowns = kernels::upload_rows<Kokkos::View<Index* [2], memory_space>>("dgatd::lumped_unknowns", unknowns);
    kites_.along = kernels::upload_table<2, memory_space>("dgatd::lumped_along", along);
    kites_.sheet = kernels::upload_flat<IndexView>("dgatd::lumped_sheet", sheet);
    kites_.state = Kokkos::View<Real* [3], memory_space>("dgatd::lumped_state", n);
    kites_.history = Flat("dgatd::lumped_history", n);
    kites_.sheets = Kokkos::View<SheetOnDevice*, memory_space>("dgatd::lumped_sheets", sheets_.size());
    area_ = kernels::upload_flat<Flat>("dgatd::lumped_area", area);
    field_sums_ = Sums("dgatd::lumped_field_sums", n);
    current_sums_ = Sums("dgatd::lumped_current_sums", n);
    kite_rate_ = Flat("dgatd::lumped_kite_rate", n);
    sheet_rate_ = Flat("dgatd::lumped_sheet_rate", sheets_.size());
    host_sheet_rate_ = Kokkos::create_mirror_view(sheet_rate_);
    host_sums_ = HostSums("dgatd::lumped_sums_host", n);
    // The rows a port's current enters: those of its kites' blocks.
    for (std::size_t r = 0; r < stencil.rows.size(); ++r)
      for (Index e = stencil.row_offsets[r]; e < stencil.row_offsets[r + 1]; ++e)
        if (sheets_[stencil.kites[stencil.entry_kite[e]].sheet].port) {
          port_rows_.push_back(stencil.rows[r]);
          break;
        }
    rows_ = kernels::upload_flat<IndexView>("dgatd::lumped_rows", stencil.rows);
    row_offsets_ = kernels::upload_flat<IndexView>("dgatd::lumped_row_offsets", stencil.row_offsets);
    entry_kite_ = kernels::upload_flat<IndexView>("dgatd::lumped_entry_kite", stencil.entry_kite);
    entry_weight_ = kernels::upload_flat<Flat>("dgatd::lumped_entry_weight", stencil.entry_weight);
    keys_ = stencil.kite_keys;
    for (std::size_t k = 0; k < n; ++k) places_.push_back(static_cast<Index>(k));
    whole_sheet_ = sheet;
    for (std::size_t s = 0; s < sheets_.size(); ++s)
      if (sheets_[s].port) {
        PortSeries record;
        record.name = sheets_[s].name;
        record.resistance = sheets_[s].resistance;
        ports_.push_back(std::move(record));
        port_sheets_.push_back(s);
      }
  }

  // The ports' records so far, in the order of the sheets.
  void add_records(TermRecords& records) const override
  {
    records.ports.insert(records.ports.end(), ports_.begin(), ports_.end());
  }

  std::string name() const override { return "lumped_elements"; }
  // The circuits' currents enter the coarse step's implicit update as the losses do; the ports'
  // generators drive theirs.
  LocalStepSupport local_step_support() const override { return {true, {}, !ports_.empty(), port_rows_}; }
  // Per kite: its two unknowns, weights and sheet, u^ twice, state (3) read and written, history
  // written and read twice, area, and the two sums written and copied; per row its index, offsets
  // and u^ read and written, per entry its kite, weight and history.
  std::int64_t bytes_per_step() const override
  {
    auto const kites = static_cast<std::int64_t>(kites_.sheet.extent(0));
    auto const rows = static_cast<std::int64_t>(rows_.extent(0));
    auto const entries = static_cast<std::int64_t>(entry_kite_.extent(0));
    constexpr auto index = static_cast<std::int64_t>(sizeof(Index));
    constexpr auto real = static_cast<std::int64_t>(sizeof(Real));
    return kites * (3 * index + (2 + 2 + 6 + 3 + 1 + 4) * real) + rows * (2 * index + 2 * real) +
           entries * (index + 2 * real);
  }

  void set_dt(Context const& c) override
  {
    auto host = Kokkos::create_mirror_view(kites_.sheets);
    for (std::size_t s = 0; s < sheets_.size(); ++s) {
      auto const& sheet = sheets_[s];
      host(s).circuit = sheet.circuit;
      host(s).admittance = sheet.circuit.admittance(c.dt);
      host(s).source_scale = sheet.port ? -1 / (sheet.circuit.resistance * sheet.length) : 0;
      host(s).source = sheet.source;
    }
    Kokkos::deep_copy(kites_.sheets, host);
  }

  void reset(Context const& c) override
  {
    kernels::for_each("dgatd::lumped_start", c.space, kites_.sheet.extent(0),
                      kernels_lumped::KiteStart<memory_space>{kites_, c.fields.u});
    Kokkos::deep_copy(kites_.history, 0.0);
    for (auto& port : ports_)
      for (auto* series : {&port.incident, &port.voltage, &port.current}) series->clear();
  }

  // Each kite's place among the whole problem's, in the order of its key (sheet, face, vertex), which
  // is one process's order: the ports' sums then add the same numbers in the same order. Collective.
  void distribute(parallel::Communicator const& communicator, Context const&) override
  {
    communicator_ = &communicator;
    std::vector<std::int64_t> mine;
    for (auto const& key : keys_) mine.insert(mine.end(), key.begin(), key.end());
    auto const all = parallel::all_gathered(communicator, mine);
    std::vector<std::array<Index, 3>> whole(all.size() / 3);
    for (std::size_t k = 0; k < whole.size(); ++k)
      for (int i = 0; i < 3; ++i) whole[k][static_cast<std::size_t>(i)] = static_cast<Index>(all[3 * k + i]);
    std::sort(whole.begin(), whole.end());
    for (std::size_t k = 0; k < keys_.size(); ++k)
      places_[k] = static_cast<Index>(std::lower_bound(whole.begin(), whole.end(), keys_[k]) - whole.begin());
    whole_sheet_.clear();
    for (auto const& key : whole) whole_sheet_.push_back(key[0]);
  }

  // A port's current (its generator's and its circuit's) forces the levels' rows as an impressed
  // current does, as a uniform current per width over its kites. Its circuit's share is implicit in
  // the field at t^(n+1/2), so the forcing's rate at t^n is extrapolated from the port's currents so
  // far (second order: 2 I^(n-1/2) - 3 I^(n-3/2) + I^(n-5/2)), and the leapfrog, where it can, solves
  // for the rate the step's own current gives (implicit_currents).
  void add_local_step_forcing(Context const& c, Kokkos::View<Real*, memory_space> const& forcing) const override
  {
    if (ports_.empty()) return;
    auto const& host = host_sheet_rate_;
    std::size_t p = 0;
    for (std::size_t s = 0; s < sheets_.size(); ++s) host(s) = sheets_[s].port ? forcing_rate(p++, c.dt) : 0.0;
    Kokkos::deep_copy(sheet_rate_, host);
    kernels::for_each("dgatd::lumped_current_rate", c.space, kites_.sheet.extent(0),
                      kernels_lumped::KiteCurrentRate<memory_space>{kites_.sheet, sheet_rate_, kite_rate_});
    kernels::for_each("dgatd::lumped_current_forcing", c.space, rows_.extent(0),
                      kernels_lumped::CurrentForcing<memory_space>{rows_, row_offsets_, entry_kite_, entry_weight_,
                                                                   kite_rate_, forcing});
  }

  // A port's rate is -(I^(n+1/2) - I^(n-1/2)) / (dt w), I its current into the structure.
  std::size_t implicit_current_count() const override { return ports_.size(); }
  void implicit_currents(Context const& c, ImplicitCurrents& currents) const override
  {
    if (ports_.empty()) return;
    kernels::for_each("dgatd::lumped_current", c.space, kites_.sheet.extent(0),
                      kernels_lumped::KiteCurrent<memory_space>{kites_, c.fields.u, current_sums_, area_});
    auto const totals = sheet_totals(c, {&current_sums_});
    for (std::size_t p = 0; p < ports_.size(); ++p) {
      auto const& sheet = sheets_[port_sheets_[p]];
      auto const& history = ports_[p].current;
      double const per_step = c.dt * sheet.width;
      currents.used.push_back(forcing_rate(p, c.dt));
      currents.current.push_back(-totals[0][port_sheets_[p]] / sheet.length);
      currents.slope.push_back(-1 / per_step);
      currents.offset.push_back((history.empty() ? 0.0 : history.back()) / per_step);
    }
  }
  void impose_implicit_rates(std::vector<double> const& rates) override { imposed_rates_ = rates; }

  void after_ampere(Context const& c) override
  {
    kernels::for_each("dgatd::lumped_history", c.space, kites_.sheet.extent(0),
                      kernels_lumped::KiteHistory<memory_space>{kites_, c.dt, (c.step + 0.5) * c.dt});
    kernels::for_each("dgatd::lumped_history_current", c.space, rows_.extent(0),
                      kernels_lumped::HistoryCurrent<memory_space>{rows_, row_offsets_, entry_kite_, entry_weight_,
                                                                   kites_.history, c.fields.u, c.dt});
  }

  void end_step(Context const& c) override
  {
    kernels::for_each(
        "dgatd::lumped_advance", c.space, kites_.sheet.extent(0),
        kernels_lumped::KiteAdvance<memory_space>{kites_, c.fields.u, field_sums_, current_sums_, area_, c.dt});
    if (ports_.empty()) return;
    auto const totals = sheet_totals(c, {&field_sums_, &current_sums_});
    auto const& field = totals[0];
    auto const& current = totals[1];
    double const t_half = (c.step + 0.5) * c.dt;
    std::size_t p = 0;
    for (std::size_t s = 0; s < sheets_.size(); ++s) {
      auto const& sheet = sheets_[s];
      if (!sheet.port) continue;
      auto& port = ports_[p++];
      port.incident.push_back(0.5 * sheet.source.amplitude * sheet.source.value(t_half));
      port.voltage.push_back(field[s] / sheet.width);
      port.current.push_back(-current[s] / sheet.length);
    }
  }

  // The kites' state, then per port its three series (n values each after n steps), which are the same
  // on every rank.
  std::size_t state_size(std::int64_t steps) const override
  {
    return kites_.state.size() + 3 * ports_.size() * static_cast<std::size_t>(steps);
  }
  void save(std::vector<double>& state) const override
  {
    kernels::append_rows(kites_.state, state);
    for (auto const& port : ports_)
      for (auto const* series : {&port.incident, &port.voltage, &port.current})
        state.insert(state.end(), series->begin(), series->end());
  }
  void restore(Context const& c, double const* state) override
  {
    kernels::fill_rows(kites_.state, state);
    double const* next = state + kites_.state.size();
    auto const steps = static_cast<std::size_t>(c.step);
    for (auto& port : ports_)
      for (auto* series : {&port.incident, &port.voltage, &port.current}) {
        series->assign(next, next + steps);
        next += steps;
      }
  }
  // Over ranks a row per kite, at its place among the whole problem's.
  std::vector<StateRows> state_rows() const override
  {
    if (!communicator_ || whole_sheet_.empty()) return {};
    StateRows rows;
    rows.width = kites_.state.extent(1);
    rows.places = places_;
    rows.whole_rows = static_cast<Index>(whole_sheet_.size());
    return {rows};
  }

private:
  using IndexView = Kokkos::View<Index*, memory_space>;
  using Flat = Kokkos::View<Real*, memory_space>;
  using Sums = Kokkos::View<Real*, Kokkos::LayoutRight, memory_space>;
  using HostSums = Kokkos::View<Real*, Kokkos::LayoutRight, Kokkos::HostSpace>;

  // Port p's forcing rate for the step: the one imposed, or the extrapolated one.
  double forcing_rate(std::size_t p, double dt) const
  {
    if (!imposed_rates_.empty()) return imposed_rates_.at(p);
    auto const& i = ports_[p].current;
    std::size_t const n = i.size();
    double const rate = n >= 3 ? 2 * i[n - 1] - 3 * i[n - 2] + i[n - 3] : n == 2 ? i[n - 1] - i[n - 2] : 0.0;
    return -rate / (dt * sheets_[port_sheets_[p]].width);
  }

  // Per view of per-kite sums, each sheet's total. Over ranks every kite is one rank's, so the sum
  // over the ranks puts each at its place unchanged and every rank adds them in one process's order.
  std::vector<std::vector<double>> sheet_totals(Context const& c, std::vector<Sums const*> const& sums) const
  {
    std::size_t const whole = whole_sheet_.size();
    std::vector<double> placed(sums.size() * whole, 0.0);
    for (std::size_t v = 0; v < sums.size(); ++v) {
      Kokkos::deep_copy(c.space, host_sums_, *sums[v]);
      c.space.fence();
      for (std::size_t k = 0; k < places_.size(); ++k)
        placed[v * whole + static_cast<std::size_t>(places_[k])] = host_sums_(k);
    }
    if (communicator_) communicator_->sum(placed.data(), placed.size());
    std::vector<std::vector<double>> totals(sums.size(), std::vector<double>(sheets_.size(), 0.0));
    for (std::size_t v = 0; v < sums.size(); ++v)
      for (std::size_t k = 0; k < whole; ++k)
        totals[v][static_cast<std::size_t>(whole_sheet_[k])] += placed[v * whole + k];
    return totals;
  }

  std::vector<LumpedStencil::Sheet> sheets_;
  kernels_lumped::KiteView<memory_space> kites_;
  Flat area_, kite_rate_, sheet_rate_;
  typename Flat::host_mirror_type host_sheet_rate_;
  Sums field_sums_, current_sums_;
  HostSums host_sums_;
  IndexView rows_, row_offsets_, entry_kite_;
  Flat entry_weight_;
  // Per port, per step: V_s / 2, V and I_in at t^(n+1/2).
  std::vector<PortSeries> ports_;
  std::vector<std::size_t> port_sheets_;
  std::vector<Index> port_rows_; // the rows of the ports' kites' blocks, for local_step_support
  // Per kite its key and place (LumpedStencil::kite_keys), and per place the kite's sheet.
  std::vector<std::array<Index, 3>> keys_;
  std::vector<Index> places_, whole_sheet_;
  parallel::Communicator const* communicator_ = nullptr;
  std::vector<double> imposed_rates_; // per port, while the leapfrog measures the step's response
};

// The lumped ports and elements as a formulation adds them (Formulation::add_term).
inline TermRecipe lumped_elements_term(LumpedStencil const& stencil)
{
  return {"lumped ports and elements", [stencil](auto const& space) {
            return std::make_unique<LumpedElements<std::decay_t<decltype(space)>>>(stencil);
          }};
}

#define DGATD_LUMPED_ELEMENTS_INSTANCES(PREFIX, SPACE) PREFIX template class LumpedElements<SPACE>;
DGATD_FOR_EACH_INSTANCE_SPACE(DGATD_LUMPED_ELEMENTS_INSTANCES, extern)

} // namespace dgatd::solver
