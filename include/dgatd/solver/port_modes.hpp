#pragma once
// The modes of a port's cross-section (dga/cross_section.hpp), from the section's 2D DGA operators
// (docs/method/port_modes.md):
// - TEM and quasi-TEM modes of sections with two or more conductors, from 2D electrostatics: the
//   per-unit-length capacitance matrices C (with the permittivities) and C_mu (vacuum permittivity
//   over the permeabilities; C0 where mu_r = 1), solved by solver::capacitance_matrix on the
//   execution space given. The modes solve C V = eps_eff C_mu V; one signal conductor has
//   eps_eff = C / C_mu and Z0 = 1 / (c0 sqrt(C C_mu)).
// - TE and TM modes of a homogeneously filled section: K u = k_c^2 M u, TM with E_z = 0 on every
//   conductor, TE with the natural boundary (zero normal derivative of H_z) and the constant left
//   out, by LOBPCG (solver/lobpcg.hpp) on the execution space given.

#include "dgatd/dga/cross_section.hpp"
#include "dgatd/dga/operators.hpp"
#include "dgatd/solver/electrostatics.hpp"
#include "dgatd/solver/lobpcg.hpp"
#include "dgatd/solver/port_mode.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace dgatd::solver {

// The TEM or quasi-TEM modes (one per signal conductor) by increasing eps_eff; throws dgatd::Error
// for a section with fewer than two conductors or a solve that does not converge.
template <class ExecutionSpace>
std::vector<PortMode> tem_modes(dga::CrossSection const& section, double tolerance, int max_iterations);

// The count TE or TM modes of lowest cut-off of a homogeneously filled section; throws dgatd::Error
// for an inhomogeneous fill (its modes are hybrid), a section with a PEC sheet (TE: H_z jumps across
// a sheet, which shared vertices cannot hold), or an eigen-solve that does not converge.
template <class ExecutionSpace>
std::vector<PortMode> hollow_modes(dga::CrossSection const& section, ModeKind kind, int count, double tolerance,
                                   int max_iterations);

// The count modes of lowest cut-off: the TEM modes first (cut-off 0), then TE and TM modes merged by
// increasing cut-off. An inhomogeneous section with conductors gives its quasi-TEM modes only (fewer
// than count when count exceeds them); one with one conductor is refused as hollow_modes says.
template <class ExecutionSpace>
std::vector<PortMode> lowest_modes(dga::CrossSection const& section, int count, double tolerance, int max_iterations);

namespace port_modes_detail {

// The homogeneous fill's (eps_r, mu_r); throws for an inhomogeneous one, naming the kind of mode.
std::array<double, 2> homogeneous_fill(dga::CrossSection const& section, ModeKind kind);

// A hollow-mode problem: K and M over its unknowns (TM: the vertices off the conductors; TE: all).
struct HollowProblem {
  dga::HostCsr stiffness, mass;
  std::vector<Index> vertex; // per unknown, its section vertex
};
HollowProblem hollow_problem(dga::CrossSection const& section, ModeKind kind);

PortMode hollow_mode(dga::CrossSection const& section, ModeKind kind, HollowProblem const& problem, double eigenvalue,
                     std::vector<double> const& eigenvector);

std::vector<PortMode> tem_modes(dga::CrossSection const& section, Capacitances const& with_eps,
                                Capacitances const& with_mu);

} // namespace port_modes_detail

template <class ExecutionSpace>
std::vector<PortMode> tem_modes(dga::CrossSection const& section, double tolerance, int max_iterations)
{
  if (section.conductor_count < 2)
    throw Error(section.name, "has one conductor (its wall), so no TEM mode",
                "ask for its TE and TM modes, or give it a second conductor");
  auto const conductors = section.conductor_vertices();
  std::vector<std::vector<Index>> const signals(conductors.begin() + 1, conductors.end());
  std::vector<double> eps(section.triangles.size()), inverse_mu(section.triangles.size());
  for (std::size_t t = 0; t < section.triangles.size(); ++t) {
    eps[t] = dga::eps0 * section.eps_r[t];
    inverse_mu[t] = dga::eps0 / section.mu_r[t];
  }
  auto const with_eps = capacitance_matrix<ExecutionSpace>(dga::cross_section_stiffness(section, eps), signals,
                                                           conductors[0], tolerance, max_iterations);
  auto const with_mu = capacitance_matrix<ExecutionSpace>(dga::cross_section_stiffness(section, inverse_mu), signals,
                                                          conductors[0], tolerance, max_iterations);
  return port_modes_detail::tem_modes(section, with_eps, with_mu);
}

template <class ExecutionSpace>
std::vector<PortMode> hollow_modes(dga::CrossSection const& section, ModeKind kind, int count, double tolerance,
                                   int max_iterations)
{
  auto const problem = port_modes_detail::hollow_problem(section, kind);
  auto const solve =
      lowest_eigenpairs<ExecutionSpace>(problem.stiffness, problem.mass, count, kind == ModeKind::te, tolerance,
                                        max_iterations, section.name + ", its " + mode_kind_name(kind) + " modes");
  std::vector<PortMode> modes;
  for (int j = 0; j < count; ++j) {
    modes.push_back(port_modes_detail::hollow_mode(section, kind, problem, solve.values[j], solve.vectors[j]));
    modes.back().iterations = solve.iterations;
    modes.back().relative_residual = solve.relative_residual;
  }
  return modes;
}

template <class ExecutionSpace>
std::vector<PortMode> lowest_modes(dga::CrossSection const& section, int count, double tolerance, int max_iterations)
{
  std::vector<PortMode> modes;
  if (section.conductor_count >= 2) {
    modes = tem_modes<ExecutionSpace>(section, tolerance, max_iterations);
    bool const homogeneous =
        std::all_of(section.eps_r.begin(), section.eps_r.end(), [&](double e) { return e == section.eps_r[0]; }) &&
        std::all_of(section.mu_r.begin(), section.mu_r.end(), [&](double m) { return m == section.mu_r[0]; });
    if (!homogeneous || !section.sheet_edges.empty()) {
      if (static_cast<int>(modes.size()) > count) modes.resize(static_cast<std::size_t>(count));
      return modes;
    }
  }
  int const rest = count - static_cast<int>(modes.size());
  if (rest <= 0) {
    modes.resize(static_cast<std::size_t>(count));
    return modes;
  }
  auto const te = hollow_modes<ExecutionSpace>(section, ModeKind::te, rest, tolerance, max_iterations);
  auto const tm = hollow_modes<ExecutionSpace>(section, ModeKind::tm, rest, tolerance, max_iterations);
  std::vector<PortMode> hollow(te);
  hollow.insert(hollow.end(), tm.begin(), tm.end());
  std::stable_sort(hollow.begin(), hollow.end(),
                   [](PortMode const& a, PortMode const& b) { return a.cutoff_wavenumber < b.cutoff_wavenumber; });
  modes.insert(modes.end(), hollow.begin(), hollow.begin() + rest);
  return modes;
}

} // namespace dgatd::solver
