// The registry itself: complete, documented, and self-consistent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include "vp/config/registry.h"

namespace vp::config {
namespace {

TEST(Registry, EveryParameterIsDocumented) {
  ASSERT_GT(registry().size(), 80u);
  for (const auto& d : registry()) {
    EXPECT_FALSE(d.unit.empty()) << d.name;
    EXPECT_FALSE(d.description.empty()) << d.name;
    EXPECT_FALSE(d.source.empty()) << d.name;
    EXPECT_EQ(d.description.find('\n'), std::string::npos) << d.name << ": one line";
  }
}

TEST(Registry, NamesAreDottedLowercaseAndUnique) {
  const std::regex pattern("[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+");
  std::set<std::string> seen;
  for (const auto& d : registry()) {
    EXPECT_TRUE(std::regex_match(d.name, pattern)) << d.name;
    EXPECT_TRUE(seen.insert(d.name).second) << "duplicate " << d.name;
    // A name cannot be both a parameter and a group (YAML could not hold both).
    EXPECT_FALSE(is_param_group(d.name)) << d.name;
  }
}

TEST(Registry, GroupsAreContiguous) {
  std::set<std::string> closed;
  std::string current;
  for (const auto& d : registry()) {
    const std::string group = d.name.substr(0, d.name.find('.'));
    if (group != current) {
      EXPECT_EQ(closed.count(group), 0u) << group << " appears in two places";
      closed.insert(current);
      current = group;
    }
  }
}

TEST(Registry, DefaultsAreInRangeAndRoundTrip) {
  for (const auto& d : registry()) {
    EXPECT_NO_THROW(check_value(d, d.default_value, "test")) << d.name;
    const Value back = parse_value(d, format_value(d, d.default_value), "test");
    EXPECT_EQ(back, d.default_value) << d.name;
    if (d.numeric()) {
      EXPECT_LE(d.min, d.max) << d.name;
      EXPECT_FALSE(std::isnan(d.min) || std::isnan(d.max)) << d.name;
    }
    if (d.type == ParamType::kEnum) {
      EXPECT_GE(d.allowed.size(), 2u) << d.name;
    }
  }
}

TEST(Registry, TypedDefaultsHoldTheirType) {
  for (const auto& d : registry()) {
    switch (d.type) {
      case ParamType::kInt: EXPECT_TRUE(std::holds_alternative<std::int64_t>(d.default_value)); break;
      case ParamType::kFloat: EXPECT_TRUE(std::holds_alternative<double>(d.default_value)); break;
      case ParamType::kBool: EXPECT_TRUE(std::holds_alternative<bool>(d.default_value)); break;
      default: EXPECT_TRUE(std::holds_alternative<std::string>(d.default_value)); break;
    }
  }
}

// The parameters other components are written against must exist.
TEST(Registry, HasTheParametersTheModelsUse) {
  for (const char* name :
       {"chip.clusters", "chip.mesh_cols", "chip.cus_per_cluster", "chip.xbars_per_cu",
        "chip.clock_mhz", "xbar.rows", "xbar.cols", "xbar.cell_bits", "xbar.weight_bits",
        "xbar.signed_encoding", "xbar.read_ns", "xbar.sample_hold_ns", "xbar.shift_add_ns",
        "xbar.readback_ns_per_row", "dac.bits", "dac.rows_per_step", "dac.latency_ns", "adc.bits",
        "adc.columns_per_adc", "adc.conversion_ns", "adc.mode", "ispp.pulse_ns", "ispp.verify_ns",
        "ispp.max_pulses", "ispp.tolerance_levels", "ispp.pulse_energy_pj",
        "ispp.verify_energy_pj", "device.step_levels_mean", "device.step_levels_sigma",
        "device.start_level", "device.start_sigma", "nonideal.read_noise_sigma",
        "nonideal.prog_noise_sigma", "nonideal.stuck_hrs_rate", "nonideal.stuck_lrs_rate",
        "nonideal.ir_drop_ohm_per_cell", "cu.imem_kinstr", "cu.spad_kib", "cu.scalar.alu_cycles",
        "cu.scalar.mul_cycles", "cu.scalar.branch_cycles", "cu.spad.access_cycles",
        "cu.vector.lanes", "cu.vector.startup_cycles", "cu.dma.setup_cycles", "cu.issue_cycles",
        "cluster.sram_kib", "cluster.sram.latency_cycles", "cluster.sram.bytes_per_cycle",
        "noc.hop_cycles", "noc.link_bits", "noc.clock_mhz", "noc.packet_header_flits",
        "noc.local_port_cycles", "gmem.size_mib", "gmem.latency_ns", "gmem.bandwidth_gbps",
        "gmem.attach_cluster", "sync.barrier_cycles", "cp.imem_kib", "cp.dmem_kib",
        "cp.alu_cycles", "cp.load_bytes_per_cycle", "adc.full_scale", "adc.pipelined",
        "device.g_max_us", "device.seed", "energy.adc_pj", "energy.dac_pj",
        "energy.xbar_read_pj_per_cell", "energy.shift_add_pj", "energy.vector_pj_per_element",
        "energy.sram_pj_per_byte", "energy.noc_pj_per_bit_hop", "energy.gmem_pj_per_byte",
        "energy.scalar_pj_per_op", "energy.leakage_mw_per_cu"}) {
    EXPECT_NE(find_param(name), nullptr) << name;
  }
}

TEST(Registry, NonIdealitiesDefaultToIdeal) {
  for (const auto& d : registry()) {
    if (d.name.rfind("nonideal.", 0) == 0) {
      // Rates and sigmas are 0; a model chosen by name (relaxation) is none.
      if (std::holds_alternative<std::string>(d.default_value))
        EXPECT_EQ(std::get<std::string>(d.default_value), "none") << d.name;
      else
        EXPECT_EQ(std::get<double>(d.default_value), 0.0) << d.name;
    }
  }
  EXPECT_EQ(std::get<std::string>(find_param("adc.mode")->default_value), "ideal");
}

TEST(Registry, SuggestsCloseNames) {
  EXPECT_EQ(suggest_param("xbar.rowz"), "xbar.rows");
  EXPECT_EQ(suggest_param("rows"), "xbar.rows");          // group left out
  EXPECT_EQ(suggest_param("chip.clock_mz"), "chip.clock_mhz");
  const std::string both = suggest_param("alu_cycles");   // two owners
  EXPECT_NE(both.find("cu.scalar.alu_cycles"), std::string::npos);
  EXPECT_NE(both.find("cp.alu_cycles"), std::string::npos);
  EXPECT_EQ(suggest_param("completely.unrelated.thing"), "");
}

TEST(Registry, RangeTextAndGroups) {
  EXPECT_EQ(range_text(*find_param("xbar.rows")), "1..4096");
  EXPECT_EQ(range_text(*find_param("xbar.signed_encoding")), "offset_slices|differential");
  EXPECT_EQ(range_text(*find_param("xbar.pipelined")), "-");
  EXPECT_TRUE(is_param_group("xbar"));
  EXPECT_TRUE(is_param_group("cu.scalar"));
  EXPECT_FALSE(is_param_group("cu.scal"));
  EXPECT_FALSE(is_param_group("xbar.rows"));
}

}  // namespace
}  // namespace vp::config

namespace vp::config {
namespace {

TEST(Registry, ProgramShapingParametersAreMarked) {
  EXPECT_TRUE(find_param("xbar.rows")->affects_program);
  EXPECT_TRUE(find_param("xbar.cell_bits")->affects_program);
  EXPECT_TRUE(find_param("chip.clusters")->affects_program);
  // Where the compiler places activations.
  EXPECT_TRUE(find_param("cluster.sram.global_base_mib")->affects_program);
  EXPECT_TRUE(find_param("cluster.sram.interleave_bytes")->affects_program);
  EXPECT_FALSE(find_param("xbar.read_ns")->affects_program);
  // The IR drop the compiler pre-distorts against (vp-cc --ir-drop-compensate).
  EXPECT_TRUE(find_param("nonideal.ir_drop_ohm_per_cell")->affects_program);
  EXPECT_TRUE(find_param("device.g_max_us")->affects_program);
  EXPECT_FALSE(find_param("adc.bits")->affects_program);
  EXPECT_FALSE(find_param("energy.adc_pj")->affects_program);
  // The width the cost model counts flits in; the rest of the mesh's timing
  // it takes at the defaults.
  EXPECT_TRUE(find_param("noc.link_bits")->affects_program);
  EXPECT_FALSE(find_param("noc.hop_cycles")->affects_program);
  const auto n = std::count_if(registry().begin(), registry().end(),
                               [](const ParamDef& d) { return d.affects_program; });
  EXPECT_EQ(n, 19);
}

}  // namespace
}  // namespace vp::config
