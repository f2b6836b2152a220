#include "dgatd/io/output/hdf5_writer.hpp"

#include "dgatd/error.hpp"
#include "dgatd/version.hpp"
#include "io/hdf5_handle.hpp"
#include "io/text_file.hpp"
#include "io/xml_escape.hpp"

#include <unistd.h>

#include <complex>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace dgatd::io {

namespace {

namespace fs = std::filesystem;
using hdf5::Handle;

using hdf5::rows_per_flush;
using hdf5::Writer;

void append_vec3(std::vector<double>& rows, Vec3 const& v) { rows.insert(rows.end(), v.begin(), v.end()); }

} // namespace

struct Hdf5Writer::State {
  std::string path;
  std::string partial;
  Writer writer;
  Handle file;
  bool closed = false;
  bool resumed = false; // the partial file holds an earlier run's results: never removed

  std::int64_t num_points = 0;
  std::int64_t num_tets = -1; // -1 until write_mesh
  std::vector<double> snapshot_times;
  bool volume_snapshots = true; // whether the snapshots hold E and H per tet
  // The surfaces whose currents the run recorded (write_surface_currents), for the XDMF.
  struct SurfaceGrid {
    std::string name;
    std::size_t faces = 0;
    bool two_sided = false;
    std::vector<double> frequencies;
  };
  std::vector<SurfaceGrid> surfaces;

  struct ProbeSets {
    Handle e;
    Handle h;
    std::vector<double> e_rows;
    std::vector<double> h_rows;
  };
  std::vector<ProbeSets> probes;
  Handle time_set;
  std::vector<double> time_rows;
  hsize_t steps_written = 0; // rows already in the file

  Handle energy_set;
  Handle energy_time_set;
  std::vector<double> energy_rows;
  std::vector<double> energy_time_rows;
  hsize_t energy_written = 0;

  explicit State(std::string final_path) : path(std::move(final_path)), partial(path + ".partial"), writer(partial) {}

  // The group /parent/name of a record written once at the end of a run, made anew: an interrupted
  // run's group of that name is replaced. The caller holds QuietErrors. what: how messages name it.
  Handle fresh_record_group(std::string const& parent, std::string const& name, std::string const& what)
  {
    hid_t const root = file.get();
    Handle const all =
        H5Lexists(root, parent.c_str(), H5P_DEFAULT) > 0
            ? Handle(writer.check(H5Gopen2(root, parent.c_str(), H5P_DEFAULT), ("open /" + parent).c_str()), H5Gclose)
            : writer.group(root, parent);
    if (H5Lexists(all.get(), name.c_str(), H5P_DEFAULT) > 0)
      writer.check(H5Ldelete(all.get(), name.c_str(), H5P_DEFAULT), ("replace an interrupted run's " + what).c_str());
    return writer.group(all.get(), name);
  }

  void flush_steps()
  {
    writer.append(time_set, steps_written, time_rows, 0);
    for (auto& probe : probes) {
      writer.append(probe.e, steps_written, probe.e_rows, 3);
      writer.append(probe.h, steps_written, probe.h_rows, 3);
      probe.e_rows.clear();
      probe.h_rows.clear();
    }
    steps_written += time_rows.size();
    time_rows.clear();
  }

  void flush_energy()
  {
    writer.append(energy_time_set, energy_written, energy_time_rows, 0);
    writer.append(energy_set, energy_written, energy_rows, 0);
    energy_written += energy_rows.size();
    energy_rows.clear();
    energy_time_rows.clear();
  }

  std::string xdmf_path() const { return fs::path(path).replace_extension(".xdmf").string(); }

  // A surface's currents in the XDMF: a temporal collection of its snapshots, and a grid per
  // frequency with the transforms' magnitudes and phases, each on the surface's triangles.
  template <class Item>
  void write_surface_grids(std::ostringstream& xml, SurfaceGrid const& surface, Item const& item) const
  {
    std::string const record = "/surface_currents/" + surface.name;
    auto const faces = static_cast<std::int64_t>(surface.faces);
    auto grid = [&](std::string const& name, std::string const& indent, std::string const& extra) {
      std::ostringstream out;
      out << indent << "<Grid Name=\"" << xml_escape(name) << "\" GridType=\"Uniform\">\n"
          << extra << indent << "  <Topology TopologyType=\"Triangle\" NumberOfElements=\"" << faces << "\">\n"
          << indent << "    " << item(record + "/triangles", faces, 3, "Int", 4) << "\n"
          << indent << "  </Topology>\n"
          << indent << "  <Geometry GeometryType=\"XYZ\">\n"
          << indent << "    " << item(record + "/points", 3 * faces, 3, "Float", 8) << "\n"
          << indent << "  </Geometry>\n";
      return out.str();
    };
    auto attribute = [&](std::string const& indent, std::string const& name, std::string const& dataset, int cols) {
      std::ostringstream out;
      out << indent << "<Attribute Name=\"" << name << "\" AttributeType=\"" << (cols ? "Vector" : "Scalar")
          << "\" Center=\"Cell\">\n"
          << indent << "  " << item(dataset, faces, cols, "Float", 8) << "\n"
          << indent << "</Attribute>\n";
      return out.str();
    };
    std::vector<std::string> sides{""};
    if (surface.two_sided) sides.insert(sides.end(), {"_front", "_back"});
    if (!snapshot_times.empty()) {
      xml << "    <Grid Name=\"" << xml_escape(surface.name)
          << " currents\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
      for (std::size_t k = 0; k < snapshot_times.size(); ++k) {
        std::ostringstream time;
        time.precision(17);
        time << "        <Time Value=\"" << snapshot_times[k] << "\"/>\n";
        xml << grid(surface.name + "_" + std::to_string(k), "      ", time.str());
        std::string const at = "/snapshots/" + std::to_string(k) + record + "/";
        for (auto const& side : sides) {
          xml << attribute("        ", "J_s" + side, at + "J_s" + side, 3);
          xml << attribute("        ", "rho_s" + side, at + "rho_s" + side, 0);
        }
        xml << "      </Grid>\n";
      }
      xml << "    </Grid>\n";
    }
    for (std::size_t m = 0; m < surface.frequencies.size(); ++m) {
      std::ostringstream name;
      name.precision(6);
      name << surface.name << " at " << surface.frequencies[m] << " Hz";
      xml << grid(name.str(), "    ", "");
      std::string const at = record + "/transforms/" + std::to_string(m) + "/";
      for (auto const& side : sides)
        for (char const* part : {"_magnitude", "_phase"}) {
          xml << attribute("      ", "J_s" + side + part, at + "J_s" + side + part, 3);
          xml << attribute("      ", "rho_s" + side + part, at + "rho_s" + side + part, 0);
        }
      xml << "    </Grid>\n";
    }
  }

  void write_xdmf() const
  {
    std::string const h5 = xml_escape(fs::path(path).filename().string());
    auto item = [&](std::string const& dataset, std::int64_t rows, int cols, char const* type, int precision) {
      std::ostringstream out;
      out << "<DataItem Dimensions=\"" << rows;
      if (cols) out << ' ' << cols;
      out << "\" NumberType=\"" << type << "\" Precision=\"" << precision << "\" Format=\"HDF\">" << h5 << ':'
          << dataset << "</DataItem>";
      return out.str();
    };
    auto grid = [&](std::string const& name, std::string const& indent, std::string const& extra) {
      std::ostringstream out;
      out << indent << "<Grid Name=\"" << name << "\" GridType=\"Uniform\">\n"
          << extra << indent << "  <Topology TopologyType=\"Tetrahedron\" NumberOfElements=\"" << num_tets << "\">\n"
          << indent << "    " << item("/mesh/tets", num_tets, 4, "Int", 4) << "\n"
          << indent << "  </Topology>\n"
          << indent << "  <Geometry GeometryType=\"XYZ\">\n"
          << indent << "    " << item("/mesh/points", num_points, 3, "Float", 8) << "\n"
          << indent << "  </Geometry>\n"
          << indent << "  <Attribute Name=\"region\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
          << indent << "    " << item("/mesh/region", num_tets, 0, "Int", 4) << "\n"
          << indent << "  </Attribute>\n";
      return out.str();
    };

    std::ostringstream xml;
    xml.precision(17);
    xml << "<?xml version=\"1.0\" ?>\n"
        << "<Xdmf Version=\"3.0\">\n"
        << "  <Domain>\n";
    if (snapshot_times.empty() || !volume_snapshots) {
      xml << grid("mesh", "    ", "") << "    </Grid>\n";
    } else {
      xml << "    <Grid Name=\"snapshots\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
      for (std::size_t k = 0; k < snapshot_times.size(); ++k) {
        std::ostringstream time;
        time.precision(17);
        time << "        <Time Value=\"" << snapshot_times[k] << "\"/>\n";
        xml << grid("snapshot_" + std::to_string(k), "      ", time.str());
        for (char const* field : {"E", "H"}) {
          xml << "        <Attribute Name=\"" << field << "\" AttributeType=\"Vector\" Center=\"Cell\">\n"
              << "          " << item("/snapshots/" + std::to_string(k) + "/" + field, num_tets, 3, "Float", 8) << "\n"
              << "        </Attribute>\n";
        }
        xml << "      </Grid>\n";
      }
      xml << "    </Grid>\n";
    }
    for (auto const& surface : surfaces) write_surface_grids(xml, surface, item);
    xml << "  </Domain>\n"
        << "</Xdmf>\n";

    write_text_atomically(xdmf_path(), xml.str(), "the XDMF file");
  }
};

Hdf5Writer::Hdf5Writer(std::string path, RunAttributes const& attributes)
    : state_(std::make_unique<State>(std::move(path)))
{
  auto& s = *state_;
  hdf5::QuietErrors const quiet;
  s.file = hdf5::create_file(s.partial, "the output file");

  hid_t const root = s.file.get();
  s.writer.attribute(root, "dgatd_version", std::string(version_string));
  s.writer.attribute(root, "config", attributes.config_text);
  s.writer.attribute(root, "dt", attributes.dt);
  s.writer.attribute(root, "dt_max", attributes.dt_max);
  s.writer.attribute(root, "num_vertices", attributes.num_vertices);
  s.writer.attribute(root, "num_edges", attributes.num_edges);
  s.writer.attribute(root, "num_faces", attributes.num_faces);
  s.writer.attribute(root, "num_tets", attributes.num_tets);
  s.writer.attribute(root, "formulation", attributes.formulation);
  s.writer.attribute(root, "backend", attributes.backend);

  s.time_set = s.writer.extendible(root, "time", 0);
  s.energy_time_set = s.writer.extendible(root, "energy_time", 0);
  s.energy_set = s.writer.extendible(root, "energy", 0);
  s.writer.group(root, "probes");
  s.writer.group(root, "snapshots");
}

Hdf5Writer::Hdf5Writer(std::string path, ResumePoint const& resume) : state_(std::make_unique<State>(std::move(path)))
{
  auto& s = *state_;
  s.resumed = true;
  std::error_code error;
  if (!fs::exists(s.partial, error)) {
    if (!fs::is_regular_file(s.path, error))
      throw Error(s.path, "the output of the checkpointed run is missing (and there is no " + s.partial + ")",
                  "restart with the output the checkpoint was written with, or start the run afresh");
    fs::rename(s.path, s.partial, error);
    if (error)
      throw Error(s.path, "cannot rename the output to " + s.partial + ": " + error.message(),
                  "check the permissions of the directory");
  }
  hdf5::QuietErrors const quiet;
  hid_t const file = H5Fopen(s.partial.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) throw Error(s.partial, "HDF5 cannot open the output to append", "check that it is writable");
  s.file = Handle(file, H5Fclose);
  hid_t const root = s.file.get();
  for (char const* name : {"steps", "complete"})
    if (H5Aexists(root, name) > 0) s.writer.check(H5Adelete(root, name), "remove an attribute");

  std::string const fix = "restart with the output the checkpoint was written with, or start the run afresh";
  auto open_set = [&](std::string const& name) {
    Handle set(H5Dopen2(root, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!set.valid()) throw Error(s.partial, "has no dataset " + name, fix);
    return set;
  };
  auto rows_of = [&](Handle const& set) {
    Handle const space(s.writer.check(H5Dget_space(set.get()), "get a dataspace"), H5Sclose);
    hsize_t dims[2] = {0, 0};
    H5Sget_simple_extent_dims(space.get(), dims, nullptr);
    return dims[0];
  };
  auto truncate = [&](Handle const& set, std::string const& name, std::int64_t rows, hsize_t cols) {
    if (rows_of(set) < static_cast<hsize_t>(rows))
      throw Error(s.partial,
                  name + " holds " + std::to_string(rows_of(set)) + " rows, fewer than the checkpoint's " +
                      std::to_string(rows),
                  fix);
    hsize_t const dims[2] = {static_cast<hsize_t>(rows), cols};
    s.writer.check(H5Dset_extent(set.get(), dims), "truncate a dataset");
  };
  s.time_set = open_set("time");
  truncate(s.time_set, "/time", resume.steps, 0);
  s.steps_written = static_cast<hsize_t>(resume.steps);
  s.energy_time_set = open_set("energy_time");
  s.energy_set = open_set("energy");
  truncate(s.energy_time_set, "/energy_time", resume.energy_samples, 0);
  truncate(s.energy_set, "/energy", resume.energy_samples, 0);
  s.energy_written = static_cast<hsize_t>(resume.energy_samples);
  for (auto const& name : resume.probe_names) {
    State::ProbeSets sets;
    sets.e = open_set("probes/" + name + "/E");
    sets.h = open_set("probes/" + name + "/H");
    truncate(sets.e, "/probes/" + name + "/E", resume.steps, 3);
    truncate(sets.h, "/probes/" + name + "/H", resume.steps, 3);
    s.probes.push_back(std::move(sets));
  }
  s.num_tets = static_cast<std::int64_t>(rows_of(open_set("mesh/tets")));
  s.num_points = static_cast<std::int64_t>(rows_of(open_set("mesh/points")));

  Handle const snapshots(s.writer.check(H5Gopen2(root, "snapshots", H5P_DEFAULT), "open /snapshots"), H5Gclose);
  for (std::int64_t k = 0;; ++k) {
    std::string const name = std::to_string(k);
    if (H5Lexists(snapshots.get(), name.c_str(), H5P_DEFAULT) <= 0) {
      if (k < resume.snapshots)
        throw Error(s.partial,
                    "holds " + std::to_string(k) + " snapshots, fewer than the checkpoint's " +
                        std::to_string(resume.snapshots),
                    fix);
      break;
    }
    if (k >= resume.snapshots) {
      s.writer.check(H5Ldelete(snapshots.get(), name.c_str(), H5P_DEFAULT), "drop a snapshot past the checkpoint");
      continue;
    }
    Handle const group(s.writer.check(H5Gopen2(snapshots.get(), name.c_str(), H5P_DEFAULT), "open a snapshot"),
                       H5Gclose);
    double time = 0;
    hdf5::read_attribute(group.get(), "time", H5T_NATIVE_DOUBLE, &time);
    s.snapshot_times.push_back(time);
    s.volume_snapshots = H5Lexists(group.get(), "E", H5P_DEFAULT) > 0;
  }
}

Hdf5Writer::~Hdf5Writer()
{
  if (!state_ || state_->closed) return;
  hdf5::QuietErrors const quiet;
  state_->probes.clear();
  state_->time_set.reset();
  state_->energy_set.reset();
  state_->energy_time_set.reset();
  state_->file.reset();
  if (state_->resumed) return;
  std::error_code ignored;
  fs::remove(state_->partial, ignored);
}

void Hdf5Writer::write_mesh(std::vector<Vec3> const& points, std::vector<std::array<std::int32_t, 4>> const& tets,
                            std::vector<std::int32_t> const& region)
{
  auto& s = *state_;
  if (s.num_tets >= 0) throw std::logic_error("Hdf5Writer::write_mesh called twice");
  if (region.size() != tets.size()) throw std::invalid_argument("Hdf5Writer::write_mesh: one region per tet needed");
  hdf5::QuietErrors const quiet;
  Handle const mesh = s.writer.group(s.file.get(), "mesh");
  s.writer.dataset(mesh.get(), "points", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, points.size(), 3, points.data());
  s.writer.dataset(mesh.get(), "tets", H5T_STD_I32LE, H5T_NATIVE_INT32, tets.size(), 4, tets.data());
  s.writer.dataset(mesh.get(), "region", H5T_STD_I32LE, H5T_NATIVE_INT32, region.size(), 0, region.data());
  s.num_points = static_cast<std::int64_t>(points.size());
  s.num_tets = static_cast<std::int64_t>(tets.size());
}

std::size_t Hdf5Writer::add_probe(std::string const& name, Vec3 const& position)
{
  auto& s = *state_;
  if (s.steps_written + s.time_rows.size() > 0)
    throw std::logic_error("Hdf5Writer::add_probe after the first append_step");
  // A '/' would silently nest groups; the config already restricts names to [A-Za-z0-9_].
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    throw std::invalid_argument("Hdf5Writer::add_probe: '" + name + "' is not a usable group name");
  hdf5::QuietErrors const quiet;
  Handle const probes(s.writer.check(H5Gopen2(s.file.get(), "probes", H5P_DEFAULT), "open /probes"), H5Gclose);
  if (H5Lexists(probes.get(), name.c_str(), H5P_DEFAULT) > 0)
    throw Error(s.partial, "probe '" + name + "' is written twice", "give each probe its own name");
  Handle const group = s.writer.group(probes.get(), name);
  s.writer.attribute(group.get(), "position", position);
  State::ProbeSets sets;
  sets.e = s.writer.extendible(group.get(), "E", 3);
  sets.h = s.writer.extendible(group.get(), "H", 3);
  s.probes.push_back(std::move(sets));
  return s.probes.size() - 1;
}

void Hdf5Writer::append_step(double time, std::vector<ProbeSample> const& samples)
{
  auto& s = *state_;
  if (samples.size() != s.probes.size())
    throw std::invalid_argument("Hdf5Writer::append_step: one sample per probe needed");
  s.time_rows.push_back(time);
  for (std::size_t p = 0; p < samples.size(); ++p) {
    append_vec3(s.probes[p].e_rows, samples[p].e);
    append_vec3(s.probes[p].h_rows, samples[p].h);
  }
  if (s.time_rows.size() >= rows_per_flush) {
    hdf5::QuietErrors const quiet;
    s.flush_steps();
  }
}

void Hdf5Writer::append_energy(double time, double energy)
{
  auto& s = *state_;
  s.energy_time_rows.push_back(time);
  s.energy_rows.push_back(energy);
  if (s.energy_rows.size() >= rows_per_flush) {
    hdf5::QuietErrors const quiet;
    s.flush_energy();
  }
}

void Hdf5Writer::write_snapshot(double time, std::vector<Vec3> const& e, std::vector<Vec3> const& h)
{
  auto& s = *state_;
  if (s.num_tets < 0) throw std::logic_error("Hdf5Writer::write_snapshot before write_mesh");
  auto const tets = static_cast<std::size_t>(s.num_tets);
  bool const volume = !e.empty() || !h.empty();
  if (volume && (e.size() != tets || h.size() != tets))
    throw std::invalid_argument("Hdf5Writer::write_snapshot: one E and one H vector per tet needed");
  hdf5::QuietErrors const quiet;
  Handle const snapshots(s.writer.check(H5Gopen2(s.file.get(), "snapshots", H5P_DEFAULT), "open /snapshots"), H5Gclose);
  Handle const group = s.writer.group(snapshots.get(), std::to_string(s.snapshot_times.size()));
  s.writer.attribute(group.get(), "time", time);
  if (volume) {
    s.writer.dataset(group.get(), "E", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, tets, 3, e.data());
    s.writer.dataset(group.get(), "H", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, tets, 3, h.data());
  }
  s.volume_snapshots = volume;
  s.snapshot_times.push_back(time);
}

void Hdf5Writer::write_port(solver::PortSeries const& port, double dt)
{
  auto& s = *state_;
  auto const& name = port.name;
  auto const& incident = port.incident;
  auto const& voltage = port.voltage;
  if (incident.size() != voltage.size() || (port.resistance > 0 && port.current.size() != voltage.size()))
    throw std::invalid_argument("Hdf5Writer::write_port: one incident value (and current) per voltage needed");
  hdf5::QuietErrors const quiet;
  Handle const group = s.fresh_record_group("ports", name, "port");
  s.writer.attribute(group.get(), "dt", dt);
  s.writer.dataset(group.get(), "incident", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, incident.size(), 0, incident.data());
  s.writer.dataset(group.get(), "voltage", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, voltage.size(), 0, voltage.data());
  if (port.admittance > 0) {
    s.writer.attribute(group.get(), "admittance", port.admittance);
    s.writer.attribute(group.get(), "cutoff", port.cutoff);
  }
  if (port.resistance > 0) {
    s.writer.attribute(group.get(), "resistance", port.resistance);
    s.writer.dataset(group.get(), "current", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, port.current.size(), 0,
                     port.current.data());
  }
}

void Hdf5Writer::write_series(solver::TimeSeries const& series, double dt)
{
  auto& s = *state_;
  hdf5::QuietErrors const quiet;
  Handle const group = s.fresh_record_group("series", series.name, "series");
  s.writer.attribute(group.get(), "dt", dt);
  s.writer.attribute(group.get(), "quantity", series.quantity);
  s.writer.attribute(group.get(), "units", series.units);
  s.writer.dataset(group.get(), "values", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, series.values.size(), 0,
                   series.values.data());
}

void Hdf5Writer::write_far_field(solver::FarFieldRecord const& r)
{
  auto& s = *state_;
  hdf5::QuietErrors const quiet;
  Handle const group = s.fresh_record_group("farfield", r.name, "far field");
  s.writer.attribute(group.get(), "eps", r.eps);
  s.writer.attribute(group.get(), "mu", r.mu);
  auto const faces = r.areas.size();
  s.writer.dataset(group.get(), "frequencies", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, r.frequencies.size(), 0,
                   r.frequencies.data());
  s.writer.dataset(group.get(), "centroids", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, faces, 3, r.centroids.data());
  s.writer.dataset(group.get(), "normals", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, faces, 3, r.normals.data());
  s.writer.dataset(group.get(), "areas", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, faces, 0, r.areas.data());
  auto rows = [](std::vector<std::array<std::complex<double>, 3>> const& values) {
    std::vector<double> flat;
    for (auto const& v : values) {
      for (auto const& c : v) flat.push_back(c.real());
      for (auto const& c : v) flat.push_back(c.imag());
    }
    return flat;
  };
  auto const e = rows(r.e), h = rows(r.h);
  s.writer.dataset(group.get(), "E", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, r.e.size(), 6, e.data());
  s.writer.dataset(group.get(), "H", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, r.h.size(), 6, h.data());
  if (!r.has_incident) return;
  s.writer.attribute(group.get(), "incident_direction", r.incident_direction);
  s.writer.attribute(group.get(), "incident_polarization", r.incident_polarization);
  s.writer.attribute(group.get(), "incident_origin", r.incident_origin);
  std::vector<double> incident;
  for (auto const& c : r.incident) incident.insert(incident.end(), {c.real(), c.imag()});
  s.writer.dataset(group.get(), "incident", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, r.incident.size(), 2, incident.data());
}

namespace {

// A surface's values, surface_values per face (value(k, i): face k's i-th, complex), as datasets
// named NAME + suffix of one real part of them (part): the sum over the sides (J_s, rho_s) and, for
// a surface with two-sided faces, each side (J_s_front, ..., rho_s_back).
template <class Value, class Part>
void write_surface_values(Writer const& writer, hid_t group, std::size_t faces, bool two_sided,
                          std::string const& suffix, Value const& value, Part const& part)
{
  std::vector<double> j, rho, j_front, rho_front, j_back, rho_back;
  for (std::size_t k = 0; k < faces; ++k) {
    for (int c = 0; c < 3; ++c) {
      j.push_back(part(value(k, c) + value(k, 4 + c)));
      j_front.push_back(part(value(k, c)));
      j_back.push_back(part(value(k, 4 + c)));
    }
    rho.push_back(part(value(k, 3) + value(k, 7)));
    rho_front.push_back(part(value(k, 3)));
    rho_back.push_back(part(value(k, 7)));
  }
  auto write = [&](std::string const& name, std::vector<double> const& values, int cols) {
    writer.dataset(group, (name + suffix).c_str(), H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, faces, cols, values.data());
  };
  write("J_s", j, 3);
  write("rho_s", rho, 0);
  if (!two_sided) return;
  write("J_s_front", j_front, 3);
  write("rho_s_front", rho_front, 0);
  write("J_s_back", j_back, 3);
  write("rho_s_back", rho_back, 0);
}

} // namespace

void Hdf5Writer::write_surface_snapshot(solver::SurfaceSnapshot const& snapshot)
{
  auto& s = *state_;
  if (s.snapshot_times.empty()) throw std::logic_error("Hdf5Writer::write_surface_snapshot before write_snapshot");
  if (snapshot.values.size() % solver::surface_values != 0)
    throw std::invalid_argument("Hdf5Writer::write_surface_snapshot: eight values per face needed");
  hdf5::QuietErrors const quiet;
  std::string const at = "snapshots/" + std::to_string(s.snapshot_times.size() - 1);
  Handle const snapshot_group(s.writer.check(H5Gopen2(s.file.get(), at.c_str(), H5P_DEFAULT), "open a snapshot"),
                              H5Gclose);
  Handle const all = H5Lexists(snapshot_group.get(), "surface_currents", H5P_DEFAULT) > 0
                         ? Handle(s.writer.check(H5Gopen2(snapshot_group.get(), "surface_currents", H5P_DEFAULT),
                                                 "open a snapshot's surface currents"),
                                  H5Gclose)
                         : s.writer.group(snapshot_group.get(), "surface_currents");
  Handle const group = s.writer.group(all.get(), snapshot.name);
  auto const& v = snapshot.values;
  write_surface_values(
      s.writer, group.get(), v.size() / solver::surface_values, snapshot.two_sided, "",
      [&v](std::size_t k, int i) { return std::complex<double>(v[solver::surface_values * k + i]); },
      [](std::complex<double> z) { return z.real(); });
}

void Hdf5Writer::write_surface_currents(solver::SurfaceCurrentRecord const& r)
{
  auto& s = *state_;
  auto const& g = r.geometry;
  std::size_t const faces = g.faces();
  if (r.transforms.size() != faces * r.frequencies.size())
    throw std::invalid_argument("Hdf5Writer::write_surface_currents: a transform per face and frequency needed");
  hdf5::QuietErrors const quiet;
  Handle const group = s.fresh_record_group("surface_currents", r.name, "surface currents");
  s.writer.attribute(group.get(), "two_sided", static_cast<std::int64_t>(g.two_sided ? 1 : 0));
  std::vector<Vec3> points;
  std::vector<std::array<std::int32_t, 3>> triangles;
  for (std::size_t k = 0; k < faces; ++k) {
    points.insert(points.end(), g.corners[k].begin(), g.corners[k].end());
    auto const first = static_cast<std::int32_t>(3 * k);
    triangles.push_back({first, first + 1, first + 2});
  }
  s.writer.dataset(group.get(), "points", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, points.size(), 3, points.data());
  s.writer.dataset(group.get(), "triangles", H5T_STD_I32LE, H5T_NATIVE_INT32, faces, 3, triangles.data());
  s.writer.dataset(group.get(), "normals", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, faces, 3, g.normals.data());
  s.writer.dataset(group.get(), "areas", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, faces, 0, g.areas.data());
  std::vector<std::int32_t> sides(g.sides.begin(), g.sides.end());
  s.writer.dataset(group.get(), "sides", H5T_STD_I32LE, H5T_NATIVE_INT32, faces, 0, sides.data());
  s.writer.dataset(group.get(), "frequencies", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, r.frequencies.size(), 0,
                   r.frequencies.data());
  Handle const transforms = s.writer.group(group.get(), "transforms");
  constexpr double degrees = 57.295779513082320876798154814105;
  for (std::size_t m = 0; m < r.frequencies.size(); ++m) {
    Handle const at = s.writer.group(transforms.get(), std::to_string(m));
    s.writer.attribute(at.get(), "frequency", r.frequencies[m]);
    auto const* row = &r.transforms[m * faces];
    auto const value = [row](std::size_t k, int i) { return row[k][i]; };
    write_surface_values(s.writer, at.get(), faces, g.two_sided, "_re", value,
                         [](std::complex<double> z) { return z.real(); });
    write_surface_values(s.writer, at.get(), faces, g.two_sided, "_im", value,
                         [](std::complex<double> z) { return z.imag(); });
    // Per component: ParaView's magnitude of the vector J_s_magnitude is then |J_s|.
    write_surface_values(s.writer, at.get(), faces, g.two_sided, "_magnitude", value,
                         [](std::complex<double> z) { return std::abs(z); });
    write_surface_values(s.writer, at.get(), faces, g.two_sided, "_phase", value,
                         [](std::complex<double> z) { return degrees * std::arg(z); });
  }
  s.surfaces.push_back({r.name, faces, g.two_sided, r.frequencies});
}

void Hdf5Writer::close(bool complete)
{
  auto& s = *state_;
  if (s.closed) throw std::logic_error("Hdf5Writer::close called twice");
  {
    hdf5::QuietErrors const quiet;
    s.flush_steps();
    s.flush_energy();
    hid_t const root = s.file.get();
    s.writer.attribute(root, "steps", static_cast<std::int64_t>(s.steps_written));
    s.writer.attribute(root, "complete", static_cast<std::int64_t>(complete ? 1 : 0));
    s.probes.clear();
    s.time_set.reset();
    s.energy_set.reset();
    s.energy_time_set.reset();
    s.writer.check(H5Fflush(root, H5F_SCOPE_GLOBAL), "flush the file");
    if (!s.file.reset()) s.writer.fail("close the file");
  }
  std::error_code error;
  fs::rename(s.partial, s.path, error);
  if (error)
    throw Error(s.path, "cannot rename " + s.partial + " into place: " + error.message(),
                "check the permissions of the directory");
  s.closed = true;
  if (s.num_tets >= 0) s.write_xdmf();
}

void Hdf5Writer::flush()
{
  auto& s = *state_;
  hdf5::QuietErrors const quiet;
  s.flush_steps();
  s.flush_energy();
  s.writer.check(H5Fflush(s.file.get(), H5F_SCOPE_GLOBAL), "flush the file");
}

std::string Hdf5Writer::description() const { return state_->num_tets >= 0 ? path() + " and " + xdmf_path() : path(); }

std::string const& Hdf5Writer::path() const { return state_->path; }
std::string Hdf5Writer::partial_path() const { return state_->partial; }
std::string Hdf5Writer::xdmf_path() const { return state_->xdmf_path(); }
std::int64_t Hdf5Writer::steps() const
{
  return static_cast<std::int64_t>(state_->steps_written + state_->time_rows.size());
}

void require_writable_output(std::string const& path)
{
  fs::path const file(path);
  fs::path const directory = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::error_code error;
  if (fs::is_directory(file, error))
    throw Error(path, "the output file is a directory", "give a file name, e.g. " + (file / "out.h5").string());
  if (!fs::is_directory(directory, error))
    throw Error(path, "the output directory '" + directory.string() + "' does not exist",
                "create it or choose another output file");
  if (::access(directory.c_str(), W_OK) != 0)
    throw Error(path, "the output directory '" + directory.string() + "' is not writable",
                "choose another output file");
}

} // namespace dgatd::io
