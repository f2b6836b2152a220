// libFuzzer target for the TOML configuration loader: any bytes as a configuration file, from
// memory (io::parse_config is load_config after reading the file).
#include "dgatd/io/input/config.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
  std::string const name = "fuzz.toml";
  std::string const text(reinterpret_cast<char const*>(data), size);
  dgatd::fuzz::expect_result_or_one_line_error(name, [&] {
    auto const config = dgatd::io::parse_config(text, name, "");
    // What config.hpp promises of every configuration it returns.
    dgatd::fuzz::require(config.mesh.file.empty() != config.mesh.generate.shape.empty(),
                         "exactly one of [mesh] file and generate");
    dgatd::fuzz::require(config.time.t_end.has_value() != config.time.steps.has_value(),
                         "exactly one of [time] t_end and steps");
    dgatd::fuzz::require(config.mesh.scale > 0 && std::isfinite(config.mesh.scale), "a positive finite scale");
    dgatd::fuzz::require(config.time.safety > 0 && config.time.safety < 1, "a safety factor in (0, 1)");
  });
  return 0;
}
