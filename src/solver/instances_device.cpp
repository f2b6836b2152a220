// The solver's templates instantiated on the build's device space (Cuda, or else OpenMP)
// (dgatd/instances.hpp); one file per space, so that a parallel build compiles them side by side.

#include "solver_instances.hpp"

DGATD_DEFINE_SOLVER_INSTANCES(DGATD_INSTANCES_ON_DEVICE, DGATD_LAYOUTS_ON_DEVICE)
