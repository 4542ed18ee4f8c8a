include(GoogleTest)
# vp_add_gtest(name SOURCES a.cpp b.cpp LIBS lib1 lib2 [TIMEOUT s] [ENV VAR=value...])
# One executable per model or tool under test, discovered test by test so the
# count CTest prints is the count of assertions-bearing test cases.
function(vp_add_gtest name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;ENV" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  vp_target_defaults(${name})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  # Two environment variables cannot pass through gtest_discover_tests'
  # PROPERTIES (the list separator is lost on the way), so the tests are
  # launched through env(1), for discovery and for every run alike.
  set_property(TARGET ${name} PROPERTY CROSSCOMPILING_EMULATOR
    /usr/bin/env VP_SOURCE_DIR=${CMAKE_SOURCE_DIR} VP_BIN_DIR=${CMAKE_BINARY_DIR}/bin ${T_ENV})
  gtest_discover_tests(${name}
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
    PROPERTIES TIMEOUT ${T_TIMEOUT}
    DISCOVERY_TIMEOUT 120)
endfunction()
