// Target from the platform's parameter registry, so the compiler and vp-run
// can never disagree about the chip's shape.
#include "vp/cc/target.h"

#include <cmath>

#include "vp/config/loader.h"

namespace vp::cc {

int Target::hops(int core_a, int core_b) const {
  return static_cast<int>(config::mesh_hops(cluster_of(core_a), cluster_of(core_b), mesh_cols));
}

Target target_from(const std::string& name, const config::ChipShape& s) {
  Target t;
  t.name = name;
  t.clusters = static_cast<int>(s.clusters);
  t.mesh_cols = static_cast<int>(s.mesh_cols);
  t.cus_per_cluster = static_cast<int>(s.cus_per_cluster);
  t.xbars_per_cu = static_cast<int>(s.xbars_per_cu);
  t.rows = static_cast<int>(s.xbar_rows);
  t.cols = static_cast<int>(s.xbar_cols);
  t.cell_bits = static_cast<int>(s.cell_bits);
  t.weight_bits = static_cast<int>(s.weight_bits);
  t.differential = s.differential;
  t.spad_bytes = s.spad_bytes;
  t.sram_bytes = s.sram_bytes;
  t.gmem_bytes = s.gmem_bytes;
  t.imem_instructions = static_cast<int>(s.imem_words);
  t.gmem_attach_cluster = static_cast<int>(s.gmem_attach_cluster);
  t.sram_global_base = s.sram_global_base;
  t.sram_interleave_bytes = s.sram_interleave_bytes;
  t.noc_link_bits = static_cast<int>(s.noc_link_bits);
  return t;
}

Target load_target(const std::string& preset, const std::vector<std::string>& sets) {
  config::LoadRequest req;
  req.preset = preset;
  req.sets = sets;
  const config::ParamSet p = config::load_config(req);
  Target t = target_from(p.get_string("chip.name"), config::chip_shape(p));
  t.adc_bits = static_cast<int>(p.get_int("adc.bits"));
  t.ir_drop_ohm_per_cell = p.get_double("nonideal.ir_drop_ohm_per_cell");
  t.g_max_us = p.get_double("device.g_max_us");
  t.dac_bits = static_cast<int>(p.get_int("dac.bits"));
  t.dac_rows_per_step = static_cast<int>(p.get_int("dac.rows_per_step"));
  Target::Timing& m = t.timing;
  m.chip_clock_mhz = p.get_double("chip.clock_mhz");
  m.noc_clock_mhz = p.get_double("noc.clock_mhz");
  m.noc_hop_cycles = static_cast<int>(p.get_int("noc.hop_cycles"));
  m.noc_local_port_cycles = static_cast<int>(p.get_int("noc.local_port_cycles"));
  m.noc_packet_header_flits = static_cast<int>(p.get_int("noc.packet_header_flits"));
  m.gmem_latency_ns = p.get_double("gmem.latency_ns");
  m.gmem_bandwidth_gbps = p.get_double("gmem.bandwidth_gbps");
  m.sram_latency_cycles = static_cast<int>(p.get_int("cluster.sram.latency_cycles"));
  m.dma_setup_cycles = static_cast<int>(p.get_int("cu.dma.setup_cycles"));
  m.vector_lanes = static_cast<int>(p.get_int("cu.vector.lanes"));
  m.vector_startup_cycles = static_cast<int>(p.get_int("cu.vector.startup_cycles"));
  m.vector_lut_cycles_per_group = static_cast<int>(p.get_int("cu.vector.lut_cycles_per_group"));
  m.dac_latency_ns = p.get_double("dac.latency_ns");
  m.xbar_read_ns = p.get_double("xbar.read_ns");
  m.xbar_sample_hold_ns = p.get_double("xbar.sample_hold_ns");
  m.adc_conversion_ns = p.get_double("adc.conversion_ns");
  m.xbar_shift_add_ns = p.get_double("xbar.shift_add_ns");
  m.xbar_pipelined = p.get_bool("xbar.pipelined");
  m.adc_pipelined = p.get_bool("adc.pipelined");
  m.adc_columns_per_adc = static_cast<int>(p.get_int("adc.columns_per_adc"));
  Target::Energy& e = t.energy;
  e.dac_pj = p.get_double("energy.dac_pj");
  e.xbar_read_pj_per_cell = p.get_double("energy.xbar_read_pj_per_cell");
  e.sample_hold_pj = p.get_double("energy.sample_hold_pj");
  // Walden's figure of merit, as hw::EnergyConfig::adc_pj_at prices a conversion.
  e.adc_pj = p.get_double("energy.adc_pj") * std::ldexp(1.0, t.adc_bits - static_cast<int>(p.get_int("energy.adc_ref_bits")));
  e.shift_add_pj = p.get_double("energy.shift_add_pj");
  e.vector_pj_per_element = p.get_double("energy.vector_pj_per_element");
  e.sram_pj_per_byte = p.get_double("energy.sram_pj_per_byte");
  e.gmem_pj_per_byte = p.get_double("energy.gmem_pj_per_byte");
  e.noc_pj_per_bit_hop = p.get_double("energy.noc_pj_per_bit_hop");
  return t;
}

}  // namespace vp::cc
