#pragma once
// Ownership of HDF5 C API identifiers, so every early return and exception closes what was opened,
// and a guard that silences HDF5's own error-stack printing where dgatd reports the failure itself
// as one line; the writing and reading helpers the output, checkpoint and results files share.

#include "dgatd/error.hpp"
#include "dgatd/mesh/mesh.hpp"

#include <hdf5.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace dgatd::io::hdf5 {

class Handle {
public:
  using Closer = herr_t (*)(hid_t);

  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Handle(Handle const&) = delete;
  Handle& operator=(Handle const&) = delete;
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(other.closer_) {}
  Handle& operator=(Handle&& other) noexcept
  {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      closer_ = other.closer_;
    }
    return *this;
  }
  ~Handle() { reset(); }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  // Closes now; returns false when HDF5 reports a failure (e.g. the final flush of a file).
  bool reset()
  {
    bool ok = true;
    if (id_ >= 0 && closer_) ok = closer_(id_) >= 0;
    id_ = H5I_INVALID_HID;
    return ok;
  }

private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

class QuietErrors {
public:
  QuietErrors()
  {
    H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  QuietErrors(QuietErrors const&) = delete;
  QuietErrors& operator=(QuietErrors const&) = delete;
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }

private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

// Rows buffered per flush: 4096 steps of a probe are 2 x 96 kB, small next to the fields, and a
// 100k-step run then touches the file only a few dozen times.
constexpr hsize_t rows_per_flush = 4096;

// Every failure is a dgatd::Error naming the file.
class Writer {
public:
  explicit Writer(std::string path) : path_(std::move(path)) {}

  hid_t check(hid_t id, char const* what) const
  {
    if (id < 0) fail(what);
    return id;
  }
  void check(herr_t status, char const* what) const
  {
    if (status < 0) fail(what);
  }
  [[noreturn]] void fail(std::string const& what) const
  {
    throw Error(path_, "HDF5 could not " + what, "check the free disk space and the permissions of the directory");
  }

  Handle group(hid_t parent, std::string const& name) const
  {
    return {check(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "create a group"), H5Gclose};
  }

  void attribute(hid_t object, char const* name, hid_t type, void const* value) const
  {
    Handle const space(check(H5Screate(H5S_SCALAR), "create a dataspace"), H5Sclose);
    Handle const attr(
        check(H5Acreate2(object, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), "create an attribute"), H5Aclose);
    check(H5Awrite(attr.get(), type, value), "write an attribute");
  }
  void attribute(hid_t object, char const* name, double value) const
  {
    attribute(object, name, H5T_NATIVE_DOUBLE, &value);
  }
  void attribute(hid_t object, char const* name, std::int64_t value) const
  {
    attribute(object, name, H5T_NATIVE_INT64, &value);
  }
  void attribute(hid_t object, char const* name, std::string const& value) const
  {
    // Fixed-length (at least one byte, HDF5 refuses size 0) reads back as plain bytes everywhere.
    Handle const type(check(H5Tcopy(H5T_C_S1), "create a string type"), H5Tclose);
    check(H5Tset_size(type.get(), value.empty() ? 1 : value.size()), "size a string type");
    check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "pad a string type");
    std::string const padded = value.empty() ? std::string(1, '\0') : value;
    attribute(object, name, type.get(), padded.data());
  }
  void attribute(hid_t object, char const* name, std::array<double, 3> const& value) const
  {
    hsize_t const dims[1] = {3};
    Handle const space(check(H5Screate_simple(1, dims, nullptr), "create a dataspace"), H5Sclose);
    Handle const attr(check(H5Acreate2(object, name, H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                            "create an attribute"),
                      H5Aclose);
    check(H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, value.data()), "write an attribute");
  }

  // A fixed-size rows x cols (cols == 0: one-dimensional) dataset written at once.
  void dataset(hid_t parent, char const* name, hid_t file_type, hid_t memory_type, hsize_t rows, hsize_t cols,
               void const* data) const
  {
    hsize_t const dims[2] = {rows, cols};
    Handle const space(check(H5Screate_simple(cols ? 2 : 1, dims, nullptr), "create a dataspace"), H5Sclose);
    Handle const set(check(H5Dcreate2(parent, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                           "create a dataset"),
                     H5Dclose);
    if (rows > 0) check(H5Dwrite(set.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "write a dataset");
  }

  // An empty dataset of double rows (cols == 0: one-dimensional) that grows along its first axis.
  Handle extendible(hid_t parent, char const* name, hsize_t cols) const
  {
    int const rank = cols ? 2 : 1;
    hsize_t const dims[2] = {0, cols};
    hsize_t const max_dims[2] = {H5S_UNLIMITED, cols};
    hsize_t const chunk[2] = {rows_per_flush, cols};
    Handle const space(check(H5Screate_simple(rank, dims, max_dims), "create a dataspace"), H5Sclose);
    Handle const properties(check(H5Pcreate(H5P_DATASET_CREATE), "create dataset properties"), H5Pclose);
    check(H5Pset_chunk(properties.get(), rank, chunk), "set a chunk size");
    return {check(H5Dcreate2(parent, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, properties.get(), H5P_DEFAULT),
                  "create a dataset"),
            H5Dclose};
  }

  // Appends rows (each of cols doubles, cols == 0 for one-dimensional) after the first `offset`.
  void append(Handle const& set, hsize_t offset, std::vector<double> const& values, hsize_t cols) const
  {
    hsize_t const width = cols ? cols : 1;
    hsize_t const rows = values.size() / width;
    if (rows == 0) return;
    int const rank = cols ? 2 : 1;
    hsize_t const new_dims[2] = {offset + rows, cols};
    check(H5Dset_extent(set.get(), new_dims), "extend a dataset");
    Handle const file_space(check(H5Dget_space(set.get()), "get a dataspace"), H5Sclose);
    hsize_t const start[2] = {offset, 0};
    hsize_t const count[2] = {rows, cols};
    check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), "select rows");
    Handle const memory_space(check(H5Screate_simple(rank, count, nullptr), "create a dataspace"), H5Sclose);
    check(H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), H5P_DEFAULT, values.data()),
          "append rows");
  }

private:
  std::string path_;
};

// Reading counterparts: a missing or misshaped object is a dgatd::Error naming the file.
// A dataset of rows x cols values of T (double or std::int32_t; cols == 0: one-dimensional).
template <class T>
std::vector<T> read_rows(hid_t parent, std::string const& name, hsize_t cols, std::string const& path, hsize_t& rows)
{
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, std::int32_t>, "double or int32 datasets");
  hid_t const memory_type = std::is_same_v<T, double> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT32;
  Handle const set(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!set.valid()) throw Error(path, "has no dataset " + name, "give the file dgatd wrote");
  Handle const space(H5Dget_space(set.get()), H5Sclose);
  int const rank = H5Sget_simple_extent_ndims(space.get());
  hsize_t dims[2] = {0, 0};
  if (rank != (cols ? 2 : 1) || H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0 || (cols && dims[1] != cols))
    throw Error(path, "dataset " + name + " has an unexpected shape", "give the file dgatd wrote");
  rows = dims[0];
  std::vector<T> values(rows * (cols ? cols : 1));
  if (!values.empty() && H5Dread(set.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    throw Error(path, "cannot read " + name, "the file may be damaged");
  return values;
}

// Rows of N values of T from a flat dataset read by read_rows.
template <class T, std::size_t N>
std::vector<std::array<T, N>> rows_of(std::vector<std::int32_t> const& flat)
{
  std::vector<std::array<T, N>> rows(flat.size() / N);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < N; ++j) rows[i][j] = static_cast<T>(flat[N * i + j]);
  return rows;
}

// A new file at path (replacing one there) in the HDF5 1.8 format, which stores attributes above
// 64 kB (a long config text) densely; `what` names the file in the message when it cannot.
inline Handle create_file(std::string const& path, std::string const& what)
{
  Writer const writer(path);
  Handle const access(writer.check(H5Pcreate(H5P_FILE_ACCESS), "create file properties"), H5Pclose);
  writer.check(H5Pset_libver_bounds(access.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST), "set the file format");
  hid_t const file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get());
  if (file < 0) throw Error(path, "cannot create " + what, "check that the directory exists and is writable");
  return {file, H5Fclose};
}

// Writes a new file at path through fill(writer, root) beside it (path.partial) and renames it into
// place, so that no reader finds half a file and an earlier file at path stays intact on a failure.
template <class Fill>
void write_atomically(std::string const& path, std::string const& what, Fill&& fill)
{
  std::string const partial = path + ".partial";
  Writer const writer(partial);
  {
    QuietErrors const quiet;
    Handle file = create_file(partial, what);
    fill(writer, file.get());
    writer.check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), ("flush " + what).c_str());
    if (!file.reset()) writer.fail("close " + what);
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) {
    std::filesystem::remove(partial, error);
    throw Error(path, "cannot rename " + what + " into place", "check the permissions of the directory");
  }
}

inline bool read_attribute(hid_t object, char const* name, hid_t type, void* value)
{
  if (H5Aexists(object, name) <= 0) return false;
  Handle const attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  return attr.valid() && H5Aread(attr.get(), type, value) >= 0;
}

inline bool read_attribute(hid_t object, char const* name, std::string& value)
{
  if (H5Aexists(object, name) <= 0) return false;
  Handle const attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  if (!attr.valid()) return false;
  Handle const type(H5Aget_type(attr.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_STRING) return false;
  value.assign(H5Tget_size(type.get()), '\0');
  if (H5Aread(attr.get(), type.get(), value.data()) < 0) return false;
  value.resize(value.find('\0') == std::string::npos ? value.size() : value.find('\0'));
  return true;
}

// A mesh's physical groups in parent: datasets group_dims and group_tags, and their names one per line
// in the attribute group_names.
inline void write_groups(Writer const& writer, hid_t parent, std::vector<mesh::PhysicalGroup> const& groups)
{
  std::vector<std::int32_t> dims, tags;
  std::string names;
  for (auto const& g : groups) {
    dims.push_back(g.dim);
    tags.push_back(g.tag);
    names += g.name + "\n";
  }
  writer.dataset(parent, "group_dims", H5T_STD_I32LE, H5T_NATIVE_INT32, dims.size(), 0, dims.data());
  writer.dataset(parent, "group_tags", H5T_STD_I32LE, H5T_NATIVE_INT32, tags.size(), 0, tags.data());
  writer.attribute(parent, "group_names", names);
}

inline std::vector<mesh::PhysicalGroup> read_groups(hid_t parent, std::string const& path)
{
  hsize_t rows = 0;
  auto const dims = read_rows<std::int32_t>(parent, "group_dims", 0, path, rows);
  auto const tags = read_rows<std::int32_t>(parent, "group_tags", 0, path, rows);
  std::string names;
  if (dims.size() != tags.size() || !read_attribute(parent, "group_names", names))
    throw Error(path, "its physical groups are incomplete", "the file may be damaged");
  std::istringstream lines(names);
  std::vector<mesh::PhysicalGroup> groups(dims.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    groups[g].dim = dims[g];
    groups[g].tag = tags[g];
    std::getline(lines, groups[g].name);
  }
  return groups;
}

} // namespace dgatd::io::hdf5
