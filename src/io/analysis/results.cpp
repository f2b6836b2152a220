#include "dgatd/io/analysis/results.hpp"

#include "dgatd/error.hpp"
#include "io/hdf5_handle.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <utility>

namespace dgatd::io {

std::string beside_output(std::string const& output_path, std::string const& suffix)
{
  std::filesystem::path path(output_path);
  if (path.extension() == ".partial") path.replace_extension();
  return (path.parent_path() / (path.stem().string() + suffix)).string();
}

namespace {

using hdf5::Handle;

Handle open_output(std::string const& path)
{
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) throw Error(path, "no such file", "check the path");
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw Error(path, "not an HDF5 file", "give the .h5 file a dgatd run wrote (e.g. dgatd_out.h5)");
  hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) {
    // A run writing it (its .partial output, flushed every half minute) holds HDF5's file lock:
    // read it without the lock.
    Handle const access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (access.get() < 0 || H5Pset_file_locking(access.get(), false, true) < 0)
      throw std::runtime_error("HDF5 cannot make file access properties");
    file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, access.get());
  }
  if (file < 0) throw Error(path, "HDF5 cannot open the file", "check that it is readable and not truncated");
  return {file, H5Fclose};
}

herr_t collect_name(hid_t, char const* name, H5L_info_t const*, void* names)
{
  static_cast<std::vector<std::string>*>(names)->emplace_back(name);
  return 0;
}

std::vector<std::string> names_in_probes(hid_t file, std::string const& path)
{
  if (H5Lexists(file, "probes", H5P_DEFAULT) <= 0)
    throw Error(path, "has no /probes group", "give the .h5 file of a dgatd run");
  std::vector<std::string> names;
  hsize_t index = 0;
  if (H5Literate_by_name(file, "probes", H5_INDEX_NAME, H5_ITER_INC, &index, collect_name, &names, H5P_DEFAULT) < 0)
    throw Error(path, "cannot list /probes", "the file may be damaged");
  return names;
}

} // namespace

std::vector<std::string> probe_names(std::string const& path)
{
  hdf5::QuietErrors const quiet;
  Handle const file = open_output(path);
  return names_in_probes(file.get(), path);
}

ProbeRecord read_probe(std::string const& path, std::string const& probe, char field)
{
  if (field != 'E' && field != 'H') throw Error(path, std::string("unknown field '") + field + "'", "use E or H");
  hdf5::QuietErrors const quiet;
  Handle const file = open_output(path);
  auto const names = names_in_probes(file.get(), path);
  if (std::find(names.begin(), names.end(), probe) == names.end()) {
    std::string available;
    for (auto const& name : names) available += (available.empty() ? "" : ", ") + name;
    throw Error(path, "no probe '" + probe + "'",
                names.empty() ? "the run recorded no probes; add [[probe]] tables to the config"
                              : "available probes: " + available);
  }

  ProbeRecord record;
  record.name = probe;
  record.field = field;
  std::string const group = "/probes/" + probe;
  Handle const attribute(H5Aopen_by_name(file.get(), group.c_str(), "position", H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (attribute.valid()) H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, record.position.data());

  hsize_t steps = 0;
  record.time = hdf5::read_rows<double>(file.get(), "/time", 0, path, steps);
  hsize_t rows = 0;
  auto const flat = hdf5::read_rows<double>(file.get(), group + "/" + field, 3, path, rows);
  if (rows != steps)
    throw Error(path,
                group + "/" + field + " has " + std::to_string(rows) + " rows but /time has " + std::to_string(steps),
                "the file may be damaged");
  record.values.resize(rows);
  for (hsize_t i = 0; i < rows; ++i) record.values[i] = {flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]};
  return record;
}

std::vector<double> probe_component(ProbeRecord const& record, char component)
{
  if (component < 'x' || component > 'z')
    throw std::invalid_argument(std::string("probe_component: no component '") + component + "' (x, y or z)");
  std::size_t const axis = static_cast<std::size_t>(component - 'x');
  std::vector<double> values(record.values.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = record.values[i][axis];
  return values;
}

namespace {

std::vector<Vec3> vectors_of(std::vector<double> const& flat)
{
  std::vector<Vec3> values(flat.size() / 3);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = {flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]};
  return values;
}

} // namespace

MeshRecord read_mesh(std::string const& path)
{
  hdf5::QuietErrors const quiet;
  Handle const file = open_output(path);
  if (H5Lexists(file.get(), "mesh", H5P_DEFAULT) <= 0)
    throw Error(path, "has no /mesh group", "give the .h5 file of a dgatd run");
  MeshRecord record;
  hsize_t vertices = 0, tets = 0, regions = 0;
  record.points = vectors_of(hdf5::read_rows<double>(file.get(), "/mesh/points", 3, path, vertices));
  record.tets = hdf5::rows_of<std::int32_t, 4>(hdf5::read_rows<std::int32_t>(file.get(), "/mesh/tets", 4, path, tets));
  record.region = hdf5::read_rows<std::int32_t>(file.get(), "/mesh/region", 0, path, regions);
  if (regions != tets) throw Error(path, "/mesh/region and /mesh/tets differ in length", "the file may be damaged");
  return record;
}

std::size_t snapshot_count(std::string const& path)
{
  hdf5::QuietErrors const quiet;
  Handle const file = open_output(path);
  if (H5Lexists(file.get(), "snapshots", H5P_DEFAULT) <= 0) return 0;
  Handle const group(H5Gopen(file.get(), "snapshots", H5P_DEFAULT), H5Gclose);
  H5G_info_t info{};
  if (!group.valid() || H5Gget_info(group.get(), &info) < 0)
    throw Error(path, "cannot list /snapshots", "the file may be damaged");
  return static_cast<std::size_t>(info.nlinks);
}

SnapshotRecord read_snapshot(std::string const& path, std::size_t index)
{
  std::size_t const count = snapshot_count(path);
  if (index >= count)
    throw Error(path, "has no snapshot " + std::to_string(index),
                count == 0 ? "the run wrote none; set [output] snapshot_every"
                           : "it has snapshots 0 to " + std::to_string(count - 1));
  hdf5::QuietErrors const quiet;
  Handle const file = open_output(path);
  std::string const group = "/snapshots/" + std::to_string(index);
  SnapshotRecord record;
  Handle const snapshot(H5Gopen(file.get(), group.c_str(), H5P_DEFAULT), H5Gclose);
  if (!snapshot.valid() || !hdf5::read_attribute(snapshot.get(), "time", H5T_NATIVE_DOUBLE, &record.time))
    throw Error(path, group + " has no time attribute", "the file may be damaged");
  if (H5Lexists(snapshot.get(), "E", H5P_DEFAULT) <= 0)
    throw Error(path, group + " holds no E and H: the run wrote its snapshots without the volume's fields",
                "read its surface currents, or run it again without [output] snapshot_volume = false");
  hsize_t rows_e = 0, rows_h = 0;
  record.e = vectors_of(hdf5::read_rows<double>(file.get(), group + "/E", 3, path, rows_e));
  record.h = vectors_of(hdf5::read_rows<double>(file.get(), group + "/H", 3, path, rows_h));
  if (rows_e != rows_h) throw Error(path, group + "/E and /H differ in length", "the file may be damaged");
  return record;
}

EnergyRecord read_energy(std::string const& path)
{
  hdf5::QuietErrors const quiet;
  Handle const file = open_output(path);
  EnergyRecord record;
  hsize_t rows = 0, samples = 0;
  record.time = hdf5::read_rows<double>(file.get(), "/energy_time", 0, path, rows);
  record.energy = hdf5::read_rows<double>(file.get(), "/energy", 0, path, samples);
  if (rows != samples) throw Error(path, "/energy and /energy_time differ in length", "the file may be damaged");
  return record;
}

std::vector<PortRecord> read_ports(std::string const& path)
{
  hdf5::QuietErrors const quiet;
  Handle const file = open_output(path);
  std::vector<PortRecord> ports;
  if (H5Lexists(file.get(), "ports", H5P_DEFAULT) <= 0) return ports;
  std::vector<std::string> names;
  hsize_t index = 0;
  if (H5Literate_by_name(file.get(), "ports", H5_INDEX_NAME, H5_ITER_INC, &index, collect_name, &names, H5P_DEFAULT) <
      0)
    throw Error(path, "cannot list /ports", "the file may be damaged");
  for (auto const& name : names) {
    PortRecord record;
    record.name = name;
    std::string const group = "/ports/" + name;
    Handle const attribute(H5Aopen_by_name(file.get(), group.c_str(), "dt", H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!attribute.valid() || H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &record.dt) < 0 || !(record.dt > 0))
      throw Error(path, group + " has no time step (attribute dt)", "the file may be damaged");
    hsize_t incident = 0, voltage = 0;
    record.incident = hdf5::read_rows<double>(file.get(), group + "/incident", 0, path, incident);
    record.voltage = hdf5::read_rows<double>(file.get(), group + "/voltage", 0, path, voltage);
    if (incident != voltage)
      throw Error(path, group + ": incident and voltage differ in length", "the file may be damaged");
    Handle const port_group(H5Gopen(file.get(), group.c_str(), H5P_DEFAULT), H5Gclose);
    for (auto [key, value] : {std::pair{"admittance", &record.admittance}, std::pair{"cutoff", &record.cutoff}})
      if (port_group.valid() && H5Aexists(port_group.get(), key) > 0 &&
          (!hdf5::read_attribute(port_group.get(), key, H5T_NATIVE_DOUBLE, value) || !(*value >= 0)))
        throw Error(path, group + " has an unreadable " + key, "the file may be damaged");
    if (H5Aexists_by_name(file.get(), group.c_str(), "resistance", H5P_DEFAULT) > 0) {
      Handle const r(H5Aopen_by_name(file.get(), group.c_str(), "resistance", H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      if (!r.valid() || H5Aread(r.get(), H5T_NATIVE_DOUBLE, &record.resistance) < 0 || !(record.resistance > 0))
        throw Error(path, group + " has an unreadable resistance", "the file may be damaged");
      hsize_t current = 0;
      record.current = hdf5::read_rows<double>(file.get(), group + "/current", 0, path, current);
      if (current != voltage)
        throw Error(path, group + ": current and voltage differ in length", "the file may be damaged");
    }
    ports.push_back(std::move(record));
  }
  return ports;
}

std::vector<solver::FarFieldRecord> read_far_fields(std::string const& path)
{
  hdf5::QuietErrors const quiet;
  Handle const file = open_output(path);
  std::vector<solver::FarFieldRecord> records;
  if (H5Lexists(file.get(), "farfield", H5P_DEFAULT) <= 0) return records;
  std::vector<std::string> names;
  hsize_t index = 0;
  if (H5Literate_by_name(file.get(), "farfield", H5_INDEX_NAME, H5_ITER_INC, &index, collect_name, &names,
                         H5P_DEFAULT) < 0)
    throw Error(path, "cannot list /farfield", "the file may be damaged");
  for (auto const& name : names) {
    solver::FarFieldRecord r;
    r.name = name;
    std::string const group = "/farfield/" + name;
    Handle const g(H5Gopen2(file.get(), group.c_str(), H5P_DEFAULT), H5Gclose);
    if (!g.valid() || !hdf5::read_attribute(g.get(), "eps", H5T_NATIVE_DOUBLE, &r.eps) ||
        !hdf5::read_attribute(g.get(), "mu", H5T_NATIVE_DOUBLE, &r.mu))
      throw Error(path, group + " has no medium (attributes eps, mu)", "the file may be damaged");
    hsize_t count = 0, faces = 0, rows = 0;
    r.frequencies = hdf5::read_rows<double>(file.get(), group + "/frequencies", 0, path, count);
    auto const centroids = hdf5::read_rows<double>(file.get(), group + "/centroids", 3, path, faces);
    auto const normals = hdf5::read_rows<double>(file.get(), group + "/normals", 3, path, rows);
    r.areas = hdf5::read_rows<double>(file.get(), group + "/areas", 0, path, rows);
    auto const e = hdf5::read_rows<double>(file.get(), group + "/E", 6, path, rows);
    if (rows != count * faces) throw Error(path, group + "/E does not fit its faces", "the file may be damaged");
    auto const h = hdf5::read_rows<double>(file.get(), group + "/H", 6, path, rows);
    if (rows != count * faces) throw Error(path, group + "/H does not fit its faces", "the file may be damaged");
    for (hsize_t k = 0; k < faces; ++k) {
      r.centroids.push_back({centroids[3 * k], centroids[3 * k + 1], centroids[3 * k + 2]});
      r.normals.push_back({normals[3 * k], normals[3 * k + 1], normals[3 * k + 2]});
    }
    auto phasors = [](std::vector<double> const& flat, std::size_t row) {
      std::array<std::complex<double>, 3> v;
      for (std::size_t c = 0; c < 3; ++c) v[c] = {flat[6 * row + c], flat[6 * row + 3 + c]};
      return v;
    };
    for (std::size_t row = 0; row < count * faces; ++row) {
      r.e.push_back(phasors(e, row));
      r.h.push_back(phasors(h, row));
    }
    if (H5Lexists(g.get(), "incident", H5P_DEFAULT) > 0) {
      r.has_incident =
          hdf5::read_attribute(g.get(), "incident_direction", H5T_NATIVE_DOUBLE, r.incident_direction.data()) &&
          hdf5::read_attribute(g.get(), "incident_polarization", H5T_NATIVE_DOUBLE, r.incident_polarization.data());
      r.has_origin = H5Aexists(g.get(), "incident_origin") > 0 &&
                     hdf5::read_attribute(g.get(), "incident_origin", H5T_NATIVE_DOUBLE, r.incident_origin.data());
      auto const incident = hdf5::read_rows<double>(file.get(), group + "/incident", 2, path, rows);
      if (!r.has_incident || rows != count)
        throw Error(path, group + "/incident does not fit its frequencies", "the file may be damaged");
      for (hsize_t m = 0; m < count; ++m) r.incident.push_back({incident[2 * m], incident[2 * m + 1]});
    }
    records.push_back(std::move(r));
  }
  return records;
}

std::vector<solver::SurfaceCurrentRecord> read_surface_currents(std::string const& path)
{
  hdf5::QuietErrors const quiet;
  Handle const file = open_output(path);
  std::vector<solver::SurfaceCurrentRecord> records;
  if (H5Lexists(file.get(), "surface_currents", H5P_DEFAULT) <= 0) return records;
  std::vector<std::string> names;
  hsize_t index = 0;
  if (H5Literate_by_name(file.get(), "surface_currents", H5_INDEX_NAME, H5_ITER_INC, &index, collect_name, &names,
                         H5P_DEFAULT) < 0)
    throw Error(path, "cannot list /surface_currents", "the file may be damaged");
  for (auto const& name : names) {
    solver::SurfaceCurrentRecord r;
    r.name = name;
    std::string const group = "/surface_currents/" + name;
    hsize_t count = 0, faces = 0, rows = 0;
    r.frequencies = hdf5::read_rows<double>(file.get(), group + "/frequencies", 0, path, count);
    auto const points = hdf5::read_rows<double>(file.get(), group + "/points", 3, path, rows);
    auto const normals = hdf5::read_rows<double>(file.get(), group + "/normals", 3, path, faces);
    if (rows != 3 * faces) throw Error(path, group + "/points does not fit its faces", "the file may be damaged");
    auto& g = r.geometry;
    g.areas = hdf5::read_rows<double>(file.get(), group + "/areas", 0, path, rows);
    for (int side : hdf5::read_rows<std::int32_t>(file.get(), group + "/sides", 0, path, rows)) {
      g.sides.push_back(side);
      g.two_sided = g.two_sided || side == 2;
    }
    if (g.areas.size() != faces || g.sides.size() != faces)
      throw Error(path, group + "/areas or sides does not fit its faces", "the file may be damaged");
    for (hsize_t k = 0; k < faces; ++k) {
      auto const corner = [&](hsize_t c) {
        return Vec3{points[9 * k + 3 * c], points[9 * k + 3 * c + 1], points[9 * k + 3 * c + 2]};
      };
      g.corners.push_back({corner(0), corner(1), corner(2)});
      g.normals.push_back({normals[3 * k], normals[3 * k + 1], normals[3 * k + 2]});
    }
    for (hsize_t m = 0; m < count; ++m) {
      std::string const at = group + "/transforms/" + std::to_string(m) + "/";
      // The sides' own where the file holds them, else the one side's as the front.
      std::string const front = g.two_sided ? "_front" : "", back = "_back";
      auto const read = [&](std::string const& dataset, int cols) {
        return hdf5::read_rows<double>(file.get(), at + dataset, cols, path, rows);
      };
      auto const j_re = read("J_s" + front + "_re", 3), j_im = read("J_s" + front + "_im", 3);
      auto const rho_re = read("rho_s" + front + "_re", 0), rho_im = read("rho_s" + front + "_im", 0);
      std::vector<double> back_j_re(3 * faces), back_j_im(3 * faces), back_rho_re(faces), back_rho_im(faces);
      if (g.two_sided) {
        back_j_re = read("J_s" + back + "_re", 3);
        back_j_im = read("J_s" + back + "_im", 3);
        back_rho_re = read("rho_s" + back + "_re", 0);
        back_rho_im = read("rho_s" + back + "_im", 0);
      }
      if (j_re.size() != 3 * faces || back_j_re.size() != 3 * faces || rho_re.size() != faces ||
          back_rho_re.size() != faces)
        throw Error(path, at + " does not fit its faces", "the file may be damaged");
      for (hsize_t k = 0; k < faces; ++k) {
        std::array<std::complex<double>, solver::surface_values> values;
        for (int c = 0; c < 3; ++c) {
          values[c] = {j_re[3 * k + c], j_im[3 * k + c]};
          values[4 + c] = {back_j_re[3 * k + c], back_j_im[3 * k + c]};
        }
        values[3] = {rho_re[k], rho_im[k]};
        values[7] = {back_rho_re[k], back_rho_im[k]};
        r.transforms.push_back(values);
      }
    }
    records.push_back(std::move(r));
  }
  return records;
}

std::vector<solver::FarFieldRecord> require_far_fields(std::string const& path)
{
  auto records = read_far_fields(path);
  if (records.empty())
    throw Error(path, "the run has no far-field data",
                "add a [[farfield]] table (a closed surface and frequencies) to its configuration and run it again");
  return records;
}

} // namespace dgatd::io
