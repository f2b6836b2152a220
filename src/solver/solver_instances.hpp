#pragma once
// Every instance list the solver's headers declare extern, defined on the spaces ON names
// (DGATD_INSTANCES_ON_SERIAL or DGATD_INSTANCES_ON_DEVICE, dgatd/instances.hpp) and, for the lists
// with a tet layout, the spaces and layouts LAYOUTS names (DGATD_LAYOUTS_ON_SERIAL or
// DGATD_LAYOUTS_ON_DEVICE). A header that declares a new list adds it here, so both instance files
// define it.

#include "dgatd/instances.hpp"
#include "dgatd/kernels/ampere.hpp"
#include "dgatd/kernels/assembled.hpp"
#include "dgatd/kernels/faraday.hpp"
#include "dgatd/solver/current_source.hpp"
#include "dgatd/solver/far_field.hpp"
#include "dgatd/solver/formulations.hpp"
#include "dgatd/solver/leapfrog.hpp"
#include "dgatd/solver/losses.hpp"
#include "dgatd/solver/lumped_elements.hpp"
#include "dgatd/solver/magnetic_stretch.hpp"
#include "dgatd/solver/matched_port.hpp"
#include "dgatd/solver/plane_wave.hpp"
#include "dgatd/solver/prescribed_field.hpp"
#include "dgatd/solver/probes.hpp"

#define DGATD_DEFINE_SOLVER_INSTANCES(ON, LAYOUTS)                                                                     \
  namespace dgatd::kernels {                                                                                           \
  ON(DGATD_ASSEMBLED_LEAPFROG_INSTANCES, )                                                                             \
  LAYOUTS(DGATD_FARADAY_UPDATE_INSTANCES, )                                                                            \
  LAYOUTS(DGATD_AMPERE_UPDATE_INSTANCES, )                                                                             \
  }                                                                                                                    \
  namespace dgatd::solver {                                                                                            \
  LAYOUTS(DGATD_LOSSES_INSTANCES, )                                                                                    \
  LAYOUTS(DGATD_MAGNETIC_STRETCH_INSTANCES, )                                                                          \
  ON(DGATD_CURRENT_SOURCE_INSTANCES, )                                                                                 \
  ON(DGATD_PRESCRIBED_FIELD_INSTANCES, )                                                                               \
  ON(DGATD_MATCHED_PORT_INSTANCES, )                                                                                   \
  ON(DGATD_LUMPED_ELEMENTS_INSTANCES, )                                                                                \
  ON(DGATD_PLANE_WAVE_INSTANCES, )                                                                                     \
  ON(DGATD_FAR_FIELD_INSTANCES, )                                                                                      \
  ON(DGATD_PROBE_RECORDER_INSTANCES, )                                                                                 \
  LAYOUTS(DGATD_LEAPFROG_INSTANCES, )                                                                                  \
  ON(DGATD_FORMULATION_INSTANCES, )                                                                                    \
  }
