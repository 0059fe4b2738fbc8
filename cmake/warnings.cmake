# Warning flags for our own targets; call og_target_warnings(<target>).
function(og_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  # GCC 12 at -O3 reports false -Wrestrict positives inside libstdc++'s std::string operator+
  # (GCC bug 105329, fixed in GCC 13): silenced for that compiler only, so a first build is clean.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
     AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  # Clang checks the lock annotations (common/mutex.h): a guarded member touched without its
  # mutex is an error in every clang build (the fuzz preset builds the engine with it).
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE -Wthread-safety -Werror=thread-safety)
  endif()
  if(OG_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# og_library(<layer> SOURCES ... DEPS ...): defines omnigraph_<layer> with includes rooted at src/.
function(og_library layer)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PUBLIC_DEPS" ${ARGN})
  add_library(omnigraph_${layer} STATIC ${ARG_SOURCES})
  target_include_directories(omnigraph_${layer} PUBLIC ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)
  target_link_libraries(omnigraph_${layer} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_DEPS})
  og_target_warnings(omnigraph_${layer})
endfunction()

# og_test(<name> SOURCES ... DEPS ...): one gtest binary, test cases registered with ctest.
function(og_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS" ${ARGN})
  if(NOT OG_BUILD_TESTS)
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main Threads::Threads)
  og_target_warnings(${name})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST PROPERTIES TIMEOUT ${ARG_TIMEOUT})
endfunction()
