#include "dgatd/simulation/ports.hpp"

#include "dgatd/error.hpp"
#include "dgatd/solver/port_modes.hpp"
#include "recorder.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <map>
#include <set>

namespace dgatd::simulation {
namespace {

// A fixed direction of space in the section's plane: x, or y where x is (nearly) its normal. Both
// ends of a guide see the same one whichever way their normals point.
Vec3 in_plane(dga::CrossSection const& section, Vec3 const& preferred, Vec3 const& fallback)
{
  for (Vec3 const& d : {preferred, fallback}) {
    Vec3 const projected = sub(d, scaled(section.normal, dot(d, section.normal)));
    if (norm(projected) > 0.1) return scaled(projected, 1 / norm(projected));
  }
  return {0, 0, 1};
}

Vec3 mean_field(dga::CrossSection const& section, solver::PortMode const& mode)
{
  Vec3 sum{0, 0, 0};
  for (Index t = 0; t < section.num_triangles(); ++t) sum = add(sum, scaled(mode.electric[t], section.area(t)));
  return sum;
}

// a x + b y over the mode's fields.
solver::PortMode combined(solver::PortMode const& x, double a, solver::PortMode const& y, double b)
{
  solver::PortMode z = x;
  for (std::size_t k = 0; k < z.scalar.size(); ++k) z.scalar[k] = a * x.scalar[k] + b * y.scalar[k];
  for (std::size_t t = 0; t < z.electric.size(); ++t) {
    z.electric[t] = add(scaled(x.electric[t], a), scaled(y.electric[t], b));
    z.magnetic[t] = add(scaled(x.magnetic[t], a), scaled(y.magnetic[t], b));
  }
  return z;
}

// The sign of a TE or TM mode, which the eigen-solver leaves open, fixed by the field alone: its mean
// along the plane's fixed directions (x, then y), else (a mode of zero mean) the largest entry of its
// first moment, the integral of e (x - centre)^T. Ports at the two ends of a guide then agree
// whichever way their normals point (e = n x grad H_z of TE turns with the normal).
void fix_sign(dga::CrossSection const& section, solver::PortMode& mode)
{
  double scale = 0;
  for (Index t = 0; t < section.num_triangles(); ++t) scale += norm(mode.electric[t]) * section.area(t);
  Vec3 const mean = mean_field(section, mode);
  double deciding = 0;
  for (Vec3 const& d : {in_plane(section, {1, 0, 0}, {0, 1, 0}), in_plane(section, {0, 1, 0}, {0, 0, 1})})
    if (deciding == 0 && std::abs(dot(mean, d)) > 1e-6 * scale) deciding = dot(mean, d);
  if (deciding == 0) {
    std::vector<Vec3> centroid(static_cast<std::size_t>(section.num_triangles()), Vec3{0, 0, 0});
    Vec3 centre{0, 0, 0};
    double area = 0;
    for (Index t = 0; t < section.num_triangles(); ++t) {
      for (Index v : section.triangles[t])
        centroid[t] = add(centroid[t], scaled(section.in_space(section.points[v]), 1.0 / 3));
      centre = add(centre, scaled(centroid[t], section.area(t)));
      area += section.area(t);
    }
    centre = scaled(centre, 1 / area);
    std::array<double, 9> moment{};
    for (Index t = 0; t < section.num_triangles(); ++t) {
      Vec3 const r = sub(centroid[t], centre);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) moment[3 * i + j] += mode.electric[t][i] * r[j] * section.area(t);
    }
    deciding =
        *std::max_element(moment.begin(), moment.end(), [](double a, double b) { return std::abs(a) < std::abs(b); });
  }
  if (deciding < 0) mode = combined(mode, -1, mode, 0);
}

// A degenerate pair (TE11 of a circular guide: cutoffs within 1e-3, the mesh splitting them a little)
// is any two orthogonal fields of its plane, as the eigen-solver happens to return them: turned so
// that the first's mean field lies along the plane's fixed direction and the second's across it.
void align_degenerate_pairs(dga::CrossSection const& section, std::vector<solver::PortMode>& modes)
{
  Vec3 const d = in_plane(section, {1, 0, 0}, {0, 1, 0});
  for (std::size_t i = 0; i + 1 < modes.size(); ++i) {
    auto& first = modes[i];
    auto& second = modes[i + 1];
    if (first.kind == solver::ModeKind::tem || first.kind != second.kind ||
        std::abs(first.cutoff_wavenumber - second.cutoff_wavenumber) > 1e-3 * first.cutoff_wavenumber)
      continue;
    double const a = dot(mean_field(section, first), d), b = dot(mean_field(section, second), d);
    double const length = std::hypot(a, b);
    if (length == 0) continue;
    auto const along = combined(first, a / length, second, b / length);
    second = combined(first, -b / length, second, a / length);
    first = along;
    ++i;
  }
}

// The tags of the physical surfaces named.
std::set<int> surface_tags(mesh::Mesh const& mesh, std::vector<std::string> const& names)
{
  std::set<int> tags;
  for (auto const& name : names)
    for (auto const& group : mesh.groups)
      if (group.dim == 2 && group.name == name) tags.insert(group.tag);
  return tags;
}

// The cross-section takes the port surface's boundary loops for conductors (docs/method/port_modes.md),
// so every edge of them must lie on a PEC face of the mesh besides the port's own: a [boundary] pec
// list leaves the other exterior faces PMC, and a guide whose walls are PMC has other modes than
// those solved. Throws dgatd::Error at where naming the first edge that is not on PEC.
void check_walls_are_pec(io::Config const& config, mesh::Mesh const& mesh, std::set<int> const& pec, int tag,
                         std::string const& where)
{
  std::vector<std::string> not_pec_names = config.boundary.absorbing_surfaces;
  for (auto const& source : config.sources)
    if (source.kind == io::SourceKind::port_te10 || source.kind == io::SourceKind::mode_port ||
        source.kind == io::SourceKind::lumped_port)
      not_pec_names.push_back(source.surface);
  std::set<int> const not_pec = surface_tags(mesh, not_pec_names);
  // Per edge (its vertices in increasing order): how many port triangles hold it, and whether a PEC
  // or a surely non-PEC face of another surface does.
  struct EdgeFaces {
    int port = 0;
    bool on_pec = false, on_other = false;
  };
  std::map<std::array<Index, 2>, EdgeFaces> edges;
  for (std::size_t k = 0; k < mesh.boundary_triangles.size(); ++k) {
    auto const& t = mesh.boundary_triangles[k];
    int const face_tag = mesh.boundary_triangle_tag[k];
    for (int i = 0; i < 3; ++i) {
      auto& edge = edges[{std::min(t[i], t[(i + 1) % 3]), std::max(t[i], t[(i + 1) % 3])}];
      if (face_tag == tag)
        ++edge.port;
      else if (pec.count(face_tag))
        edge.on_pec = true;
      else if (not_pec.count(face_tag))
        edge.on_other = true;
    }
  }
  for (auto const& [vertices, edge] : edges) {
    if (edge.port != 1) continue; // inside the port surface
    bool const pec_here = edge.on_pec || (config.boundary.pec_everywhere && !edge.on_other);
    if (pec_here) continue;
    Vec3 const middle = scaled(add(mesh.points[vertices[0]], mesh.points[vertices[1]]), 0.5);
    char at[96];
    std::snprintf(at, sizeof at, "(%.4g, %.4g, %.4g) m", middle[0], middle[1], middle[2]);
    throw Error(where,
                "the edge of the port's surface at " + std::string(at) +
                    " lies on no PEC face: its cross-section's modes are those of a guide with conducting walls",
                config.boundary.pec_everywhere
                    ? "make the walls around the port PEC (not absorbing, not another port)"
                    : "list the walls around the port in [boundary] pec (a pec list leaves every other exterior face "
                      "PMC)");
  }
}

} // namespace

PortModes port_modes(io::Config const& config, mesh::Mesh const& mesh, dga::Materials const& materials, int tag,
                     int count, std::string const& where)
{
  Stopwatch clock;
  std::vector<double> eps_r(mesh.tets.size()), mu_r(mesh.tets.size());
  for (std::size_t t = 0; t < eps_r.size(); ++t) {
    eps_r[t] = materials.eps[t] / dga::eps0;
    mu_r[t] = materials.mu[t] / dga::mu0;
  }
  // The PEC surfaces named: the port's walls among them, and the sheets that cross it.
  std::set<int> const pec = surface_tags(mesh, config.boundary.pec_surfaces);
  std::vector<int> sheets;
  for (int const pec_tag : pec)
    if (pec_tag != tag) sheets.push_back(pec_tag);
  check_walls_are_pec(config, mesh, pec, tag, where);
  PortModes found;
  try {
    found.section = dga::cross_section(mesh, tag, eps_r, mu_r, sheets);
    // A hollow guide's modes one beyond: the last one's degenerate partner fixes its polarization.
    int const solved = found.section.conductor_count < 2 ? count + 1 : count;
    found.modes = solver::lowest_modes<Kokkos::DefaultExecutionSpace>(found.section, solved, 1e-10, 20000);
  } catch (Error const& e) {
    throw Error(where, e.what(), "");
  }
  align_degenerate_pairs(found.section, found.modes);
  if (static_cast<int>(found.modes.size()) > count) found.modes.resize(static_cast<std::size_t>(count));
  for (auto& mode : found.modes)
    if (mode.kind != solver::ModeKind::tem) fix_sign(found.section, mode);
  found.seconds = clock.lap();
  return found;
}

} // namespace dgatd::simulation
