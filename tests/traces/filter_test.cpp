#include <gtest/gtest.h>

#include <sstream>

#include "synthetic_trace.hpp"
#include "trace_test_util.hpp"
#include "vp/trace/convert.hpp"
#include "vp/trace/filter.hpp"

using namespace vp::trace;

TEST(Filter, GlobMatching) {
  EXPECT_TRUE(glob_match("pe_*", "pe_conv"));
  EXPECT_TRUE(glob_match("*_cfg*", "vp_cfg_iq1"));
  EXPECT_TRUE(glob_match("l?_mov", "lw_mov"));
  EXPECT_FALSE(glob_match("l?_mov", "lda_mov"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_FALSE(glob_match("pe_conv", "pe_conv2"));
  EXPECT_TRUE(glob_match("a*b*c", "aXbYbZc"));
}

TEST(Filter, SpecParsing) {
  const auto cores = FilterSpec::parse_cores("3, 3.2,cp");
  ASSERT_EQ(cores.size(), 3u);
  EXPECT_EQ(cores[0].cluster, 3);
  EXPECT_FALSE(cores[0].cu.has_value());
  EXPECT_EQ(*cores[1].cu, 2);
  EXPECT_TRUE(cores[2].cp);
  EXPECT_THROW(FilterSpec::parse_cores("x.1"), std::invalid_argument);
  EXPECT_THROW(FilterSpec::parse_cores("1.-2"), std::invalid_argument);
  const auto layers = FilterSpec::parse_layers("3,5-9,conv1");
  ASSERT_EQ(layers.size(), 3u);
  EXPECT_EQ(layers[0].lo, 3);
  EXPECT_EQ(layers[0].hi, 3);
  EXPECT_EQ(layers[1].lo, 5);
  EXPECT_EQ(layers[1].hi, 9);
  EXPECT_EQ(*layers[2].name, "conv1");
  EXPECT_THROW(FilterSpec::parse_layers("9-5"), std::invalid_argument);
}

namespace {

ConvertSummary stats_with(const std::string& input, const FilterSpec& f) {
  ConvertOptions o;
  o.input = input;
  o.filter = f;
  o.stats_table = true;
  std::ostringstream out, err;
  return convert(o, out, err);
}

}  // namespace

TEST(Filter, EveryFilterNarrowsOurTrace) {
  test::ScratchDir dir("filter");
  const auto recs = test::make_synthetic(3, 3, 100, 5);
  test::write_synthetic(dir.file("run.trace"), recs);
  const std::string in = dir.file("run.trace");

  auto count = [&](auto pred) { return static_cast<std::uint64_t>(std::count_if(recs.begin(), recs.end(), pred)); };

  FilterSpec cores;
  cores.cores = FilterSpec::parse_cores("1,2.0,cp");
  EXPECT_EQ(stats_with(in, cores).kept,
            count([](const auto& r) { return r.cluster == 1 || (r.cluster == 2 && r.cu == 0) || r.cluster < 0; }));

  FilterSpec units;
  units.units = {"XBAR", "dma"};
  const auto su = stats_with(in, units);
  EXPECT_EQ(su.kept, count([](const auto& r) { return r.unit == Unit::Xbar || r.unit == Unit::Dma; }));
  for (const UnitStats& u : su.stats->units) EXPECT_TRUE(u.unit == "xbar" || u.unit == "dma") << u.unit;

  FilterSpec layers;
  layers.layers = FilterSpec::parse_layers("2-3,fc");  // fc is layer 3 too; 'pool' is 2
  EXPECT_EQ(stats_with(in, layers).kept, count([](const auto& r) { return r.layer == 2 || r.layer == 3; }));

  FilterSpec mn;
  mn.mnemonics = {"mvm*"};
  EXPECT_EQ(stats_with(in, mn).kept, count([](const auto& r) { return r.mnemonic.rfind("mvm", 0) == 0; }));

  FilterSpec window;
  window.from = 1000;
  window.to = 3000;
  const auto sw = stats_with(in, window);
  EXPECT_EQ(sw.kept, count([](const auto& r) {
              return (r.end > 1000 || (r.start == r.end && r.start == 1000)) && r.start < 3000;
            }));
  EXPECT_GE(sw.t_min, 1000);
  EXPECT_LE(sw.t_max, 3000);
  for (const LayerStats& l : sw.stats->layers) {
    EXPECT_GE(l.start, 1000);
    EXPECT_LE(l.end, 3000);
  }
}

TEST(Filter, ZebuCoresAndUnits) {
  const std::string b1 = (test::zebu_dir() / "int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt").string();
  FilterSpec f;
  f.cores = FilterSpec::parse_cores("0");
  EXPECT_EQ(stats_with(b1, f).kept, 742u);
  f.cores = FilterSpec::parse_cores("1");
  EXPECT_EQ(stats_with(b1, f).kept, 0u);
  FilterSpec u;
  u.units = {"pe", "VP"};
  const auto s = stats_with(b1, u);
  EXPECT_EQ(s.stats->units.size(), 2u);
  EXPECT_EQ(s.kept, s.stats->units[0].count + s.stats->units[1].count);
}
