// The run's HDF5 file and its XDMF description: contents read back with the HDF5 C API, the
// .partial life cycle, and (when ParaView is installed) that ParaView opens the .xdmf.
#include "dgatd/error.hpp"
#include "dgatd/io/analysis/results.hpp"
#include "dgatd/io/output/hdf5_writer.hpp"
#include "io/hdf5_handle.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using dgatd::Vec3;
using dgatd::io::Hdf5Writer;
using dgatd::io::ProbeSample;
using dgatd::io::hdf5::Handle;

class Output : public ::testing::Test {
protected:
  void SetUp() override
  {
    auto const* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("dgatd_test_output_" + std::to_string(::getpid()) + "_" + test->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string file(std::string const& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

dgatd::io::RunAttributes attributes()
{
  dgatd::io::RunAttributes a;
  a.config_text = "[mesh]\nfile = \"two.msh\"\n";
  a.dt = 1e-12;
  a.dt_max = 1.1e-12;
  a.num_vertices = 5;
  a.num_edges = 9;
  a.num_faces = 7;
  a.num_tets = 2;
  a.formulation = "fractioned";
  a.backend = "Serial";
  return a;
}

// Two tets sharing the face (1, 2, 3).
std::vector<Vec3> const points{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
std::vector<std::array<std::int32_t, 4>> const tets{{0, 1, 2, 3}, {1, 2, 3, 4}};
std::vector<std::int32_t> const region{1, 2};

ProbeSample sample(double time, double scale) { return {{time, scale, -time}, {2 * time, -scale, 3 * time}}; }

std::vector<double> read_doubles(hid_t file, char const* name, std::vector<hsize_t>& dims)
{
  Handle const set(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
  EXPECT_TRUE(set.valid()) << name;
  if (!set.valid()) return {};
  Handle const space(H5Dget_space(set.get()), H5Sclose);
  dims.assign(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space.get())), 0);
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  hsize_t size = 1;
  for (auto d : dims) size *= d;
  std::vector<double> values(size);
  if (size) H5Dread(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  return values;
}

std::vector<std::int32_t> read_ints(hid_t file, char const* name, std::vector<hsize_t>& dims)
{
  Handle const set(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
  Handle const space(H5Dget_space(set.get()), H5Sclose);
  dims.assign(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space.get())), 0);
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  hsize_t size = 1;
  for (auto d : dims) size *= d;
  std::vector<std::int32_t> values(size);
  H5Dread(set.get(), H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  return values;
}

template <class T>
T read_attribute(hid_t object, char const* path, char const* name, hid_t type)
{
  T value{};
  Handle const attr(H5Aopen_by_name(object, path, name, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  EXPECT_TRUE(attr.valid()) << path << " " << name;
  if (attr.valid()) H5Aread(attr.get(), type, &value);
  return value;
}

std::string read_string_attribute(hid_t object, char const* name)
{
  Handle const attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  Handle const type(H5Aget_type(attr.get()), H5Tclose);
  std::string value(H5Tget_size(type.get()), '\0');
  H5Aread(attr.get(), type.get(), value.data());
  return value.substr(0, value.find('\0'));
}

std::string read_text(std::string const& path)
{
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t count(std::string const& text, std::string const& part)
{
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST_F(Output, WritesEverythingAndReadsBack)
{
  std::string const path = file("run.h5");
  // More steps than one buffer holds, so rows are appended in several flushes.
  constexpr int steps = 5000;
  {
    Hdf5Writer out(path, attributes());
    EXPECT_TRUE(fs::exists(path + ".partial"));
    EXPECT_FALSE(fs::exists(path));
    out.write_mesh(points, tets, region);
    EXPECT_EQ(out.add_probe("p1", {0.25, 0.25, 0.25}), 0u);
    EXPECT_EQ(out.add_probe("p2", {0.5, 0.5, 0.5}), 1u);
    for (int n = 1; n <= steps; ++n) {
      double const t = n * 1e-12;
      out.append_step(t, {sample(t, 1.0), sample(t, -2.0)});
      if (n % 1000 == 0) out.append_energy(t, 0.5 * n);
      if (n == 10 || n == 20)
        out.write_snapshot(t, {{n + 0.0, 1, 2}, {3, 4, n + 0.0}}, {{-1, -2, -3}, {-4, -5, -6.0 * n}});
    }
    EXPECT_EQ(out.steps(), steps);
    out.close(true);
    EXPECT_EQ(out.path(), path);
  }
  EXPECT_TRUE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".partial"));

  Handle const h5(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  ASSERT_TRUE(h5.valid());
  hid_t const f = h5.get();
  EXPECT_EQ(read_string_attribute(f, "config"), attributes().config_text);
  EXPECT_EQ(read_string_attribute(f, "formulation"), "fractioned");
  EXPECT_EQ(read_string_attribute(f, "backend"), "Serial");
  EXPECT_FALSE(read_string_attribute(f, "dgatd_version").empty());
  EXPECT_DOUBLE_EQ(read_attribute<double>(f, "/", "dt", H5T_NATIVE_DOUBLE), 1e-12);
  EXPECT_DOUBLE_EQ(read_attribute<double>(f, "/", "dt_max", H5T_NATIVE_DOUBLE), 1.1e-12);
  EXPECT_EQ(read_attribute<std::int64_t>(f, "/", "num_vertices", H5T_NATIVE_INT64), 5);
  EXPECT_EQ(read_attribute<std::int64_t>(f, "/", "num_edges", H5T_NATIVE_INT64), 9);
  EXPECT_EQ(read_attribute<std::int64_t>(f, "/", "num_faces", H5T_NATIVE_INT64), 7);
  EXPECT_EQ(read_attribute<std::int64_t>(f, "/", "num_tets", H5T_NATIVE_INT64), 2);
  EXPECT_EQ(read_attribute<std::int64_t>(f, "/", "steps", H5T_NATIVE_INT64), steps);
  EXPECT_EQ(read_attribute<std::int64_t>(f, "/", "complete", H5T_NATIVE_INT64), 1);

  std::vector<hsize_t> dims;
  auto const xyz = read_doubles(f, "/mesh/points", dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{5, 3}));
  EXPECT_DOUBLE_EQ(xyz[3 * 4 + 2], 1.0);
  auto const ids = read_ints(f, "/mesh/tets", dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{2, 4}));
  EXPECT_EQ(ids, (std::vector<std::int32_t>{0, 1, 2, 3, 1, 2, 3, 4}));
  EXPECT_EQ(read_ints(f, "/mesh/region", dims), region);
  EXPECT_EQ(dims, (std::vector<hsize_t>{2}));

  auto const time = read_doubles(f, "/time", dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{steps}));
  EXPECT_DOUBLE_EQ(time[0], 1e-12);
  EXPECT_DOUBLE_EQ(time[steps - 1], steps * 1e-12);
  auto const energy = read_doubles(f, "/energy", dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{5}));
  EXPECT_DOUBLE_EQ(energy[4], 2500.0);
  auto const energy_time = read_doubles(f, "/energy_time", dims);
  EXPECT_DOUBLE_EQ(energy_time[0], 1000e-12);

  auto const e2 = read_doubles(f, "/probes/p2/E", dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{steps, 3}));
  for (int n : {1, 4096, 4097, steps}) { // either side of a flush boundary
    double const t = n * 1e-12;
    auto const row = static_cast<std::size_t>(3 * (n - 1));
    EXPECT_DOUBLE_EQ(e2[row], t);
    EXPECT_DOUBLE_EQ(e2[row + 1], -2.0);
    EXPECT_DOUBLE_EQ(e2[row + 2], -t);
  }
  auto const h1 = read_doubles(f, "/probes/p1/H", dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{steps, 3}));
  EXPECT_DOUBLE_EQ(h1[3 * 4999 + 2], 3 * 5000e-12);
  auto const position = read_attribute<Vec3>(f, "/probes/p2", "position", H5T_NATIVE_DOUBLE);
  EXPECT_EQ(position, (Vec3{0.5, 0.5, 0.5}));

  auto const snapshot_e = read_doubles(f, "/snapshots/1/E", dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{2, 3}));
  EXPECT_EQ(snapshot_e, (std::vector<double>{20, 1, 2, 3, 4, 20}));
  auto const snapshot_h = read_doubles(f, "/snapshots/0/H", dims);
  EXPECT_DOUBLE_EQ(snapshot_h[5], -60.0);
  EXPECT_DOUBLE_EQ(read_attribute<double>(f, "/snapshots/1", "time", H5T_NATIVE_DOUBLE), 20e-12);

  // The reader dgatd spectrum uses sees the same series.
  auto const record = dgatd::io::read_probe(path, "p1", 'H');
  ASSERT_EQ(record.values.size(), static_cast<std::size_t>(steps));
  EXPECT_DOUBLE_EQ(record.values[9][1], -1.0);
  EXPECT_EQ(dgatd::io::probe_names(path), (std::vector<std::string>{"p1", "p2"}));
}

TEST_F(Output, XdmfDescribesMeshAndSnapshots)
{
  std::string const path = file("cavity.h5");
  {
    Hdf5Writer out(path, attributes());
    out.write_mesh(points, tets, region);
    out.write_snapshot(1e-12, {{1, 0, 0}, {0, 1, 0}}, {{0, 0, 1}, {1, 1, 1}});
    out.write_snapshot(2e-12, {{2, 0, 0}, {0, 2, 0}}, {{0, 0, 2}, {2, 2, 2}});
    out.close(true);
    EXPECT_EQ(out.xdmf_path(), file("cavity.xdmf"));
  }
  std::string const xdmf = read_text(file("cavity.xdmf"));
  EXPECT_FALSE(fs::exists(file("cavity.xdmf.partial")));
  EXPECT_EQ(count(xdmf, "CollectionType=\"Temporal\""), 1u);
  EXPECT_EQ(count(xdmf, "<Time Value="), 2u);
  EXPECT_EQ(count(xdmf, "TopologyType=\"Tetrahedron\" NumberOfElements=\"2\""), 2u);
  EXPECT_EQ(count(xdmf, "Dimensions=\"2 4\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">cavity.h5:/mesh/tets<"),
            2u);
  EXPECT_EQ(
      count(xdmf, "Dimensions=\"5 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">cavity.h5:/mesh/points<"),
      2u);
  EXPECT_EQ(count(xdmf, "Dimensions=\"2\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">cavity.h5:/mesh/region<"),
            2u);
  for (char const* set : {"/snapshots/0/E", "/snapshots/0/H", "/snapshots/1/E", "/snapshots/1/H"})
    EXPECT_EQ(count(xdmf, std::string("Dimensions=\"2 3\" NumberType=\"Float\" Precision=\"8\" "
                                      "Format=\"HDF\">cavity.h5:") +
                              set + "<"),
              1u)
        << set;
  EXPECT_EQ(count(xdmf, "AttributeType=\"Vector\" Center=\"Cell\""), 4u);

  std::string const script = file("check.py");
  std::ofstream(script) << "import sys\n"
                           "from paraview import servermanager\n"
                           "from paraview.simple import OpenDataFile\n"
                           "reader = OpenDataFile(sys.argv[1])\n"
                           "reader.UpdatePipeline(2e-12)\n"
                           "grid = servermanager.Fetch(reader)\n"
                           "if grid.IsA('vtkMultiBlockDataSet'):\n"
                           "    grid = grid.GetBlock(0)\n"
                           "cells = grid.GetNumberOfCells()\n"
                           "e = grid.GetCellData().GetArray('E')\n"
                           "ok = cells == 2 and e is not None and e.GetNumberOfTuples() == 2 and "
                           "e.GetNumberOfComponents() == 3\n"
                           "print('cells', cells, 'E', None if e is None else e.GetNumberOfTuples())\n"
                           "sys.exit(0 if ok else 1)\n";
  if (std::system("command -v pvpython >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "pvpython not available: ParaView check skipped";
  }
  EXPECT_EQ(std::system(("pvpython " + script + " " + file("cavity.xdmf")).c_str()), 0);
}

TEST_F(Output, XdmfWithoutSnapshotsStillHasTheMesh)
{
  std::string const path = file("mesh_only.h5");
  {
    Hdf5Writer out(path, attributes());
    out.write_mesh(points, tets, region);
    out.close(true);
  }
  std::string const xdmf = read_text(file("mesh_only.xdmf"));
  EXPECT_EQ(count(xdmf, "Temporal"), 0u);
  EXPECT_EQ(count(xdmf, "<Grid Name=\"mesh\" GridType=\"Uniform\">"), 1u);
  EXPECT_EQ(count(xdmf, "mesh_only.h5:/mesh/region<"), 1u);
}

TEST_F(Output, InterruptedRunIsMarkedIncomplete)
{
  std::string const path = file("interrupted.h5");
  {
    Hdf5Writer out(path, attributes());
    out.add_probe("p", {0, 0, 0});
    for (int n = 1; n <= 3; ++n) out.append_step(n * 1e-12, {sample(n, 1)});
    out.close(false);
  }
  Handle const h5(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  ASSERT_TRUE(h5.valid());
  EXPECT_EQ(read_attribute<std::int64_t>(h5.get(), "/", "complete", H5T_NATIVE_INT64), 0);
  EXPECT_EQ(read_attribute<std::int64_t>(h5.get(), "/", "steps", H5T_NATIVE_INT64), 3);
  // No mesh was written, so there is nothing for ParaView to show.
  EXPECT_FALSE(fs::exists(file("interrupted.xdmf")));
}

TEST_F(Output, DestructorWithoutCloseLeavesNothing)
{
  std::string const path = file("failed.h5");
  {
    Hdf5Writer out(path, attributes());
    out.write_mesh(points, tets, region);
    out.add_probe("p", {0, 0, 0});
    out.append_step(1e-12, {sample(1, 1)});
    EXPECT_TRUE(fs::exists(out.partial_path()));
  }
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(Output, MissingDirectoryIsReportedBeforeTheRun)
{
  std::string const path = file("no_such_dir/run.h5");
  try {
    dgatd::io::require_writable_output(path);
    ADD_FAILURE() << "no error for a missing directory";
  } catch (dgatd::Error const& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(dgatd::io::require_writable_output(file("run.h5")));
  EXPECT_THROW(dgatd::io::require_writable_output(dir_.string()), dgatd::Error);
}

TEST_F(Output, ReaderErrorsNameTheProblem)
{
  std::string const path = file("run.h5");
  {
    Hdf5Writer out(path, attributes());
    out.add_probe("alpha", {0, 0, 0});
    out.add_probe("beta", {0, 0, 0});
    out.close(true);
  }
  auto message = [](auto&& call) {
    try {
      call();
    } catch (dgatd::Error const& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] { dgatd::io::read_probe(path, "gamma", 'E'); }).find("available probes: alpha, beta"),
            std::string::npos);
  EXPECT_NE(message([&] { dgatd::io::read_probe(file("absent.h5"), "alpha", 'E'); }).find("no such file"),
            std::string::npos);
  std::ofstream(file("text.h5")) << "not hdf5\n";
  EXPECT_NE(message([&] { dgatd::io::read_probe(file("text.h5"), "alpha", 'E'); }).find("not an HDF5 file"),
            std::string::npos);
}

} // namespace
