#include <gtest/gtest.h>

#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>

#include "synthetic_trace.hpp"
#include "trace_test_util.hpp"
#include "vp/trace/convert.hpp"

using namespace vp::trace;
using nlohmann::json;

namespace {

json convert_to_json(const std::string& input, const std::string& out, bool args = true, FilterSpec filter = {}) {
  ConvertOptions o;
  o.input = input;
  o.perfetto = out;
  o.perfetto_args = args;
  o.filter = std::move(filter);
  std::ostringstream sout, serr;
  convert(o, sout, serr);
  return json::parse(test::slurp(out));
}

std::vector<json> slices(const json& doc) {
  std::vector<json> out;
  for (const json& e : doc.at("traceEvents"))
    if (e.at("ph") == "X") out.push_back(e);
  return out;
}

// Slices on one (pid, tid) must not partially overlap: the viewers need
// nesting, and we promise disjoint lanes.
void expect_disjoint_lanes(const std::vector<json>& xs) {
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> lanes;
  for (const json& e : xs) lanes[{e["pid"].get<int>(), e["tid"].get<int>()}].emplace_back(e["ts"], e["dur"]);
  for (auto& [key, v] : lanes) {
    std::sort(v.begin(), v.end());
    for (std::size_t k = 1; k < v.size(); ++k)
      EXPECT_LE(v[k - 1].first + v[k - 1].second, v[k].first + 1e-9) << key.first << "/" << key.second;
  }
}

}  // namespace

TEST(Perfetto, ZebuTracesGiveOneSlicePerInstruction) {
  test::ScratchDir dir("perfetto-zebu");
  const std::map<std::string, std::size_t> files = {{"int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt", 742},
                                                    {"int8_resnet50.sim_quantized_b4_c1_bw16_sim.txt", 779},
                                                    {"int8_resnet50.sim_quantized_b64_c1_bw16_sim.txt", 10739}};
  for (const auto& [name, count] : files) {
    const json doc = convert_to_json((test::zebu_dir() / name).string(), dir.file("out.json"));
    const auto xs = slices(doc);
    EXPECT_EQ(xs.size(), count) << name;
    expect_disjoint_lanes(xs);
    double last = 0;
    for (const json& e : xs) last = std::max(last, e["ts"].get<double>() + e["dur"].get<double>());
    if (count == 742) {
      EXPECT_NEAR(last, 2545.655, 1e-6);  // us at 1 GHz
      EXPECT_EQ(xs.front()["name"], "ct_st");
      EXPECT_EQ(xs.front()["args"]["inst_idx"], 1);
    }
  }
}

TEST(Perfetto, TracksNamedPerUnitAndLayersAsCategories) {
  test::ScratchDir dir("perfetto-ours");
  const auto recs = test::make_synthetic(2, 2, 50, 11);
  test::write_synthetic(dir.file("run.trace"), recs);
  const json doc = convert_to_json(dir.file("run.trace"), dir.file("out.json"), false);
  const auto xs = slices(doc);
  ASSERT_EQ(xs.size(), recs.size());
  expect_disjoint_lanes(xs);
  std::set<std::string> process_names, cats;
  std::set<std::pair<int, std::string>> thread_names;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") thread_names.emplace(e["pid"].get<int>(), e["args"]["name"].get<std::string>());
    if (e["ph"] == "M" && e["name"] == "process_name") process_names.insert(e["args"]["name"]);
  }
  for (const json& e : xs) {
    cats.insert(e["cat"].get<std::string>());
    EXPECT_FALSE(e.contains("args"));
  }
  EXPECT_TRUE(process_names.count("cluster 0"));
  EXPECT_TRUE(process_names.count("cluster 1"));
  EXPECT_TRUE(process_names.count("control processor"));
  EXPECT_TRUE(thread_names.count({3, "cu1 xbar"}));  // pid = cluster + 2
  EXPECT_EQ(thread_names.size(), 2u * 2u * 5u + 1u);  // no overlaps in this trace: one lane per unit
  EXPECT_TRUE(cats.count("conv1"));
  EXPECT_EQ(cats.size(), 8u);
}

TEST(Perfetto, FiltersApply) {
  test::ScratchDir dir("perfetto-filter");
  const std::string b1 = (test::zebu_dir() / "int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt").string();
  FilterSpec f;
  f.mnemonics = {"pe_*"};
  const auto pe = slices(convert_to_json(b1, dir.file("a.json"), true, f));
  std::istringstream in(test::slurp(b1));
  std::size_t want = 0;
  for (std::string line; std::getline(in, line);) want += line.rfind("[pe_", 0) == 0;
  EXPECT_EQ(pe.size(), want);
  EXPECT_GT(want, 300u);
  for (const json& e : pe) EXPECT_EQ(e["name"].get<std::string>().rfind("pe_", 0), 0u);
}
