#include "dgatd/solver/port_modes.hpp"

#include "dgatd/solver/dense_eigen.hpp"

#include <cmath>

namespace dgatd::solver {

std::string mode_kind_name(ModeKind kind)
{
  switch (kind) {
  case ModeKind::tem:
    return "TEM";
  case ModeKind::te:
    return "TE";
  case ModeKind::tm:
    return "TM";
  }
  return "?";
}

namespace port_modes_detail {

namespace {

// The rows and columns i of a with index[i] >= 0, renumbered index[i].
dga::HostCsr restricted(dga::HostCsr const& a, std::vector<Index> const& index)
{
  dga::HostCsr r;
  r.row_offsets.push_back(0);
  for (Index i = 0; i < a.rows; ++i) {
    if (index[i] < 0) continue;
    for (Index e = a.row_offsets[i]; e < a.row_offsets[i + 1]; ++e)
      if (index[a.column_indices[e]] >= 0) {
        r.column_indices.push_back(index[a.column_indices[e]]);
        r.values.push_back(a.values[e]);
      }
    r.row_offsets.push_back(static_cast<Index>(r.values.size()));
  }
  r.rows = r.columns = static_cast<Index>(r.row_offsets.size()) - 1;
  return r;
}

} // namespace

std::array<double, 2> homogeneous_fill(dga::CrossSection const& section, ModeKind kind)
{
  for (std::size_t t = 0; t < section.triangles.size(); ++t)
    if (section.eps_r[t] != section.eps_r[0] || section.mu_r[t] != section.mu_r[0])
      throw Error(section.name,
                  "is filled with more than one material (eps_r " + format_number(section.eps_r[0]) + " and " +
                      format_number(section.eps_r[t]) + ", mu_r " + format_number(section.mu_r[0]) + " and " +
                      format_number(section.mu_r[t]) + "), whose modes are hybrid, not " + mode_kind_name(kind),
                  "fill the guide with one material; an inhomogeneous hollow guide is not solved yet");
  return {section.eps_r[0], section.mu_r[0]};
}

HollowProblem hollow_problem(dga::CrossSection const& section, ModeKind kind)
{
  homogeneous_fill(section, kind);
  if (kind == ModeKind::te && !section.sheet_edges.empty())
    throw Error(section.name, "holds a PEC sheet, across which H_z jumps, and TE modes keep one H_z per vertex",
                "model the thin conductor with a thickness (a hole in the section) for its TE modes");
  std::vector<double> const unit(section.triangles.size(), 1.0);
  auto const stiffness = dga::cross_section_stiffness(section, unit);
  auto const mass = dga::cross_section_mass(section, unit);
  std::vector<Index> index(static_cast<std::size_t>(section.num_vertices()), -1);
  HollowProblem problem;
  for (Index i = 0; i < section.num_vertices(); ++i)
    if (kind == ModeKind::te || section.conductor[i] < 0) {
      index[i] = static_cast<Index>(problem.vertex.size());
      problem.vertex.push_back(i);
    }
  problem.stiffness = restricted(stiffness, index);
  problem.mass = restricted(mass, index);
  return problem;
}

PortMode hollow_mode(dga::CrossSection const& section, ModeKind kind, HollowProblem const& problem, double eigenvalue,
                     std::vector<double> const& eigenvector)
{
  auto const [eps_r, mu_r] = homogeneous_fill(section, kind);
  PortMode mode;
  mode.kind = kind;
  mode.cutoff_wavenumber = std::sqrt(std::max(eigenvalue, 0.0));
  mode.cutoff_frequency = dga::speed_of_light * mode.cutoff_wavenumber / (2 * M_PI * std::sqrt(eps_r * mu_r));
  mode.eps_eff = eps_r * mu_r;
  // The sign: the largest value positive, so a mode reads the same on every backend.
  std::size_t largest = 0;
  for (std::size_t j = 0; j < eigenvector.size(); ++j)
    if (std::abs(eigenvector[j]) > std::abs(eigenvector[largest])) largest = j;
  double const sign = eigenvector[largest] < 0 ? -1.0 : 1.0;
  mode.scalar.assign(static_cast<std::size_t>(section.num_vertices()), 0.0);
  for (std::size_t j = 0; j < eigenvector.size(); ++j) mode.scalar[problem.vertex[j]] = sign * eigenvector[j];
  // u^T M u = 1 makes the integral of |grad u|^2 equal to k_c^2: over k_c, the transverse pattern
  // has unit norm.
  for (Vec3 const& g : dga::triangle_gradients(section, mode.scalar)) {
    Vec3 const e = kind == ModeKind::te ? scaled(cross(section.normal, g), 1 / mode.cutoff_wavenumber)
                                        : scaled(g, -1 / mode.cutoff_wavenumber);
    mode.electric.push_back(e);
    mode.magnetic.push_back(cross(section.normal, e));
  }
  return mode;
}

std::vector<PortMode> tem_modes(dga::CrossSection const& section, Capacitances const& with_eps,
                                Capacitances const& with_mu)
{
  auto const n = static_cast<int>(with_eps.matrix.size());
  std::vector<double> c(static_cast<std::size_t>(n) * n), c_mu(c.size());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      c[static_cast<std::size_t>(i) * n + j] = with_eps.matrix[i][j];
      c_mu[static_cast<std::size_t>(i) * n + j] = with_mu.matrix[i][j];
    }
  // C V = eps_eff C_mu V: the telegrapher's equations with L = mu0 eps0 C_mu^-1, beta^2 = omega^2 L C.
  auto const modal = generalized_symmetric_eigen(c, c_mu, n, 0.0);
  int iterations = 0;
  double residual = 0;
  for (auto const* solves : {&with_eps.solves, &with_mu.solves})
    for (auto const& s : *solves)
      iterations = std::max(iterations, s.iterations), residual = std::max(residual, s.relative_residual);
  double const eta0 = dga::mu0 * dga::speed_of_light;
  std::vector<PortMode> modes;
  for (int k = 0; k < modal.columns; ++k) {
    PortMode mode;
    mode.kind = ModeKind::tem;
    mode.eps_eff = modal.values[k];
    std::size_t largest = 0;
    for (int i = 0; i < n; ++i) {
      mode.voltages.push_back(modal.vector(i, k));
      if (std::abs(mode.voltages[i]) > std::abs(mode.voltages[largest])) largest = static_cast<std::size_t>(i);
    }
    double const scale = 1 / mode.voltages[largest];
    for (double& v : mode.voltages) v *= scale;
    // I = (beta / omega) L^-1 V = c0 sqrt(eps_eff) C_mu V; Z0 = V^T V / V^T I.
    double vv = 0, vi = 0;
    for (int i = 0; i < n; ++i) {
      vv += mode.voltages[i] * mode.voltages[i];
      for (int j = 0; j < n; ++j)
        vi +=
            mode.voltages[i] * dga::speed_of_light * std::sqrt(mode.eps_eff) * with_mu.matrix[i][j] * mode.voltages[j];
    }
    mode.impedance = vv / vi;
    mode.scalar.assign(static_cast<std::size_t>(section.num_vertices()), 0.0);
    std::vector<double> vacuum(mode.scalar.size(), 0.0);
    for (int i = 0; i < n; ++i)
      for (std::size_t v = 0; v < mode.scalar.size(); ++v) {
        mode.scalar[v] += mode.voltages[i] * with_eps.solves[i].potential[v];
        vacuum[v] += mode.voltages[i] * with_mu.solves[i].potential[v];
      }
    auto const gradients = dga::triangle_gradients(section, mode.scalar);
    auto const vacuum_gradients = dga::triangle_gradients(section, vacuum);
    for (std::size_t t = 0; t < gradients.size(); ++t) {
      mode.electric.push_back(scaled(gradients[t], -1));
      mode.magnetic.push_back(
          scaled(cross(section.normal, vacuum_gradients[t]), -std::sqrt(mode.eps_eff) / (eta0 * section.mu_r[t])));
    }
    mode.iterations = iterations;
    mode.relative_residual = residual;
    modes.push_back(std::move(mode));
  }
  return modes;
}

} // namespace port_modes_detail

} // namespace dgatd::solver
