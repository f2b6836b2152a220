#pragma once
// What the terms of a run hand to its output at the end (Term::add_records), in the order the terms
// run: the ports' series for S-parameters, the far-field surfaces' transforms, and any other
// quantity a term records once per step.

#include "dgatd/solver/far_field_record.hpp"
#include "dgatd/solver/port_series.hpp"

#include <string>
#include <vector>

namespace dgatd::solver {

// A quantity a term records once per step: values[n] over the step from t^n to t^(n+1).
struct TimeSeries {
  std::string name; // unique among the run's series
  std::string quantity;
  std::string units;
  std::vector<double> values;
};

struct TermRecords {
  std::vector<PortSeries> ports;
  std::vector<FarFieldRecord> far_fields;
  std::vector<TimeSeries> series;
};

} // namespace dgatd::solver
