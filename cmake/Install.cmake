# SPDX-License-Identifier: Apache-2.0
# find_package(dpadmm) support: targets dpadmm::runtime and dpadmm::algorithms, public headers,
# a package config that finds Eigen (and oneTBB when the runtime was built with it), and a
# version file (same major version is compatible).
include(CMakePackageConfigHelpers)

set(DPADMM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/dpadmm)

set(DPADMM_INSTALL_TARGETS dpadmm_runtime dpadmm_algorithms)
if(DPADMM_WITH_PARTY)
  list(APPEND DPADMM_INSTALL_TARGETS dpadmm_party_grpc dpadmm_party_wire)  # the static runtime's
endif()
install(TARGETS ${DPADMM_INSTALL_TARGETS}
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

# pkg-config (lib/pkgconfig/dpadmm.pc) for builds that do not use CMake. The headers need C++20
# (compile with -std=c++20). With the default static libraries, link with
# `pkg-config --static --libs dpadmm` so that oneTBB (Libs.private) is on the line too.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(DPADMM_PC_TO_PREFIX "${CMAKE_INSTALL_PREFIX}")
  message(WARNING "dpadmm.pc: absolute CMAKE_INSTALL_LIBDIR, the .pc file is not relocatable")
else()
  file(RELATIVE_PATH DPADMM_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
  string(REGEX REPLACE "/$" "" DPADMM_PC_TO_PREFIX "${DPADMM_PC_TO_PREFIX}")
endif()
if(DPADMM_WITH_TBB)
  set(DPADMM_PC_LIBS_PRIVATE "-ltbb -pthread")
else()
  set(DPADMM_PC_LIBS_PRIVATE "")
endif()
# The MPI engine's library (Open MPI's pkg-config module for its C API), when built with it.
set(DPADMM_PC_REQUIRES_PRIVATE "")
if(DPADMM_WITH_MPI)
  set(DPADMM_PC_REQUIRES_PRIVATE "ompi-c")
endif()
# The network engine's gRPC and protobuf (their pkg-config modules), when built with it.
if(DPADMM_WITH_PARTY)
  string(APPEND DPADMM_PC_REQUIRES_PRIVATE " grpc++ protobuf")
  set(DPADMM_PC_LIBS_PRIVATE "-ldpadmm_party_grpc -ldpadmm_party_wire ${DPADMM_PC_LIBS_PRIVATE}")
endif()
configure_file(cmake/dpadmm.pc.in ${CMAKE_CURRENT_BINARY_DIR}/dpadmm.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/dpadmm.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
