// The solver's templates instantiated on Serial, the reference space of the backend tests
// (dgatd/instances.hpp); one file per space, so that a parallel build compiles them side by side.

#include "solver_instances.hpp"

DGATD_DEFINE_SOLVER_INSTANCES(DGATD_INSTANCES_ON_SERIAL, DGATD_LAYOUTS_ON_SERIAL)
