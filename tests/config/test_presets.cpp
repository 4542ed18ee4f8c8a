// The presets in configs/: each loads, validates and has the documented shape.
#include <gtest/gtest.h>

#include <cstdlib>

#include "config_test_util.h"
#include "vp/config/chip_shape.h"
#include "vp/config/loader.h"

namespace vp::config {
namespace {

using test::expect_config_error;
using Kind = ConfigError::Kind;

ParamSet preset(const std::string& name) {
  LoadRequest req;
  req.preset = name;
  return load_config(req);
}

TEST(Presets, TheFourShipWithTheSourceTree) {
  const auto names = preset_names();
  for (const char* want : {"sidra-y1", "small", "puma-like", "isaac-like"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
}

TEST(Presets, EveryPresetLoadsAndValidates) {
  for (const auto& name : preset_names()) {
    SCOPED_TRACE(name);
    const ParamSet p = preset(name);
    EXPECT_EQ(p.preset(), name);
    EXPECT_EQ(p.get_string("chip.name"), name) << "a preset names itself";
  }
}

TEST(Presets, SidraY1IsTheDefaultChip) {
  const ParamSet p = preset("sidra-y1");
  EXPECT_EQ(p, ParamSet()) << "registry defaults and configs/sidra-y1.yaml disagree on: "
                           << testing::PrintToString(p.differences(ParamSet()));
  const ChipShape s = chip_shape(p);
  EXPECT_EQ(s.clusters, 16);
  EXPECT_EQ(s.mesh_rows * s.mesh_cols, 16);
  EXPECT_EQ(s.total_cus(), 400);
  EXPECT_EQ(s.total_crossbars(), 6400);
  EXPECT_EQ(s.xbar_rows, 256);
  EXPECT_EQ(s.xbar_cols, 256);
  EXPECT_EQ(LoadRequest().preset, "sidra-y1");
}

TEST(Presets, SmallIsA2x2MeshOf32Crossbars) {
  const ChipShape s = chip_shape(preset("small"));
  EXPECT_EQ(s.clusters, 4);
  EXPECT_EQ(s.mesh_cols, 2);
  EXPECT_EQ(s.mesh_rows, 2);
  EXPECT_EQ(s.cus_per_cluster, 2);
  EXPECT_EQ(s.xbars_per_cu, 4);
  EXPECT_EQ(s.xbar_rows, 64);
  EXPECT_EQ(s.xbar_cols, 64);
  EXPECT_EQ(s.total_crossbars(), 32);
  EXPECT_EQ(s.rows_per_dac_step, 64);
  EXPECT_EQ(s.adcs_per_xbar, 4);
}

TEST(Presets, PumaLikeShape) {
  const ParamSet p = preset("puma-like");
  const ChipShape s = chip_shape(p);
  EXPECT_EQ(s.xbar_rows, 128);
  EXPECT_EQ(s.xbar_cols, 128);
  EXPECT_EQ(s.cell_bits, 2);
  EXPECT_EQ(s.cus_per_cluster, 8);   // 8 cores per tile
  EXPECT_EQ(s.xbars_per_cu, 16);     // 2 MVMUs x 8 crossbars
  EXPECT_EQ(s.adcs_per_xbar, 2);     // PUMA: 2 ADCs per crossbar
  EXPECT_EQ(p.get_int("cluster.sram_kib"), 64);
  EXPECT_EQ(p.get_int("noc.link_bits"), 32);
  // PUMA's 100 ns ADC step over 64 columns.
  EXPECT_DOUBLE_EQ(p.get_double("adc.conversion_ns") * 64, 100.0);
}

TEST(Presets, IsaacLikeShape) {
  const ParamSet p = preset("isaac-like");
  const ChipShape s = chip_shape(p);
  EXPECT_EQ(s.xbar_rows, 128);
  EXPECT_EQ(s.cell_bits, 2);
  EXPECT_EQ(p.get_int("adc.bits"), 8);
  EXPECT_EQ(p.get_int("adc.columns_per_adc"), 128);
  EXPECT_EQ(s.adcs_per_xbar, 1);
  EXPECT_EQ(s.cus_per_cluster, 12);  // 12 IMAs per tile
  EXPECT_EQ(s.xbars_per_cu, 8);      // 8 crossbars per IMA
  EXPECT_EQ(s.clusters, 168);
  EXPECT_EQ(s.mesh_rows, 12);
}

TEST(Presets, ByPath) {
  test::TempFile f("mine.yaml", "chip: {name: mine, clusters: 2, mesh_cols: 2}\n");
  LoadRequest req;
  req.preset = f.path();
  const ParamSet p = load_config(req);
  EXPECT_EQ(p.get_int("chip.clusters"), 2);
  EXPECT_EQ(p.preset(), "mine");
  const std::string y1 = builtin_config_dir() + "/sidra-y1.yaml";
  EXPECT_EQ(find_preset(y1), y1);
  EXPECT_TRUE(std::filesystem::equivalent(builtin_config_dir(), test::source_dir() + "/configs"));
}

TEST(Presets, UnknownPresetListsTheKnownOnes) {
  expect_config_error([] { (void)find_preset("sidra-y2"); }, Kind::kUnknownPreset,
                      {"sidra-y2", "sidra-y1", "small"});
  expect_config_error([] { (void)find_preset("nowhere/x.yaml"); }, Kind::kUnknownPreset,
                      {"nowhere/x.yaml", "no such file"});
}

TEST(Presets, EnvironmentDirectoryComesFirst) {
  test::TempFile f("small.yaml", "chip: {name: small, clusters: 1, mesh_cols: 1}\n");
  const char* old = std::getenv("VP_CONFIG_DIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("VP_CONFIG_DIR", f.dir().c_str(), 1);
  EXPECT_EQ(config_dirs().front(), f.dir());
  EXPECT_EQ(find_preset("small"), f.path());
  EXPECT_EQ(preset("small").get_int("chip.clusters"), 1);
  EXPECT_NE(find_preset("puma-like").find(builtin_config_dir()), std::string::npos)
      << "the source tree's presets stay reachable";
  if (old != nullptr) {
    ::setenv("VP_CONFIG_DIR", saved.c_str(), 1);
  } else {
    ::unsetenv("VP_CONFIG_DIR");
  }
}

}  // namespace
}  // namespace vp::config
