# SPDX-License-Identifier: Apache-2.0
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message("${out}")
endfunction()

file(REMOVE_RECURSE ${PREFIX} ${WORK})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})
run(${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/ok -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${PREFIX}
    -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK}/ok)
run(${WORK}/ok/consumer)

# A wrong major version must be refused by the version file.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/bad -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${PREFIX} -DDPADMM_REQUIRED_VERSION=99.0
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "find_package(dpadmm 99.0) was accepted")
endif()
if(NOT err MATCHES "version")
  message(FATAL_ERROR "refusal does not mention the version:\n${err}")
endif()
message("wrong version refused as expected")

# examples/embed against the installed package: trains, saves, loads and predicts.
run(${CMAKE_COMMAND} -S ${EXAMPLE} -B ${WORK}/embed -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${PREFIX}
    -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK}/embed)
execute_process(COMMAND ${WORK}/embed/embed ${WORK}/embed/model.json
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "\nok\n")
  message(FATAL_ERROR "examples/embed failed (${rc}):\n${out}\n${err}")
endif()
if(NOT EXISTS ${WORK}/embed/model.json)
  message(FATAL_ERROR "examples/embed wrote no model file")
endif()

# examples/party against the installed package: three parties of a network run (threads on
# loopback) through dpadmm/party.h.
run(${CMAKE_COMMAND} -S ${PARTY_EXAMPLE} -B ${WORK}/party -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK}/party)
execute_process(COMMAND ${WORK}/party/party RESULT_VARIABLE rc OUTPUT_VARIABLE out
  ERROR_VARIABLE err TIMEOUT 120)
message("${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "\nok\n")
  message(FATAL_ERROR "examples/party failed (${rc}):\n${out}\n${err}")
endif()

# pkg-config: the installed dpadmm.pc (relocatable, found through PKG_CONFIG_PATH) gives the
# flags to compile and link a program without CMake.
if(NOT PKG_CONFIG)
  message(FATAL_ERROR "pkg-config not found")
endif()
file(GLOB pc_files ${PREFIX}/*/pkgconfig/dpadmm.pc ${PREFIX}/*/*/pkgconfig/dpadmm.pc)
list(LENGTH pc_files pc_count)
if(NOT pc_count EQUAL 1)
  message(FATAL_ERROR "expected one installed dpadmm.pc, found: ${pc_files}")
endif()
get_filename_component(pc_dir ${pc_files} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
execute_process(COMMAND ${PKG_CONFIG} --modversion dpadmm
  RESULT_VARIABLE rc OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT version MATCHES "^[0-9]+\\.[0-9]+")
  message(FATAL_ERROR "pkg-config --modversion dpadmm failed (${rc}): ${version}")
endif()
# Static libraries (the default): --static adds oneTBB from Libs.private.
execute_process(COMMAND ${PKG_CONFIG} --static --cflags --libs dpadmm
  RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags --libs dpadmm failed (${rc}):\n${err}")
endif()
message("pkg-config dpadmm ${version}: ${flags}")
if(NOT flags MATCHES "-I${PREFIX}/" AND NOT flags MATCHES "-I[^ ]*/include")
  message(FATAL_ERROR "pkg-config gives no include folder: ${flags}")
endif()
separate_arguments(flag_list UNIX_COMMAND "${flags}")
run(${CXX} -std=c++20 -O1 ${PC_SOURCE} -o ${WORK}/pkg_config_main ${flag_list})
run(${WORK}/pkg_config_main)
