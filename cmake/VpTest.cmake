include(GoogleTest)
# vp_add_gtest(name SOURCES a.cpp b.cpp LIBS lib1 lib2)
# One executable per model or tool under test, discovered test by test so the
# count CTest prints is the count of assertions-bearing test cases.
function(vp_add_gtest name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  vp_target_defaults(${name})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  gtest_discover_tests(${name}
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
    PROPERTIES TIMEOUT ${T_TIMEOUT} ENVIRONMENT "VP_SOURCE_DIR=${CMAKE_SOURCE_DIR};VP_BIN_DIR=${CMAKE_BINARY_DIR}/bin"
    DISCOVERY_TIMEOUT 120)
endfunction()
