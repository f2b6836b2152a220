// The solver's templates instantiated on the build's device space (Cuda, or else OpenMP)
// (dgatd/instances.hpp); one file per space, so that a parallel build compiles them side by side.

#include "dgatd/instances.hpp"
#include "dgatd/kernels/assembled.hpp"
#include "dgatd/solver/current_source.hpp"
#include "dgatd/solver/formulations.hpp"
#include "dgatd/solver/leapfrog.hpp"
#include "dgatd/solver/losses.hpp"
#include "dgatd/solver/magnetic_stretch.hpp"
#include "dgatd/solver/matched_port.hpp"
#include "dgatd/solver/prescribed_field.hpp"
#include "dgatd/solver/probes.hpp"

namespace dgatd::kernels {
DGATD_INSTANCES_ON_DEVICE(DGATD_ASSEMBLED_LEAPFROG_INSTANCES, )
} // namespace dgatd::kernels

namespace dgatd::solver {
DGATD_INSTANCES_ON_DEVICE(DGATD_LOSSES_INSTANCES, )
DGATD_INSTANCES_ON_DEVICE(DGATD_MAGNETIC_STRETCH_INSTANCES, )
DGATD_INSTANCES_ON_DEVICE(DGATD_CURRENT_SOURCE_INSTANCES, )
DGATD_INSTANCES_ON_DEVICE(DGATD_PRESCRIBED_FIELD_INSTANCES, )
DGATD_INSTANCES_ON_DEVICE(DGATD_MATCHED_PORT_INSTANCES, )
DGATD_INSTANCES_ON_DEVICE(DGATD_PROBE_RECORDER_INSTANCES, )
DGATD_INSTANCES_ON_DEVICE(DGATD_LEAPFROG_INSTANCES, )
DGATD_INSTANCES_ON_DEVICE(DGATD_FORMULATION_INSTANCES, )
} // namespace dgatd::solver
