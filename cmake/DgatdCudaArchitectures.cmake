# The GPU code a CUDA build of dgatd carries, for `dgatd --version` and the start-up check, taken
# from what the compiler would really generate: a probe compiles through the same compiler, flags
# and Kokkos usage requirements as dgatd's targets, with nvcc's --dryrun, and the fatbinary command
# nvcc would run names every machine-code (elf) and PTX image. Arch flags from any source count:
# Kokkos' -arch, CMAKE_CXX_FLAGS, NVCC_APPEND_FLAGS set by the compiler wrapper. A compiler that is
# not nvcc (or nvcc_wrapper) answers nothing parseable, and the result is "unknown", which the
# start-up check treats as undecided.
#
# Sets DGATD_CUDA_ARCHITECTURES, e.g. "sm_80 sm_90 compute_80 compute_90" (machine code first,
# each kind in ascending order), cached until the compiler, its flags or Kokkos change.
function(dgatd_detect_cuda_architectures)
  set(signature "${CMAKE_CXX_COMPILER}|${CMAKE_CXX_FLAGS}|${Kokkos_DIR}|$ENV{NVCC_APPEND_FLAGS}")
  if(DEFINED CACHE{DGATD_CUDA_ARCHITECTURES} AND "${DGATD_CUDA_ARCHITECTURES_SIGNATURE}" STREQUAL "${signature}")
    return()
  endif()

  set(probe_dir ${CMAKE_BINARY_DIR}/CMakeFiles/dgatd_cuda_architectures)
  file(WRITE ${probe_dir}/probe.cpp "int main() { return 0; }\n")
  # The link fails by design (--dryrun writes no object); only the compile step's output matters.
  try_compile(probe_linked ${probe_dir}/build SOURCES ${probe_dir}/probe.cpp
              COMPILE_DEFINITIONS --dryrun
              LINK_LIBRARIES Kokkos::kokkos
              OUTPUT_VARIABLE output)

  # nvcc >= 11: --image3=kind=elf,sm=80,file=...  older: --image=profile=sm_80,file=...
  set(machine_code)
  set(ptx)
  string(REGEX MATCHALL "--image3=kind=(elf|ptx),sm=[0-9]+[a-z]?" images3 "${output}")
  foreach(image IN LISTS images3)
    string(REGEX MATCH "kind=(elf|ptx),sm=([0-9]+[a-z]?)" _ "${image}")
    if(CMAKE_MATCH_1 STREQUAL "elf")
      list(APPEND machine_code "sm_${CMAKE_MATCH_2}")
    else()
      list(APPEND ptx "compute_${CMAKE_MATCH_2}")
    endif()
  endforeach()
  string(REGEX MATCHALL "--image=profile=(sm|compute)_[0-9]+[a-z]?" images "${output}")
  foreach(image IN LISTS images)
    string(REGEX MATCH "profile=((sm|compute)_[0-9]+[a-z]?)" _ "${image}")
    if(CMAKE_MATCH_2 STREQUAL "sm")
      list(APPEND machine_code "${CMAKE_MATCH_1}")
    else()
      list(APPEND ptx "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES machine_code)
  list(REMOVE_DUPLICATES ptx)
  list(SORT machine_code COMPARE NATURAL)
  list(SORT ptx COMPARE NATURAL)
  set(architectures ${machine_code} ${ptx})
  if(architectures)
    list(JOIN architectures " " architectures)
  else()
    set(architectures "unknown")
    file(WRITE ${probe_dir}/probe.log "${output}")
    message(WARNING "dgatd: could not tell which GPU code ${CMAKE_CXX_COMPILER} generates (it did not answer "
                    "nvcc's --dryrun; output in ${probe_dir}/probe.log); `dgatd --version` will say \"unknown\" "
                    "and the start-up check leaves the decision to Kokkos.")
  endif()
  set(DGATD_CUDA_ARCHITECTURES "${architectures}" CACHE INTERNAL "GPU code compiled into a CUDA build")
  set(DGATD_CUDA_ARCHITECTURES_SIGNATURE "${signature}" CACHE INTERNAL "What DGATD_CUDA_ARCHITECTURES was detected for")
endfunction()
