// Dump -> load round trips, the listing, and docs/parameters.md freshness.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "config_test_util.h"
#include "vp/config/loader.h"
#include "vp/config/report.h"

namespace vp::config {
namespace {

ParamSet reload_yaml(const ParamSet& p) {
  ParamSet back;
  back.apply_yaml(dump_yaml(p), "dump.yaml");
  return back;
}

TEST(Reports, YamlDumpRoundTripsEveryPreset) {
  for (const auto& name : preset_names()) {
    SCOPED_TRACE(name);
    LoadRequest req;
    req.preset = name;
    const ParamSet p = load_config(req);
    EXPECT_EQ(reload_yaml(p), p) << testing::PrintToString(reload_yaml(p).differences(p));
  }
}

TEST(Reports, YamlDumpRoundTripsAwkwardValues) {
  ParamSet p;
  p.apply_sets({"chip.name=quote \" back\\slash: # not a comment", "xbar.read_ns=0.1",
                "energy.xbar_read_pj_per_cell=1e-05", "chip.clock_mhz=333.3333333333333",
                "xbar.pipelined=false", "adc.mode=quantize", "xbar.signed_encoding=differential"});
  const ParamSet back = reload_yaml(p);
  EXPECT_EQ(back, p) << testing::PrintToString(back.differences(p));
  EXPECT_EQ(back.get_string("chip.name"), "quote \" back\\slash: # not a comment");
}

// Found by config_fuzz: a chip.name with a line break in it ended the
// dump's header comment, and the next line did not load back.
TEST(Reports, YamlDumpRoundTripsControlCharactersInCommentedText) {
  ParamSet p;
  p.apply_yaml("xbar.rows: 218\nchip.name: \"a # b\n\n", "fuzz.yaml");
  EXPECT_EQ(p.get_string("chip.name"), "a # b\n");
  p.apply_sets({"chip.name=line\rbreak\x01"});
  const ParamSet back = reload_yaml(p);
  EXPECT_EQ(back, p) << testing::PrintToString(back.differences(p));
  EXPECT_NE(dump_yaml(p).find("configuration of 'line\\x0dbreak\\x01'"), std::string::npos) << dump_yaml(p).substr(0, 200);
}

TEST(Reports, YamlDumpIsNestedAndCommented) {
  ParamSet p;
  p.apply_set("xbar.rows=128");
  const std::string y = dump_yaml(p);
  EXPECT_NE(y.find("xbar:\n"), std::string::npos);
  EXPECT_NE(y.find("  rows: 128\n"), std::string::npos);
  EXPECT_NE(y.find("cu:\n"), std::string::npos);
  EXPECT_NE(y.find("  scalar:\n    # "), std::string::npos);
  EXPECT_NE(y.find("# Rows (word lines, inputs) per crossbar [int, cells, 1..4096] set by --set"),
            std::string::npos);
  // Every parameter appears once, with its comment.
  for (const auto& d : registry()) {
    const std::string leaf = d.name.substr(d.name.rfind('.') + 1) + ": ";
    EXPECT_NE(y.find(d.description), std::string::npos) << d.name;
    EXPECT_NE(y.find(leaf), std::string::npos) << d.name;
  }
}

TEST(Reports, JsonDumpRoundTrips) {
  ParamSet p;
  p.apply_sets({"xbar.rows=64", "chip.clock_mhz=1250.5", "adc.mode=quantize",
                "xbar.pipelined=false", "chip.name=j"});
  ParamSet back;
  back.apply_json(dump_json(p), "dump.json");
  EXPECT_EQ(back, p) << testing::PrintToString(back.differences(p));
  EXPECT_NE(dump_json(p).find("\"rows\": 64"), std::string::npos);
}

TEST(Reports, ListingShowsEveryParameter) {
  const std::string text = list_params();
  EXPECT_EQ(text.rfind("name", 0), 0u);
  EXPECT_NE(text.find("default"), std::string::npos);
  for (const auto& d : registry()) {
    EXPECT_NE(text.find(d.name), std::string::npos) << d.name;
  }
  ParamSet p;
  p.apply_set("xbar.rows=77");
  const std::string current = list_params(&p);
  EXPECT_NE(current.find("value"), std::string::npos);
  EXPECT_NE(current.find(" 77 "), std::string::npos);
}

TEST(Reports, MarkdownHasEveryParameterAndPreset) {
  const std::string md = markdown_reference(builtin_config_dir());
  for (const auto& d : registry()) {
    EXPECT_NE(md.find("| `" + d.name + "` |"), std::string::npos) << d.name;
  }
  EXPECT_NE(md.find("| parameter | sidra-y1 | isaac-like | puma-like | sidra-y1-analog | small |"),
            std::string::npos);
  EXPECT_NE(md.find("| *crossbars (derived)* | 6400 | 16128 | 18432 | 6400 | 32 |"), std::string::npos);
}

TEST(Reports, DocsParametersMdIsCurrent) {
  const std::string path = test::source_dir() + "/docs/parameters.md";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing; run: vp-params --markdown -o docs/parameters.md";
  std::ostringstream committed;
  committed << in.rdbuf();
  EXPECT_TRUE(committed.str() == markdown_reference(builtin_config_dir()))
      << path << " is stale; regenerate it with `ninja params-docs` "
      << "or `vp-params --markdown -o docs/parameters.md`";
}

}  // namespace
}  // namespace vp::config
