# Gmsh's SDK ships no CMake package: its header and library, found on the system paths and
# CMAKE_PREFIX_PATH (or given as GMSH_INCLUDE_DIR and GMSH_LIBRARY), as the imported target
# dgatd::gmsh (its include directory is SYSTEM, like every imported target's). Sets GMSH_FOUND. Used by the build (DgatdDependencies.cmake) and,
# installed beside it, by dgatdConfig.cmake, so the build and its consumers find the same Gmsh.
find_path(GMSH_INCLUDE_DIR gmsh.h)
find_library(GMSH_LIBRARY gmsh)
set(GMSH_FOUND OFF)
if(GMSH_INCLUDE_DIR AND GMSH_LIBRARY)
  set(GMSH_FOUND ON)
  if(NOT TARGET dgatd::gmsh)
    add_library(dgatd::gmsh INTERFACE IMPORTED)
    set_target_properties(dgatd::gmsh PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${GMSH_INCLUDE_DIR}"
                                                 INTERFACE_LINK_LIBRARIES "${GMSH_LIBRARY}")
  endif()
endif()
