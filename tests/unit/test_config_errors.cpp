// Physics reports a ModelError in the method's words; the configuration layer words it at the line
// of the table that asked for the item, with advice in the configuration's keys.
#include "dgatd/error.hpp"
#include "dgatd/io/input/config.hpp"
#include "dgatd/simulation/config_errors.hpp"

#include <gtest/gtest.h>

#include <string>

namespace dgatd::simulation {
namespace {

io::Config config()
{
  return io::parse_config(R"([mesh]
generate = "box"
size = [1, 1, 1]
h = 0.5
pml = 0.3

[[pml]]
region = "pml"

[[source]]
kind = "port_te10"
surface = "boundary"
matched = true
waveform = "gaussian"
sigma = 1e-9

[time]
steps = 10

[output]
file = "out.h5"
)",
                          "run.toml", ".");
}

TEST(ConfigErrors, MatchedLayerAtItsPmlTable)
{
  ModelError const error(ModelSubject::matched_layer, "pml", "touches no other region of m.msh",
                         "mesh the layer around the domain");
  EXPECT_EQ(std::string(error.what()), "matched layer 'pml' touches no other region of m.msh (fix: mesh the layer "
                                       "around the domain)");
  EXPECT_EQ(std::string(config_error(config(), error).what()),
            "run.toml:7: [[pml]] region 'pml' touches no other region of m.msh (fix: mesh the layer around the "
            "domain)");
}

TEST(ConfigErrors, StableOrderBecomesTheOrderKey)
{
  ModelError const error(ModelSubject::matched_layer, "pml", "bends around the domain",
                         "use a profile of order 1, or flat layers", {{"order", 3}, {"stable order", 1}});
  EXPECT_EQ(std::string(config_error(config(), error).what()),
            "run.toml:7: [[pml]] region 'pml' bends around the domain (fix: use order = 1 (the default), or "
            "flat layers)");
}

TEST(ConfigErrors, MatchedPortAtItsSourceTable)
{
  ModelError const error(ModelSubject::matched_port, "boundary", "is not planar", "make it a plane");
  EXPECT_EQ(std::string(config_error(config(), error).what()),
            "run.toml:10: matched port 'boundary' is not planar (fix: make it a plane)");
}

TEST(ConfigErrors, TimeStepNamedByItsValue)
{
  ModelError const error(ModelSubject::time_step, "", "makes a matched layer's auxiliary step singular",
                         "use a smaller time step or a gentler matched-layer profile (larger reflection)",
                         {{"dt", 2.5e-12}});
  EXPECT_EQ(std::string(error.what()), "the time step makes a matched layer's auxiliary step singular (fix: use a "
                                       "smaller time step or a gentler matched-layer profile (larger reflection))");
  EXPECT_EQ(std::string(config_error(config(), error).what()),
            "run.toml: dt = 2.5e-12 makes a matched layer's auxiliary step singular (fix: use a smaller dt or a "
            "gentler [[pml]] profile (larger reflection))");
}

} // namespace
} // namespace dgatd::simulation
