#pragma once
// Explicit template instantiation (Kokkos Kernels' ETI): the solver's device templates are compiled
// once, in the library (src/solver/instances_*.cpp, from the list in src/solver/solver_instances.hpp),
// for Serial and for the build's default device space among Cuda and OpenMP, the spaces dgatd runs
// and tests on. Each header declares those instances extern, so the simulation, the tests and the
// benchmarks link them instead of compiling their own kernels. A member defined in its class body is
// inline and gets compiled wherever it is called despite the extern declaration, so the members that
// launch kernels are defined below their class. Any other space (OpenMP in a CUDA build, HIP,
// Threads) instantiates where it is used, as any template does.

#include <Kokkos_Core.hpp>

// Templates with a tet layout (dgatd/kernels/device_operators.hpp) are instantiated for the device
// space in both layouts, since `dgatd bench` compares them, and for Serial in its own (LayoutRight):
// only the backend tests run Serial in the other one, and compile it where they do.
#if defined(KOKKOS_ENABLE_SERIAL)
#define DGATD_INSTANCES_ON_SERIAL(INSTANCES, PREFIX) INSTANCES(PREFIX, Kokkos::Serial)
#define DGATD_LAYOUTS_ON_SERIAL(INSTANCES, PREFIX) INSTANCES(PREFIX, Kokkos::Serial, Kokkos::LayoutRight)
#else
#define DGATD_INSTANCES_ON_SERIAL(INSTANCES, PREFIX)
#define DGATD_LAYOUTS_ON_SERIAL(INSTANCES, PREFIX)
#endif

#if defined(KOKKOS_ENABLE_CUDA)
#define DGATD_DEVICE_SPACE Kokkos::Cuda
#elif defined(KOKKOS_ENABLE_OPENMP)
#define DGATD_DEVICE_SPACE Kokkos::OpenMP
#endif
#if defined(DGATD_DEVICE_SPACE)
#define DGATD_INSTANCES_ON_DEVICE(INSTANCES, PREFIX) INSTANCES(PREFIX, DGATD_DEVICE_SPACE)
#define DGATD_LAYOUTS_ON_DEVICE(INSTANCES, PREFIX)                                                                     \
  INSTANCES(PREFIX, DGATD_DEVICE_SPACE, Kokkos::LayoutLeft) INSTANCES(PREFIX, DGATD_DEVICE_SPACE, Kokkos::LayoutRight)
#else
#define DGATD_INSTANCES_ON_DEVICE(INSTANCES, PREFIX)
#define DGATD_LAYOUTS_ON_DEVICE(INSTANCES, PREFIX)
#endif

// INSTANCES(PREFIX, Space) for each space the library instantiates for: PREFIX extern declares the
// instances, an empty PREFIX defines them.
#define DGATD_FOR_EACH_INSTANCE_SPACE(INSTANCES, PREFIX)                                                               \
  DGATD_INSTANCES_ON_SERIAL(INSTANCES, PREFIX)                                                                         \
  DGATD_INSTANCES_ON_DEVICE(INSTANCES, PREFIX)

// INSTANCES(PREFIX, Space, TetLayout) for each space and tet layout the library instantiates for.
#define DGATD_FOR_EACH_INSTANCE_LAYOUT(INSTANCES, PREFIX)                                                              \
  DGATD_LAYOUTS_ON_SERIAL(INSTANCES, PREFIX)                                                                           \
  DGATD_LAYOUTS_ON_DEVICE(INSTANCES, PREFIX)
