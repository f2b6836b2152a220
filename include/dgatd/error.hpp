#pragma once
// Errors at the boundary (input files, meshes, configuration): what, where and how to fix it.
// They are caught once in main and printed as one line.

#include <sstream>
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

// A number in a message as the user would write it: up to 15 significant digits, so the value a
// user typed reads back unchanged.
inline std::string format_number(double value)
{
  std::ostringstream out;
  out.precision(15);
  out << value;
  return out.str();
}

} // namespace dgatd
