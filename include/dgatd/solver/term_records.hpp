#pragma once
// What the terms of a run hand to its output at the end (Term::add_records), in the order the terms
// run: the ports' series for S-parameters, the far-field surfaces' and surface currents'
// transforms, and any other quantity a term records once per step; and what they show in each
// snapshot (Term::add_snapshot): the surface currents.

#include "dgatd/solver/far_field_record.hpp"
#include "dgatd/solver/port_series.hpp"
#include "dgatd/solver/surface_current_record.hpp"

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
  std::vector<SurfaceCurrentRecord> surface_currents;
};

struct TermSnapshots {
  std::vector<SurfaceSnapshot> surfaces;
};

} // namespace dgatd::solver
