#include "dgatd/solver/loss_steps.hpp"

#include "dgatd/error.hpp"
#include "dgatd/vec3.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace dgatd::solver {
namespace {

// The trapezoidal rule for z'' + S z' + P z = x over one step, on the auxiliaries kept as
// psi = [z / dt; z'] so that the rule's matrices are of order one whatever the layer's rates:
// psi' = M psi + [0; x], M = [[0, I / dt], [-dt P, -S]], and psi <- advance psi + drive x_average,
// advance = (I - dt M / 2)^-1 (I + dt M / 2) (6 x 6), drive = dt (I - dt M / 2)^-1 [0; I] (6 x 3).
// With a complex frequency shift a the same holds in s + a: M becomes M - a I, and the drive takes
// the shifted input's average beta (x_average - a p^n) as beta times the kernels' x_average - a p^n.
struct AuxiliaryRule {
  std::array<double, 36> advance;
  std::array<double, 18> drive;
};

[[noreturn]] void singular_step(double dt, char const* what)
{
  throw ModelError(ModelSubject::time_step, "", std::string(what) + " at this time step",
                   "a smaller time step or a gentler layer profile (a larger reflection)", {{"dt", dt}});
}

// beta = 1 / (1 + a dt / 2): the weight of the step's average of e - a p left once p^(n+1) is
// eliminated, (e^n + e^(n+1)) / 2 - a (p^n + p^(n+1)) / 2 = beta ((e^n + e^(n+1)) / 2 - a p^n).
double shift_beta(double shift, double dt) { return 1 / (1 + 0.5 * shift * dt); }

AuxiliaryRule auxiliary_rule(std::array<double, 18> const& rates, double dt, double shift)
{
  std::array<double, 36> left{}, right{};
  for (int i = 0; i < 6; ++i) {
    left[7 * i] = 1 + 0.5 * shift * dt;
    right[7 * i] = 1 - 0.5 * shift * dt;
  }
  for (int i = 0; i < 3; ++i) {
    left[6 * i + 3 + i] -= 0.5;
    right[6 * i + 3 + i] += 0.5;
    for (int j = 0; j < 3; ++j) {
      double const stiffness = 0.5 * dt * dt * rates[9 + 3 * i + j], damping = 0.5 * dt * rates[3 * i + j];
      left[6 * (3 + i) + j] += stiffness;
      left[6 * (3 + i) + 3 + j] += damping;
      right[6 * (3 + i) + j] -= stiffness;
      right[6 * (3 + i) + 3 + j] -= damping;
    }
  }
  if (!dga::invert_general(left.data(), 6)) singular_step(dt, "a matched layer's auxiliary step is singular");
  AuxiliaryRule rule{};
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j)
      for (int m = 0; m < 6; ++m) rule.advance[6 * i + j] += left[6 * i + m] * right[6 * m + j];
    for (int j = 0; j < 3; ++j) rule.drive[3 * i + j] = dt * shift_beta(shift, dt) * left[6 * i + 3 + j];
  }
  return rule;
}

// The couplings act on [z; z'] = [dt psi_0..2; psi_3..5].
double auxiliary_scale(int c, double dt) { return c < 3 ? dt : 1.0; }

// (mass / dt + loss / 2)^-1 in place of a (d x d); with matched layers it is not symmetric.
void invert_step_matrix(double* a, int d, bool symmetric, double dt)
{
  if (!(symmetric ? dga::invert_spd(a, d) : dga::invert_general(a, d)))
    singular_step(dt, "a lossy or matched block's implicit step matrix is singular");
}

// X = coupling diag(scale) (I + A) / 2 (3 x 6), the force's coupling to psi^n.
std::array<double, 18> force_coupling(std::array<double, 18> const& coupling, AuxiliaryRule const& rule, double dt)
{
  std::array<double, 18> x{};
  for (int m = 0; m < 3; ++m)
    for (int c = 0; c < 6; ++c) {
      double const b = coupling[6 * m + c] * auxiliary_scale(c, dt);
      for (int j = 0; j < 6; ++j) x[6 * m + j] += 0.5 * b * ((c == j ? 1.0 : 0.0) + rule.advance[6 * c + j]);
    }
  return x;
}

// A stretched subregion's share of the implicit loss, B D W / 2 with B = W^T coupling diag(scale)
// and D the rule's drive, both sides alike: basis(m, i) is component m of the subregion's basis
// function i (N of them: its three half-edges, or the tet's four faces), and add(i, j, value) adds
// to row i, column j of S'.
template <int N, class Basis, class Add>
void add_subregion_implicit_loss(Basis const& basis, std::array<double, 18> const& coupling, AuxiliaryRule const& rule,
                                 double dt, Add const& add)
{
  double drive[6][N] = {}; // D W
  for (int c = 0; c < 6; ++c)
    for (int j = 0; j < N; ++j)
      for (int m = 0; m < 3; ++m) drive[c][j] += rule.drive[3 * c + m] * basis(m, j);
  for (int i = 0; i < N; ++i)
    for (int c = 0; c < 6; ++c) {
      double b = 0;
      for (int m = 0; m < 3; ++m) b += basis(m, i) * coupling[6 * m + c];
      b *= auxiliary_scale(c, dt);
      for (int j = 0; j < N; ++j) add(i, j, 0.5 * b * drive[c][j]);
    }
}

// W^T n for a subregion's basis as add_subregion_implicit_loss reads it: the direction n of a
// stretch's mode seen by each basis function.
template <int N, class Basis>
std::array<double, N> basis_along(Basis const& basis, Vec3 const& n)
{
  std::array<double, N> along{};
  for (int i = 0; i < N; ++i)
    for (int m = 0; m < 3; ++m) along[i] += basis(m, i) * n[m];
  return along;
}

// The trapezoidal rule for q' + gamma q = x: q^(n+1) = a q^n + d (x^n + x^(n+1)) / 2 with
// a = (1 - gamma dt / 2) / (1 + gamma dt / 2) and d = dt / (1 + gamma dt / 2), returned as
// (a, d / 2, weight (1 + a) / 2) from (gamma, weight). With a complex frequency shift the rate is
// gamma + shift and d / 2 takes beta (auxiliary_rule).
std::array<double, 3> modal_rule(std::array<double, 2> const& rate_weight, double dt, double shift)
{
  double const half = 0.5 * (rate_weight[0] + shift) * dt;
  double const a = (1 - half) / (1 + half);
  return {a, 0.5 * dt * shift_beta(shift, dt) / (1 + half), 0.5 * rate_weight[1] * (1 + a)};
}

// The rule of p' + shift p = x, (advance, half drive) as modal_rule's first two.
std::array<double, 2> shift_rule(double shift, double dt)
{
  double const beta = shift_beta(shift, dt);
  return {(1 - 0.5 * shift * dt) * beta, 0.5 * dt * beta};
}

// A stretched tet's K = (Mmu / dt + S' / 2)^-1 and L = K S' / 2 (4 x 4, row-major).
void implicit_step(std::array<double, 16> const& mu, std::array<double, 16> const& implicit_loss, double dt,
                   double* loss, double* step_inverse)
{
  std::array<double, 16> a;
  for (int i = 0; i < 16; ++i) a[i] = mu[i] / dt + 0.5 * implicit_loss[i];
  invert_step_matrix(a.data(), 4, false, dt);
  std::copy(a.begin(), a.end(), step_inverse);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double l = 0;
      for (int c = 0; c < 4; ++c) l += a[4 * i + c] * 0.5 * implicit_loss[4 * c + j];
      loss[4 * i + j] = l;
    }
}

// The weight 2 a of p per lossy row in the blocks that hold stretched subregions. The loss's sum
// u^n + u~ - 2 a p carries the shift's explicit part, -a beta S'_layer p, through L = K S' / 2 only
// where S' is the layers' share alone; a block that also holds conductivity, an absorbing face or a
// lumped kite would need its own product, and the problem refuses such a layer
// (simulation::describe_problem).
void mark_shifted_blocks(LossyRows& lossy)
{
  std::vector<char> shifted(lossy.rows.size(), 0);
  auto mark = [&](auto const& subregions) {
    for (auto const& subregion : subregions)
      for (Index const row : subregion.lossy_rows)
        if (row >= 0) shifted[static_cast<std::size_t>(lossy.block_first[static_cast<std::size_t>(row)])] = 1;
  };
  mark(lossy.subregions);
  mark(lossy.one_mode.subregions);
  mark(lossy.three_modes.subregions);
  std::vector<char> other(lossy.rows.size(), 0);
  for (auto const& kite : lossy.lumped_kites)
    for (Index const row : kite.lossy_rows)
      if (row >= 0) other[static_cast<std::size_t>(lossy.block_first[static_cast<std::size_t>(row)])] = 1;
  lossy.shift_weight.assign(lossy.rows.size(), 0.0);
  for (std::size_t r = 0; r < lossy.rows.size(); r += static_cast<std::size_t>(lossy.block_size[r])) {
    if (!shifted[r]) continue;
    auto const d = static_cast<std::size_t>(lossy.block_size[r]);
    auto const block = lossy.conductance.begin() + lossy.matrix_row[r];
    if (other[r] || std::any_of(block, block + static_cast<std::ptrdiff_t>(d * d), [](double s) { return s != 0; }))
      throw std::invalid_argument("a dual block holds a shifted layer's subregions and conductivity, an absorbing "
                                  "face or a lumped kite");
    for (std::size_t i = 0; i < d; ++i) lossy.shift_weight[r + i] = 2 * lossy.shift;
  }
}

} // namespace

LossyRows lossy_rows(dga::HostOperators const& host)
{
  LossyRows lossy;
  auto const& layout = host.layout;
  for (std::size_t k = 0; k < host.lossy_blocks.size(); ++k) {
    Index const b = host.lossy_blocks[k];
    Index const begin = layout.block_offset[b];
    Index const d = layout.block_offset[b + 1] - begin;
    Index const block_first = static_cast<Index>(lossy.rows.size());
    auto const* eps = host.eps.data() + layout.block_matrix_offset[b];
    lossy.eps.insert(lossy.eps.end(), eps, eps + static_cast<std::ptrdiff_t>(d) * d);
    for (Index i = 0; i < d; ++i) {
      lossy.rows.push_back(begin + i);
      lossy.block_first.push_back(block_first);
      lossy.block_size.push_back(d);
      lossy.matrix_row.push_back(host.lossy_matrix_offset[k] + static_cast<std::int64_t>(i) * d);
    }
  }
  lossy.conductance = host.conductance;
  lossy.stretch_conductance = host.stretch_conductance;
  lossy.shift = host.stretch_shift;
  std::vector<Index> lossy_of_block(static_cast<std::size_t>(layout.num_blocks()), -1);
  for (std::size_t k = 0; k < host.lossy_blocks.size(); ++k)
    lossy_of_block[static_cast<std::size_t>(host.lossy_blocks[k])] = static_cast<Index>(k);
  for (auto const& kite : host.lumped_kites) {
    Index const first = host.lossy_row_offset[static_cast<std::size_t>(lossy_of_block[kite.block])];
    auto& rows = lossy.lumped_kites.emplace_back();
    rows.sheet = kite.sheet;
    for (int i = 0; i < 2; ++i) {
      bool const free = kite.unknowns[i] < layout.num_free;
      rows.lossy_rows[i] = free ? first + kite.unknowns[i] - layout.block_offset[kite.block] : -1;
      rows.along[i] = kite.along[i];
    }
    rows.area = kite.area;
  }
  lossy.sheet_circuits = host.sheet_circuits;
  for (std::size_t k = 0; k < host.stretched_tets.size(); ++k) {
    auto const& modes = host.stretched_tet_modes[k];
    auto const* subregions = host.stretched_subregions.data() + 4 * k;
    auto add_modal = [&](auto& group) {
      group.tets.push_back(host.stretched_tets[k]);
      for (int m = 0; m < group.modes; ++m) group.rates.push_back({modes.rate[m], modes.electric_weight[m]});
      for (int lv = 0; lv < 4; ++lv) {
        auto const& basis = subregions[lv].basis;
        auto& added = group.subregions.emplace_back();
        added.unknowns = subregions[lv].unknowns;
        added.lossy_rows = subregions[lv].lossy_rows;
        for (int m = 0; m < group.modes; ++m) {
          auto const along = basis_along<3>([&](int c, int i) { return basis[3 * c + i]; }, modes.direction[m]);
          std::copy(along.begin(), along.end(), added.direction.begin() + 3 * m);
        }
      }
    };
    if (modes.count == 1)
      add_modal(lossy.one_mode);
    else if (modes.count == 3)
      add_modal(lossy.three_modes);
    else {
      lossy.stretched_tets.push_back(host.stretched_tets[k]);
      lossy.tet_rates.push_back(host.stretched_tet_rates[k]);
      lossy.tet_coupling.push_back(host.electric_coupling[k]);
      lossy.subregions.insert(lossy.subregions.end(), subregions, subregions + 4);
    }
  }
  lossy.dispersions = host.dispersions;
  lossy.dispersive_tets = host.dispersive_tets;
  lossy.dispersive_model = host.dispersive_model;
  lossy.dispersive_rows = host.dispersive_rows;
  lossy.dispersive_mass = host.dispersive_mass;
  if (lossy.shift > 0) mark_shifted_blocks(lossy);
  return lossy;
}

LossStepMatrices loss_step_matrices(LossyRows const& lossy, double dt, bool by_columns)
{
  bool const with_layers =
      !lossy.subregions.empty() || !lossy.one_mode.subregions.empty() || !lossy.three_modes.subregions.empty();
  bool const with_force = with_layers || !lossy.dispersive_tets.empty();
  LossStepMatrices m;
  m.loss.resize(lossy.conductance.size());
  m.step_inverse.resize(with_force ? m.loss.size() : 0);
  // S' = S + sum_r B_r D_r W_r / 2 over the stretched subregions, placed at their rows, with
  // B_r = W_r^T coupling diag(scale).
  double const beta = shift_beta(lossy.shift, dt);
  m.shift_rule = shift_rule(lossy.shift, dt);
  std::vector<double> implicit_loss = lossy.conductance;
  for (std::size_t i = 0; i < implicit_loss.size(); ++i) implicit_loss[i] += beta * lossy.stretch_conductance[i];
  // Adds value at rows lossy_rows[r], lossy_rows[j] of S' (nothing where either is PEC).
  auto add_at = [&](auto const& lossy_rows, int r, int j, double value) {
    if (lossy_rows[r] < 0 || lossy_rows[j] < 0) return;
    Index const row = lossy_rows[r];
    implicit_loss[lossy.matrix_row[row] + lossy_rows[j] - lossy.block_first[row]] += value;
  };
  for (auto const& kite : lossy.lumped_kites) {
    double const admittance = lossy.sheet_circuits[static_cast<std::size_t>(kite.sheet)].admittance(dt) * kite.area;
    for (int r = 0; r < 2; ++r)
      for (int j = 0; j < 2; ++j) add_at(kite.lossy_rows, r, j, admittance * kite.along[r] * kite.along[j]);
  }
  std::size_t const n = lossy.tet_rates.size();
  m.advance.resize(36 * n);
  m.drive.resize(18 * n);
  m.coupling.resize(18 * n);
  for (std::size_t k = 0; k < n; ++k) {
    auto const rule = auxiliary_rule(lossy.tet_rates[k], dt, lossy.shift);
    std::copy(rule.advance.begin(), rule.advance.end(), m.advance.begin() + 36 * k);
    std::copy(rule.drive.begin(), rule.drive.end(), m.drive.begin() + 18 * k);
    auto const x = force_coupling(lossy.tet_coupling[k], rule, dt);
    std::copy(x.begin(), x.end(), m.coupling.begin() + 18 * k);
    for (int lv = 0; lv < 4; ++lv) {
      auto const& s = lossy.subregions[4 * k + lv];
      add_subregion_implicit_loss<3>([&](int m, int i) { return s.basis[3 * m + i]; }, lossy.tet_coupling[k], rule, dt,
                                     [&](int r, int j, double value) { add_at(s.lossy_rows, r, j, value); });
    }
  }
  // The modal tets: S' += weight d / 2 b b^T per mode and subregion, b = W^T n.
  auto add_modal = [&](auto const& group, std::vector<double>& rules) {
    std::size_t const modes = group.modes;
    rules.resize(3 * group.rates.size());
    for (std::size_t k = 0; k < group.num_tets(); ++k)
      for (std::size_t mode = 0; mode < modes; ++mode) {
        std::size_t const km = modes * k + mode;
        auto const rule = modal_rule(group.rates[km], dt, lossy.shift);
        std::copy(rule.begin(), rule.end(), rules.begin() + 3 * km);
        double const implicit = group.rates[km][1] * rule[1];
        for (int lv = 0; lv < 4; ++lv) {
          auto const& s = group.subregions[4 * k + lv];
          double const* b = s.direction.data() + 3 * mode;
          for (int r = 0; r < 3; ++r)
            for (int j = 0; j < 3; ++j) add_at(s.lossy_rows, r, j, implicit * b[r] * b[j]);
        }
      }
  };
  add_modal(lossy.one_mode, m.one_mode_rule);
  add_modal(lossy.three_modes, m.three_mode_rule);
  // The dispersive tets: S' += (sum of the model's poles' conductances) eps_t |s| w^i . w^j.
  std::vector<double> model_conductance;
  for (auto const& model : lossy.dispersions) {
    double conductance = 0;
    for (auto const& pole : model.poles) {
      auto const rule = dga::pole_rule(pole, dt);
      if (rule.singular) singular_step(dt, "a dispersive pole's step is singular");
      conductance += rule.conductance;
      m.pole_rules.insert(m.pole_rules.end(), rule.advance.begin(), rule.advance.end());
      m.pole_rules.insert(m.pole_rules.end(), rule.drive.begin(), rule.drive.end());
      m.pole_rules.insert(m.pole_rules.end(), rule.history.begin(), rule.history.end());
    }
    model_conductance.push_back(conductance);
  }
  for (std::size_t k = 0; k < lossy.dispersive_tets.size(); ++k) {
    double const conductance = model_conductance[static_cast<std::size_t>(lossy.dispersive_model[k])];
    auto const& rows = lossy.dispersive_rows[k];
    auto const& mass = lossy.dispersive_mass[k];
    for (int lv = 0; lv < 4; ++lv) {
      auto const subregion_rows = std::array<Index, 3>{rows[3 * lv], rows[3 * lv + 1], rows[3 * lv + 2]};
      int entry = 6 * lv;
      for (int r = 0; r < 3; ++r)
        for (int c = r; c < 3; ++c, ++entry) {
          add_at(subregion_rows, r, c, conductance * mass[entry]);
          if (c != r) add_at(subregion_rows, c, r, conductance * mass[entry]);
        }
    }
  }
  std::vector<double> a;
  std::size_t offset = 0;
  for (std::size_t r = 0; r < lossy.block_size.size(); r += lossy.block_size[r]) {
    int const d = lossy.block_size[r];
    std::size_t const size = static_cast<std::size_t>(d) * d;
    a.resize(size);
    for (std::size_t i = 0; i < size; ++i) a[i] = lossy.eps[offset + i] / dt + 0.5 * implicit_loss[offset + i];
    invert_step_matrix(a.data(), d, !with_layers, dt);
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j) {
        double l = 0;
        for (int c = 0; c < d; ++c) l += a[i * d + c] * 0.5 * implicit_loss[offset + c * d + j];
        std::size_t const entry = offset + static_cast<std::size_t>(by_columns ? j * d + i : i * d + j);
        m.loss[entry] = l;
        if (with_force) m.step_inverse[entry] = a[i * d + j];
      }
    offset += size;
  }
  return m;
}

MagneticLayer magnetic_layer(dga::HostOperators const& host)
{
  MagneticLayer layer;
  layer.shift = host.stretch_shift;
  for (std::size_t k = 0; k < host.stretched_tets.size(); ++k) {
    Index const t = host.stretched_tets[k];
    auto const& modes = host.stretched_tet_modes[k];
    auto const& basis = host.magnetic_basis[k];
    auto add_modal = [&](auto& group) {
      group.tets.push_back(t);
      group.mu.push_back(host.mu[t]);
      group.loss.push_back(host.magnetic_loss[k]);
      for (int m = 0; m < group.modes; ++m) group.rates.push_back({modes.rate[m], modes.magnetic_weight[m]});
      for (int lv = 0; lv < 4; ++lv)
        for (int m = 0; m < group.modes; ++m) {
          auto const along =
              basis_along<4>([&](int c, int face) { return basis[12 * lv + 4 * c + face]; }, modes.direction[m]);
          group.direction.insert(group.direction.end(), along.begin(), along.end());
        }
    };
    if (modes.count == 1)
      add_modal(layer.one_mode);
    else if (modes.count == 3)
      add_modal(layer.three_modes);
    else {
      layer.tets.push_back(t);
      layer.rates.push_back(host.stretched_tet_rates[k]);
      layer.mu.push_back(host.mu[t]);
      layer.loss.push_back(host.magnetic_loss[k]);
      layer.coupling.push_back(host.magnetic_coupling[k]);
      layer.basis.insert(layer.basis.end(), basis.begin(), basis.end());
    }
  }
  return layer;
}

MagneticStepMatrices magnetic_step_matrices(MagneticLayer const& layer, double dt)
{
  std::size_t const n = layer.rates.size();
  MagneticStepMatrices m;
  double const beta = shift_beta(layer.shift, dt);
  m.shift_rule = shift_rule(layer.shift, dt);
  // The layer's own loss S, of the shifted input like the auxiliaries' (auxiliary_rule).
  auto shifted_loss = [&](std::array<double, 16> loss) {
    for (double& x : loss) x *= beta;
    return loss;
  };
  m.advance.resize(36 * n);
  m.drive.resize(18 * n);
  m.loss.resize(16 * n);
  m.step_inverse.resize(16 * n);
  m.coupling.resize(18 * n);
  for (std::size_t k = 0; k < n; ++k) {
    auto const rule = auxiliary_rule(layer.rates[k], dt, layer.shift);
    std::copy(rule.advance.begin(), rule.advance.end(), m.advance.begin() + 36 * k);
    std::copy(rule.drive.begin(), rule.drive.end(), m.drive.begin() + 18 * k);
    auto const x = force_coupling(layer.coupling[k], rule, dt);
    std::copy(x.begin(), x.end(), m.coupling.begin() + 18 * k);
    double const* basis = layer.basis.data() + 48 * k;
    // S' = S + sum_lv B_lv D W_lv / 2 by local faces, B_lv = W_lv^T coupling diag(scale) (4 x 6).
    std::array<double, 16> implicit_loss = shifted_loss(layer.loss[k]);
    for (int lv = 0; lv < 4; ++lv)
      add_subregion_implicit_loss<4>([&](int m, int face) { return basis[12 * lv + 4 * m + face]; }, layer.coupling[k],
                                     rule, dt, [&](int i, int j, double value) { implicit_loss[4 * i + j] += value; });
    implicit_step(layer.mu[k], implicit_loss, dt, m.loss.data() + 16 * k, m.step_inverse.data() + 16 * k);
  }
  // The modal tets: S' += weight d / 2 b_lv b_lv^T per mode and subregion, b_lv = W_lv^T n. S' is
  // symmetric (the stretch's loss is, and so is each mode's term), so (Mmu + dt S' / 2)^-1 is, up to
  // the rounding of its inversion, which the packing averages out.
  auto add_modal = [&](auto const& group, MagneticModalMatrices& matrices) {
    std::size_t const tets = group.tets.size();
    std::size_t const modes = group.modes;
    matrices.implicit_loss.resize(10 * tets);
    matrices.step.resize(10 * tets);
    matrices.rule.resize(3 * group.rates.size());
    for (std::size_t k = 0; k < tets; ++k) {
      std::array<double, 16> implicit_loss = shifted_loss(group.loss[k]);
      for (std::size_t mode = 0; mode < modes; ++mode) {
        std::size_t const km = modes * k + mode;
        auto const rule = modal_rule(group.rates[km], dt, layer.shift);
        std::copy(rule.begin(), rule.end(), matrices.rule.begin() + 3 * km);
        double const implicit = group.rates[km][1] * rule[1];
        for (std::size_t lv = 0; lv < 4; ++lv) {
          double const* b = group.direction.data() + 16 * modes * k + 4 * (modes * lv + mode);
          for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) implicit_loss[4 * i + j] += implicit * b[i] * b[j];
        }
      }
      std::array<double, 16> step;
      for (int i = 0; i < 16; ++i) step[i] = group.mu[k][i] + 0.5 * dt * implicit_loss[i];
      invert_step_matrix(step.data(), 4, false, dt);
      for (int i = 0, packed = 0; i < 4; ++i)
        for (int j = i; j < 4; ++j, ++packed) {
          matrices.implicit_loss[10 * k + packed] = 0.5 * (implicit_loss[4 * i + j] + implicit_loss[4 * j + i]);
          matrices.step[10 * k + packed] = 0.5 * (step[4 * i + j] + step[4 * j + i]);
        }
    }
  };
  add_modal(layer.one_mode, m.one_mode);
  add_modal(layer.three_modes, m.three_modes);
  return m;
}

} // namespace dgatd::solver
