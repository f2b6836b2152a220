#pragma once
// Text for XML attributes and character data (the XDMF beside an output, the SVG plots).

#include <string>

namespace dgatd::io {

inline std::string xml_escape(std::string const& text)
{
  std::string escaped;
  for (char const c : text) {
    switch (c) {
    case '&':
      escaped += "&amp;";
      break;
    case '<':
      escaped += "&lt;";
      break;
    case '>':
      escaped += "&gt;";
      break;
    case '"':
      escaped += "&quot;";
      break;
    default:
      escaped += c;
    }
  }
  return escaped;
}

} // namespace dgatd::io
