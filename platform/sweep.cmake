# vp-sweep: design-point sweeps over vp-run (docs/vp-sweep.md).
add_library(vp_sweep STATIC
  src/sweep/adc_calibration.cpp
  src/sweep/axis_parser.cpp
  src/sweep/chart.cpp
  src/sweep/compile_cache.cpp
  src/sweep/files.cpp
  src/sweep/hash.cpp
  src/sweep/metric_parser.cpp
  src/sweep/metrics.cpp
  src/sweep/pareto.cpp
  src/sweep/plan.cpp
  src/sweep/plots.cpp
  src/sweep/point_runner.cpp
  src/sweep/process_pool.cpp
  src/sweep/results.cpp
  src/sweep/slurm.cpp
  src/sweep/stats_catalog.cpp
  src/sweep/sweep_parser.cpp
  src/sweep/yaml_util.cpp)
target_include_directories(vp_sweep PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(vp_sweep
  PUBLIC vp_config nlohmann_json::nlohmann_json
  PRIVATE vp_common vp_isa vp_traces yaml-cpp fmt::fmt)
vp_target_defaults(vp_sweep)

add_executable(vp-sweep tools/vp_sweep_main.cpp)
target_link_libraries(vp-sweep PRIVATE vp_sweep vp_common Boost::program_options fmt::fmt)
vp_target_defaults(vp-sweep)
