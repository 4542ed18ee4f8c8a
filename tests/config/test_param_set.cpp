// Typed access, --set parsing, layering order and the errors of each.
#include <gtest/gtest.h>

#include "config_test_util.h"
#include "vp/config/chip_shape.h"
#include "vp/config/loader.h"
#include "vp/config/param_set.h"

namespace vp::config {
namespace {

using test::expect_config_error;
using Kind = ConfigError::Kind;

TEST(ParamSet, DefaultsAreTheSidraY1Chip) {
  const ParamSet p;
  EXPECT_EQ(p.get_int("chip.clusters"), 16);
  EXPECT_EQ(p.get_int("chip.mesh_cols"), 4);
  EXPECT_EQ(p.get_int("chip.cus_per_cluster"), 25);
  EXPECT_EQ(p.get_int("chip.xbars_per_cu"), 16);
  EXPECT_EQ(p.get_int("xbar.rows"), 256);
  EXPECT_EQ(p.get_int("xbar.cols"), 256);
  EXPECT_EQ(p.get_int("xbar.cell_bits"), 2);
  EXPECT_EQ(p.get_int("xbar.weight_bits"), 8);
  EXPECT_EQ(p.get_int("dac.bits"), 1);
  EXPECT_EQ(p.get_int("adc.bits"), 8);
  EXPECT_DOUBLE_EQ(p.get_double("chip.clock_mhz"), 1000.0);
  EXPECT_DOUBLE_EQ(p.get_double("xbar.read_ns"), 100.0);
  EXPECT_EQ(p.get_string("xbar.signed_encoding"), "offset_slices");
  EXPECT_EQ(p.get_string("chip.name"), "sidra-y1");
  EXPECT_TRUE(p.get_bool("xbar.pipelined"));
  EXPECT_EQ(p.origin("xbar.rows"), "default");
  const ChipShape s = chip_shape(p);
  EXPECT_EQ(s.mesh_rows, 4);
  EXPECT_EQ(s.total_crossbars(), 6400);
  EXPECT_EQ(s.total_cells(), 419'430'400);  // the "419 M cells" of DESIGN.md
  EXPECT_EQ(s.columns_per_weight(), 4);
  EXPECT_EQ(s.adcs_per_xbar, 8);
  EXPECT_NO_THROW(p.validate());
}

TEST(ParamSet, TemplateGetAndWidening) {
  ParamSet p;
  EXPECT_EQ(p.get<int>("xbar.rows"), 256);
  EXPECT_EQ(p.get<std::uint32_t>("chip.clusters"), 16u);
  EXPECT_DOUBLE_EQ(p.get<double>("xbar.rows"), 256.0);  // ints widen to double
  EXPECT_EQ(p.get<std::string>("adc.mode"), "ideal");
  EXPECT_TRUE(p.get<bool>("xbar.pipelined"));
  p.set("gmem.size_mib", "1048576");
  EXPECT_EQ(p.get<std::int64_t>("gmem.size_mib"), 1048576);
  expect_config_error([&] { (void)p.get<std::int8_t>("gmem.size_mib"); }, Kind::kOutOfRange,
                      {"gmem.size_mib"});
}

TEST(ParamSet, GetterOfTheWrongTypeNamesTheKey) {
  const ParamSet p;
  expect_config_error([&] { (void)p.get_int("xbar.read_ns"); }, Kind::kWrongType,
                      {"xbar.read_ns", "float"});
  expect_config_error([&] { (void)p.get_bool("xbar.rows"); }, Kind::kWrongType, {"xbar.rows"});
  expect_config_error([&] { (void)p.get_string("xbar.rows"); }, Kind::kWrongType, {"xbar.rows"});
  expect_config_error([&] { (void)p.get_int("xbar.rowz"); }, Kind::kUnknownKey,
                      {"xbar.rowz", "did you mean xbar.rows"});
}

TEST(ParamSet, SetParsesByType) {
  ParamSet p;
  p.apply_set("xbar.rows=128");
  p.apply_set(" xbar.read_ns = 50.5 ");
  p.apply_set("xbar.pipelined=off");
  p.apply_set("adc.mode=quantize");
  p.apply_set("chip.name=my chip");
  p.apply_set("noc.link_bits=0x80");
  EXPECT_EQ(p.get_int("xbar.rows"), 128);
  EXPECT_DOUBLE_EQ(p.get_double("xbar.read_ns"), 50.5);
  EXPECT_FALSE(p.get_bool("xbar.pipelined"));
  EXPECT_EQ(p.get_string("adc.mode"), "quantize");
  EXPECT_EQ(p.get_string("chip.name"), "my chip");
  EXPECT_EQ(p.get_int("noc.link_bits"), 128);
  EXPECT_EQ(p.origin("xbar.rows"), "--set");
  p.apply_set("xbar.read_ns=20");  // an int where a float is expected
  EXPECT_DOUBLE_EQ(p.get_double("xbar.read_ns"), 20.0);
}

TEST(ParamSet, SetErrorsNameTheKey) {
  ParamSet p;
  expect_config_error([&] { p.apply_set("xbar.rows"); }, Kind::kMalformed,
                      {"xbar.rows", "key=value"});
  expect_config_error([&] { p.apply_set("=5"); }, Kind::kMalformed, {"no key"});
  expect_config_error([&] { p.apply_set("xbar.rowz=5"); }, Kind::kUnknownKey,
                      {"--set", "xbar.rowz", "did you mean xbar.rows"});
  expect_config_error([&] { p.apply_set("xbar=5"); }, Kind::kUnknownKey,
                      {"xbar", "group of parameters"});
  expect_config_error([&] { p.apply_set("xbar.rows=abc"); }, Kind::kWrongType,
                      {"xbar.rows", "expected int", "abc"});
  expect_config_error([&] { p.apply_set("xbar.rows=12.5"); }, Kind::kWrongType,
                      {"xbar.rows", "not a whole number"});
  expect_config_error([&] { p.apply_set("xbar.rows="); }, Kind::kWrongType, {"xbar.rows"});
  expect_config_error([&] { p.apply_set("xbar.read_ns=fast"); }, Kind::kWrongType,
                      {"xbar.read_ns", "expected float"});
  expect_config_error([&] { p.apply_set("xbar.read_ns=nan"); }, Kind::kWrongType, {"xbar.read_ns"});
  expect_config_error([&] { p.apply_set("xbar.pipelined=2"); }, Kind::kWrongType,
                      {"xbar.pipelined", "true or false"});
  expect_config_error([&] { p.apply_set("xbar.rows=0"); }, Kind::kOutOfRange,
                      {"xbar.rows", "1..4096"});
  expect_config_error([&] { p.apply_set("xbar.rows=99999999999999999999"); }, Kind::kWrongType,
                      {"xbar.rows"});
  expect_config_error([&] { p.apply_set("nonideal.stuck_hrs_rate=1.5"); }, Kind::kOutOfRange,
                      {"nonideal.stuck_hrs_rate", "0..1"});
  expect_config_error([&] { p.apply_set("adc.mode=exact"); }, Kind::kBadEnum,
                      {"adc.mode", "'exact'", "ideal, quantize"});
  // A failed set leaves the old value.
  EXPECT_EQ(p.get_int("xbar.rows"), 256);
}

TEST(ParamSet, SetValueChecksTypeAndRange) {
  ParamSet p;
  p.set_value("xbar.rows", Value{std::int64_t{64}});
  EXPECT_EQ(p.get_int("xbar.rows"), 64);
  p.set_value("xbar.read_ns", Value{std::int64_t{7}});
  EXPECT_DOUBLE_EQ(p.get_double("xbar.read_ns"), 7.0);
  expect_config_error([&] { p.set_value("xbar.rows", Value{1.5}); }, Kind::kWrongType,
                      {"xbar.rows"});
  expect_config_error([&] { p.set_value("xbar.rows", Value{std::int64_t{5000}}); },
                      Kind::kOutOfRange, {"xbar.rows"});
  expect_config_error([&] { p.set_value("adc.mode", Value{std::string("x")}); }, Kind::kBadEnum,
                      {"adc.mode"});
}

TEST(ParamSet, LastSettingWins) {
  test::TempFile first("first.yaml", "xbar: {rows: 128, cols: 128}\nadc.bits: 6\n");
  test::TempFile second("second.json", R"({"xbar": {"rows": 64}})");
  LoadRequest req;
  req.preset = "small";  // rows 64, clusters 4
  req.config_files = {first.path(), second.path()};
  req.sets = {"adc.bits=5", "adc.bits=4", "chip.clusters=8"};
  const ParamSet p = load_config(req);
  EXPECT_EQ(p.get_int("xbar.rows"), 64);       // second file over first file
  EXPECT_EQ(p.get_int("xbar.cols"), 128);      // first file over preset
  EXPECT_EQ(p.get_int("adc.bits"), 4);         // last --set over earlier ones and the file
  EXPECT_EQ(p.get_int("chip.clusters"), 8);    // --set over preset
  EXPECT_EQ(p.get_int("chip.cus_per_cluster"), 2);  // preset over default
  EXPECT_EQ(p.get_int("chip.xbars_per_cu"), 4);
  EXPECT_EQ(p.get_int("noc.hop_cycles"), 2);   // default untouched
  EXPECT_EQ(p.origin("adc.bits"), "--set");
  EXPECT_EQ(p.origin("xbar.rows"), second.path());
  EXPECT_EQ(p.origin("xbar.cols"), first.path() + ":1");
  EXPECT_EQ(p.preset(), "small");
}

TEST(ParamSet, LoadConfigValidates) {
  LoadRequest req;
  req.sets = {"chip.clusters=6"};  // 6 clusters do not fill a 4-wide mesh
  expect_config_error([&] { (void)load_config(req); }, Kind::kConstraint, {"chip.mesh_cols"});
}

TEST(ParamSet, DifferencesAndEquality) {
  ParamSet a;
  ParamSet b;
  EXPECT_EQ(a, b);
  b.set("xbar.rows", "128");
  b.set("adc.bits", "6");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.differences(b), (std::vector<std::string>{"xbar.rows", "adc.bits"}));
  b.set("xbar.rows", "256", "elsewhere");  // same value, different origin: still equal
  b.set("adc.bits", "8");
  EXPECT_EQ(a, b);
}

TEST(ParamSet, NanosecondsToCycles) {
  ParamSet p;
  EXPECT_EQ(p.ns_to_cycles(100.0), 100);
  EXPECT_EQ(p.ns_to_cycles(0.0), 0);
  EXPECT_EQ(p.ns_to_cycles(0.3), 1);   // any fraction of a cycle costs a cycle
  EXPECT_EQ(p.ns_to_cycles(1.5), 2);
  EXPECT_DOUBLE_EQ(p.cycle_ns(), 1.0);
  p.set("chip.clock_mhz", "1200");
  EXPECT_EQ(p.ns_to_cycles(100.0), 120);
  EXPECT_EQ(p.ns_to_cycles(0.78), 1);
  p.set("chip.clock_mhz", "300");
  EXPECT_EQ(p.ns_to_cycles(10.0), 3);  // 10 ns at 300 MHz = 3.0000000000000004 cycles
  p.set("noc.clock_mhz", "500");
  EXPECT_EQ(p.noc_ns_to_cycles(10.0), 5);
  EXPECT_EQ(ns_to_cycles(12.5, 1000), 13);
  EXPECT_EQ(ceil_div(10, 4), 3);
  EXPECT_EQ(ceil_div(8, 4), 2);
}

}  // namespace
}  // namespace vp::config
