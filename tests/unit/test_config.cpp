// The run configuration: a full file parses to the expected values, and every kind of mistake is
// one dgatd::Error line naming the file, the line and the key.
#include "dgatd/error.hpp"
#include "dgatd/io/input/config.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

namespace {

using dgatd::io::Config;
using dgatd::io::parse_config;

std::string const full_config = R"(# a dielectric-loaded cavity
[mesh]
generate = "box"
size = [100, 50, 75]
h = 10
scale = 0.01
output = "generated.msh"
reproducible = true
inner = { shape = "box", corner = [10, 10, 10], size = [20, 20, 20] }

[[material]]
region = "inner"
eps_r = 4
mu_r = 1.5

[[material]]
region = 1

[boundary]
pec = ["walls", "port_out"]

[[source]]
kind = "dipole"
position = [50, 25, 30]
direction = [0, 0, 2]
amplitude = 2.5
waveform = "modulated_gaussian"
t0 = 1e-9
sigma = 2e-10
frequency = 3e9

[[source]]
kind = "port_te10"
surface = "port_in"
amplitude = 100
waveform = "sine"
frequency = 2e9

[[source]]
kind = "edge_current"
position = [0, 0, 0]
direction = [1, 0, 0]
waveform = "gaussian"
sigma = 1e-10

[time]
t_end = 5e-8
dt = "auto"
safety = 0.9

[[probe]]
name = "p1"
position = [50, 25, 50]

[[probe]]
name = "centre_2"
position = [1, 2, 3]

[output]
file = "out/run.h5"
snapshot_every = 100
energy_every = 5
progress = false

[solver]
formulation = "assembled"
backend = "serial"
precision = "mixed"
)";

// The smallest valid file; the malformed cases add lines after line 4.
std::string const minimal = "[mesh]\nfile = \"cavity.msh\"\n[time]\nsteps = 10\n";

// Parses text as cavity.toml and returns the one-line message of the dgatd::Error it must throw.
std::string error_of(std::string const& text)
{
  try {
    parse_config(text, "cavity.toml", "/runs");
  } catch (dgatd::Error const& e) {
    std::string const message = e.what();
    EXPECT_EQ(message.find_first_of("\n\r"), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return "";
}

void expect_mentions(std::string const& message, std::initializer_list<char const*> parts)
{
  for (auto const* part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
}

TEST(Config, FullFileParsesToExpectedValues)
{
  Config const c = parse_config(full_config, "cavity.toml", "/runs");
  EXPECT_EQ(c.name, "cavity.toml");
  EXPECT_EQ(c.text, full_config);

  // Mesh lengths are in centimetres (scale 0.01) and come out in metres.
  EXPECT_TRUE(c.mesh.file.empty());
  EXPECT_EQ(c.mesh.generate.shape, "box");
  EXPECT_DOUBLE_EQ(c.mesh.generate.size[0], 1.0);
  EXPECT_DOUBLE_EQ(c.mesh.generate.size[1], 0.5);
  EXPECT_DOUBLE_EQ(c.mesh.generate.size[2], 0.75);
  EXPECT_DOUBLE_EQ(c.mesh.generate.element_size, 0.1);
  EXPECT_DOUBLE_EQ(c.mesh.scale, 0.01);
  EXPECT_EQ(c.mesh.output, "/runs/generated.msh");
  EXPECT_TRUE(c.mesh.generate.reproducible);
  EXPECT_EQ(c.mesh.generate.inner.shape, "box");
  EXPECT_DOUBLE_EQ(c.mesh.generate.inner.corner[1], 0.1);
  EXPECT_DOUBLE_EQ(c.mesh.generate.inner.size[2], 0.2);

  ASSERT_EQ(c.materials.size(), 2u);
  EXPECT_EQ(c.materials[0].region_name, "inner");
  EXPECT_DOUBLE_EQ(c.materials[0].eps_r, 4.0);
  EXPECT_DOUBLE_EQ(c.materials[0].mu_r, 1.5);
  EXPECT_EQ(c.materials[0].line, 11);
  EXPECT_TRUE(c.materials[1].region_name.empty());
  EXPECT_EQ(c.materials[1].region_tag, 1);
  EXPECT_DOUBLE_EQ(c.materials[1].eps_r, 1.0);

  EXPECT_FALSE(c.boundary.pec_everywhere);
  EXPECT_EQ(c.boundary.pec_surfaces, (std::vector<std::string>{"walls", "port_out"}));

  ASSERT_EQ(c.sources.size(), 3u);
  auto const& dipole = c.sources[0];
  EXPECT_EQ(dipole.kind, dgatd::io::SourceKind::dipole);
  EXPECT_DOUBLE_EQ(dipole.position[0], 0.5);
  EXPECT_DOUBLE_EQ(dipole.position[2], 0.3);
  EXPECT_DOUBLE_EQ(dipole.direction[2], 1.0); // normalised
  EXPECT_EQ(dipole.waveform.kind, dgatd::solver::WaveformKind::modulated_gaussian);
  EXPECT_DOUBLE_EQ(dipole.waveform.amplitude, 2.5);
  EXPECT_DOUBLE_EQ(dipole.waveform.t0, 1e-9);
  EXPECT_DOUBLE_EQ(dipole.waveform.sigma, 2e-10);
  EXPECT_DOUBLE_EQ(dipole.waveform.frequency, 3e9);
  auto const& port = c.sources[1];
  EXPECT_EQ(port.kind, dgatd::io::SourceKind::port_te10);
  EXPECT_EQ(port.surface, "port_in");
  EXPECT_EQ(port.waveform.kind, dgatd::solver::WaveformKind::sine);
  EXPECT_DOUBLE_EQ(port.waveform.amplitude, 100.0);
  EXPECT_DOUBLE_EQ(port.waveform.ramp, 3.0 / 2e9); // default: three periods
  auto const& edge = c.sources[2];
  EXPECT_EQ(edge.kind, dgatd::io::SourceKind::edge_current);
  EXPECT_DOUBLE_EQ(edge.waveform.amplitude, 1.0);
  EXPECT_DOUBLE_EQ(edge.waveform.t0, 5e-10); // default: five widths

  ASSERT_TRUE(c.time.t_end.has_value());
  EXPECT_DOUBLE_EQ(*c.time.t_end, 5e-8);
  EXPECT_FALSE(c.time.steps.has_value());
  EXPECT_FALSE(c.time.dt.has_value());
  EXPECT_DOUBLE_EQ(c.time.safety, 0.9);
  EXPECT_FALSE(c.time.allow_unstable);

  ASSERT_EQ(c.probes.size(), 2u);
  EXPECT_EQ(c.probes[0].name, "p1");
  EXPECT_DOUBLE_EQ(c.probes[0].position[2], 0.5);
  EXPECT_EQ(c.probes[1].name, "centre_2");

  EXPECT_EQ(c.output.file, "/runs/out/run.h5");
  EXPECT_EQ(c.output.snapshot_every, 100);
  EXPECT_EQ(c.output.energy_every, 5);
  EXPECT_FALSE(c.output.progress);
  EXPECT_EQ(c.solver.formulation, dgatd::solver::FormulationKind::assembled);
  EXPECT_EQ(c.solver.backend, dgatd::io::Backend::serial);
  EXPECT_EQ(c.solver.precision, dgatd::kernels::MatrixPrecision::float32);
}

TEST(Config, MinimalFileGetsDefaults)
{
  Config const c = parse_config(minimal + "dt = 1e-12\n", "cavity.toml", "/runs");
  EXPECT_EQ(c.mesh.file, "/runs/cavity.msh");
  EXPECT_TRUE(c.mesh.generate.shape.empty());
  EXPECT_TRUE(c.materials.empty());
  EXPECT_TRUE(c.boundary.pec_everywhere);
  EXPECT_TRUE(c.sources.empty());
  EXPECT_EQ(*c.time.steps, 10);
  EXPECT_DOUBLE_EQ(*c.time.dt, 1e-12);
  EXPECT_DOUBLE_EQ(c.time.safety, 0.95);
  EXPECT_EQ(c.output.file, "/runs/dgatd_out.h5");
  EXPECT_EQ(c.output.snapshot_every, 0);
  EXPECT_EQ(c.output.energy_every, 10);
  EXPECT_TRUE(c.output.progress);
  EXPECT_EQ(c.solver.formulation, dgatd::solver::FormulationKind::fractioned);
  EXPECT_EQ(c.solver.backend, dgatd::io::Backend::default_space);
  EXPECT_EQ(c.solver.precision, dgatd::kernels::MatrixPrecision::float64);
  EXPECT_EQ(c.mesh.ordering, dgatd::mesh::Ordering::hilbert);
}

TEST(Config, SolverPrecision)
{
  std::string const solver = "[solver]\nprecision = ";
  EXPECT_EQ(parse_config(minimal + solver + "\"double\"\n", "cavity.toml", "/runs").solver.precision,
            dgatd::kernels::MatrixPrecision::float64);
  auto const single = parse_config(minimal + solver + "\"single\"\n", "cavity.toml", "/runs").solver;
  EXPECT_EQ(single.precision, dgatd::kernels::MatrixPrecision::float32);
  EXPECT_EQ(single.field_precision, dgatd::kernels::FieldPrecision::float32);
  auto const mixed = parse_config(minimal + solver + "\"mixed\"\n", "cavity.toml", "/runs").solver;
  EXPECT_EQ(mixed.precision, dgatd::kernels::MatrixPrecision::float32);
  EXPECT_EQ(mixed.field_precision, dgatd::kernels::FieldPrecision::float64);
  expect_mentions(error_of(minimal + solver + "\"half\"\n"),
                  {"cavity.toml:6:", "[solver] precision", "half", "double", "mixed", "single"});
}

TEST(Config, MeshOrdering)
{
  std::string const with_ordering = "[mesh]\nfile = \"cavity.msh\"\nordering = ";
  std::string const rest = "[time]\nsteps = 10\ndt = 1e-12\n";
  EXPECT_EQ(parse_config(with_ordering + "\"rcm\"\n" + rest, "cavity.toml", "/runs").mesh.ordering,
            dgatd::mesh::Ordering::rcm);
  EXPECT_EQ(parse_config(with_ordering + "\"none\"\n" + rest, "cavity.toml", "/runs").mesh.ordering,
            dgatd::mesh::Ordering::none);
  expect_mentions(error_of(with_ordering + "\"morton\"\n" + rest),
                  {"cavity.toml:3:", "[mesh] ordering", "morton", "hilbert"});
}

// [mesh] parts names the folder dgatd partition wrote, resolved like file; a generated mesh has none
// to split.
TEST(Config, MeshParts)
{
  std::string const rest = "[time]\nsteps = 10\ndt = 1e-12\n";
  EXPECT_TRUE(parse_config("[mesh]\nfile = \"cavity.msh\"\n" + rest, "cavity.toml", "/runs").mesh.parts.empty());
  EXPECT_EQ(parse_config("[mesh]\nfile = \"cavity.msh\"\nparts = \"cavity_parts\"\n" + rest, "cavity.toml", "/runs")
                .mesh.parts,
            "/runs/cavity_parts");
  expect_mentions(error_of("[mesh]\nfile = \"cavity.msh\"\nparts = \"\"\n" + rest),
                  {"cavity.toml:3:", "[mesh] parts", "must not be empty"});
  expect_mentions(error_of("[mesh]\ngenerate = \"box\"\nsize = [1, 1, 1]\nh = 0.2\nparts = \"p\"\n" + rest),
                  {"cavity.toml:5:", "[mesh] key 'parts'", "needs a mesh file", "dgatd partition"});
}

TEST(Config, LoadResolvesPathsFromTheFilesDirectory)
{
  auto const dir = std::filesystem::temp_directory_path() / ("dgatd_test_config_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto const file = dir / "cavity.toml";
  std::ofstream(file) << minimal;
  Config const c = dgatd::io::load_config(file.string());
  EXPECT_EQ(c.mesh.file, (dir / "cavity.msh").string());
  EXPECT_EQ(c.output.file, (dir / "dgatd_out.h5").string());
  std::filesystem::remove_all(dir);

  try {
    dgatd::io::load_config(file.string());
    ADD_FAILURE() << "no error for a missing file";
  } catch (dgatd::Error const& e) {
    expect_mentions(e.what(), {file.string().c_str(), "cannot read"});
  }
}

TEST(Config, UnknownKeyListsTheKnownOnes)
{
  EXPECT_EQ(error_of(minimal + "foo = 1\n"), "cavity.toml:5: unknown key 'foo' in [time] (known keys: t_end, steps, "
                                             "dt, safety, allow_unstable, local_steps)");
}

TEST(Config, UnknownTable)
{
  expect_mentions(error_of(minimal + "[solvr]\nformulation = \"assembled\"\n"),
                  {"cavity.toml:5:", "unknown table [solvr]", "solver"});
}

TEST(Config, WrongType)
{
  expect_mentions(error_of(minimal + "safety = \"high\"\n"), {"cavity.toml:5:", "[time] safety", "must be a number"});
  expect_mentions(error_of(minimal + "[output]\nenergy_every = 2.5\n"),
                  {"cavity.toml:6:", "[output] energy_every", "must be an integer"});
}

TEST(Config, NegativePermittivity)
{
  EXPECT_EQ(error_of(minimal + "[[material]]\nregion = \"domain\"\neps_r = -2\n"),
            "cavity.toml:7: [[material]] eps_r = -2 must be positive");
}

TEST(Config, MissingMeshTable)
{
  expect_mentions(error_of("[time]\nsteps = 10\n"), {"cavity.toml", "missing table [mesh]"});
}

// The PML thickness is a length in mesh units like size and h.
TEST(Config, PmlOfGeneratedMeshIsScaled)
{
  Config const c = parse_config("[mesh]\ngenerate = \"waveguide\"\nsize = [22.86, 10.16, 100]\nh = 1.5\npml = "
                                "16\nscale = 0.001\n[time]\nsteps = 10\n",
                                "cavity.toml", "/runs");
  EXPECT_DOUBLE_EQ(c.mesh.generate.pml, 0.016);
  EXPECT_DOUBLE_EQ(parse_config(minimal, "cavity.toml", "/runs").mesh.generate.pml, 0.0);
}

TEST(Config, PmlOnlyForGeneratedBoxesAndWaveguides)
{
  EXPECT_EQ(error_of("[mesh]\nfile = \"cavity.msh\"\npml = 0.016\n[time]\nsteps = 10\n"),
            "cavity.toml:3: [mesh] key 'pml' only applies to generated meshes (generate = ...)");
  EXPECT_EQ(
      error_of("[mesh]\ngenerate = \"cylinder\"\nradius = 1\nheight = 1\nh = 0.1\npml = 0.3\n[time]\nsteps = 10\n"),
      "cavity.toml:6: [mesh] key 'pml' does not apply to a cylinder (only a box or a waveguide gets a PML)");
  EXPECT_EQ(error_of("[mesh]\ngenerate = \"box\"\nsize = [1, 1, 1]\nh = 0.1\npml = 0\n[time]\nsteps = 10\n"),
            "cavity.toml:5: [mesh] pml = 0 must be positive");
}

TEST(Config, MissingRequiredKeyNamesTheTable)
{
  expect_mentions(error_of(minimal + "[[probe]]\nname = \"p\"\n"), {"cavity.toml:5:", "[[probe]]", "position"});
}

TEST(Config, BothEndTimeAndSteps)
{
  expect_mentions(error_of(minimal + "t_end = 1e-9\n"), {"cavity.toml:5:", "t_end", "steps", "exactly one"});
}

TEST(Config, BadWaveformName)
{
  expect_mentions(error_of(minimal + "[[source]]\nkind = \"dipole\"\nposition = [0, 0, 0]\ndirection = [0, 0, "
                                     "1]\nwaveform = \"square\"\nsigma = 1e-10\n"),
                  {"cavity.toml:9:", "[[source]] waveform", "square", "gaussian"});
}

TEST(Config, DuplicateProbeName)
{
  expect_mentions(error_of(minimal + "[[probe]]\nname = \"p1\"\nposition = [0, 0, 0]\n[[probe]]\nname = "
                                     "\"p1\"\nposition = [1, 1, 1]\n"),
                  {"cavity.toml:9:", "[[probe]] name", "p1", "already used", "line 5"});
}

TEST(Config, SafetyOutOfRange)
{
  EXPECT_EQ(error_of(minimal + "safety = 1.5\n"),
            "cavity.toml:5: [time] safety = 1.5 must lie strictly between 0 and 1");
}

TEST(Config, SyntaxErrorIsOneLine)
{
  expect_mentions(error_of("[mesh]\nfile = 'cavity.msh\n[time]\nsteps = 10\n"),
                  {"cavity.toml:2:", "TOML syntax error"});
}

// A file may hold any byte, and messages quote keys and source lines: control characters come out
// escaped, so the message stays one line (found by fuzzing, tests/fuzz/fuzz_config.cpp).
TEST(Config, ControlCharactersInMessagesAreEscaped)
{
  EXPECT_EQ(error_of(minimal + "\"safety\\nx\" = 1\n"),
            "cavity.toml:5: unknown key 'safety\\nx' in [time] (known keys: t_end, steps, dt, safety, allow_unstable, "
            "local_steps)");
  expect_mentions(error_of("[mesh]\nfile = \"\x01\rcavity.msh\"\n[time]\nsteps = 10\n"),
                  {"cavity.toml:2:", "TOML syntax error", "\\x01\\rcavity.msh"});
}

// toml11 read outside the text on an invalid UTF-8 sequence in a string (found by fuzzing).
TEST(Config, InvalidUtf8IsRefused)
{
  EXPECT_EQ(error_of("[mesh]\nfile = 'cavity\xbd.msh'\n[time]\nsteps = 10\n"),
            "cavity.toml:2: byte 0xbd is not valid UTF-8, which TOML requires (fix: save the file as UTF-8)");
  // An overlong encoding and a surrogate are not UTF-8 either.
  expect_mentions(error_of("[mesh]\nfile = \"\xc0\xae.msh\"\n[time]\nsteps = 10\n"), {"cavity.toml:2:", "byte 0xc0"});
  expect_mentions(error_of("# \xed\xa0\x80\n" + minimal), {"cavity.toml:1:", "byte 0xed"});
  EXPECT_EQ(parse_config("[mesh]\nfile = \"r\xc3\xa9sonateur_\xe2\x82\xac_\xf0\x9d\x84\x9e.msh\"\n[time]\nsteps = 10\n",
                         "cavity.toml", "/runs")
                .mesh.file,
            "/runs/r\xc3\xa9sonateur_\xe2\x82\xac_\xf0\x9d\x84\x9e.msh");
}

// toml11 recursed once per level (1000 nested inline tables overflowed the fuzzer's stack) and took
// time quadratic in the depth and in the parts of a dotted key (found by fuzzing).
TEST(Config, DeepNestingAndLongDottedKeysAreRefused)
{
  std::string deep = "[mesh]\nfile = ";
  for (int i = 0; i < 1000; ++i) deep += "{a=";
  deep += "1" + std::string(1000, '}') + "\n[time]\nsteps = 10\n";
  expect_mentions(error_of(deep), {"cavity.toml:2:", "nested more than 32 deep"});
  std::string dotted = minimal + "a";
  for (int i = 0; i < 1000; ++i) dotted += ".a";
  expect_mentions(error_of(dotted + " = 1\n"), {"cavity.toml:5:", "more than 64 dots on one line"});
  // Brackets and dots in strings and comments are text.
  std::string const text = std::string(40, '[') + std::string(70, '.');
  Config const c =
      parse_config("[mesh] # " + text + "\nfile = \"" + text + "\"\n[time]\nsteps = 10\n", "cavity.toml", "");
  EXPECT_EQ(c.mesh.file, text);
}

// toml11's time also grows quadratically with the length of a line: a 200 KB line took a minute.
// A configuration with thousands of probes is hundreds of kilobytes; 4 MiB is far more, and an
// endless file is not read to its end.
TEST(Config, OversizedFilesAndLinesAreRefused)
{
  std::string many_lines;
  while (many_lines.size() <= 4 * 1024 * 1024) many_lines += "# " + std::string(1000, 'x') + "\n";
  expect_mentions(error_of(minimal + many_lines),
                  {"cavity.toml: is larger than 4 MiB", "(fix: check that this is the configuration file"});
  expect_mentions(error_of(minimal + "# " + std::string(5000, 'x') + "\n"),
                  {"cavity.toml:5:", "longer than 4096 bytes", "(fix: break long arrays over several lines)"});
  try {
    dgatd::io::load_config("/dev/zero");
    ADD_FAILURE() << "/dev/zero accepted";
  } catch (dgatd::Error const& e) {
    expect_mentions(e.what(), {"/dev/zero: is larger than 4 MiB"});
  }
}

} // namespace
