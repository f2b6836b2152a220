#include "dgatd/solver/plane_wave_stencil.hpp"

#include "dgatd/error.hpp"
#include "dgatd/mesh/reference_tet.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace dgatd::solver {
namespace {

// The surface's vertices: those of the closed total-field region that a scattered-field tet touches.
std::vector<char> surface_vertices(mesh::Mesh const& mesh, std::vector<char> const& tet_total,
                                   std::vector<char> const& vertex_total)
{
  std::vector<char> on_surface(mesh.points.size(), 0);
  for (Index t = 0; t < mesh.num_tets(); ++t)
    if (!tet_total[t])
      for (Index v : mesh.tets[t])
        if (vertex_total[v]) on_surface[v] = 1;
  return on_surface;
}

// Line integrals of the incident field along segments, as samples of its waveform: the field is
// amplitude * vector * g(t - direction . (x - origin) / c) and each segment takes the three points of
// a Gauss-Legendre rule (exact for the field's variation along a segment far below a wavelength).
class IncidentIntegrals {
public:
  IncidentIntegrals(Vec3 const& direction, double origin_delay, double speed)
      : direction_(direction), origin_delay_(origin_delay), speed_(speed)
  {
  }

  // Appends to signals' last signal the integral from x0 to x1 of amplitude * vector g, times sign.
  void integrate(DelayedSignals& signals, Vec3 const& x0, Vec3 const& x1, Vec3 const& vector, double amplitude,
                 double sign) const
  {
    constexpr double node[3] = {0.11270166537925831148, 0.5, 0.88729833462074168852};
    constexpr double weight[3] = {5.0 / 18.0, 8.0 / 18.0, 5.0 / 18.0};
    Vec3 const step = sub(x1, x0);
    double const tangential = sign * amplitude * dot(vector, step);
    if (tangential == 0) return;
    for (int q = 0; q < 3; ++q) {
      Vec3 const x = add(x0, scaled(step, node[q]));
      signals.weights.push_back(weight[q] * tangential);
      signals.delays.push_back(dot(direction_, x) / speed_ - origin_delay_);
    }
  }

private:
  Vec3 direction_;
  double origin_delay_;
  double speed_;
};

void close_signal(DelayedSignals& signals) { signals.offsets.push_back(static_cast<Index>(signals.weights.size())); }

} // namespace

std::vector<char> total_field_vertices(mesh::Mesh const& mesh, std::vector<char> const& tet_total)
{
  std::vector<char> total(mesh.points.size(), 0);
  for (Index t = 0; t < mesh.num_tets(); ++t)
    if (tet_total[t])
      for (Index v : mesh.tets[t]) total[v] = 1;
  return total;
}

TfsfSurface tfsf_surface(mesh::MeshView const& m, dga::Materials const& materials,
                         std::vector<dga::FaceKind> const& face_kinds, std::vector<char> const& tet_total,
                         std::vector<char> const& vertex_total, PlaneWaveSpec const& spec,
                         SurfaceOverRanks const* ranks)
{
  auto const& mesh = m.mesh;
  auto on_surface = surface_vertices(mesh, tet_total, vertex_total);
  if (ranks)
    for (std::size_t v = 0; v < on_surface.size(); ++v) on_surface[v] = on_surface[v] && ranks->owns_vertex[v];
  auto fail = [&](std::string const& problem, std::string const& remedy, std::vector<ModelFact> facts = {}) {
    throw ModelError(ModelSubject::plane_wave, spec.name, problem, remedy, std::move(facts));
  };
  // Most often a scatterer of another material inside the surface that the total-field region leaves
  // out: the configuration layer says how to take it in.
  auto check_medium = [&](double eps0, double mu0, double eps, double mu) {
    if (std::abs(eps - eps0) > 1e-12 * eps0 || std::abs(mu - mu0) > 1e-12 * mu0)
      fail("meets more than one material at its surface (eps_r " + format_number(eps0 / dga::eps0) + " and " +
               format_number(eps / dga::eps0) + ", mu_r " + format_number(mu0 / dga::mu0) + " and " +
               format_number(mu / dga::mu0) + ")",
           "keep one material within a cell of the surface on both sides", {{"materials met", 2}});
  };
  auto global_tet = [&](Index t) { return ranks ? ranks->global_tet[t] : t; };
  auto global_vertex = [&](Index v) { return ranks ? ranks->global_vertex[v] : v; };

  // Here: the medium of the lowest tet at the surface, each tet there checked against it, and the
  // surface's first point, the lowest vertex on a tie (local ids keep the global order, so the first
  // met is the lowest). As rows (count, lowest tet, eps, mu, least direction . x, its vertex, that
  // point) to agree on over the ranks.
  std::vector<std::int64_t> rows(9, 0);
  auto check_here = [&] {
    Index first_tet = -1;
    for (Index t = 0; t < mesh.num_tets(); ++t) {
      auto const& v = mesh.tets[t];
      if (!(on_surface[v[0]] || on_surface[v[1]] || on_surface[v[2]] || on_surface[v[3]])) continue;
      if (first_tet < 0) first_tet = t;
      check_medium(materials.eps[first_tet], materials.mu[first_tet], materials.eps[t], materials.mu[t]);
      if (!materials.sigma.empty() && materials.sigma[t] > 0)
        fail("has a lossy material at its surface (sigma = " + format_number(materials.sigma[t]) + " S/m)",
             "keep lossy materials a cell away from the surface");
      if (materials.disperses(t))
        fail("has a dispersive material at its surface", "keep materials with poles a cell away from the surface");
      if (materials.stretching.stretches(t))
        fail("has its surface in a matched layer", "keep the [[pml]] regions a cell away from the surface");
    }
    for (Index f = 0; f < m.topology.num_faces(); ++f) {
      if (face_kinds[f] != dga::FaceKind::absorbing && face_kinds[f] != dga::FaceKind::port) continue;
      for (Index v : m.topology.face_vertices[f])
        if (on_surface[v])
          fail("has its surface on an absorbing surface or a port",
               "end the total-field region on PEC or PMC walls, or keep it inside the mesh");
    }
    Index first_vertex = -1;
    for (Index v = 0; v < mesh.num_vertices(); ++v)
      if (on_surface[v] &&
          (first_vertex < 0 || dot(spec.direction, mesh.points[v]) < dot(spec.direction, mesh.points[first_vertex])))
        first_vertex = v;
    if (first_tet < 0) return;
    rows.assign({1, global_tet(first_tet)});
    parallel::append_number(rows, materials.eps[first_tet]);
    parallel::append_number(rows, materials.mu[first_tet]);
    parallel::append_number(rows, dot(spec.direction, mesh.points[first_vertex]));
    rows.push_back(global_vertex(first_vertex));
    parallel::append_point(rows, mesh.points[first_vertex]);
  };
  if (!ranks) {
    check_here();
  } else {
    parallel::together(ranks->communicator, check_here);
    rows = parallel::all_gathered(ranks->communicator, rows);
  }

  TfsfSurface surface;
  std::int64_t lowest_tet = -1, first_vertex = -1;
  double least = 0;
  for (std::size_t k = 0; k < rows.size(); k += 9) {
    if (rows[k] == 0) continue;
    double const eps = parallel::number_at(rows[k + 2]), mu = parallel::number_at(rows[k + 3]);
    if (lowest_tet >= 0) check_medium(surface.eps, surface.mu, eps, mu);
    if (lowest_tet < 0 || rows[k + 1] < lowest_tet) {
      lowest_tet = rows[k + 1];
      surface.eps = eps;
      surface.mu = mu;
    }
    double const along = parallel::number_at(rows[k + 4]);
    if (first_vertex < 0 || along < least || (along == least && rows[k + 5] < first_vertex)) {
      least = along;
      first_vertex = rows[k + 5];
      surface.first_point = parallel::point_at(&rows[k + 6]);
    }
  }
  if (lowest_tet < 0)
    fail("has no surface with the rest of " + mesh.source + " (it fills the mesh)",
         "make the total-field region a part of the mesh, with scattered-field tets around it");
  return surface;
}

PlaneWaveStencil plane_wave_stencil(mesh::MeshView const& m, dga::HostOperators const& ops,
                                    std::vector<char> const& tet_total, std::vector<char> const& vertex_total,
                                    PlaneWaveSpec const& spec, TfsfSurface const& surface)
{
  auto const& mesh = m.mesh;
  auto const& topology = m.topology;
  auto const& geometry = m.geometry;
  auto const& layout = ops.layout;
  double const speed = 1 / std::sqrt(surface.eps * surface.mu);
  double const impedance = std::sqrt(surface.mu / surface.eps);
  Vec3 const origin = spec.origin ? *spec.origin : surface.first_point;
  IncidentIntegrals const integrals(spec.direction, dot(spec.direction, origin) / speed, speed);
  double const amplitude = spec.waveform.amplitude;
  Vec3 const& e_vector = spec.polarization;
  Vec3 const h_vector = cross(spec.direction, spec.polarization);

  PlaneWaveStencil stencil;
  stencil.waveform = spec.waveform;
  stencil.waveform.amplitude = 1;

  // Faraday: each scattered-field tet with a total-field vertex reads the total e of the half-edges
  // at those vertices, so the incident part of their circulations goes back into its faces.
  for (Index t = 0; t < mesh.num_tets(); ++t) {
    auto const& v = mesh.tets[t];
    if (tet_total[t] || !(vertex_total[v[0]] || vertex_total[v[1]] || vertex_total[v[2]] || vertex_total[v[3]]))
      continue;
    stencil.tets.push_back(t);
    stencil.mu_inverse.push_back(ops.mu_inverse[t]);
    for (int j = 0; j < 4; ++j) {
      for (int i = 0; i < 3; ++i) {
        int const k = mesh::tet_face_edge(j, i);
        Index const e = topology.tet_edges[t][k];
        double const incidence = topology.tet_curl[t][j][k];
        auto const& ends = topology.edge_vertices[e];
        Vec3 const& midpoint = geometry.edge_midpoint[e];
        // Each half oriented like the edge, tail to head.
        if (vertex_total[ends[0]])
          integrals.integrate(stencil.face_circulations, mesh.points[ends[0]], midpoint, e_vector, amplitude,
                              incidence);
        if (vertex_total[ends[1]])
          integrals.integrate(stencil.face_circulations, midpoint, mesh.points[ends[1]], e_vector, amplitude,
                              incidence);
      }
      close_signal(stencil.face_circulations);
    }
  }

  // Ampere: a row of a total-field block sums the dual curl around its edge, and the scattered-field
  // tets there hold the scattered h: the incident h of their dual half-edges goes back into it.
  std::map<Index, std::vector<std::pair<Index, Index>>> entries_of_block; // block -> (row, entry)
  for (Index v = 0; v < topology.num_vertices; ++v) {
    if (!vertex_total[v]) continue;
    for (Index h = topology.v2e_offsets[v]; h < topology.v2e_offsets[v + 1]; ++h) {
      Index const row = layout.dof_of_half_edge[h];
      if (row >= layout.num_free) continue;
      Index const e = topology.v2e[h];
      auto const first_sample = stencil.missing_curl.weights.size();
      for (Index r = topology.v2t_offsets[v]; r < topology.v2t_offsets[v + 1]; ++r) {
        Index const t = topology.v2t[r];
        if (tet_total[t]) continue;
        auto const& edges = topology.tet_edges[t];
        auto const k = static_cast<int>(std::find(edges.begin(), edges.end(), e) - edges.begin());
        if (k == 6) continue;
        for (int i = 0; i < 2; ++i) {
          int const j = mesh::tet_edge_face(k, i);
          Index const f = topology.tet_faces[t][j];
          // f^(t, f) runs from the tet's barycentre to the face's, oriented like the face's normal.
          integrals.integrate(stencil.missing_curl, geometry.tet_barycentre[t], geometry.face_barycentre[f], h_vector,
                              amplitude / impedance, topology.tet_face_sign[t][j] * topology.tet_curl[t][j][k]);
        }
      }
      if (stencil.missing_curl.weights.size() == first_sample) continue;
      close_signal(stencil.missing_curl);
      entries_of_block[layout.block_of(row)].push_back({row, stencil.missing_curl.size() - 1});
    }
  }
  for (auto const& [block, entries] : entries_of_block) {
    Index const first = layout.block_offset[block];
    Index const d = layout.block_size(block);
    double const* inverse = ops.eps_inverse.data() + layout.block_matrix_offset[block];
    for (Index i = 0; i < d; ++i) {
      stencil.update_rows.push_back(first + i);
      for (auto const& [row, entry] : entries) {
        stencil.update_entries.push_back(entry);
        stencil.update_weights.push_back(inverse[i * d + (row - first)]);
      }
      stencil.update_offsets.push_back(static_cast<Index>(stencil.update_entries.size()));
    }
  }

  for (auto const* signals : {&stencil.face_circulations, &stencil.missing_curl})
    for (double delay : signals->delays)
      stencil.start_value = std::max(stencil.start_value, std::abs(stencil.waveform.value(-delay)));
  return stencil;
}

} // namespace dgatd::solver
