// Target from the platform's parameter registry, so the compiler and vp-run
// can never disagree about the chip's shape.
#include "vp/cc/target.h"

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
  return t;
}

}  // namespace vp::cc
