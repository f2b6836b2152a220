#pragma once
// The guard a configuration's text passes before toml11 parses it. Private to io/input.

#include <cstddef>
#include <string>

namespace dgatd::io::detail {

// toml11 3.7 (Debian 12) trusts its input further than a loader of user files can: an invalid
// UTF-8 sequence inside a string sends its error path outside the text (a heap overflow), its
// recursive descent overflows the stack on 2000 nested arrays, and its time grows quadratically
// with nesting, dotted keys and the length of a line (a 200 KB line takes a minute, 1000 nested
// arrays seconds). A dgatd configuration has short lines and tables at most three levels deep, so
// input far beyond that is refused before toml11 sees it. Its size may be large: a configuration
// with probes over closed surfaces lists thousands of them (tests/regression/test_radiating_dipole:
// 1923 probes, 157 KB, parsed in 0.3 s); toml11's time grows about linearly with the number of
// tables (20 000 tables or 1.3 MB of probes: 1.3 and 2.5 s), so 4 MiB bounds the parse to seconds
// and still stops an endless file.
constexpr std::size_t kMaxConfigBytes = 4 * 1024 * 1024;

// Size, encoding, line length, nesting depth and dots per line, each refused with a dgatd::Error
// naming the file and line. Strings and comments are skipped as TOML delimits them: a bracket or a
// dot inside a string is text.
void check_before_parsing(std::string const& text, std::string const& name);

} // namespace dgatd::io::detail
