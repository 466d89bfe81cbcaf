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
