# The package test's steps (tests/package/CMakeLists.txt), as a user takes them: install, configure
# examples/ against the install, build, run. A failing step stops the test naming the step, with
# its command and output.
#   cmake -DBUILD_DIR=... -DEXAMPLES_DIR=... -DWORK_DIR=... -DGENERATOR=... -DC_COMPILER=...
#         -DCXX_COMPILER=... [-DCONFIG=Release] -P check_installed_package.cmake
cmake_minimum_required(VERSION 3.16)

set(prefix ${WORK_DIR}/prefix)
set(build ${WORK_DIR}/build)
set(config_option)
if(CONFIG)
  set(config_option --config ${CONFIG})
endif()

# Runs the command after the step's name; leaves its output in `output`.
function(run_step name)
  string(TIMESTAMP start "%s")
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE status OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  string(TIMESTAMP end "%s")
  math(EXPR seconds "${end} - ${start}")
  if(NOT status EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "package test: step '${name}' failed (${status}) after ${seconds} s:\n  ${command}\n${out}")
  endif()
  message(STATUS "${name}: ok (${seconds} s)")
  set(output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
run_step("install the build into ${prefix}" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} ${config_option})
run_step("configure examples/ against it"
         ${CMAKE_COMMAND} -S ${EXAMPLES_DIR} -B ${build} -G ${GENERATOR} -DCMAKE_C_COMPILER=${C_COMPILER}
         -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -Ddgatd_ROOT=${prefix})
run_step("build examples/" ${CMAKE_COMMAND} --build ${build} ${config_option})

set(program ${build}/cavity_modes)
if(CONFIG AND EXISTS ${build}/${CONFIG}/cavity_modes)
  set(program ${build}/${CONFIG}/cavity_modes) # multi-configuration generators
endif()
run_step("run cavity_modes" ${program})
message("${output}")
if(NOT output MATCHES "first mode: [^ ]+ Hz \\(analytic [^ ]+ Hz, error ([0-9.]+) %\\)")
  message(FATAL_ERROR "package test: step 'check the output' failed: no 'first mode: ... error E %' line")
endif()
if(NOT CMAKE_MATCH_1 LESS 1.0)
  message(FATAL_ERROR "package test: step 'check the output' failed: first mode off by ${CMAKE_MATCH_1} %, more than 1 %")
endif()
