# Finds every dependency; a missing one stops the configure with the Debian package to install.

function(dgatd_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "dgatd: ${what} not found. Install it with 'apt-get install ${package}' "
                        "(or run scripts/setup_dependencies.sh).")
  endif()
endfunction()

# Kokkos and Kokkos Kernels: a user's own install through Kokkos_ROOT / KokkosKernels_ROOT, else
# the one scripts/setup_dependencies.sh caches.
if(NOT Kokkos_ROOT AND NOT DEFINED ENV{Kokkos_ROOT} AND DGATD_DEFAULT_KOKKOS_ROOT)
  set(Kokkos_ROOT ${DGATD_DEFAULT_KOKKOS_ROOT})
endif()
if(NOT KokkosKernels_ROOT AND NOT DEFINED ENV{KokkosKernels_ROOT} AND Kokkos_ROOT)
  set(KokkosKernels_ROOT ${Kokkos_ROOT})
endif()
find_package(Kokkos QUIET)
if(NOT Kokkos_FOUND)
  message(FATAL_ERROR "dgatd: Kokkos not found (looked in Kokkos_ROOT='${Kokkos_ROOT}'). Run "
                      "scripts/setup_dependencies.sh, or pass -DKokkos_ROOT=/path/to/kokkos/install.")
endif()
find_package(KokkosKernels QUIET)
if(NOT KokkosKernels_FOUND)
  message(FATAL_ERROR "dgatd: Kokkos Kernels not found (KokkosKernels_ROOT='${KokkosKernels_ROOT}'). "
                      "Run scripts/setup_dependencies.sh, or pass -DKokkosKernels_ROOT=/path/to/install.")
endif()
if(NOT TARGET Kokkos::kokkoskernels AND TARGET KokkosKernels::all_libs)
  # Kokkos Kernels built inside Trilinos (Debian's libtrilinos-kokkos-kernels-dev) exports only the
  # TriBITS target names.
  add_library(Kokkos::kokkoskernels INTERFACE IMPORTED)
  target_link_libraries(Kokkos::kokkoskernels INTERFACE KokkosKernels::all_libs)
endif()
message(STATUS "dgatd: using Kokkos ${Kokkos_VERSION} from ${Kokkos_DIR}")
message(STATUS "dgatd: using Kokkos Kernels from ${KokkosKernels_DIR}")
set(DGATD_BACKEND_CUDA OFF)
kokkos_check(DEVICES CUDA RETURN_VALUE DGATD_BACKEND_CUDA)
set(DGATD_BACKEND_OPENMP OFF)
kokkos_check(DEVICES OPENMP RETURN_VALUE DGATD_BACKEND_OPENMP)
message(STATUS "dgatd: Kokkos CUDA backend: ${DGATD_BACKEND_CUDA}, OpenMP backend: ${DGATD_BACKEND_OPENMP}")
if(DGATD_BACKEND_CUDA)
  include(DgatdCudaArchitectures)
  dgatd_detect_cuda_architectures()
  message(STATUS "dgatd: GPU code compiled in: ${DGATD_CUDA_ARCHITECTURES}")
endif()

find_package(HDF5 COMPONENTS C QUIET)
dgatd_require(HDF5_FOUND "HDF5 (C API)" libhdf5-dev)

include(dgatdFindGmsh)
dgatd_require(GMSH_FOUND "Gmsh SDK (gmsh.h, libgmsh)" libgmsh-dev)

find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(FFTW3 QUIET IMPORTED_TARGET fftw3)
endif()
dgatd_require(FFTW3_FOUND "FFTW3" libfftw3-dev)

find_package(CLI11 CONFIG QUIET)
dgatd_require(CLI11_FOUND "CLI11" libcli11-dev)
find_package(toml11 CONFIG QUIET)
dgatd_require(toml11_FOUND "toml11" libtoml11-dev)
find_path(METIS_INCLUDE_DIR metis.h)
find_library(METIS_LIBRARY metis)
if(METIS_INCLUDE_DIR AND METIS_LIBRARY)
  set(METIS_FOUND ON)
  add_library(dgatd::metis UNKNOWN IMPORTED)
  set_target_properties(dgatd::metis PROPERTIES IMPORTED_LOCATION ${METIS_LIBRARY}
                                                INTERFACE_INCLUDE_DIRECTORIES ${METIS_INCLUDE_DIR})
endif()
dgatd_require(METIS_FOUND "METIS 5" libmetis-dev)
find_package(Threads REQUIRED)
if(DGATD_ENABLE_TESTS)
  find_package(GTest QUIET)
  dgatd_require(GTest_FOUND "GoogleTest" libgtest-dev)
endif()
