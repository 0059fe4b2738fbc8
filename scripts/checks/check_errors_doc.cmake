# ctest check: docs/errors.md is what og_errors_doc generates from error_codes.def.
# Run: cmake -DGEN=<og_errors_doc> -DDOC=<repo>/docs/errors.md -P check_errors_doc.cmake
execute_process(COMMAND "${GEN}" OUTPUT_VARIABLE generated RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "og_errors_doc failed (${rc})")
endif()
if(NOT EXISTS "${DOC}")
  message(FATAL_ERROR "${DOC} is missing; run: og_errors_doc > docs/errors.md")
endif()
file(READ "${DOC}" current)
if(NOT current STREQUAL generated)
  message(FATAL_ERROR "docs/errors.md is stale; regenerate it: build/ci/src/common/og_errors_doc > docs/errors.md")
endif()
message(STATUS "errors doc ok")
