#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "trace_test_util.hpp"
#include "vp/trace/convert.hpp"

using namespace vp::trace;

namespace {

struct ClassTotals {
  std::uint64_t count = 0;
  std::int64_t cycles = 0;
};

// Per-class totals read with sscanf, independent of the library's parser.
std::map<std::string, ClassTotals> independent_totals(const std::string& path, std::map<std::string, ClassTotals>* per_mnemonic) {
  std::map<std::string, ClassTotals> out;
  std::istringstream in(test::slurp(path));
  for (std::string line; std::getline(in, line);) {
    const std::string m = line.substr(1, line.find(',') - 1);
    std::string cls = m.substr(0, 2);
    for (char& c : cls) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    long long a = 0, b = 0;
    std::sscanf(line.c_str() + line.find("'time': [") + 9, "%lld, %lld", &a, &b);
    ++out[cls].count;
    out[cls].cycles += b - a;
    if (per_mnemonic) {
      ++(*per_mnemonic)[m].count;
      (*per_mnemonic)[m].cycles += b - a;
    }
  }
  return out;
}

StatsReport stats_of(const std::string& path, ConvertOptions o = {}) {
  o.input = path;
  o.stats_table = true;
  o.top = 1000;
  std::ostringstream out, err;
  auto s = convert(o, out, err);
  EXPECT_NE(out.str().find("critical path"), std::string::npos);
  return *s.stats;
}

std::string zebu(const std::string& n) { return (test::zebu_dir() / n).string(); }

}  // namespace

TEST(Stats, PerClassTotalsMatchTheFiles) {
  for (const char* name : {"int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt", "int8_resnet50.sim_quantized_b16_c1_bw16_sim.txt",
                           "int8_resnet34.sim_quantized_b16_c1_bw16_sim.txt"}) {
    std::map<std::string, ClassTotals> by_mnemonic;
    const auto want = independent_totals(zebu(name), &by_mnemonic);
    const StatsReport r = stats_of(zebu(name));
    ASSERT_EQ(r.units.size(), want.size()) << name;
    for (const UnitStats& u : r.units) {
      ASSERT_TRUE(want.count(u.unit)) << u.unit;
      EXPECT_EQ(u.count, want.at(u.unit).count) << name << " " << u.unit;
      EXPECT_EQ(u.inst_cycles, want.at(u.unit).cycles) << name << " " << u.unit;
      EXPECT_LE(u.busy_cycles, u.inst_cycles);
      EXPECT_LE(u.busy_fraction, 1.0);
    }
    ASSERT_EQ(r.mnemonics.size(), by_mnemonic.size());
    for (std::size_t k = 0; k < r.mnemonics.size(); ++k) {
      EXPECT_EQ(r.mnemonics[k].total_cycles, by_mnemonic.at(r.mnemonics[k].name).cycles);
      if (k) {
        EXPECT_GE(r.mnemonics[k - 1].total_cycles, r.mnemonics[k].total_cycles);
      }
    }
  }
}

TEST(Stats, RunAndLayerSpans) {
  const StatsReport r = stats_of(zebu("int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt"));
  EXPECT_EQ(r.records, 742u);
  EXPECT_EQ(r.t_min, 0);
  EXPECT_EQ(r.t_max, 2545655);
  ASSERT_EQ(r.layers.size(), 73u);  // slyr 0..72
  std::uint64_t total = 0;
  for (const LayerStats& l : r.layers) {
    total += l.count;
    EXPECT_EQ(l.cycles, l.end - l.start);
    EXPECT_LE(l.busy_cycles, l.cycles);
    EXPECT_NEAR(l.share, static_cast<double>(l.cycles) / 2545655.0, 1e-12);
  }
  EXPECT_EQ(total, 742u);
  EXPECT_EQ(r.layers.back().name, "L72");
  EXPECT_EQ(r.layers.back().end, 2545655);
}

TEST(Stats, CriticalPathAccountsForTheWholeRun) {
  for (const char* name : {"int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt", "int8_resnet50.sim_quantized_b64_c1_bw16_sim.txt",
                           "int8_resnet34.sim_quantized_b1_c1_bw16_sim.txt"}) {
    const StatsReport r = stats_of(zebu(name));
    ASSERT_FALSE(r.critical_path.empty());
    std::int64_t sum = 0;
    for (std::size_t k = 0; k < r.critical_path.size(); ++k) {
      const CriticalStep& c = r.critical_path[k];
      sum += c.exposed + c.gap;
      EXPECT_GE(c.exposed, 0);
      EXPECT_GE(c.gap, 0);
      if (k) {
        EXPECT_GE(c.end, r.critical_path[k - 1].end) << name;
      }
    }
    EXPECT_EQ(r.critical_path.back().end, r.t_max) << name;
    EXPECT_EQ(sum, r.t_max - r.t_min) << name;
  }
}

TEST(Stats, LongestInstructionsAreTheLongest) {
  const StatsReport r = stats_of(zebu("int8_resnet50.sim_quantized_b4_c1_bw16_sim.txt"));
  ASSERT_EQ(r.longest.size(), 779u);  // top = 1000 > records
  for (std::size_t k = 1; k < r.longest.size(); ++k)
    EXPECT_GE(r.longest[k - 1].end - r.longest[k - 1].start, r.longest[k].end - r.longest[k].start);
}

TEST(Stats, CsvAndJsonAgreeWithTheReport) {
  test::ScratchDir dir("stats-files");
  ConvertOptions o;
  o.input = zebu("int8_resnet34.sim_quantized_b1_c1_bw16_sim.txt");
  o.stats_csv = dir.file("s.csv");
  o.stats_json = dir.file("s.json");
  std::ostringstream out, err;
  const auto s = convert(o, out, err);
  EXPECT_TRUE(out.str().empty());  // no table unless asked
  const auto j = nlohmann::json::parse(test::slurp(o.stats_json));
  EXPECT_EQ(j["end"], 1922067);
  EXPECT_EQ(j["layers"].size(), s.stats->layers.size());
  EXPECT_EQ(j["units"].size(), 7u);
  std::istringstream csv(test::slurp(o.stats_csv));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line.rfind("section,name,", 0), 0u);
  const auto commas = std::count(line.begin(), line.end(), ',');
  std::map<std::string, int> sections;
  while (std::getline(csv, line)) {
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), commas) << line;
    ++sections[line.substr(0, line.find(','))];
  }
  EXPECT_EQ(sections["layer"], static_cast<int>(s.stats->layers.size()));
  EXPECT_EQ(sections["unit"], 7);
  EXPECT_EQ(sections["run"], 1);
  EXPECT_EQ(sections["critical"], static_cast<int>(s.stats->critical_path.size()));
}

TEST(Stats, RecordsOutsideLayersAreNotOnTheCriticalPath) {
  test::ScratchDir dir("stats-unassigned");
  // The control processor waits across the whole run outside any layer;
  // the layers run one after the other inside it.
  test::spit(dir.file("t.trace"),
             "[cwait, {'slyr': -1, 'layer': '', 'cluster': -1, 'cu': -1, 'unit': 'cp', 'pc': 0}, {'inst_idx': 1, 'time': [0, 1000]}, {}]\n"
             "[mvm, {'slyr': 1, 'layer': 'fc1', 'cluster': 0, 'cu': 0, 'unit': 'xbar', 'pc': 0}, {'inst_idx': 2, 'time': [10, 400]}, {}]\n"
             "[mvm, {'slyr': 2, 'layer': 'fc2', 'cluster': 0, 'cu': 1, 'unit': 'xbar', 'pc': 0}, {'inst_idx': 3, 'time': [300, 900]}, {}]\n");
  const StatsReport r = stats_of(dir.file("t.trace"));
  ASSERT_EQ(r.layers.size(), 3u);
  EXPECT_EQ(r.layers[0].name, "-");
  EXPECT_TRUE(r.layers[0].unassigned);
  EXPECT_FALSE(r.layers[0].critical);
  ASSERT_EQ(r.critical_path.size(), 2u);
  EXPECT_EQ(r.critical_path[0].layer, "fc1");
  EXPECT_EQ(r.critical_path[0].gap, 10);
  EXPECT_EQ(r.critical_path[0].exposed, 390);
  EXPECT_EQ(r.critical_path[1].layer, "fc2");
  EXPECT_EQ(r.critical_path[1].exposed, 500);
  EXPECT_EQ(r.units.front().name, "cp");
}
