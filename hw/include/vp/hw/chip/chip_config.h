// Everything needed to build one chip, gathered from the parameter registry
// by the platform (hw does not depend on the registry, only on these plain
// structs, so models can be built and tested stand-alone).
#pragma once

#include <cstdint>
#include <string>

#include "vp/hw/crossbar/crossbar_config.h"
#include "vp/hw/crossbar/device_model.h"
#include "vp/hw/crossbar/ispp_write_path.h"
#include "vp/hw/crossbar/mvm_timing.h"
#include "vp/hw/crossbar/non_ideality.h"
#include "vp/hw/cu/core_timing.h"
#include "vp/hw/noc/mesh_noc.h"

namespace vp::hw {

struct MemoryConfig {
  uint64_t gmem_bytes = 1ull << 30;      // gmem.size_mib
  double gmem_latency_ns = 100.0;        // gmem.latency_ns
  double gmem_bandwidth_gbps = 64.0;     // gmem.bandwidth_gbps
  uint32_t gmem_attach_cluster = 0;      // gmem.attach: router the controller hangs off
  uint64_t sram_bytes = 1ull << 20;      // cluster.sram_kib
  uint32_t sram_latency_cycles = 2;      // cluster.sram.latency_cycles
  double sram_bytes_per_cycle = 64.0;    // cluster.sram.bytes_per_cycle
  uint64_t spad_bytes = 256 * 1024;      // cu.spad_kib
  uint64_t imem_words = 64 * 1024;       // cu.imem_kinstr
  uint64_t cp_dmem_bytes = 1ull << 20;   // cp.dmem_kib
  uint64_t cp_imem_words = 64 * 1024;    // cp.imem_kinstr
  double cp_load_bytes_per_cycle = 32.0; // cp.imem_load_bytes_per_cycle
};

// Energy per event, in pJ (energy.*); totals are counts times these.
struct EnergyConfig {
  double dac_pj = 0.42;             // energy.dac_pj per DAC conversion
  double adc_pj = 1.6;              // energy.adc_pj per ADC conversion
  double xbar_read_pj_per_cell = 0.0; // energy.xbar_read_pj_per_cell per cell per DAC step
  double shift_add_pj = 0.021;      // energy.shift_add_pj per shift-and-add
  double vector_pj_per_element = 0.1;
  double scalar_pj = 0.05;
  double spad_pj_per_byte = 0.05;
  double sram_pj_per_byte = 0.2;
  double gmem_pj_per_byte = 20.0;
  double noc_pj_per_flit_hop = 0.6;
  double sample_hold_pj = 0.0;      // energy.sample_hold_pj per column per DAC step
  double cp_pj_per_op = 0.05;       // energy.cp_pj_per_op per control-processor instruction
  double leakage_mw_per_cu = 0.0;   // energy.leakage_mw_per_cu
  double leakage_mw_per_cluster = 0.0;  // energy.leakage_mw_per_cluster
};

// Which blocks run as RTL (hw/rtl, through Verilator) instead of their TLM
// model: ispp.impl, adc.output_path_impl, rtl.trace_prefix.
struct RtlBlocksConfig {
  bool ispp = false;
  bool output_path = false;
  std::string trace_prefix;  // empty: no RTL waveforms
};

struct ChipConfig {
  uint32_t clusters = 16;
  uint32_t mesh_cols = 4;
  uint32_t cus_per_cluster = 25;
  uint32_t xbars_per_cu = 16;
  double clock_mhz = 1000.0;
  uint64_t seed = 1;                 // device.seed / run seed

  CrossbarConfig xbar;
  MvmTimingConfig mvm_timing;
  IsppConfig ispp;
  DeviceConfig device;
  NonIdealityConfig nonideal;
  double readback_ns_per_row = 200.0;  // xbar.readback_ns_per_row
  noc::MeshNocConfig noc;
  MemoryConfig memory;
  CoreTiming core;
  CoreTiming cp_core;
  EnergyConfig energy;
  RtlBlocksConfig rtl;

  uint32_t cores() const { return clusters * cus_per_cluster; }
  uint32_t crossbars() const { return cores() * xbars_per_cu; }
  double cycle_ns() const { return 1000.0 / clock_mhz; }
};

}  // namespace vp::hw
