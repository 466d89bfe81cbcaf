# find_package(dpadmm) support: targets dpadmm::runtime and dpadmm::algorithms, public headers,
# a package config that finds Eigen (and oneTBB when the runtime was built with it), and a
# version file (same major version is compatible).
include(CMakePackageConfigHelpers)

set(DPADMM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/dpadmm)

install(TARGETS dpadmm_runtime dpadmm_algorithms
  EXPORT dpadmmTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY runtime/include/ algorithms/include/ ${DPADMM_GENERATED_INCLUDE_DIR}/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT dpadmmTargets NAMESPACE dpadmm:: DESTINATION ${DPADMM_CMAKE_DIR})

configure_package_config_file(cmake/dpadmmConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/dpadmmConfig.cmake
  INSTALL_DESTINATION ${DPADMM_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/dpadmmConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/dpadmmConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/dpadmmConfigVersion.cmake
        DESTINATION ${DPADMM_CMAKE_DIR})
