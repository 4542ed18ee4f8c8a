#include "vp/sweep/stats_catalog.h"

#include <algorithm>

#include "vp/common/suggest.h"
#include "vp/isa/isa.h"

namespace vp::sweep {
namespace {

// Mirrors platform/src/run/run_statistics.cpp (scalar numeric leaves only;
// per-core and per-link arrays stay in each point's stats.json).
const char* const kGroups[][2] = {
    {"run", "cycles clock_mhz time_s"},
    {"", "instructions active_cores"},
    {"crossbar",
     "mvm_instructions crossbar_activations macs crossbars_used crossbars_total dac_steps adc_conversions "
     "adc_clipped outputs_saturated"},
    {"ispp",
     "rows_programmed cells_programmed pulses verify_reads failed_cells row_cycles_total energy_pj rows_read_back "
     "preloaded_cell_programs preloaded_cells preload_row_serial_cycles"},
    {"noc", "packets bytes flits flit_hops contention_cycles core_to_core_bytes"},
    {"memory", "gmem_bytes_read gmem_bytes_written gmem_busy_cycles sram_bytes dma_bytes"},
    {"energy_pj",
     "dac crossbar_read sample_hold adc shift_add ispp vector scalar control_processor sram global_memory noc "
     "leakage total"},
    {"host", "wall_s instructions_per_s trace_records deploy_rows_ahead"},
};

// Present when the firmware deploys the cell programs and runs the
// inferences (program_loader); absent for programs started directly.
// stream_period_cycles only for a program that streams images (vp-cc
// --batch N, platform/stream_images.h).
const char* const kFirmware =
    "batch cell_programs cells code cu_programs deploy_cycles deploy_us failed_cells image_bytes "
    "images_per_start inference_cycles_mean inference_us_mean inferences load_cycles pulses retries rows_programmed "
    "stream_period_cycles";

std::vector<StatPath> build() {
  std::vector<StatPath> out;
  for (const auto& g : kGroups) {
    const std::string prefix = g[0][0] ? std::string(g[0]) + "." : std::string();
    std::string fields = g[1];
    std::size_t pos = 0;
    while (pos < fields.size()) {
      std::size_t end = fields.find(' ', pos);
      if (end == std::string::npos) end = fields.size();
      out.push_back({prefix + fields.substr(pos, end - pos), false, false});
      pos = end + 1;
    }
  }
  // The firmware's figures (platform/src/run/firmware_report.cpp); absent
  // when a program runs bare (--firmware none).
  for (const char* f : {"batch", "cell_programs", "cells", "code", "cu_programs", "deploy_cycles", "deploy_us",
                        "load_cycles", "inferences", "images_per_start", "inference_cycles_mean", "inference_us_mean", "rows_programmed",
                        "pulses", "failed_cells", "retries", "image_bytes"})
    out.push_back({std::string("firmware.") + f, true});
  const std::string fw = kFirmware;
  for (std::size_t pos = 0; pos < fw.size();) {
    std::size_t end = fw.find(' ', pos);
    if (end == std::string::npos) end = fw.size();
    out.push_back({"firmware." + fw.substr(pos, end - pos), false, true});
    pos = end + 1;
  }
  // The NoC link busy the longest, when any packet crossed the mesh.
  for (const char* f : {"busy_cycles", "share_of_run"})
    out.push_back({std::string("noc.busiest_link.") + f, false, true});
  // A system of chips (vp-run --system, platform/src/run/system_run.cpp):
  // its pipeline and link figures; each chip's own are under "chips".
  for (const char* f : {"chips", "cycles", "elements", "latency_cycles", "interval_cycles", "energy_pj",
                        "link.transfers", "link.energy_pj", "link.gbytes_per_s", "link.latency_ns", "link.lanes",
                        "link.lane_gtps", "link.pj_per_bit"})
    out.push_back({std::string("system.") + f, false, true});
  for (int u = 0; u < isa::kUnitCount; ++u) {
    const std::string unit(isa::unit_name(static_cast<isa::Unit>(u)));
    for (const char* f : {"instructions", "busy_cycles", "utilization"}) out.push_back({"units." + unit + "." + f, true, false});
  }
  return out;
}

}  // namespace

const std::vector<StatPath>& stat_catalog() {
  static const std::vector<StatPath> catalog = build();
  return catalog;
}

const StatPath* find_stat(const std::string& path) {
  for (const auto& s : stat_catalog())
    if (s.path == path) return &s;
  return nullptr;
}

std::string suggest_stat(const std::string& path) {
  common::Nearest nearest(path, std::max<std::size_t>(2, path.size() / 4));
  for (const auto& s : stat_catalog()) nearest.offer(s.path);
  for (const auto& d : derived_metric_names()) nearest.offer(d);
  // A leaf name alone ("cycles") finds its full path.
  if (nearest.best().empty()) {
    for (const auto& s : stat_catalog()) {
      const std::size_t dot = s.path.rfind('.');
      if (s.path.compare(dot == std::string::npos ? 0 : dot + 1, std::string::npos, path) == 0) return s.path;
    }
  }
  return nearest.best();
}

const std::vector<std::string>& derived_metric_names() {
  static const std::vector<std::string> names = {"inferences_per_s", "energy_per_inference_pj"};
  return names;
}

}  // namespace vp::sweep
