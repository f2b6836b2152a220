#pragma once
// What the terms of a run hand to its output at the end (Term::add_records), in the order the terms
// run: the ports' series for S-parameters, the far-field surfaces' transforms.

#include "dgatd/solver/far_field_record.hpp"
#include "dgatd/solver/port_series.hpp"

#include <vector>

namespace dgatd::solver {

struct TermRecords {
  std::vector<PortSeries> ports;
  std::vector<FarFieldRecord> far_fields;
};

} // namespace dgatd::solver
