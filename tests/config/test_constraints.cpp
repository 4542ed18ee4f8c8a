// Rules between parameters: each names the key to change.
#include <gtest/gtest.h>

#include "config_test_util.h"
#include "vp/config/chip_shape.h"
#include "vp/config/param_set.h"

namespace vp::config {
namespace {

using test::expect_config_error;
using Kind = ConfigError::Kind;

void expect_invalid(const std::vector<std::string>& sets, const std::string& key) {
  ParamSet p;
  p.apply_sets(sets);
  const ConfigError e = expect_config_error([&] { p.validate(); }, Kind::kConstraint, {key});
  EXPECT_EQ(e.key(), key);
}

TEST(Constraints, MeshMustBeFull) {
  expect_invalid({"chip.clusters=10"}, "chip.mesh_cols");
  ParamSet p;
  p.apply_sets({"chip.clusters=12", "chip.mesh_cols=3"});
  EXPECT_NO_THROW(p.validate());
  EXPECT_EQ(chip_shape(p).mesh_rows, 4);
  EXPECT_EQ(chip_shape(p).cluster_x(7), 1);
  EXPECT_EQ(chip_shape(p).cluster_y(7), 2);
}

TEST(Constraints, MemoryAttachesToAnExistingCluster) {
  expect_invalid({"gmem.attach_cluster=16"}, "gmem.attach_cluster");
  ParamSet p;
  p.apply_set("gmem.attach_cluster=15");
  EXPECT_NO_THROW(p.validate());
}

TEST(Constraints, TheSramWindowLiesAboveGlobalMemory) {
  expect_invalid({"gmem.size_mib=4096"}, "cluster.sram.global_base_mib");
  expect_invalid({"cluster.sram.interleave_bytes=3000"}, "cluster.sram.interleave_bytes");
  ParamSet p;
  p.apply_sets({"gmem.size_mib=4096", "cluster.sram.global_base_mib=0"});
  EXPECT_NO_THROW(p.validate());
  EXPECT_EQ(chip_shape(p).sram_global_base, 0);
}

TEST(Constraints, StartLevelWithinTheCell) {
  expect_invalid({"xbar.cell_bits=1", "device.start_level=1.5"}, "device.start_level");
}

TEST(Constraints, AWeightFitsTheCrossbar) {
  expect_invalid({"xbar.cols=4", "xbar.signed_encoding=differential"}, "xbar.weight_bits");
  ParamSet p;
  p.apply_sets({"xbar.cols=8", "xbar.signed_encoding=differential"});
  EXPECT_NO_THROW(p.validate());
  EXPECT_EQ(chip_shape(p).columns_per_weight(), 8);
}

TEST(Constraints, PeripheryCappedAtTheArray) {
  ParamSet p;
  p.apply_sets({"xbar.rows=64", "xbar.cols=64"});  // dac.rows_per_step and ADC sharing at defaults
  EXPECT_NO_THROW(p.validate());
  const ChipShape s = chip_shape(p);
  EXPECT_EQ(s.rows_per_dac_step, 64);
  EXPECT_EQ(s.adcs_per_xbar, 2);
  p.set("adc.columns_per_adc", "100");
  EXPECT_EQ(chip_shape(p).adcs_per_xbar, 1);
  p.set("xbar.cols", "250");
  EXPECT_EQ(chip_shape(p).adcs_per_xbar, 3);  // 100 + 100 + 50 columns
}

}  // namespace
}  // namespace vp::config
