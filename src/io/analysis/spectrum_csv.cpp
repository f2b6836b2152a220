#include "dgatd/io/analysis/spectrum_csv.hpp"

#include "dgatd/io/analysis/results.hpp"

#include "dgatd/error.hpp"

#include <filesystem>
#include <fstream>

namespace dgatd::io {

void write_spectrum_csv(std::string const& path, Spectrum const& spectrum)
{
  std::ofstream out(path);
  if (!out) throw Error(path, "cannot write the CSV file", "check that the directory exists and is writable");
  out << "frequency_hz,magnitude\n";
  out.precision(10);
  for (std::size_t i = 0; i < spectrum.frequency.size(); ++i)
    out << spectrum.frequency[i] << ',' << spectrum.magnitude[i] << '\n';
  if (!out.flush()) throw Error(path, "cannot write the CSV file", "check the free disk space");
}

std::string spectrum_csv_path(std::string const& output_path, std::string const& probe, std::string const& series)
{
  return beside_output(output_path, "_" + probe + "_" + series + "_spectrum.csv");
}

} // namespace dgatd::io
