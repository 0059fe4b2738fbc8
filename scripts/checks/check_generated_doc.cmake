# ctest check: a checked-in generated document is what its generator prints now.
# Run: cmake -DGEN=<program> -DARGS=<arg;...> -DDOC=<repo>/docs/<file> -DHOW=<regenerate command> -P check_generated_doc.cmake
execute_process(COMMAND "${GEN}" ${ARGS} OUTPUT_VARIABLE generated RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${GEN} failed (${rc})")
endif()
if(NOT EXISTS "${DOC}")
  message(FATAL_ERROR "${DOC} is missing; run: ${HOW}")
endif()
file(READ "${DOC}" current)
if(NOT current STREQUAL generated)
  message(FATAL_ERROR "${DOC} is stale; regenerate it: ${HOW}")
endif()
message(STATUS "${DOC} ok")
