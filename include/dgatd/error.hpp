#pragma once
// Errors at the boundary (input files, meshes, configuration): what, where and how to fix it.
// They are caught once in main and printed as one line.

#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>

namespace dgatd {

class Error : public std::runtime_error {
public:
  // where: the file (and line or item) at fault; what: the problem; fix: what the user should do.
  Error(std::string const& where, std::string const& what, std::string const& fix)
      : std::runtime_error(printable(where + ": " + what + (fix.empty() ? "" : " (fix: " + fix + ")")))
  {
  }

private:
  // Messages quote what the user wrote (keys, names, values, the offending source line), and a file
  // may hold any byte there: control characters other than a tab are written as escapes (\n, \r,
  // \x1b), so the message stays one line and cannot move the terminal's cursor.
  static std::string printable(std::string const& text)
  {
    std::string result;
    result.reserve(text.size());
    for (char const c : text) {
      auto const byte = static_cast<unsigned char>(c);
      if ((byte >= 0x20 && byte != 0x7f) || c == '\t') {
        result += c;
      } else if (c == '\n') {
        result += "\\n";
      } else if (c == '\r') {
        result += "\\r";
      } else {
        char escape[5];
        std::snprintf(escape, sizeof escape, "\\x%02x", static_cast<unsigned>(byte));
        result += escape;
      }
    }
    return result;
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
