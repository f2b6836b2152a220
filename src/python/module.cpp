// dgatd._dgatd, the compiled half of the Python package dgatd (python/dgatd/): Kokkos started once,
// a simulation built from configuration text through the same checks as `dgatd run`, stepped in
// pieces with the GIL released, and the readers and analyses of its output returning numpy arrays.
// The package's Python half turns these into the objects users see (docs/user/python.md).
#include "dgatd/device_compatibility.hpp"
#include "dgatd/device_info.hpp"
#include "dgatd/error.hpp"
#include "dgatd/io/analysis/far_field.hpp"
#include "dgatd/io/analysis/probe_spectrum.hpp"
#include "dgatd/io/analysis/results.hpp"
#include "dgatd/io/analysis/sparams.hpp"
#include "dgatd/io/analysis/spectrum.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/kokkos_compat.hpp"
#include "dgatd/parallel/communicator.hpp"
#include "dgatd/simulation/capabilities.hpp"
#include "dgatd/simulation/simulation.hpp"
#include "dgatd/version.hpp"

#include <Kokkos_Core.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace py = pybind11;

namespace dgatd::python {
namespace {

py::array_t<double> array_of(std::vector<double> const& values)
{
  py::array_t<double> array(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), array.mutable_data());
  return array;
}

// N x 3, one row per vector.
py::array_t<double> array_of(std::vector<Vec3> const& values)
{
  py::array_t<double> array({static_cast<py::ssize_t>(values.size()), py::ssize_t{3}});
  double* out = array.mutable_data();
  for (auto const& v : values) out = std::copy(v.begin(), v.end(), out);
  return array;
}

py::array_t<std::complex<double>> array_of(std::vector<std::complex<double>> const& values)
{
  py::array_t<std::complex<double>> array(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), array.mutable_data());
  return array;
}

class Run;

// Kokkos lives from the first simulation (or dgatd.initialize) to the interpreter's exit; the runs
// still alive then are closed first, since Kokkos's memory cannot outlive it.
struct Runtime {
  bool finalized = false;
  std::set<Run*> runs;
};

Runtime& runtime()
{
  static Runtime instance;
  return instance;
}

void initialize(std::optional<int> threads, std::optional<int> device)
{
  auto& r = runtime();
  if (r.finalized)
    throw Error("dgatd", "Kokkos was finalised at the end of this interpreter's dgatd session",
                "start a new Python process");
  if (Kokkos::is_initialized()) {
    if (threads || device)
      throw Error("dgatd.initialize", "Kokkos is already running (threads and device are chosen once)",
                  "call dgatd.initialize(...) before the first simulation, in a new Python process");
    return;
  }
  if (threads && *threads < 1)
    throw Error("dgatd.initialize", "threads = " + std::to_string(*threads) + " must be at least 1",
                "give a positive number, or leave it out for OMP_NUM_THREADS or all cores");
  // Kokkos warns on every start without it; libgomp has read its environment already.
  if (std::getenv("OMP_PROC_BIND") == nullptr) setenv("OMP_PROC_BIND", "false", 0);
  std::vector<std::string> arguments{"dgatd"};
  if (threads)
    arguments.push_back(compat::translate_kokkos_argument("--kokkos-num-threads=" + std::to_string(*threads)));
  if (device) arguments.push_back(compat::device_id_argument(*device));
  auto const found = describe_default_device(device.value_or(0));
  if (auto const problem = start_up_problem(found, check_device_compatibility(found)))
    throw Error("dgatd", *problem, "");
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(arguments.size());
  Kokkos::initialize(argc, argv.data());
}

void finalize();

py::dict backend()
{
  initialize(std::nullopt, std::nullopt);
  py::dict info;
  info["kokkos_version"] = KOKKOS_VERSION;
  info["execution_spaces"] = compat::enabled_execution_spaces();
  info["default_space"] = Kokkos::DefaultExecutionSpace::name();
  info["concurrency"] = Kokkos::DefaultExecutionSpace().concurrency();
  return info;
}

py::dict result_dict(simulation::RunResult const& result)
{
  py::dict d;
  d["complete"] = result.complete;
  d["ended"] = result.ended;
  d["steps"] = result.steps;
  d["output"] = result.output;
  d["checkpoint"] = result.checkpoint;
  auto const& t = result.times;
  py::dict times;
  times["meshing"] = t.meshing;
  times["reading"] = t.reading;
  times["setup"] = t.setup;
  times["dt_bound"] = t.dt_bound;
  times["stepping"] = t.stepping;
  times["output"] = t.output;
  d["times"] = times;
  return d;
}

// One simulation: built from configuration text, then stepped in pieces by advance (the Python
// side draws the progress between pieces and turns Ctrl-C into stop()).
class Run {
public:
  Run(std::string const& text, std::string const& name, std::string const& base_dir, std::string const& output,
      std::string const& restart, bool report)
  {
    initialize(std::nullopt, std::nullopt);
    auto config = io::parse_config(text, name, base_dir);
    simulation::SimulationOptions options;
    options.output_path = output;
    options.restart_from = restart;
    options.report = report ? &report_ : nullptr;
    options.progress = false;
    options.stop_requested = &stop_requested_;
    {
      py::gil_scoped_release const released;
      simulation_ = std::make_unique<simulation::Simulation>(std::move(config), std::move(options));
    }
    runtime().runs.insert(this);
  }
  ~Run() { runtime().runs.erase(this); }
  Run(Run const&) = delete;
  Run& operator=(Run const&) = delete;

  py::dict advance(std::int64_t last_step)
  {
    auto& s = live();
    simulation::RunResult result;
    {
      py::gil_scoped_release const released;
      result = s.advance(last_step);
    }
    started_ = true;
    ended_ = result.ended;
    return result_dict(result);
  }

  py::dict stop()
  {
    auto& s = live();
    simulation::RunResult result;
    {
      py::gil_scoped_release const released;
      result = s.stop();
    }
    ended_ = ended_ || result.ended;
    return result_dict(result);
  }

  // What the run reported since the last call (summary, stage times).
  std::string take_report()
  {
    std::string const text = report_.str();
    report_.str("");
    return text;
  }

  py::dict plan()
  {
    auto& s = live();
    py::dict d;
    d["dt"] = s.plan().dt;
    d["dt_max"] = s.plan().dt_max;
    d["steps"] = s.plan().steps;
    d["bound_iterations"] = s.plan().bound_iterations;
    d["local_levels"] = s.plan().local_levels;
    d["local_work_ratio"] = s.plan().local_work_ratio;
    d["local_tets_by_level"] = s.plan().local_tets_by_level;
    d["local_current_level"] = s.plan().local_current_level;
    d["local_currents_solved"] = s.plan().local_currents_solved;
    d["output"] = s.output_path();
    d["tets"] = s.problem().mesh.num_tets();
    return d;
  }

  std::int64_t steps_taken() { return live().steps_taken(); }

  // The output file as it stands: NAME.h5.partial, flushed, while the run is paused.
  std::string readable_output()
  {
    auto& s = live();
    if (!started_ || ended_) return s.output_path();
    py::gil_scoped_release const released;
    s.flush();
    return s.output_path() + ".partial";
  }

  // Closes the output (a paused run as a stop would) and frees the fields.
  void close()
  {
    if (!simulation_) return;
    py::gil_scoped_release const released;
    simulation_.reset();
  }

private:
  simulation::Simulation& live()
  {
    if (!simulation_)
      throw Error("dgatd.Simulation", "this run was closed (or Kokkos finalised at exit)",
                  "make a new dgatd.Simulation");
    return *simulation_;
  }

  std::ostringstream report_;
  std::atomic<bool> stop_requested_{false};
  bool started_ = false, ended_ = false;
  std::unique_ptr<simulation::Simulation> simulation_;
};

void finalize()
{
  auto& r = runtime();
  for (Run* run : std::vector<Run*>(r.runs.begin(), r.runs.end())) run->close();
  if (Kokkos::is_initialized() && !r.finalized) Kokkos::finalize();
  r.finalized = true;
}

py::dict load_config(std::string const& path)
{
  auto const config = io::load_config(path);
  py::dict d;
  d["text"] = config.text;
  d["name"] = config.name;
  d["base_dir"] = config.base_dir;
  return d;
}

void check_config(std::string const& text, std::string const& name, std::string const& base_dir)
{
  auto const config = io::parse_config(text, name, base_dir);
  simulation::refuse_unsupported(config, simulation::run_modes(config, false, simulation::steps_on_gpu(config)));
}

py::dict probe(std::string const& path, std::string const& name)
{
  auto const e = io::read_probe(path, name, 'E');
  auto const h = io::read_probe(path, name, 'H');
  py::dict d;
  d["name"] = name;
  d["position"] = py::make_tuple(e.position[0], e.position[1], e.position[2]);
  d["time"] = array_of(e.time);
  d["E"] = array_of(e.values);
  d["H"] = array_of(h.values);
  return d;
}

py::dict energy(std::string const& path)
{
  auto const record = io::read_energy(path);
  py::dict d;
  d["time"] = array_of(record.time);
  d["energy"] = array_of(record.energy);
  return d;
}

py::list ports(std::string const& path)
{
  py::list list;
  for (auto const& port : io::read_ports(path)) {
    py::dict d;
    d["name"] = port.name;
    d["dt"] = port.dt;
    d["incident"] = array_of(port.incident);
    d["voltage"] = array_of(port.voltage);
    d["resistance"] = port.resistance;
    d["current"] = array_of(port.current);
    d["admittance"] = port.admittance;
    d["cutoff"] = port.cutoff;
    list.append(d);
  }
  return list;
}

py::dict s_parameters(std::string const& path, double fmin, double fmax, std::size_t points)
{
  auto const s = io::s_parameters(io::read_ports(path), path, fmin, fmax, points);
  py::array_t<std::complex<double>> columns(
      {static_cast<py::ssize_t>(s.s.size()), static_cast<py::ssize_t>(s.frequency.size())});
  auto* out = columns.mutable_data();
  for (auto const& column : s.s) out = std::copy(column.begin(), column.end(), out);
  py::dict d;
  d["ports"] = s.ports;
  d["frequency"] = array_of(s.frequency);
  d["s"] = columns;
  d["band"] = py::make_tuple(s.band_low, s.band_high);
  d["tail"] = s.tail;
  d["resistance"] = s.resistance;
  d["impedance"] = array_of(s.impedance);
  return d;
}

py::dict sample_dict(io::FarFieldSample const& sample)
{
  py::dict d;
  d["theta"] = sample.theta;
  d["phi"] = sample.phi;
  d["e_theta"] = sample.e_theta;
  d["e_phi"] = sample.e_phi;
  d["directivity"] = sample.directivity;
  d["rcs"] = sample.rcs;
  return d;
}

// Columns theta, phi, directivity, rcs, e_theta, e_phi of a list of samples.
py::dict sample_columns(std::vector<io::FarFieldSample> const& samples)
{
  std::vector<double> theta, phi, directivity, rcs;
  std::vector<std::complex<double>> e_theta, e_phi;
  for (auto const& s : samples) {
    theta.push_back(s.theta);
    phi.push_back(s.phi);
    directivity.push_back(s.directivity);
    rcs.push_back(s.rcs);
    e_theta.push_back(s.e_theta);
    e_phi.push_back(s.e_phi);
  }
  py::dict d;
  d["theta"] = array_of(theta);
  d["phi"] = array_of(phi);
  d["directivity"] = array_of(directivity);
  d["rcs"] = array_of(rcs);
  d["e_theta"] = array_of(e_theta);
  d["e_phi"] = array_of(e_phi);
  return d;
}

// Per surface of the run, per frequency: the pattern on a theta x phi grid and its cuts, with the
// power the lumped ports accepted and had available at that frequency (for gain and realised gain).
py::list far_fields(std::string const& path, double theta_step, double phi_step, std::vector<double> const& cuts)
{
  auto const records = io::require_far_fields(path);
  auto const port_records = io::read_ports(path);
  py::list surfaces;
  for (auto const& record : records) {
    py::list patterns;
    for (auto const& p : io::far_field_patterns(record, theta_step, phi_step, cuts)) {
      py::dict d;
      d["surface"] = p.surface;
      d["frequency"] = p.frequency;
      d["radiated"] = p.radiated;
      d["flux"] = p.flux;
      d["strongest"] = sample_dict(p.strongest);
      d["has_rcs"] = p.has_rcs;
      d["backscatter"] = sample_dict(p.backscatter);
      d["scattering"] = p.scattering;
      d["extinction"] = p.has_extinction ? py::object(py::float_(p.extinction)) : py::object(py::none());
      d["absorption"] = p.has_extinction ? py::object(py::float_(p.absorption)) : py::object(py::none());
      d["grid"] = sample_columns(p.grid);
      py::list cut_list;
      for (auto const& cut : p.cuts) cut_list.append(sample_columns(cut));
      d["cut_phis"] = p.cut_phis;
      d["cuts"] = cut_list;
      auto const power = io::port_power(port_records, p.frequency);
      d["accepted"] = power.accepted;
      d["available"] = power.available;
      patterns.append(d);
    }
    py::dict surface;
    surface["name"] = record.name;
    surface["faces"] = record.areas.size();
    surface["plane_wave"] = record.has_incident;
    surface["patterns"] = patterns;
    surfaces.append(surface);
  }
  return surfaces;
}

py::dict spectrum_dict(io::Spectrum const& spectrum, std::vector<io::Peak> const& peaks)
{
  std::vector<double> frequency, magnitude, relative;
  for (auto const& peak : peaks) {
    frequency.push_back(peak.frequency);
    magnitude.push_back(peak.magnitude);
    relative.push_back(peak.relative);
  }
  py::dict d;
  d["frequency"] = array_of(spectrum.frequency);
  d["magnitude"] = array_of(spectrum.magnitude);
  d["bin_width"] = spectrum.bin_width;
  d["resolution"] = spectrum.resolution;
  py::dict p;
  p["frequency"] = array_of(frequency);
  p["magnitude"] = array_of(magnitude);
  p["relative"] = array_of(relative);
  d["peaks"] = p;
  d["table"] = io::peak_table(spectrum, peaks);
  return d;
}

io::SpectrumOptions spectrum_options(double fmin, std::optional<double> fmax, std::size_t padding)
{
  io::SpectrumOptions options;
  options.fmin = fmin;
  if (fmax) options.fmax = *fmax;
  options.padding = padding;
  return options;
}

io::PeakOptions peak_options(double threshold, std::size_t max_peaks)
{
  io::PeakOptions options;
  options.threshold = threshold;
  options.max_peaks = max_peaks;
  return options;
}

py::dict spectrum(std::vector<double> const& signal, double dt, double fmin, std::optional<double> fmax,
                  std::size_t padding, double threshold, std::size_t max_peaks)
{
  auto const s = io::compute_spectrum(signal, dt, spectrum_options(fmin, fmax, padding));
  return spectrum_dict(s, io::find_peaks(s, peak_options(threshold, max_peaks)));
}

// What `dgatd spectrum` computes for one component of one probe of a run's output.
py::dict probe_spectrum(std::string const& path, std::string const& probe, char field, char component, double fmin,
                        std::optional<double> fmax, std::size_t padding, double threshold, std::size_t max_peaks)
{
  auto const s = io::probe_spectrum(path, probe, field, component, spectrum_options(fmin, fmax, padding),
                                    peak_options(threshold, max_peaks));
  auto d = spectrum_dict(s.spectrum, s.peaks);
  d["dt"] = s.dt;
  d["samples"] = s.samples;
  return d;
}

py::dict mesh(std::string const& path)
{
  auto const record = io::read_mesh(path);
  py::array_t<std::int32_t> tets({static_cast<py::ssize_t>(record.tets.size()), py::ssize_t{4}});
  auto* out = tets.mutable_data();
  for (auto const& tet : record.tets) out = std::copy(tet.begin(), tet.end(), out);
  py::array_t<std::int32_t> region(static_cast<py::ssize_t>(record.region.size()));
  std::copy(record.region.begin(), record.region.end(), region.mutable_data());
  py::dict d;
  d["points"] = array_of(record.points);
  d["tets"] = tets;
  d["region"] = region;
  return d;
}

py::dict snapshot(std::string const& path, std::size_t index)
{
  auto const record = io::read_snapshot(path, index);
  py::dict d;
  d["time"] = record.time;
  d["E"] = array_of(record.e);
  d["H"] = array_of(record.h);
  return d;
}

// Per [[surface_current]] of the run: its faces (corners F x 3 x 3, front normals, areas, sides) and
// per frequency and face its eight transforms (nf x F x 8, complex: J_s and rho_s on the front, then
// the back).
py::list surface_currents(std::string const& path)
{
  py::list surfaces;
  for (auto const& record : io::read_surface_currents(path)) {
    auto const& g = record.geometry;
    auto const faces = static_cast<py::ssize_t>(g.faces());
    py::array_t<double> corners({faces, py::ssize_t{3}, py::ssize_t{3}});
    double* out = corners.mutable_data();
    for (auto const& triangle : g.corners)
      for (auto const& corner : triangle) out = std::copy(corner.begin(), corner.end(), out);
    py::array_t<std::int32_t> sides(faces);
    std::copy(g.sides.begin(), g.sides.end(), sides.mutable_data());
    auto const values = static_cast<py::ssize_t>(solver::surface_values);
    py::array_t<std::complex<double>> transforms({static_cast<py::ssize_t>(record.frequencies.size()), faces, values});
    auto* t = transforms.mutable_data();
    for (auto const& row : record.transforms) t = std::copy(row.begin(), row.end(), t);
    py::dict d;
    d["name"] = record.name;
    d["frequencies"] = array_of(record.frequencies);
    d["corners"] = corners;
    d["normals"] = array_of(g.normals);
    d["areas"] = array_of(g.areas);
    d["sides"] = sides;
    d["transforms"] = transforms;
    surfaces.append(d);
  }
  return surfaces;
}

} // namespace
} // namespace dgatd::python

PYBIND11_MODULE(_dgatd, m)
{
  using namespace dgatd::python;
  m.doc() = "dgatd's compiled core; use the package dgatd";
  m.attr("__version__") = dgatd::version_string;
  // dgatd's one-line errors (file, item, fix) keep their words in Python.
  static py::exception<dgatd::Error> const error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (dgatd::Error const& e) {
      PyErr_SetString(error.ptr(), e.what());
    } catch (dgatd::parallel::CollectiveError const& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });

  m.def("initialize", &initialize, py::arg("threads") = std::nullopt, py::arg("device") = std::nullopt);
  m.def("finalize", &finalize);
  m.def("backend", &backend);
  m.def("load_config", &load_config, py::arg("path"));
  m.def("check_config", &check_config, py::arg("text"), py::arg("name"), py::arg("base_dir"));

  py::class_<Run>(m, "Run")
      .def(py::init<std::string const&, std::string const&, std::string const&, std::string const&, std::string const&,
                    bool>(),
           py::arg("text"), py::arg("name"), py::arg("base_dir"), py::arg("output"), py::arg("restart"),
           py::arg("report"))
      .def("advance", &Run::advance, py::arg("last_step"))
      .def("stop", &Run::stop)
      .def("take_report", &Run::take_report)
      .def("plan", &Run::plan)
      .def("steps_taken", &Run::steps_taken)
      .def("readable_output", &Run::readable_output)
      .def("close", &Run::close);

  m.def("probe_names", &dgatd::io::probe_names, py::arg("path"));
  m.def("probe", &probe, py::arg("path"), py::arg("name"));
  m.def("energy", &energy, py::arg("path"));
  m.def("ports", &ports, py::arg("path"));
  m.def("s_parameters", &s_parameters, py::arg("path"), py::arg("fmin"), py::arg("fmax"), py::arg("points"));
  m.def("far_fields", &far_fields, py::arg("path"), py::arg("theta_step"), py::arg("phi_step"), py::arg("cuts"));
  m.def("spectrum", &spectrum, py::arg("signal"), py::arg("dt"), py::arg("fmin"), py::arg("fmax"), py::arg("padding"),
        py::arg("threshold"), py::arg("max_peaks"));
  m.def("probe_spectrum", &probe_spectrum, py::arg("path"), py::arg("probe"), py::arg("field"), py::arg("component"),
        py::arg("fmin"), py::arg("fmax"), py::arg("padding"), py::arg("threshold"), py::arg("max_peaks"));
  m.def("mesh", &mesh, py::arg("path"));
  m.def("snapshot_count", &dgatd::io::snapshot_count, py::arg("path"));
  m.def("surface_currents", &surface_currents, py::arg("path"));
  m.def("snapshot", &snapshot, py::arg("path"), py::arg("index"));
}
