#include "config_guard.hpp"

#include "dgatd/error.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace dgatd::io::detail {

namespace {

constexpr std::size_t kMaxLineBytes = 4096;
constexpr int kMaxNesting = 32;     // arrays and inline tables inside each other
constexpr int kMaxDotsPerLine = 64; // dotted keys and numbers on one line

// The byte at text[i], 0 past the end. (Named functions rather than lambdas here and below: nvcc's
// front end turns these lambdas into local typedefs that the host compiler then warns are unused.)
unsigned byte_at(std::string const& text, std::size_t i)
{
  return i < text.size() ? static_cast<unsigned char>(text[i]) : 0u;
}

bool continuation_at(std::string const& text, std::size_t i, unsigned low = 0x80, unsigned high = 0xbf)
{
  return byte_at(text, i) >= low && byte_at(text, i) <= high;
}

// The length of the UTF-8 sequence at text[i] (RFC 3629, as TOML requires), 0 when it is invalid.
std::size_t utf8_length(std::string const& text, std::size_t i)
{
  unsigned const lead = byte_at(text, i);
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return continuation_at(text, i + 1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    unsigned const low = lead == 0xe0 ? 0xa0 : 0x80, high = lead == 0xed ? 0x9f : 0xbf;
    return continuation_at(text, i + 1, low, high) && continuation_at(text, i + 2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    unsigned const low = lead == 0xf0 ? 0x90 : 0x80, high = lead == 0xf4 ? 0x8f : 0xbf;
    return continuation_at(text, i + 1, low, high) && continuation_at(text, i + 2) && continuation_at(text, i + 3) ? 4
                                                                                                                   : 0;
  }
  return 0;
}

// "file:line" for a message about the line a scan of the configuration has reached.
std::string at_line(std::string const& name, int line) { return name + ":" + std::to_string(line); }

} // namespace

void check_before_parsing(std::string const& text, std::string const& name)
{
  if (text.size() > kMaxConfigBytes)
    throw Error(name,
                "is larger than " + std::to_string(kMaxConfigBytes / (1024 * 1024)) +
                    " MiB, far more than a configuration",
                "check that this is the configuration file (see inputs/*.toml)");
  int line = 1;
  for (std::size_t i = 0, line_start = 0; i < text.size();) {
    std::size_t const length = utf8_length(text, i);
    if (length == 0) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(text[i])));
      throw Error(at_line(name, line), std::string("byte ") + byte + " is not valid UTF-8, which TOML requires",
                  "save the file as UTF-8");
    }
    if (i - line_start >= kMaxLineBytes)
      throw Error(at_line(name, line), "the line is longer than " + std::to_string(kMaxLineBytes) + " bytes",
                  "break long arrays over several lines");
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
    i += length;
  }

  // Valid UTF-8 has no byte below 0x80 inside a multi-byte character, so the scan goes by bytes.
  // The dots are counted per line: dots_line is the line they were counted on.
  line = 1;
  int depth = 0, dots = 0, dots_line = 1;
  std::size_t i = 0;
  while (i < text.size()) {
    char const c = text[i];
    if (c == '"' || c == '\'') {
      std::string const triple(3, c);
      bool const multi_line = text.compare(i, 3, triple) == 0;
      i += multi_line ? 3 : 1;
      while (i < text.size()) {
        if (text[i] == '\\' && c == '"') { // an escape: the next character cannot close the string
          ++i;
          if (i < text.size() && text[i] == '\n') ++line;
          ++i;
        } else if (text[i] == '\n') {
          if (!multi_line) break; // unterminated: toml11 reports it
          ++line;
          ++i;
        } else if (multi_line ? text.compare(i, 3, triple) == 0 : text[i] == c) {
          i += multi_line ? 3 : 1;
          // Up to two quotes right before the closing three belong to the string.
          for (int extra = 0; multi_line && extra < 2 && i < text.size() && text[i] == c; ++extra) ++i;
          break;
        } else {
          ++i;
        }
      }
      continue;
    }
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == '\n') ++line;
    if ((c == '[' || c == '{') && ++depth > kMaxNesting)
      throw Error(at_line(name, line), "arrays and tables nested more than " + std::to_string(kMaxNesting) + " deep",
                  "a dgatd configuration nests at most three levels; check the brackets");
    if (c == ']' || c == '}') depth = std::max(depth - 1, 0);
    if (c == '.') {
      if (dots_line != line) {
        dots_line = line;
        dots = 0;
      }
      if (++dots > kMaxDotsPerLine)
        throw Error(at_line(name, line),
                    "more than " + std::to_string(kMaxDotsPerLine) + " dots on one line (dotted keys or numbers)",
                    "a dgatd key has at most three parts, e.g. mesh.inner.shape; split the line");
    }
    ++i;
  }
}

} // namespace dgatd::io::detail
