# `cmake --install build --prefix P`: the tools in P/bin, the firmware and
# presets in P/share/sidra-vp, the public headers in P/include, the
# libraries in P/lib and a CMake package (find_package(SidraVP)) whose
# targets a user's own SystemC top level links to build the chip; the Python
# package goes to P/lib/python3/dist-packages (python/CMakeLists.txt).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS vp-as vp-objdump vp-isa vp-cc vp-cc-modelgen vp-run vp-sweep vp-trace vp-params
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
# vp-eval is a Python script beside them: it finds vp-cc and vp-run in its own folder.
install(PROGRAMS ${CMAKE_BINARY_DIR}/bin/vp-eval DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
install(FILES ${CMAKE_BINARY_DIR}/firmware/sidra_fw.vpo ${CMAKE_BINARY_DIR}/firmware/sidra_fw.lst
  DESTINATION ${CMAKE_INSTALL_DATADIR}/sidra-vp/firmware COMPONENT tools)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/sidra-vp/configs
  COMPONENT tools FILES_MATCHING PATTERN "*.yaml" PATTERN "*.yml" PATTERN "*.json")

# The libraries, in link order, and the interface targets they name.
set(VP_INSTALLED_LIBRARIES
  vp_common vp_config vp_isa vp_isa_operands vp_object vp_asm vp_traces
  vp_hw_crossbar vp_hw_rtl_cc vp_hw_rtl vp_hw_noc vp_hw_core vp_hw vp_systemc vp_warnings
  vp_platform vp_compiler)
# Include folders in the source or build tree are the build's; installed,
# every public header is under P/include.
foreach(lib ${VP_INSTALLED_LIBRARIES})
  foreach(prop INTERFACE_INCLUDE_DIRECTORIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES)
    get_target_property(dirs ${lib} ${prop})
    if(NOT dirs)
      continue()
    endif()
    set(mapped)
    set(ours OFF)
    foreach(d ${dirs})
      string(FIND "${d}" "${CMAKE_SOURCE_DIR}" in_source)
      string(FIND "${d}" "${CMAKE_BINARY_DIR}" in_build)
      if(in_source EQUAL 0 OR in_build EQUAL 0)
        list(APPEND mapped "$<BUILD_INTERFACE:${d}>")
        set(ours ON)
      else()
        list(APPEND mapped "${d}")
      endif()
    endforeach()
    if(ours AND prop STREQUAL "INTERFACE_INCLUDE_DIRECTORIES")
      list(APPEND mapped "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
    endif()
    set_property(TARGET ${lib} PROPERTY ${prop} "${mapped}")
  endforeach()
endforeach()

install(TARGETS ${VP_INSTALLED_LIBRARIES} EXPORT SidraVPTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(dir common config isa assembler traces hw hw/rtl platform compiler)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/${dir}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
endforeach()
install(DIRECTORY ${CMAKE_BINARY_DIR}/isa/generated/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)

set(VP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/SidraVP)
install(EXPORT SidraVPTargets NAMESPACE SidraVP:: DESTINATION ${VP_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/SidraVPConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/SidraVPConfig.cmake INSTALL_DESTINATION ${VP_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_DATADIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/SidraVPConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/SidraVPConfig.cmake ${CMAKE_BINARY_DIR}/cmake/SidraVPConfigVersion.cmake
  DESTINATION ${VP_CMAKE_DIR} COMPONENT dev)
