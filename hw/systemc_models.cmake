# The chip as SystemC/TLM-2.0 modules: compute units (and the control
# processor) around the pure-C++ execution core, cluster SRAM and bus,
# global memory, the message fabric and the chip top.
if(NOT TARGET vp_hw_noc)
  add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/src/noc ${CMAKE_CURRENT_BINARY_DIR}/noc)
endif()

add_library(vp_hw_core STATIC
  src/cu/scoreboard.cpp
  src/cu/execution_core.cpp
  src/cu/executors/timing_column.cpp
  src/cu/executors/dispatch.cpp
  src/cu/executors/scalar_alu.cpp
  src/cu/executors/load_store.cpp
  src/cu/executors/branch_unit.cpp
  src/cu/executors/dma_unit.cpp
  src/cu/executors/crossbar_unit.cpp
  src/cu/executors/vector_unit.cpp
  src/cu/executors/noc_port.cpp
  src/cu/executors/sync_unit.cpp
  src/cu/executors/control.cpp)
target_include_directories(vp_hw_core PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include
                                      PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/cu)
target_link_libraries(vp_hw_core PUBLIC vp_isa vp_config PRIVATE vp_isa_operands vp_common)
vp_target_defaults(vp_hw_core)

add_library(vp_hw STATIC
  src/cu/core_module.cpp
  src/memory/shared_memory.cpp
  src/memory/zeroed_pages.cpp
  src/cluster/cluster_bus.cpp
  src/cluster/cluster.cpp
  src/chip/crossbar_bank.cpp
  src/chip/deploy_ahead.cpp
  src/chip/core_control.cpp
  src/chip/message_fabric.cpp
  src/chip/race_check.cpp
  src/chip/chip.cpp
  src/system/chip_link.cpp)
target_link_libraries(vp_hw PUBLIC vp_hw_core vp_hw_crossbar vp_hw_noc vp_systemc)
vp_target_defaults(vp_hw)
add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/rtl ${CMAKE_CURRENT_BINARY_DIR}/rtl)
