#pragma once
// Errors at the boundary (input files, meshes, configuration): what, where and how to fix it.
// They are caught once in main and printed as one line.

#include <stdexcept>
#include <string>

namespace dgatd {

class Error : public std::runtime_error {
public:
  // where: the file (and line or item) at fault; what: the problem; fix: what the user should do.
  Error(std::string const& where, std::string const& what, std::string const& fix)
      : std::runtime_error(where + ": " + what + (fix.empty() ? "" : " (fix: " + fix + ")"))
  {
  }
};

} // namespace dgatd
