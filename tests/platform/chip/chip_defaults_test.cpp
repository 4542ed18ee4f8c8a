// A chip built from the parameter table's defaults is the chip the hw
// structs describe when default-constructed, and the compiler's default
// Target is the table's shape: the defaults are declared once.
#include <gtest/gtest.h>

#include "vp/cc/passes.h"
#include "vp/cc/target.h"
#include "vp/config/loader.h"
#include "vp/hw/crossbar/mvm_timing.h"
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

// The compiler plans for the timing of the chip it is given: every timing
// parameter its cost model reads is the value the chip builder gives the
// models, and its MVM takes the crossbars' own cycles, at the defaults and
// with each parameter moved off them.
TEST(ChipDefaults, CompilerTimingIsTheChips) {
  const std::vector<std::vector<std::string>> cases = {
      {},
      {"xbar.read_ns=37", "dac.bits=2", "adc.columns_per_adc=16", "adc.conversion_ns=3"},
      {"chip.clock_mhz=700", "noc.clock_mhz=1300", "dac.rows_per_step=64", "xbar.pipelined=false"},
      {"adc.pipelined=false", "dac.latency_ns=4", "xbar.sample_hold_ns=7", "xbar.shift_add_ns=2"},
      {"noc.hop_cycles=5", "noc.local_port_cycles=3", "noc.packet_header_flits=2", "gmem.latency_ns=250",
       "gmem.bandwidth_gbps=12", "cluster.sram.latency_cycles=6", "cu.dma.setup_cycles=9", "cu.vector.lanes=8",
       "cu.vector.startup_cycles=5", "cu.vector.lut_cycles_per_group=4"},
  };
  for (const auto& sets : cases) {
    SCOPED_TRACE(sets.empty() ? std::string("defaults") : sets[0]);
    config::LoadRequest req;
    req.preset = "sidra-y1";
    req.sets = sets;
    const hw::ChipConfig c = chip_config_from(config::load_config(req));
    const cc::Target t = cc::load_target("sidra-y1", sets);
    const cc::Target::Timing& m = t.timing;
    EXPECT_EQ(m.chip_clock_mhz, c.clock_mhz);
    EXPECT_EQ(m.noc_clock_mhz, c.noc.clock_mhz);
    EXPECT_EQ(m.noc_hop_cycles, static_cast<int>(c.noc.hop_cycles));
    EXPECT_EQ(m.noc_local_port_cycles, static_cast<int>(c.noc.local_port_cycles));
    EXPECT_EQ(m.noc_packet_header_flits, static_cast<int>(c.noc.packet_header_flits));
    EXPECT_EQ(m.gmem_latency_ns, c.memory.gmem_latency_ns);
    EXPECT_EQ(m.gmem_bandwidth_gbps, c.memory.gmem_bandwidth_gbps);
    EXPECT_EQ(m.sram_latency_cycles, static_cast<int>(c.memory.sram_latency_cycles));
    EXPECT_EQ(m.dma_setup_cycles, static_cast<int>(c.core.dma_setup_cycles));
    EXPECT_EQ(m.vector_lanes, static_cast<int>(c.core.vector_lanes));
    EXPECT_EQ(m.vector_startup_cycles, static_cast<int>(c.core.vector_startup_cycles));
    const hw::MvmTiming chip(c.xbar, c.mvm_timing);
    const hw::MvmTiming planned(cc::crossbar_config(t, t.format()), cc::mvm_timing_config(t));
    for (int bits = 1; bits <= 8; ++bits) {
      EXPECT_EQ(planned.cycles(bits, true), chip.cycles(bits, true)) << bits << " input bits";
      EXPECT_EQ(planned.cycles(bits, false), chip.cycles(bits, false)) << bits << " input bits, unsigned";
    }
  }
  // Moved off the defaults, the MVM's cycles move too (the cases above are
  // not vacuous).
  const cc::Target slow = cc::load_target("sidra-y1", {"xbar.read_ns=400"});
  const cc::Target plain = cc::load_target("sidra-y1");
  EXPECT_GT(hw::MvmTiming(cc::crossbar_config(slow, slow.format()), cc::mvm_timing_config(slow)).cycles(8),
            hw::MvmTiming(cc::crossbar_config(plain, plain.format()), cc::mvm_timing_config(plain)).cycles(8));
}

}  // namespace
}  // namespace vp::platform
