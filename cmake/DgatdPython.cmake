# The Python package dgatd (python/dgatd/ and its compiled half src/python/module.cpp), built into
# ${PROJECT_BINARY_DIR}/python: DGATD_PYTHON says whether it is. Its module links dgatd's static
# libraries into a shared object, so they are compiled position-independent (Kokkos from
# setup_dependencies.sh is too). Not with the sanitizers (the interpreter would have to preload their
# runtimes) nor in the fuzz build.
set(DGATD_PYTHON OFF)
if(NOT DGATD_ENABLE_PYTHON STREQUAL "OFF" AND NOT DGATD_SANITIZE AND NOT DGATD_FUZZ)
  set(_dgatd_python_required "")
  if(DGATD_ENABLE_PYTHON STREQUAL "ON")
    set(_dgatd_python_required REQUIRED)
  endif()
  find_package(Python 3.8 COMPONENTS Interpreter Development.Module ${_dgatd_python_required} QUIET)
  if(Python_FOUND)
    find_package(pybind11 2.6 CONFIG ${_dgatd_python_required} QUIET)
  endif()
  if(Python_FOUND AND pybind11_FOUND)
    set(DGATD_PYTHON ON)
    set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  elseif(DGATD_ENABLE_PYTHON STREQUAL "ON")
    message(FATAL_ERROR "DGATD_ENABLE_PYTHON=ON needs Python's headers and pybind11 (Debian: python3-dev pybind11-dev)")
  endif()
endif()
message(STATUS "dgatd: the Python package (pybind11): ${DGATD_PYTHON}")
