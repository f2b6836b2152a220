#include "dgatd/io/output/checkpoint.hpp"

#include "dgatd/error.hpp"
#include "dgatd/version.hpp"
#include "io/hdf5_handle.hpp"

#include <cstdio>
#include <filesystem>
#include <system_error>

namespace dgatd::io {
namespace {

namespace fs = std::filesystem;
using hdf5::Handle;

constexpr char const* checkpoint_kind = "dgatd checkpoint";
// The order of the terms' state in /state/auxiliary. 4: a matched layer's auxiliaries of the general
// form, then of its one-mode tets, then of its three-mode tets, the modal tets' magnetic ones less
// their share of f^(n+1/2) (kernels::MagneticModalStep; 3: whole; 2: general and one-mode tets only;
// 1, without the attribute: the electric ones by dual block). A checkpoint of
// another layout with terms' state could be restored into the wrong places, so it is refused.
constexpr std::int64_t state_layout = 4;

std::string hex(std::uint64_t value)
{
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

template <class T>
void fnv1a(std::uint64_t& hash, std::vector<T> const& values)
{
  auto const* bytes = reinterpret_cast<unsigned char const*>(values.data());
  for (std::size_t i = 0; i < values.size() * sizeof(T); ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ULL;
  }
}

template <class T, std::size_t N>
std::vector<T> flatten(std::vector<std::array<T, N>> const& rows)
{
  std::vector<T> flat;
  flat.reserve(rows.size() * N);
  for (auto const& row : rows) flat.insert(flat.end(), row.begin(), row.end());
  return flat;
}

} // namespace

std::string checkpoint_path(std::string const& output_path)
{
  return fs::path(output_path).replace_extension(".checkpoint.h5").string();
}

std::uint64_t mesh_fingerprint(mesh::Mesh const& m)
{
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  fnv1a(hash, flatten(m.points));
  fnv1a(hash, flatten(m.tets));
  fnv1a(hash, m.tet_region);
  fnv1a(hash, flatten(m.boundary_triangles));
  fnv1a(hash, m.boundary_triangle_tag);
  return hash;
}

void write_checkpoint(std::string const& path, Checkpoint const& c)
{
  hdf5::write_atomically(path, "the checkpoint", [&](hdf5::Writer const& writer, hid_t root) {
    writer.attribute(root, "dgatd_version", std::string(version_string));
    writer.attribute(root, "kind", std::string(checkpoint_kind));
    writer.attribute(root, "config", c.config_text);
    writer.attribute(root, "formulation", std::string(solver::to_string(c.state.kind)));
    writer.attribute(root, "backend", c.backend);
    writer.attribute(root, "dt", c.dt);
    writer.attribute(root, "dt_max", c.dt_max);
    writer.attribute(root, "power_iterations", static_cast<std::int64_t>(c.bound_iterations));
    writer.attribute(root, "local_step_margin", c.local_step_margin);
    writer.attribute(root, "local_levels_held", static_cast<std::int64_t>(c.local_levels_held));
    writer.attribute(root, "step", c.state.step);
    writer.attribute(root, "state_layout", state_layout);
    writer.attribute(root, "mesh_fingerprint", hex(mesh_fingerprint(c.mesh)));

    Handle const state = writer.group(root, "state");
    auto const& unknowns = c.state;
    writer.dataset(state.get(), "e", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, unknowns.e_unknowns.size(), 0,
                   unknowns.e_unknowns.data());
    writer.dataset(state.get(), "h", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, unknowns.h_unknowns.size(), 0,
                   unknowns.h_unknowns.data());
    writer.dataset(state.get(), "auxiliary", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, unknowns.auxiliary.size(), 0,
                   unknowns.auxiliary.data());

    auto const& m = c.mesh;
    Handle const mesh = writer.group(root, "mesh");
    writer.attribute(mesh.get(), "source", m.source);
    writer.attribute(mesh.get(), "reoriented_tets", static_cast<std::int64_t>(m.reoriented_tets));
    writer.dataset(mesh.get(), "points", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, m.points.size(), 3, m.points.data());
    writer.dataset(mesh.get(), "tets", H5T_STD_I32LE, H5T_NATIVE_INT32, m.tets.size(), 4, m.tets.data());
    writer.dataset(mesh.get(), "tet_region", H5T_STD_I32LE, H5T_NATIVE_INT32, m.tet_region.size(), 0,
                   m.tet_region.data());
    writer.dataset(mesh.get(), "boundary_triangles", H5T_STD_I32LE, H5T_NATIVE_INT32, m.boundary_triangles.size(), 3,
                   m.boundary_triangles.data());
    writer.dataset(mesh.get(), "boundary_triangle_tag", H5T_STD_I32LE, H5T_NATIVE_INT32, m.boundary_triangle_tag.size(),
                   0, m.boundary_triangle_tag.data());
    // A wire's segments: a restart that takes the checkpoint's mesh (one made on load) keeps its wires.
    writer.dataset(mesh.get(), "curve_segments", H5T_STD_I32LE, H5T_NATIVE_INT32, m.curve_segments.size(), 2,
                   m.curve_segments.data());
    writer.dataset(mesh.get(), "curve_segment_tag", H5T_STD_I32LE, H5T_NATIVE_INT32, m.curve_segment_tag.size(), 0,
                   m.curve_segment_tag.data());
    hdf5::write_groups(writer, mesh.get(), m.groups);
  });
}

Checkpoint read_checkpoint(std::string const& path)
{
  std::error_code error;
  if (!fs::is_regular_file(path, error))
    throw Error(path, "no such checkpoint", "give the <output>.checkpoint.h5 file a dgatd run wrote");
  hdf5::QuietErrors const quiet;
  if (H5Fis_hdf5(path.c_str()) <= 0) throw Error(path, "not an HDF5 file", "give a checkpoint dgatd wrote");
  hid_t const id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (id < 0) throw Error(path, "HDF5 cannot open the checkpoint", "check that it is readable and not truncated");
  Handle const file(id, H5Fclose);
  hid_t const root = file.get();
  std::string kind;
  if (!hdf5::read_attribute(root, "kind", kind) || kind != checkpoint_kind)
    throw Error(path, "not a dgatd checkpoint", "give the <output>.checkpoint.h5 file a dgatd run wrote");

  Checkpoint c;
  std::int64_t iterations = 0;
  std::string fingerprint, formulation;
  bool const complete =
      hdf5::read_attribute(root, "config", c.config_text) && hdf5::read_attribute(root, "formulation", formulation) &&
      hdf5::read_attribute(root, "backend", c.backend) && hdf5::read_attribute(root, "dt", H5T_NATIVE_DOUBLE, &c.dt) &&
      hdf5::read_attribute(root, "dt_max", H5T_NATIVE_DOUBLE, &c.dt_max) &&
      hdf5::read_attribute(root, "power_iterations", H5T_NATIVE_INT64, &iterations) &&
      hdf5::read_attribute(root, "step", H5T_NATIVE_INT64, &c.state.step) &&
      hdf5::read_attribute(root, "mesh_fingerprint", fingerprint);
  if (!complete) throw Error(path, "the checkpoint lacks some of its attributes", "it may be damaged");
  c.bound_iterations = static_cast<int>(iterations);
  // Absent from checkpoints written before local time steps: one margin.
  hdf5::read_attribute(root, "local_step_margin", H5T_NATIVE_DOUBLE, &c.local_step_margin);
  // Absent from those written before the levels were held against the pins: none held.
  std::int64_t held_levels = 0;
  hdf5::read_attribute(root, "local_levels_held", H5T_NATIVE_INT64, &held_levels);
  c.local_levels_held = static_cast<int>(held_levels);
  if (formulation != solver::to_string(solver::FormulationKind::fractioned) &&
      formulation != solver::to_string(solver::FormulationKind::assembled))
    throw Error(path, "the checkpoint names an unknown formulation '" + formulation + "'", "it may be damaged");
  c.state.kind = formulation == solver::to_string(solver::FormulationKind::assembled)
                     ? solver::FormulationKind::assembled
                     : solver::FormulationKind::fractioned;

  hsize_t rows = 0;
  c.state.e_unknowns = hdf5::read_rows<double>(root, "state/e", 0, path, rows);
  c.state.h_unknowns = hdf5::read_rows<double>(root, "state/h", 0, path, rows);
  c.state.auxiliary = hdf5::read_rows<double>(root, "state/auxiliary", 0, path, rows);
  std::int64_t layout = 1;
  hdf5::read_attribute(root, "state_layout", H5T_NATIVE_INT64, &layout);
  if (layout != state_layout && !c.state.auxiliary.empty())
    throw Error(path,
                "holds its matched layers' and ports' state in layout " + std::to_string(layout) +
                    ", this dgatd reads " + std::to_string(state_layout),
                "start the run afresh, or restart it with the dgatd that wrote the checkpoint");

  Handle const mesh(H5Gopen2(root, "mesh", H5P_DEFAULT), H5Gclose);
  if (!mesh.valid()) throw Error(path, "the checkpoint has no /mesh", "it may be damaged");
  auto& m = c.mesh;
  std::int64_t reoriented = 0;
  hdf5::read_attribute(mesh.get(), "source", m.source);
  hdf5::read_attribute(mesh.get(), "reoriented_tets", H5T_NATIVE_INT64, &reoriented);
  m.reoriented_tets = static_cast<mesh::Index>(reoriented);
  auto const points = hdf5::read_rows<double>(mesh.get(), "points", 3, path, rows);
  m.points.resize(rows);
  for (hsize_t i = 0; i < rows; ++i) m.points[i] = {points[3 * i], points[3 * i + 1], points[3 * i + 2]};
  m.tets = hdf5::rows_of<std::int32_t, 4>(hdf5::read_rows<std::int32_t>(mesh.get(), "tets", 4, path, rows));
  m.tet_region = hdf5::read_rows<std::int32_t>(mesh.get(), "tet_region", 0, path, rows);
  m.boundary_triangles =
      hdf5::rows_of<std::int32_t, 3>(hdf5::read_rows<std::int32_t>(mesh.get(), "boundary_triangles", 3, path, rows));
  m.boundary_triangle_tag = hdf5::read_rows<std::int32_t>(mesh.get(), "boundary_triangle_tag", 0, path, rows);
  // Absent from checkpoints written before wires were kept.
  if (H5Lexists(mesh.get(), "curve_segments", H5P_DEFAULT) > 0) {
    m.curve_segments =
        hdf5::rows_of<std::int32_t, 2>(hdf5::read_rows<std::int32_t>(mesh.get(), "curve_segments", 2, path, rows));
    m.curve_segment_tag = hdf5::read_rows<std::int32_t>(mesh.get(), "curve_segment_tag", 0, path, rows);
  }
  m.groups = hdf5::read_groups(mesh.get(), path);
  if (m.curve_segment_tag.size() != m.curve_segments.size() || m.tet_region.size() != m.tets.size() ||
      m.boundary_triangle_tag.size() != m.boundary_triangles.size() || hex(mesh_fingerprint(m)) != fingerprint)
    throw Error(path, "the checkpoint's mesh does not match its fingerprint", "it is damaged; start the run afresh");
  return c;
}

} // namespace dgatd::io
