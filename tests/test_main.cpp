// GoogleTest entry point: Kokkos lives for the whole test run, as in the dgatd executable.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char* argv[])
{
  ::testing::InitGoogleTest(&argc, argv);
  // Kokkos warns on stdout when OMP_PROC_BIND is unset, and test discovery reads stdout as the
  // test list; libgomp has read its environment already, so this changes no binding.
  if (std::getenv("OMP_PROC_BIND") == nullptr) setenv("OMP_PROC_BIND", "false", 0);
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
