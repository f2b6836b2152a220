#pragma once
// What every reader of user files promises on any input: a result, or a dgatd::Error whose message
// is one line that starts with the file's name. A message that breaks this aborts, so libFuzzer
// keeps the input as a finding and the replay test fails; any other exception leaves the fuzz
// target uncaught and ends the same way.

#include "dgatd/error.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace dgatd::fuzz {

template <class Read>
void expect_result_or_one_line_error(std::string const& file, Read const& read)
{
  try {
    read();
  } catch (Error const& e) {
    std::string const message = e.what();
    bool const one_line = message.find_first_of("\n\r") == std::string::npos;
    bool const names_file = message.size() > file.size() && message.compare(0, file.size(), file) == 0;
    if (one_line && names_file) return;
    std::fprintf(stderr, "dgatd::fuzz: the error for %s is not one line naming the file: %s\n", file.c_str(),
                 message.c_str());
    std::abort();
  }
}

// For checks of a result the reader accepted.
inline void require(bool condition, char const* what)
{
  if (condition) return;
  std::fprintf(stderr, "dgatd::fuzz: accepted input breaks an invariant: %s\n", what);
  std::abort();
}

} // namespace dgatd::fuzz
