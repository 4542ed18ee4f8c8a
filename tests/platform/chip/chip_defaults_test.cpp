// A chip built from the parameter table's defaults is the chip the hw
// structs describe when default-constructed, and the compiler's default
// Target is the table's shape: the defaults are declared once.
#include <gtest/gtest.h>

#include "vp/cc/target.h"
#include "vp/config/chip_shape.h"
#include "vp/config/param_set.h"
#include "vp/platform/chip_builder.h"

namespace vp::platform {
namespace {

TEST(ChipDefaults, EveryFieldOfTheTableHasTheTableDefault) {
  const hw::ChipConfig built = chip_config_from(config::ParamSet());
  const hw::ChipConfig plain;
  std::size_t fields = 0;
#define HW(conversion, member) \
  ++fields;                    \
  EXPECT_TRUE(plain.member == built.member) << row << ": hw::ChipConfig::" #member;
#define DERIVED(member) \
  EXPECT_DOUBLE_EQ(plain.member, built.member) << row << ": hw::ChipConfig::" #member;
#define NO_HW(why)
#define VP_PARAM(id, name, type, unit, def, lo, hi, use, desc, src, field) \
  {                                                                        \
    const char* row = name;                                                \
    (void)row;                                                             \
    field                                                                  \
  }
#include "vp/config/params.def"
#undef HW
#undef DERIVED
#undef NO_HW
  EXPECT_GT(fields, 80u);
}

TEST(ChipDefaults, SharedValuesAgree) {
  const hw::ChipConfig built = chip_config_from(config::ParamSet());
  const hw::ChipConfig plain;
  EXPECT_EQ(plain.mvm_timing.clock_mhz, built.mvm_timing.clock_mhz);
  EXPECT_EQ(plain.ispp.clock_mhz, built.ispp.clock_mhz);
  EXPECT_EQ(plain.noc.core_clock_mhz, built.noc.core_clock_mhz);
  EXPECT_EQ(plain.noc.clusters, built.noc.clusters);
  EXPECT_EQ(plain.noc.mesh_cols, built.noc.mesh_cols);
  EXPECT_EQ(plain.cp_core.issue_cycles, built.cp_core.issue_cycles);
  EXPECT_EQ(plain.cp_core.vector_lanes, built.cp_core.vector_lanes);
  EXPECT_EQ(plain.cp_core.vector_startup_cycles, built.cp_core.vector_startup_cycles);
  EXPECT_EQ(plain.cp_core.dma_setup_cycles, built.cp_core.dma_setup_cycles);
  EXPECT_EQ(plain.cp_core.barrier_cycles, built.cp_core.barrier_cycles);
  EXPECT_EQ(plain.cp_core.quantum_cycles, built.cp_core.quantum_cycles);
  EXPECT_EQ(plain.core.quantum_cycles, built.core.quantum_cycles);
}

TEST(ChipDefaults, BuilderFollowsTheTable) {
  config::ParamSet p;
  p.set("cu.spad_kib", "128", "test");
  p.set("cp.imem_kib", "8", "test");
  p.set("chip.clock_mhz", "1250", "test");
  p.set("adc.mode", "quantize", "test");
  p.set("ispp.impl", "rtl", "test");
  p.set("energy.noc_pj_per_bit_hop", "0.5", "test");
  const hw::ChipConfig c = chip_config_from(p);
  EXPECT_EQ(c.memory.spad_bytes, 128u * 1024u);
  EXPECT_EQ(c.memory.cp_imem_words, 1024u);
  EXPECT_EQ(c.clock_mhz, 1250.0);
  EXPECT_EQ(c.mvm_timing.clock_mhz, 1250.0);
  EXPECT_EQ(c.xbar.adc_mode, hw::AdcMode::quantize);
  EXPECT_TRUE(c.rtl.ispp);
  EXPECT_FALSE(c.rtl.output_path);
  EXPECT_DOUBLE_EQ(c.energy.noc_pj_per_flit_hop, 0.5 * c.noc.link_bits);
}

TEST(ChipDefaults, CompilerTargetIsTheTablesShape) {
  const config::ParamSet p;
  const cc::Target from_table = cc::target_from(p.get_string("chip.name"), config::chip_shape(p));
  const cc::Target plain;
  EXPECT_EQ(plain.name, from_table.name);
  EXPECT_EQ(plain.clusters, from_table.clusters);
  EXPECT_EQ(plain.mesh_cols, from_table.mesh_cols);
  EXPECT_EQ(plain.cus_per_cluster, from_table.cus_per_cluster);
  EXPECT_EQ(plain.xbars_per_cu, from_table.xbars_per_cu);
  EXPECT_EQ(plain.rows, from_table.rows);
  EXPECT_EQ(plain.cols, from_table.cols);
  EXPECT_EQ(plain.cell_bits, from_table.cell_bits);
  EXPECT_EQ(plain.weight_bits, from_table.weight_bits);
  EXPECT_EQ(plain.differential, from_table.differential);
  EXPECT_EQ(plain.spad_bytes, from_table.spad_bytes);
  EXPECT_EQ(plain.sram_bytes, from_table.sram_bytes);
  EXPECT_EQ(plain.gmem_bytes, from_table.gmem_bytes);
  EXPECT_EQ(plain.imem_instructions, from_table.imem_instructions);
  EXPECT_EQ(plain.gmem_attach_cluster, from_table.gmem_attach_cluster);
  // The sidra-y1 preset restates the table's shape.
  const cc::Target preset = cc::load_target("sidra-y1");
  EXPECT_EQ(preset.crossbars(), plain.crossbars());
  EXPECT_EQ(preset.lcols(), plain.lcols());
}

}  // namespace
}  // namespace vp::platform
