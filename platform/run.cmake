# The platform proper: chip from configuration, program loading, trace
# recording, statistics, and the vp-run tool.
add_library(vp_platform STATIC
  src/run/chip_builder.cpp
  src/run/chip_size.cpp
  src/run/program_loader.cpp
  src/run/trace_recorder.cpp
  src/run/run_statistics.cpp
  src/run/tensor_file.cpp
  src/run/fabric_recorder.cpp
  src/run/waveform_export.cpp
  src/run/host_io.cpp
  src/run/float_io.cpp
  src/run/model_image.cpp
  src/run/firmware_report.cpp
  src/run/stream_images.cpp
  src/run/adc_profile.cpp
  src/run/model_run.cpp
  src/run/system_file.cpp
  src/run/system_run.cpp)
target_include_directories(vp_platform PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(vp_platform PUBLIC vp_hw vp_config vp_object vp_traces vp_common nlohmann_json::nlohmann_json
  PRIVATE vp_asm)
vp_target_defaults(vp_platform)

add_executable(vp-run tools/vp_run_main.cpp tools/vp_run_system.cpp)
target_link_libraries(vp-run PRIVATE vp_platform vp_asm Boost::program_options)
vp_target_defaults(vp-run)
# The firmware vp-run runs by default, assembled at build time (firmware/).
target_compile_definitions(vp-run PRIVATE VP_FIRMWARE_PATH="${CMAKE_BINARY_DIR}/firmware/sidra_fw.vpo")
