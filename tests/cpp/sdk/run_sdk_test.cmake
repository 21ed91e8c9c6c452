# cmake -DPYPTO_BUILD_DIR=... -DOOT_SOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -DCXX_COMPILER=...
#       -P run_sdk_test.cmake
#
# 1. cmake --install the PyPTO build into WORK_DIR/prefix,
# 2. configure and build OOT_SOURCE_DIR against that prefix (find_package(PyPTO)),
# 3. run its driver with the built plugin on PYPTO_PLUGIN_PATH, and its tile-ISA program,
# 4. check that a copy whose manifest declares another ABI fails to configure.
foreach(var PYPTO_BUILD_DIR OOT_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_sdk_test.cmake needs -D${var}=...")
  endif()
endforeach()

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message(STATUS "${what}:\n${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (exit ${rc}): ${ARGN}")
  endif()
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(oot_build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})

run_step("install" ${CMAKE_COMMAND} --install ${PYPTO_BUILD_DIR} --prefix ${prefix})
foreach(installed lib/cmake/PyPTO/PyPTOConfig.cmake lib/cmake/PyPTO/PyPTOConfigVersion.cmake
                  lib/cmake/PyPTO/PyPTOTargets.cmake lib/cmake/PyPTO/PyPTOPlugin.cmake
                  include/pypto/plugin/abi.h include/pto/pto-inst.hpp include/pypto/isa/instructions.h
                  include/pypto/runtime/kernel_args.h
                  share/pypto/pipelines/default.yaml)
  if(NOT EXISTS ${prefix}/${installed})
    message(FATAL_ERROR "the install did not produce ${prefix}/${installed}")
  endif()
endforeach()

run_step("configure" ${CMAKE_COMMAND} -S ${OOT_SOURCE_DIR} -B ${oot_build} -G ${GENERATOR}
  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release)
run_step("build" ${CMAKE_COMMAND} --build ${oot_build} --parallel 1)
run_step("run" ${CMAKE_COMMAND} -E env PYPTO_PLUGIN_PATH=${oot_build}/plugins
  ${oot_build}/oot_driver ${OOT_SOURCE_DIR}/oot_pipeline.yaml ${prefix})
run_step("run the tile-ISA program" ${oot_build}/isa_consumer)

# A manifest left at another ABI is refused when the plugin is configured.
set(stale ${WORK_DIR}/stale_abi)
file(COPY ${OOT_SOURCE_DIR}/ DESTINATION ${stale})
file(READ ${stale}/manifest.yaml manifest)
string(REGEX REPLACE "\nabi: [0-9]+" "\nabi: 1" manifest "${manifest}")
file(WRITE ${stale}/manifest.yaml "${manifest}")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${stale} -B ${WORK_DIR}/stale_build -G ${GENERATOR}
                  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
# CMake wraps long messages at spaces, so the words may be split across lines.
string(REGEX REPLACE "[ \n]+" " " flat "${out}")
string(FIND "${flat}" "declares 'abi: 1' but this PyPTO" found)
if(rc EQUAL 0 OR found EQUAL -1)
  message(FATAL_ERROR "configuring a plugin whose manifest says abi: 1 should fail naming the ABI (exit ${rc}):\n${out}")
endif()
message(STATUS "stale abi refused:\n${out}")
