#include "dgatd/solver/loss_steps.hpp"

#include "dgatd/error.hpp"

#include <algorithm>
#include <string>

namespace dgatd::solver {
namespace {

// The trapezoidal rule for z'' + S z' + P z = x over one step, on the auxiliaries kept as
// psi = [z / dt; z'] so that the rule's matrices are of order one whatever the layer's rates:
// psi' = M psi + [0; x], M = [[0, I / dt], [-dt P, -S]], and psi <- advance psi + drive x_average,
// advance = (I - dt M / 2)^-1 (I + dt M / 2) (6 x 6), drive = dt (I - dt M / 2)^-1 [0; I] (6 x 3).
struct AuxiliaryRule {
  std::array<double, 36> advance;
  std::array<double, 18> drive;
};

[[noreturn]] void singular_step(double dt, char const* what)
{
  throw ModelError(ModelSubject::time_step, "", std::string(what) + " at this time step",
                   "a smaller time step or a gentler layer profile (a larger reflection)", {{"dt", dt}});
}

AuxiliaryRule auxiliary_rule(std::array<double, 18> const& rates, double dt)
{
  std::array<double, 36> left{}, right{};
  for (int i = 0; i < 6; ++i) left[7 * i] = right[7 * i] = 1;
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
    for (int j = 0; j < 3; ++j) rule.drive[3 * i + j] = dt * left[6 * i + 3 + j];
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
  lossy.subregions = host.stretched_subregions;
  return lossy;
}

LossStepMatrices loss_step_matrices(LossyRows const& lossy, double dt)
{
  bool const with_layers = !lossy.subregions.empty();
  LossStepMatrices m;
  m.loss.resize(lossy.conductance.size());
  m.step_inverse.resize(with_layers ? m.loss.size() : 0);
  // S' = S + sum_r B_r D_r / 2 over the stretched subregions, placed at their rows.
  std::vector<double> implicit_loss = lossy.conductance;
  std::size_t const n = lossy.subregions.size();
  m.advance.resize(36 * n);
  m.drive.resize(18 * n);
  m.coupling.resize(18 * n);
  for (std::size_t k = 0; k < n; ++k) {
    auto const& s = lossy.subregions[k];
    auto const rule = auxiliary_rule(s.rates, dt);
    std::copy(rule.advance.begin(), rule.advance.end(), m.advance.begin() + 36 * k);
    for (int a = 0; a < 6; ++a)
      for (int j = 0; j < 3; ++j)
        for (int c = 0; c < 3; ++c) m.drive[18 * k + 3 * a + j] += rule.drive[3 * a + c] * s.basis[3 * c + j];
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 6; ++c) {
        double const b = s.coupling[6 * r + c] * auxiliary_scale(c, dt);
        for (int j = 0; j < 6; ++j)
          m.coupling[18 * k + 6 * r + j] += 0.5 * b * ((c == j ? 1.0 : 0.0) + rule.advance[6 * c + j]);
        if (s.lossy_rows[r] < 0) continue;
        Index const row = s.lossy_rows[r];
        for (int j = 0; j < 3; ++j)
          if (s.lossy_rows[j] >= 0)
            implicit_loss[lossy.matrix_row[row] + s.lossy_rows[j] - lossy.block_first[row]] +=
                0.5 * b * m.drive[18 * k + 3 * c + j];
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
        m.loss[offset + i * d + j] = l;
        if (with_layers) m.step_inverse[offset + i * d + j] = a[i * d + j];
      }
    offset += size;
  }
  return m;
}

MagneticLayer magnetic_layer(dga::HostOperators const& host)
{
  MagneticLayer layer;
  layer.tets = host.stretched_tets;
  layer.rates = host.stretched_tet_rates;
  for (Index t : host.stretched_tets) layer.mu.push_back(host.mu[t]);
  layer.loss = host.magnetic_loss;
  layer.coupling = host.magnetic_coupling;
  layer.basis = host.magnetic_basis;
  return layer;
}

MagneticStepMatrices magnetic_step_matrices(MagneticLayer const& layer, double dt)
{
  std::size_t const n = layer.rates.size();
  MagneticStepMatrices m{std::vector<double>(36 * n), std::vector<double>(96 * n), std::vector<double>(16 * n),
                         std::vector<double>(96 * n)};
  for (std::size_t k = 0; k < n; ++k) {
    auto const rule = auxiliary_rule(layer.rates[k], dt);
    std::copy(rule.advance.begin(), rule.advance.end(), m.advance.begin() + 36 * k);
    // Per subregion lv: its drive from the tet's four f^ (6 x 4) and B (I + A) / 2 (4 x 6).
    std::array<double, 96> tet_drive{}, force{};
    for (int lv = 0; lv < 4; ++lv)
      for (int a = 0; a < 6; ++a)
        for (int face = 0; face < 4; ++face) {
          double sum = 0;
          for (int c = 0; c < 3; ++c) sum += rule.drive[3 * a + c] * layer.basis[k][12 * lv + 4 * c + face];
          tet_drive[24 * lv + 4 * a + face] = sum;
        }
    std::array<double, 16> a, implicit_loss = layer.loss[k];
    for (int i = 0; i < 4; ++i)
      for (int lv = 0; lv < 4; ++lv)
        for (int c = 0; c < 6; ++c) {
          double const b = layer.coupling[k][24 * i + 6 * lv + c] * auxiliary_scale(c, dt);
          for (int j = 0; j < 4; ++j) implicit_loss[4 * i + j] += 0.5 * b * tet_drive[24 * lv + 4 * c + j];
          for (int j = 0; j < 6; ++j)
            force[24 * i + 6 * lv + j] += 0.5 * b * ((c == j ? 1.0 : 0.0) + rule.advance[6 * c + j]);
        }
    for (int i = 0; i < 16; ++i) a[i] = layer.mu[k][i] / dt + 0.5 * implicit_loss[i];
    invert_step_matrix(a.data(), 4, false, dt);
    for (int i = 0; i < 4; ++i)
      for (int c = 0; c < 4; ++c) {
        for (int j = 0; j < 4; ++j) m.loss[16 * k + 4 * i + j] += a[4 * i + c] * 0.5 * implicit_loss[4 * c + j];
        for (int j = 0; j < 24; ++j) m.coupling[96 * k + 24 * i + j] += a[4 * i + c] * force[24 * c + j];
      }
    std::copy(tet_drive.begin(), tet_drive.end(), m.drive.begin() + 96 * k);
  }
  return m;
}

} // namespace dgatd::solver
