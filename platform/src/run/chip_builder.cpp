#include "vp/platform/chip_builder.h"

#include <stdexcept>

namespace vp::platform {

hw::ChipConfig chip_config_from(const config::ParamSet& p) {
  hw::ChipConfig c;
  auto i = [&](const char* k) { return p.get_int(k); };
  auto u32 = [&](const char* k) { return static_cast<uint32_t>(p.get_int(k)); };
  auto d = [&](const char* k) { return p.get_double(k); };

  c.clusters = u32("chip.clusters");
  c.mesh_cols = u32("chip.mesh_cols");
  c.cus_per_cluster = u32("chip.cus_per_cluster");
  c.xbars_per_cu = u32("chip.xbars_per_cu");
  c.clock_mhz = d("chip.clock_mhz");
  c.seed = static_cast<uint64_t>(i("device.seed"));

  c.xbar.rows = static_cast<int>(i("xbar.rows"));
  c.xbar.cols = static_cast<int>(i("xbar.cols"));
  c.xbar.cell_bits = static_cast<int>(i("xbar.cell_bits"));
  c.xbar.weight_bits = static_cast<int>(i("xbar.weight_bits"));
  c.xbar.signed_encoding = hw::parse_signed_encoding(p.get_string("xbar.signed_encoding"));
  c.xbar.dac_bits = static_cast<int>(i("dac.bits"));
  c.xbar.dac_rows_per_step = static_cast<int>(i("dac.rows_per_step"));
  c.xbar.adc_bits = static_cast<int>(i("adc.bits"));
  c.xbar.adc_columns_per_adc = static_cast<int>(i("adc.columns_per_adc"));
  c.xbar.adc_mode = hw::parse_adc_mode(p.get_string("adc.mode"));
  c.xbar.adc_full_scale = d("adc.full_scale");

  c.mvm_timing.clock_mhz = c.clock_mhz;
  c.mvm_timing.dac_latency_ns = d("dac.latency_ns");
  c.mvm_timing.read_ns = d("xbar.read_ns");
  c.mvm_timing.sample_hold_ns = d("xbar.sample_hold_ns");
  c.mvm_timing.adc_conversion_ns = d("adc.conversion_ns");
  c.mvm_timing.shift_add_ns = d("xbar.shift_add_ns");
  c.mvm_timing.pipelined = p.get_bool("xbar.pipelined");
  c.mvm_timing.back_pipelined = p.get_bool("adc.pipelined");
  c.readback_ns_per_row = d("xbar.readback_ns_per_row");

  c.ispp.pulse_ns = d("ispp.pulse_ns");
  c.ispp.verify_ns = d("ispp.verify_ns");
  c.ispp.max_pulses = static_cast<int>(i("ispp.max_pulses"));
  c.ispp.tolerance_levels = d("ispp.tolerance_levels");
  c.ispp.pulse_energy_pj = d("ispp.pulse_energy_pj");
  c.ispp.verify_energy_pj = d("ispp.verify_energy_pj");
  c.ispp.clock_mhz = c.clock_mhz;
  c.ispp.keep_residual = p.get_bool("ispp.keep_residual");
  c.rtl.ispp = p.get_string("ispp.impl") == "rtl";
  c.rtl.output_path = p.get_string("adc.output_path_impl") == "rtl";
  c.rtl.trace_prefix = p.get_string("rtl.trace_prefix");
  c.device.start_level = d("device.start_level");
  c.device.start_sigma = d("device.start_sigma");
  c.device.step_levels_mean = d("device.step_levels_mean");
  c.device.step_levels_sigma = d("device.step_levels_sigma");

  c.nonideal.read_noise_sigma = d("nonideal.read_noise_sigma");
  c.nonideal.prog_noise_sigma = d("nonideal.prog_noise_sigma");
  c.nonideal.stuck_hrs_rate = d("nonideal.stuck_hrs_rate");
  c.nonideal.stuck_lrs_rate = d("nonideal.stuck_lrs_rate");
  c.nonideal.ir_drop_ohm_per_cell = d("nonideal.ir_drop_ohm_per_cell");
  c.nonideal.g_max_us = d("device.g_max_us");

  c.noc.clusters = c.clusters;
  c.noc.mesh_cols = c.mesh_cols;
  c.noc.hop_cycles = u32("noc.hop_cycles");
  c.noc.link_bits = u32("noc.link_bits");
  c.noc.clock_mhz = d("noc.clock_mhz");
  c.noc.core_clock_mhz = c.clock_mhz;
  c.noc.packet_header_flits = u32("noc.packet_header_flits");
  c.noc.local_port_cycles = u32("noc.local_port_cycles");

  auto& m = c.memory;
  m.gmem_bytes = static_cast<uint64_t>(i("gmem.size_mib")) << 20;
  m.gmem_latency_ns = d("gmem.latency_ns");
  m.gmem_bandwidth_gbps = d("gmem.bandwidth_gbps");
  m.gmem_attach_cluster = u32("gmem.attach_cluster");
  m.sram_bytes = static_cast<uint64_t>(i("cluster.sram_kib")) << 10;
  m.sram_latency_cycles = u32("cluster.sram.latency_cycles");
  m.sram_bytes_per_cycle = d("cluster.sram.bytes_per_cycle");
  m.spad_bytes = static_cast<uint64_t>(i("cu.spad_kib")) << 10;
  m.imem_words = static_cast<uint64_t>(i("cu.imem_kinstr")) * 1024;
  m.cp_imem_words = (static_cast<uint64_t>(i("cp.imem_kib")) << 10) / 8;
  m.cp_dmem_bytes = static_cast<uint64_t>(i("cp.dmem_kib")) << 10;
  m.cp_load_bytes_per_cycle = d("cp.load_bytes_per_cycle");

  auto& t = c.core;
  t.issue_cycles = u32("cu.issue_cycles");
  t.alu_cycles = u32("cu.scalar.alu_cycles");
  t.mul_cycles = u32("cu.scalar.mul_cycles");
  t.branch_cycles = u32("cu.scalar.branch_cycles");
  t.spad_access_cycles = u32("cu.spad.access_cycles");
  t.vector_lanes = u32("cu.vector.lanes");
  t.vector_startup_cycles = u32("cu.vector.startup_cycles");
  t.dma_setup_cycles = u32("cu.dma.setup_cycles");
  t.barrier_cycles = u32("sync.barrier_cycles");
  c.cp_core = t;
  c.cp_core.alu_cycles = u32("cp.alu_cycles");
  c.cp_core.mul_cycles = u32("cp.mul_cycles");
  c.cp_core.branch_cycles = u32("cp.branch_cycles");
  c.cp_core.spad_access_cycles = u32("cp.mem_cycles");

  auto& e = c.energy;
  e.dac_pj = d("energy.dac_pj");
  e.adc_pj = d("energy.adc_pj");
  e.xbar_read_pj_per_cell = d("energy.xbar_read_pj_per_cell");
  e.shift_add_pj = d("energy.shift_add_pj");
  e.vector_pj_per_element = d("energy.vector_pj_per_element");
  e.scalar_pj = d("energy.scalar_pj_per_op");
  e.spad_pj_per_byte = d("energy.spad_pj_per_byte");
  e.sram_pj_per_byte = d("energy.sram_pj_per_byte");
  e.gmem_pj_per_byte = d("energy.gmem_pj_per_byte");
  e.noc_pj_per_flit_hop = d("energy.noc_pj_per_bit_hop") * c.noc.link_bits;
  e.sample_hold_pj = d("energy.sample_hold_pj");
  e.cp_pj_per_op = d("energy.cp_pj_per_op");
  e.leakage_mw_per_cu = d("energy.leakage_mw_per_cu");
  e.leakage_mw_per_cluster = d("energy.leakage_mw_per_cluster");
  return c;
}

}  // namespace vp::platform
