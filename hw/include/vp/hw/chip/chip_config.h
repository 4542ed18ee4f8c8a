// Everything needed to build one chip, gathered from the parameter registry
// by the platform (hw never reads a ParamSet, only these plain structs, so
// models can be built and tested stand-alone). Default member values are
// the parameter table's (vp/config/params.def via hw/param_defaults.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "vp/hw/crossbar/crossbar_config.h"
#include "vp/hw/crossbar/device_model.h"
#include "vp/hw/crossbar/ispp_write_path.h"
#include "vp/hw/crossbar/mvm_timing.h"
#include "vp/hw/crossbar/non_ideality.h"
#include "vp/hw/cu/core_timing.h"
#include "vp/hw/noc/mesh_noc.h"
#include "vp/hw/param_defaults.h"
#include "vp/hw/system/link_config.h"

namespace vp::hw {

// Sizes in bytes or words, converted from the table's units by the same
// functions the chip builder applies (vp/config/param_units.h).
struct MemoryConfig {
  uint64_t gmem_bytes = unit::mib_to_bytes(param_default::gmem_size_mib);          // gmem.size_mib
  double gmem_latency_ns = param_default::gmem_latency_ns;                          // gmem.latency_ns
  double gmem_bandwidth_gbps = param_default::gmem_bandwidth_gbps;                  // gmem.bandwidth_gbps
  uint32_t gmem_attach_cluster = param_default::gmem_attach_cluster;  // gmem.attach_cluster: its router
  uint64_t sram_bytes = unit::kib_to_bytes(param_default::cluster_sram_kib);        // cluster.sram_kib
  uint32_t sram_latency_cycles = param_default::cluster_sram_latency_cycles;  // cluster.sram.latency_cycles
  double sram_bytes_per_cycle = param_default::cluster_sram_bytes_per_cycle;  // cluster.sram.bytes_per_cycle
  uint64_t sram_global_base = unit::mib_to_bytes(param_default::cluster_sram_global_base_mib);  // 0: not mapped
  uint64_t sram_interleave_bytes = param_default::cluster_sram_interleave_bytes;  // cluster.sram.interleave_bytes
  uint64_t spad_bytes = unit::kib_to_bytes(param_default::cu_spad_kib);             // cu.spad_kib
  uint64_t imem_words = unit::kinstr_to_words(param_default::cu_imem_kinstr);       // cu.imem_kinstr
  uint64_t cp_dmem_bytes = unit::kib_to_bytes(param_default::cp_dmem_kib);          // cp.dmem_kib
  uint64_t cp_imem_words = unit::kib_to_words(param_default::cp_imem_kib);          // cp.imem_kib
  double cp_load_bytes_per_cycle = param_default::cp_load_bytes_per_cycle;  // cp.load_bytes_per_cycle
};

// Energy per event, in pJ (energy.*); totals are counts times these.
struct EnergyConfig {
  double dac_pj = param_default::energy_dac_pj;  // per DAC conversion
  double adc_pj = param_default::energy_adc_pj;  // per ADC conversion at adc_ref_bits
  int adc_ref_bits = param_default::energy_adc_ref_bits;  // energy.adc_ref_bits
  // One conversion at `bits` (adc.bits): adc_pj doubled per bit above
  // adc_ref_bits, halved per bit below (Walden's figure of merit).
  double adc_pj_at(int bits) const { return adc_pj * std::ldexp(1.0, bits - adc_ref_bits); }
  double xbar_read_pj_per_cell = param_default::energy_xbar_read_pj_per_cell;  // per cell per DAC step
  double shift_add_pj = param_default::energy_shift_add_pj;  // per shift-and-add
  double vector_pj_per_element = param_default::energy_vector_pj_per_element;
  double scalar_pj = param_default::energy_scalar_pj_per_op;
  double spad_pj_per_byte = param_default::energy_spad_pj_per_byte;
  double sram_pj_per_byte = param_default::energy_sram_pj_per_byte;
  double gmem_pj_per_byte = param_default::energy_gmem_pj_per_byte;
  // energy.noc_pj_per_bit_hop x noc.link_bits: the model counts flits.
  double noc_pj_per_flit_hop = param_default::energy_noc_pj_per_bit_hop * param_default::noc_link_bits;
  double sample_hold_pj = param_default::energy_sample_hold_pj;  // per column per DAC step
  double cp_pj_per_op = param_default::energy_cp_pj_per_op;      // per control-processor instruction
  double leakage_mw_per_cu = param_default::energy_leakage_mw_per_cu;
  double leakage_mw_per_cluster = param_default::energy_leakage_mw_per_cluster;
};

// Which blocks run as RTL (hw/rtl, through Verilator) instead of their TLM
// model: ispp.impl, adc.output_path_impl, rtl.trace_prefix.
struct RtlBlocksConfig {
  bool ispp = unit::is_rtl(param_default::ispp_impl);
  bool output_path = unit::is_rtl(param_default::adc_output_path_impl);
  std::string trace_prefix{param_default::rtl_trace_prefix};  // empty: no RTL waveforms
};

// The whole chip; defaults are the parameter table's (sidra-y1), and
// platform::chip_config_from() fills it from a ParamSet row by row.
struct ChipConfig {
  uint32_t clusters = param_default::chip_clusters;
  uint32_t mesh_cols = param_default::chip_mesh_cols;
  uint32_t cus_per_cluster = param_default::chip_cus_per_cluster;
  uint32_t xbars_per_cu = param_default::chip_xbars_per_cu;
  double clock_mhz = param_default::chip_clock_mhz;
  uint64_t seed = param_default::device_seed;  // device.seed / run seed

  CrossbarConfig xbar;
  MvmTimingConfig mvm_timing;
  IsppConfig ispp;
  DeviceConfig device;
  NonIdealityConfig nonideal;
  double readback_ns_per_row = param_default::xbar_readback_ns_per_row;
  noc::MeshNocConfig noc;
  MemoryConfig memory;
  CoreTiming core;
  CoreTiming cp_core = CoreTiming::control_processor();
  EnergyConfig energy;
  RtlBlocksConfig rtl;
  LinkConfig link;  // the chip-to-chip port (a system of chips)

  uint32_t cores() const { return clusters * cus_per_cluster; }
  uint32_t crossbars() const { return cores() * xbars_per_cu; }
  double cycle_ns() const { return 1000.0 / clock_mhz; }
};

}  // namespace vp::hw
