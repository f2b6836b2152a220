# The installed package (`cmake --install build/openmp --prefix P`): the public headers with the
# generated version.hpp, the stage libraries (src/CMakeLists.txt adds each to the export set
# dgatdTargets where it defines it), the dgatd executable, and P/lib/cmake/dgatd: dgatdConfig.cmake,
# which finds the dependencies again, its version file, and the exported targets, namespace dgatd::
# (dgatd::dgatd is every stage; dgatd::mesh, dgatd::physics, dgatd::io one each).
include(CMakePackageConfigHelpers)

set(DGATD_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/dgatd)

# Keeps the run path to libraries outside the system directories (a shared Kokkos of the user's).
set_target_properties(dgatd PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS dgatd RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/dgatd DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/generated/dgatd/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dgatd)

install(EXPORT dgatdTargets NAMESPACE dgatd:: DESTINATION ${DGATD_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/dgatdConfig.cmake.in ${PROJECT_BINARY_DIR}/package/dgatdConfig.cmake
                              INSTALL_DESTINATION ${DGATD_INSTALL_CMAKEDIR})
# 0.x: a new minor version may change the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/dgatdConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/dgatdConfig.cmake ${PROJECT_BINARY_DIR}/package/dgatdConfigVersion.cmake
              cmake/dgatdFindGmsh.cmake
        DESTINATION ${DGATD_INSTALL_CMAKEDIR})
