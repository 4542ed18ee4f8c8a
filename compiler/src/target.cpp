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
