#pragma once
// A fresh directory under the system temporary directory for one test, removed with the object.

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <unistd.h>

namespace dgatd::testing {

class ScratchDirectory {
public:
  // tag names the test in the directory name; pid and clock keep concurrent runs apart.
  explicit ScratchDirectory(std::string const& tag)
      : path_(std::filesystem::temp_directory_path() /
              ("dgatd_" + tag + "_" + std::to_string(::getpid()) + "_" +
               std::to_string(std::chrono::steady_clock::now().time_since_epoch().count())))
  {
    std::filesystem::create_directories(path_);
  }
  // DGATD_KEEP_SCRATCH set: the directory stays, for comparing a test's outputs across versions
  // (scripts/compare_outputs.py --by-name).
  ~ScratchDirectory()
  {
    if (std::getenv("DGATD_KEEP_SCRATCH")) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(ScratchDirectory const&) = delete;
  ScratchDirectory& operator=(ScratchDirectory const&) = delete;

  std::filesystem::path const& path() const { return path_; }
  std::string file(std::string const& name) const { return (path_ / name).string(); }
  std::string write(std::string const& name, std::string const& text) const
  {
    std::ofstream(file(name), std::ios::binary) << text;
    return file(name);
  }

private:
  std::filesystem::path path_;
};

} // namespace dgatd::testing
