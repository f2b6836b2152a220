#pragma once
// A text file written whole or not at all: beside its place (path.partial) and renamed into it, so
// that a reader never finds half of it and an earlier file there stays intact on a failure.

#include "dgatd/error.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace dgatd::io {

// what names the file in messages ("the XDMF file").
inline void write_text_atomically(std::string const& target, std::string const& text, std::string const& what)
{
  std::string const temporary = target + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw Error(temporary, "cannot write " + what, "check the free disk space");
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, target, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    throw Error(target, "cannot rename " + what + " into place", "check the permissions of the directory");
  }
}

} // namespace dgatd::io
