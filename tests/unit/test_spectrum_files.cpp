// What dgatd spectrum reads and writes around the spectrum itself (probe_spectrum.hpp,
// spectrum_csv.hpp, spectrum_plot.hpp, probe_component): a probe series written by Hdf5Writer
// analysed back to its known frequency, the CSV read back, and the plot's outcomes.
#include "dgatd/error.hpp"
#include "dgatd/io/analysis/probe_spectrum.hpp"
#include "dgatd/io/analysis/results.hpp"
#include "dgatd/io/analysis/spectrum_csv.hpp"
#include "dgatd/io/analysis/spectrum_plot.hpp"
#include "dgatd/io/analysis/spectrum_svg.hpp"
#include "dgatd/io/output/hdf5_writer.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using dgatd::io::SpectrumPlot;

constexpr double pi = 3.14159265358979323846;

class SpectrumFiles : public ::testing::Test {
protected:
  void SetUp() override
  {
    auto const* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("dgatd_test_spectrum_files_" + std::to_string(::getpid()) + "_" + test->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    if (char const* scripts = std::getenv("DGATD_SCRIPTS_DIR")) scripts_dir_ = scripts;
  }
  void TearDown() override
  {
    if (scripts_dir_)
      ::setenv("DGATD_SCRIPTS_DIR", scripts_dir_->c_str(), 1);
    else
      ::unsetenv("DGATD_SCRIPTS_DIR");
    fs::remove_all(dir_);
  }

  std::string file(std::string const& name) const { return (dir_ / name).string(); }

  fs::path dir_;
  std::optional<std::string> scripts_dir_;
};

std::string error_of(std::function<void()> const& call)
{
  try {
    call();
  } catch (dgatd::Error const& e) {
    return e.what();
  }
  return "no error";
}

// The CSV as a reader that knows only the documented format sees it.
struct CsvTable {
  std::string header;
  std::vector<double> frequency, magnitude;
};

CsvTable read_csv(std::string const& path)
{
  std::ifstream in(path);
  CsvTable table;
  std::getline(in, table.header);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    double f = 0, m = 0;
    char comma = 0;
    fields >> f >> comma >> m;
    EXPECT_TRUE(fields && comma == ',') << line;
    table.frequency.push_back(f);
    table.magnitude.push_back(m);
  }
  return table;
}

TEST_F(SpectrumFiles, CsvRoundTripsToTenSignificantDigits)
{
  dgatd::io::Spectrum spectrum;
  spectrum.frequency = {0.0, 1.5e8, 166.6e6, 2.0 / 3.0 * 1e9, 5.964850254282713e9};
  spectrum.magnitude = {0.25, 1e-300, 0.123456789012345, 7.0, 3.3e-7};
  std::string const path = file("s.csv");
  dgatd::io::write_spectrum_csv(path, spectrum);
  CsvTable const table = read_csv(path);
  EXPECT_EQ(table.header, "frequency_hz,magnitude");
  ASSERT_EQ(table.frequency.size(), spectrum.frequency.size());
  // 10 significant digits: a value comes back within half a unit of its 10th digit, a relative
  // 5e-10 at most; values with 10 digits or fewer come back exactly.
  for (std::size_t i = 0; i < table.frequency.size(); ++i) {
    EXPECT_NEAR(table.frequency[i], spectrum.frequency[i], 5e-10 * spectrum.frequency[i]) << "bin " << i;
    EXPECT_NEAR(table.magnitude[i], spectrum.magnitude[i], 5e-10 * spectrum.magnitude[i]) << "bin " << i;
  }
  EXPECT_EQ(table.frequency[1], 1.5e8);
  EXPECT_EQ(table.magnitude[0], 0.25);
  EXPECT_EQ(table.magnitude[1], 1e-300);
}

TEST_F(SpectrumFiles, CsvThatCannotBeWrittenNamesTheFile)
{
  std::string const path = file("missing/s.csv");
  std::string const message = error_of([&] { dgatd::io::write_spectrum_csv(path, {}); });
  EXPECT_NE(message.find(path + ": cannot write the CSV file"), std::string::npos) << message;
}

// The numbers of attribute name="..." in each element of kind `element`, in document order.
std::vector<double> attribute_values(std::string const& svg, std::string const& element, std::string const& name)
{
  std::vector<double> values;
  for (std::size_t at = svg.find("<" + element + " "); at != std::string::npos;
       at = svg.find("<" + element + " ", at + 1)) {
    std::size_t const end = svg.find('>', at);
    std::size_t const key = svg.find(" " + name + "=\"", at);
    if (key < end) values.push_back(std::stod(svg.substr(key + name.size() + 3)));
  }
  return values;
}

TEST_F(SpectrumFiles, SvgPlotsEveryBinInsideTheAxesAndMarksThePeaks)
{
  // Two resonances of a 1 kHz-resolution record between 100 and 300 MHz, and a floor far below them.
  dgatd::io::Spectrum spectrum;
  for (int i = 0; i <= 2000; ++i) {
    double const f = 100e6 + 1e5 * i;
    spectrum.frequency.push_back(f);
    spectrum.magnitude.push_back(1e-12 + std::exp(-std::pow((f - 114.74e6) / 2e5, 2)) +
                                 0.05 * std::exp(-std::pow((f - 263.38e6) / 2e5, 2)));
  }
  std::vector<dgatd::io::Peak> const peaks{{114.74e6, 1.0, 1.0}, {263.38e6, 0.05, 0.05}};
  std::string const path = file("s.svg");
  dgatd::io::write_spectrum_svg(path, spectrum, peaks, "probe <p> & E_z", "MHz", 1e6);
  std::ifstream in(path);
  std::string const svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_FALSE(fs::exists(path + ".partial"));
  EXPECT_NE(svg.find("probe &lt;p&gt; &amp; E_z"), std::string::npos) << "the title, escaped";
  EXPECT_NE(svg.find("frequency (MHz)"), std::string::npos);

  // The plot box, then every point of the curve inside it, one per bin, frequency increasing.
  double const x0 = attribute_values(svg, "rect", "x").at(0);
  double const y0 = attribute_values(svg, "rect", "y").at(0);
  double const x1 = x0 + attribute_values(svg, "rect", "width").at(1);
  double const y1 = y0 + attribute_values(svg, "rect", "height").at(1);
  std::size_t const points = svg.find("points=\"");
  ASSERT_NE(points, std::string::npos);
  std::istringstream curve(svg.substr(points + 8, svg.find('"', points + 8) - points - 8));
  std::vector<double> xs, ys;
  double x = 0, y = 0;
  char comma = 0;
  while (curve >> x >> comma >> y) {
    xs.push_back(x);
    ys.push_back(y);
  }
  ASSERT_EQ(xs.size(), spectrum.frequency.size());
  EXPECT_NEAR(xs.front(), x0, 1e-3);
  EXPECT_NEAR(xs.back(), x1, 1e-3);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    EXPECT_GE(ys[i], y0) << "bin " << i;
    EXPECT_LE(ys[i], y1) << "bin " << i;
    if (i) {
      EXPECT_GT(xs[i], xs[i - 1]) << "bin " << i;
    }
  }
  // Seven decades: the floor at 1e-12 sits on the bottom edge, the first peak highest on the curve.
  EXPECT_NEAR(ys[1000], y1, 1e-3);
  std::size_t const highest = std::min_element(ys.begin(), ys.end()) - ys.begin();
  EXPECT_NEAR(spectrum.frequency[highest], 114.74e6, 1e5);

  // One marker line per peak at its frequency, labelled with four significant digits.
  std::vector<double> marker_x;
  for (double const value : attribute_values(svg, "line", "x1"))
    for (auto const& peak : peaks)
      if (std::abs(value - (x0 + (x1 - x0) * (peak.frequency - 100e6) / 200e6)) < 1e-3) marker_x.push_back(value);
  EXPECT_EQ(marker_x.size(), peaks.size());
  EXPECT_NE(svg.find(">114.7</text>"), std::string::npos);
  EXPECT_NE(svg.find(">263.4</text>"), std::string::npos);
}

TEST_F(SpectrumFiles, SvgThatCannotBeWrittenNamesTheFileAndLeavesNothing)
{
  dgatd::io::Spectrum spectrum;
  spectrum.frequency = {1.0, 2.0};
  spectrum.magnitude = {1.0, 0.5};
  std::string const path = file("missing/s.svg");
  std::string const message = error_of([&] { dgatd::io::write_spectrum_svg(path, spectrum, {}, "t", "Hz", 1.0); });
  EXPECT_NE(message.find(path + ": cannot write the plot"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(path + ".partial"));
  std::string const one_bin = error_of([&] {
    spectrum.frequency.resize(1);
    spectrum.magnitude.resize(1);
    dgatd::io::write_spectrum_svg(file("s.svg"), spectrum, {}, "t", "Hz", 1.0);
  });
  EXPECT_NE(one_bin.find("fewer than two bins"), std::string::npos) << one_bin;
  EXPECT_FALSE(fs::exists(file("s.svg")));
}

TEST_F(SpectrumFiles, DefaultCsvPathIsBesideTheOutput)
{
  EXPECT_EQ(dgatd::io::spectrum_csv_path("runs/cavity.h5", "p", "Ez"), "runs/cavity_p_Ez_spectrum.csv");
  EXPECT_EQ(dgatd::io::spectrum_csv_path("cavity.h5", "probe_2", "Hx"), "cavity_probe_2_Hx_spectrum.csv");
  // Read while the run writes it, the output gives what its finished file would.
  EXPECT_EQ(dgatd::io::spectrum_csv_path("runs/cavity.h5.partial", "p", "Ez"), "runs/cavity_p_Ez_spectrum.csv");
  EXPECT_EQ(dgatd::io::beside_output("runs/patch.h5.partial", "_farfield"), "runs/patch_farfield");
  EXPECT_EQ(dgatd::io::beside_output("patch.h5", "_sparams.csv"), "patch_sparams.csv");
}

TEST_F(SpectrumFiles, ProbeComponentPicksOneAxis)
{
  dgatd::io::ProbeRecord record;
  record.values = {{1, 2, 3}, {4, 5, 6}};
  EXPECT_EQ(dgatd::io::probe_component(record, 'x'), (std::vector<double>{1, 4}));
  EXPECT_EQ(dgatd::io::probe_component(record, 'y'), (std::vector<double>{2, 5}));
  EXPECT_EQ(dgatd::io::probe_component(record, 'z'), (std::vector<double>{3, 6}));
  EXPECT_THROW(dgatd::io::probe_component(record, 'w'), std::invalid_argument);
}

// A run output whose probe "p" records E = (0, sin(2 pi f t), 0) and H = (0, 0, 0.5) every dt.
constexpr double dt = 1e-11;
constexpr int steps = 4000;          // resolution 1/(steps dt) = 25 MHz
constexpr double frequency = 1.02e9; // between bins
std::string write_run(std::string const& path)
{
  dgatd::io::RunAttributes attributes;
  attributes.dt = dt;
  attributes.dt_max = dt;
  dgatd::io::Hdf5Writer out(path, attributes);
  out.add_probe("p", {0.1, 0.2, 0.3});
  for (int i = 1; i <= steps; ++i) {
    double const t = i * dt;
    out.append_step(t, {{{0.0, std::sin(2 * pi * frequency * t), 0.0}, {0.0, 0.0, 0.5}}});
  }
  out.close(true);
  return path;
}

TEST_F(SpectrumFiles, ProbeSpectrumFindsTheRecordedFrequency)
{
  std::string const path = write_run(file("run.h5"));
  dgatd::io::SpectrumOptions band;
  band.fmax = 5e9;
  auto const result = dgatd::io::probe_spectrum(path, "p", 'E', 'y', band);
  EXPECT_EQ(result.samples, static_cast<std::size_t>(steps));
  // uniform_step takes (t_last - t_first)/(n - 1): a few roundings of the times.
  EXPECT_NEAR(result.dt, dt, 1e-12 * dt);
  EXPECT_DOUBLE_EQ(result.spectrum.resolution, 1.0 / (steps * dt));
  ASSERT_EQ(result.peaks.size(), 1u);
  // One undamped mode alone: 1 % of the resolution, as in test_spectrum's well separated modes.
  EXPECT_NEAR(result.peaks[0].frequency, frequency, 0.01 * result.spectrum.resolution);
  EXPECT_NEAR(result.peaks[0].magnitude, 1.0, 0.02);

  // A zero component has a zero spectrum, without peaks.
  auto const zero = dgatd::io::probe_spectrum(path, "p", 'E', 'x', band);
  EXPECT_EQ(zero.samples, static_cast<std::size_t>(steps));
  EXPECT_TRUE(zero.peaks.empty());
}

TEST_F(SpectrumFiles, ProbeSpectrumErrorsNameTheFileAndProbe)
{
  std::string const path = write_run(file("run.h5"));
  dgatd::io::SpectrumOptions above_nyquist;
  above_nyquist.fmin = 1e12;
  std::string message = error_of([&] { dgatd::io::probe_spectrum(path, "p", 'E', 'y', above_nyquist); });
  EXPECT_NE(message.find(path + ": probe 'p': the band [fmin, fmax] is empty (the Nyquist frequency is "),
            std::string::npos)
      << message;
  dgatd::io::SpectrumOptions inverted;
  inverted.fmin = 2e9;
  inverted.fmax = 1e9;
  message = error_of([&] { dgatd::io::probe_spectrum(path, "p", 'E', 'y', inverted); });
  EXPECT_NE(message.find("the band [fmin, fmax] is empty"), std::string::npos) << message;
  message = error_of([&] { dgatd::io::probe_spectrum(path, "q", 'E', 'y'); });
  EXPECT_NE(message.find("available probes: p"), std::string::npos) << message;
}

TEST_F(SpectrumFiles, PlotWithoutItsScriptIsSkipped)
{
  ::setenv("DGATD_SCRIPTS_DIR", dir_.c_str(), 1);
  auto const plot = dgatd::io::plot_spectrum(file("s.csv"), file("s.png"), "p: E_y", {});
  EXPECT_EQ(plot.outcome, SpectrumPlot::Outcome::script_missing);
  EXPECT_EQ(plot.script, (dir_ / "plot_spectrum.py").string());
  EXPECT_FALSE(fs::exists(file("s.png")));
}

TEST_F(SpectrumFiles, PlotOfTheSourceTreeScriptIsAPng)
{
  ::unsetenv("DGATD_SCRIPTS_DIR");
  dgatd::io::Spectrum spectrum;
  for (int i = 0; i < 200; ++i) {
    spectrum.frequency.push_back(1e7 * i);
    spectrum.magnitude.push_back(std::exp(-0.01 * (i - 100) * (i - 100)));
  }
  dgatd::io::write_spectrum_csv(file("s.csv"), spectrum);
  dgatd::io::Peak peak;
  peak.frequency = 1e9;
  auto const plot = dgatd::io::plot_spectrum(file("s.csv"), file("it's.png"), "p: E_y", {peak});
  EXPECT_EQ(plot.script, (fs::path(DGATD_SOURCE_DIR) / "scripts" / "plot_spectrum.py").string());
  if (plot.outcome == SpectrumPlot::Outcome::python_missing)
    GTEST_SKIP() << "no python3 with numpy and matplotlib: plot not drawn";
  ASSERT_EQ(plot.outcome, SpectrumPlot::Outcome::written);
  std::ifstream png(file("it's.png"), std::ios::binary);
  char magic[8] = {};
  png.read(magic, sizeof magic);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
}

TEST_F(SpectrumFiles, FailingPlotScriptIsAnError)
{
  std::ofstream(file("plot_spectrum.py")) << "import sys\nsys.exit(3)\n";
  ::setenv("DGATD_SCRIPTS_DIR", dir_.c_str(), 1);
  dgatd::io::write_spectrum_csv(file("s.csv"), {});
  std::optional<SpectrumPlot> plot;
  std::string const message =
      error_of([&] { plot = dgatd::io::plot_spectrum(file("s.csv"), file("s.png"), "p: E_y", {}); });
  if (plot && plot->outcome == SpectrumPlot::Outcome::python_missing)
    GTEST_SKIP() << "no python3 with numpy and matplotlib: script not run";
  EXPECT_NE(message.find(file("s.png") + ": the plot script failed (fix: run "), std::string::npos) << message;
}

} // namespace
