#include "dgatd/simulation/statics.hpp"

#include "capabilities/conductor/conductor.hpp"
#include "dgatd/dga/laplacian.hpp"
#include "dgatd/dga/operators.hpp"
#include "dgatd/error.hpp"
#include "dgatd/simulation/problem.hpp"
#include "dgatd/solver/electrostatics.hpp"
#include "dgatd/version.hpp"
#include "io/hdf5_handle.hpp"
#include "io/text_file.hpp"
#include "io/xml_escape.hpp"
#include "recorder.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <any>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <sstream>
#include <utility>

namespace dgatd::simulation {
namespace {

namespace fs = std::filesystem;

// A pole's susceptibility at zero frequency. Its state obeys x' = A x + B e and its current
// J / eps0 = C x + D e = j w chi e, so chi(w) = N(j w) / (j w) with N(s) = C (s - A)^-1 B + D. A medium
// that stores charge has N(0) = D - C A^-1 B = 0 and chi(0) = N'(0) = -C A^-2 B (Debye: delta_eps;
// Lorentz: delta_eps); one with N(0) != 0 conducts at zero frequency (Drude) and has none.
std::optional<double> static_susceptibility(dga::Pole const& p)
{
  if (p.order == 1) {
    if (p.a[0] == 0) return std::nullopt;
    double const inverse = 1 / p.a[0];
    double const n0 = p.d - p.c[0] * inverse * p.b[0];
    if (std::abs(n0) > 1e-9 * (std::abs(p.d) + std::abs(p.c[0] * inverse * p.b[0]))) return std::nullopt;
    return -p.c[0] * inverse * inverse * p.b[0];
  }
  double const det = p.a[0] * p.a[3] - p.a[1] * p.a[2];
  if (det == 0) return std::nullopt;
  auto const solve = [&](std::array<double, 2> const& y) { // A^-1 y
    return std::array<double, 2>{(p.a[3] * y[0] - p.a[1] * y[1]) / det, (-p.a[2] * y[0] + p.a[0] * y[1]) / det};
  };
  auto const once = solve(p.b);
  auto const twice = solve(once);
  double const stored = p.c[0] * once[0] + p.c[1] * once[1];
  double const n0 = p.d - stored;
  if (std::abs(n0) > 1e-9 * (std::abs(p.d) + std::abs(stored))) return std::nullopt;
  return -(p.c[0] * twice[0] + p.c[1] * twice[1]);
}

// The static relative permittivity of every tet: eps_r, plus each pole's zero-frequency susceptibility.
std::vector<double> static_permittivities(io::Config const& config, mesh::Mesh const& mesh,
                                          std::vector<std::string>& notes)
{
  std::vector<double> eps_r(mesh.tets.size(), 1.0);
  for (auto const& material : config.materials) {
    std::string const where = config.where(material.line);
    int const tag = volume_tag(mesh, material.region_name, material.region_tag, "[[material]]", where);
    double eps = material.eps_r;
    for (auto const& pole : material.poles) {
      auto const chi = static_susceptibility(pole);
      if (!chi)
        throw Error(where,
                    "[[material]] has a pole that conducts at zero frequency (a Drude pole): no static permittivity",
                    "model the conducting volume as a [[conductor]] (a hole in the mesh bounded by its surfaces)");
      eps += *chi;
    }
    if (material.sigma > 0)
      notes.push_back("the conductivity of [[material]] at " + where +
                      " is left out: electrostatics of the permittivities");
    for (std::size_t t = 0; t < mesh.tets.size(); ++t)
      if (mesh.tet_region[t] == tag) eps_r[t] = eps;
  }
  return eps_r;
}

struct Conductors {
  std::vector<StaticConductor> rows;
  std::vector<std::vector<Index>> vertices;
};

// The conductors' vertices: those of their surfaces' triangles. Two conductors that share a vertex
// are one conductor and are refused.
Conductors conductors_of(io::Config const& config, mesh::Mesh const& mesh)
{
  auto const found = config.capability_items.find("conductor");
  if (found == config.capability_items.end() || found->second.empty())
    throw Error(config.name, "has no [[conductor]] table: dgatd statics solves for the potential around conductors",
                "add [[conductor]] tables (name, surfaces, and potential or charge)");
  Conductors conductors;
  std::vector<int> owner(mesh.points.size(), -1);
  std::map<std::string, int> names;
  for (auto const& item : found->second) {
    auto const& conductor = std::any_cast<capabilities::Conductor const&>(item.value);
    std::string const where = config.where(item.line);
    if (!names.emplace(conductor.name, item.line).second)
      throw Error(where,
                  "[[conductor]] name = \"" + conductor.name + "\" is already used at line " +
                      std::to_string(names[conductor.name]),
                  "give each [[conductor]] its own name");
    int const index = static_cast<int>(conductors.rows.size());
    std::vector<Index> vertices;
    for (auto const& surface : conductor.surfaces) {
      int const tag = surface_tag(mesh, surface, where);
      for (std::size_t f = 0; f < mesh.boundary_triangles.size(); ++f) {
        if (mesh.boundary_triangle_tag[f] != tag) continue;
        for (Index const v : mesh.boundary_triangles[f]) {
          if (owner[v] >= 0 && owner[v] != index) {
            auto const& other = conductors.rows[static_cast<std::size_t>(owner[v])];
            Vec3 const x = mesh.points[v];
            throw Error(where,
                        "[[conductor]] \"" + conductor.name + "\" touches \"" + other.name + "\" (line " +
                            std::to_string(other.line) + ") at (" + std::to_string(x[0]) + ", " + std::to_string(x[1]) +
                            ", " + std::to_string(x[2]) + ")",
                        "conductors in contact are one: list their surfaces in one [[conductor]]");
          }
          if (owner[v] < 0) vertices.push_back(v);
          owner[v] = index;
        }
      }
    }
    StaticConductor row;
    row.name = conductor.name;
    row.vertices = static_cast<Index>(vertices.size());
    row.potential_given = conductor.potential.has_value();
    row.potential = conductor.potential.value_or(0);
    row.charge = conductor.charge.value_or(0);
    row.line = item.line;
    conductors.rows.push_back(row);
    conductors.vertices.push_back(std::move(vertices));
  }
  if (std::none_of(conductors.rows.begin(), conductors.rows.end(),
                   [](StaticConductor const& c) { return c.potential_given; }))
    throw Error(config.where(conductors.rows.front().line),
                "no [[conductor]] has a potential: with charges alone the potentials are undetermined",
                "give one conductor a potential (e.g. an enclosing surface at potential = 0)");
  return conductors;
}

// The potentials of the conductors whose charges are given, from the others' potentials:
// C_qq V_q = Q_q - C_qp V_p. C_qq is a principal block of the Maxwell matrix without a conductor at a
// given potential, positive definite.
void find_floating_potentials(io::Config const& config, std::vector<StaticConductor>& rows,
                              std::vector<std::vector<double>> const& c)
{
  std::vector<std::size_t> floating;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (!rows[i].potential_given) floating.push_back(i);
  if (floating.empty()) return;
  std::size_t const n = floating.size();
  std::vector<double> block(n * n), rhs(n);
  for (std::size_t a = 0; a < n; ++a) {
    std::size_t const i = floating[a];
    rhs[a] = rows[i].charge;
    for (std::size_t j = 0; j < rows.size(); ++j)
      if (rows[j].potential_given) rhs[a] -= c[i][j] * rows[j].potential;
    for (std::size_t b = 0; b < n; ++b) block[a * n + b] = c[i][floating[b]];
  }
  if (!dga::invert_spd(block.data(), static_cast<int>(n)))
    throw Error(config.where(rows[floating.front()].line),
                "the capacitances among the conductors given a charge are not positive definite: their potentials "
                "are undetermined",
                "give each charged conductor room to hold its charge apart from the others, or give it a potential");
  for (std::size_t a = 0; a < n; ++a) {
    double potential = 0;
    for (std::size_t b = 0; b < n; ++b) potential += block[a * n + b] * rhs[b];
    rows[floating[a]].potential = potential;
  }
}

// E = -grad phi in every tet (the potential is linear there), and the largest |E| with its tet's centroid.
void fill_field(StaticsSolution& s)
{
  auto const& mesh = s.mesh;
  s.field.assign(mesh.tets.size(), Vec3{});
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    auto const& v = mesh.tets[t];
    auto const g = dga::tet_gradients(mesh, static_cast<Index>(t));
    Vec3 gradient{0, 0, 0};
    for (int i = 0; i < 4; ++i) gradient = add(gradient, scaled(g.lambda[i], s.potential[v[i]]));
    s.field[t] = scaled(gradient, -1);
    double const magnitude = std::sqrt(dot(gradient, gradient));
    if (magnitude > s.largest_field) {
      s.largest_field = magnitude;
      s.largest_field_at =
          scaled(add(add(mesh.points[v[0]], mesh.points[v[1]]), add(mesh.points[v[2]], mesh.points[v[3]])), 0.25);
    }
  }
}

} // namespace

StaticsSolution solve_statics(io::Config const& config, StaticsOptions const& options)
{
  StaticsSolution s;
  Stopwatch clock;
  s.mesh = load_mesh(config);
  s.mesh_seconds = clock.lap();

  auto conductors = conductors_of(config, s.mesh);
  s.eps_r = static_permittivities(config, s.mesh, s.notes);
  std::vector<double> eps(s.eps_r.size());
  for (std::size_t t = 0; t < eps.size(); ++t) eps[t] = dga::eps0 * s.eps_r[t];
  auto const laplacian = dga::node_laplacian(s.mesh, eps);
  s.assembly_seconds = clock.lap();

  solver::Capacitances capacitances;
  try {
    capacitances = solver::capacitance_matrix<Kokkos::DefaultExecutionSpace>(laplacian, conductors.vertices, {},
                                                                             options.tolerance, options.max_iterations);
  } catch (Error const& e) {
    throw Error(config.name, e.what(), "");
  }
  s.solve_seconds = clock.lap();
  s.capacitance = capacitances.matrix;
  s.conductors = conductors.rows;
  for (std::size_t i = 0; i < s.conductors.size(); ++i) {
    s.conductors[i].iterations = capacitances.solves[i].iterations;
    s.conductors[i].relative_residual = capacitances.solves[i].relative_residual;
  }
  find_floating_potentials(config, s.conductors, s.capacitance);

  std::size_t const n = s.mesh.points.size();
  s.potential.assign(n, 0.0);
  for (std::size_t j = 0; j < s.conductors.size(); ++j)
    for (std::size_t v = 0; v < n; ++v)
      s.potential[v] += s.conductors[j].potential * capacitances.solves[j].potential[v];
  for (std::size_t i = 0; i < s.conductors.size(); ++i) {
    double charge = 0;
    for (std::size_t j = 0; j < s.conductors.size(); ++j) charge += s.capacitance[i][j] * s.conductors[j].potential;
    if (s.conductors[i].potential_given) s.conductors[i].charge = charge;
    s.energy += 0.5 * s.conductors[i].potential * charge;
  }
  // The conductors' vertices are disjoint (touching conductors are refused).
  s.free_vertices = static_cast<Index>(n);
  for (auto const& c : s.conductors) s.free_vertices -= c.vertices;
  fill_field(s);
  return s;
}

std::string statics_output_path(io::Config const& config)
{
  return fs::path(config.output.file).replace_extension(".statics.h5").string();
}

namespace {

void write_statics_xdmf(StaticsSolution const& s, std::string const& h5_path)
{
  std::string const h5 = io::xml_escape(fs::path(h5_path).filename().string());
  auto const tets = s.mesh.tets.size();
  auto const points = s.mesh.points.size();
  auto item = [&](std::string const& dataset, std::size_t rows, int cols, char const* type, int precision) {
    std::ostringstream out;
    out << "<DataItem Dimensions=\"" << rows;
    if (cols) out << ' ' << cols;
    out << "\" NumberType=\"" << type << "\" Precision=\"" << precision << "\" Format=\"HDF\">" << h5 << ':' << dataset
        << "</DataItem>";
    return out.str();
  };
  auto attribute = [&](char const* name, char const* kind, char const* centre, std::string const& dataset,
                       std::size_t rows, int cols, char const* type, int precision) {
    return std::string("      <Attribute Name=\"") + name + "\" AttributeType=\"" + kind + "\" Center=\"" + centre +
           "\">\n        " + item(dataset, rows, cols, type, precision) + "\n      </Attribute>\n";
  };
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n  <Domain>\n"
      << "    <Grid Name=\"statics\" GridType=\"Uniform\">\n"
      << "      <Topology TopologyType=\"Tetrahedron\" NumberOfElements=\"" << tets << "\">\n"
      << "        " << item("/mesh/tets", tets, 4, "Int", 4) << "\n      </Topology>\n"
      << "      <Geometry GeometryType=\"XYZ\">\n        " << item("/mesh/points", points, 3, "Float", 8)
      << "\n      </Geometry>\n"
      << attribute("region", "Scalar", "Cell", "/mesh/region", tets, 0, "Int", 4)
      << attribute("potential", "Scalar", "Node", "/statics/potential", points, 0, "Float", 8)
      << attribute("E", "Vector", "Cell", "/statics/E", tets, 3, "Float", 8)
      << attribute("eps_r", "Scalar", "Cell", "/statics/eps_r", tets, 0, "Float", 8)
      << "    </Grid>\n  </Domain>\n</Xdmf>\n";
  io::write_text_atomically(fs::path(h5_path).replace_extension(".xdmf").string(), xml.str(), "the XDMF file");
}

} // namespace

void write_statics(StaticsSolution const& s, io::Config const& config, std::string const& path)
{
  io::hdf5::write_atomically(path, "the statics output", [&](io::hdf5::Writer const& w, hid_t file) {
    w.attribute(file, "dgatd_version", std::string(version_string));
    w.attribute(file, "config", config.text);
    w.attribute(file, "energy", s.energy);

    auto const mesh_group = w.group(file, "mesh");
    std::vector<double> points;
    for (auto const& x : s.mesh.points) points.insert(points.end(), x.begin(), x.end());
    std::vector<std::int32_t> tets, region(s.mesh.tet_region.begin(), s.mesh.tet_region.end());
    for (auto const& t : s.mesh.tets)
      for (Index const v : t) tets.push_back(static_cast<std::int32_t>(v));
    w.dataset(mesh_group.get(), "points", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s.mesh.points.size(), 3, points.data());
    w.dataset(mesh_group.get(), "tets", H5T_STD_I32LE, H5T_NATIVE_INT32, s.mesh.tets.size(), 4, tets.data());
    w.dataset(mesh_group.get(), "region", H5T_STD_I32LE, H5T_NATIVE_INT32, region.size(), 0, region.data());

    auto const statics = w.group(file, "statics");
    std::vector<double> field;
    for (auto const& e : s.field) field.insert(field.end(), e.begin(), e.end());
    w.dataset(statics.get(), "potential", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s.potential.size(), 0, s.potential.data());
    w.dataset(statics.get(), "E", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s.field.size(), 3, field.data());
    w.dataset(statics.get(), "eps_r", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s.eps_r.size(), 0, s.eps_r.data());

    auto const group = w.group(statics.get(), "conductors");
    std::size_t const n = s.conductors.size();
    std::vector<double> potentials, charges, matrix;
    for (std::size_t i = 0; i < n; ++i) {
      auto const& c = s.conductors[i];
      auto const one = w.group(group.get(), c.name);
      w.attribute(one.get(), "index", static_cast<std::int64_t>(i));
      w.attribute(one.get(), "potential", c.potential);
      w.attribute(one.get(), "charge", c.charge);
      w.attribute(one.get(), "potential_given", static_cast<std::int64_t>(c.potential_given));
      potentials.push_back(c.potential);
      charges.push_back(c.charge);
      matrix.insert(matrix.end(), s.capacitance[i].begin(), s.capacitance[i].end());
    }
    w.dataset(statics.get(), "conductor_potentials", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, 0, potentials.data());
    w.dataset(statics.get(), "conductor_charges", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, 0, charges.data());
    w.dataset(statics.get(), "capacitance", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, n, matrix.data());
  });
  write_statics_xdmf(s, path);
}

} // namespace dgatd::simulation
