#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <limits>
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

// Found by trace_cli_fuzz: two records on one unit lasting 10 and 2^63 - 1
// cycles overflowed the sum of instruction cycles (signed overflow, a
// negative total). Sums stop at 2^63 - 1.
TEST(Stats, CycleSumsBeyond64BitsSaturate) {
  test::ScratchDir dir("stats-saturate");
  test::spit(dir.file("t.trace"),
             "[a, {'slyr': 0}, {'inst_idx': 1, 'time': [0, 10]}, {}]\n"
             "[a, {'slyr': 0}, {'inst_idx': 2, 'time': [0, 9223372036854775807]}, {}]\n");
  const StatsReport r = stats_of(dir.file("t.trace"));
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  ASSERT_EQ(r.units.size(), 1u);
  EXPECT_EQ(r.units[0].inst_cycles, kMax);
  ASSERT_EQ(r.layers.size(), 1u);
  ASSERT_EQ(r.mnemonics.size(), 1u);
  EXPECT_EQ(r.mnemonics[0].total_cycles, kMax);
  EXPECT_EQ(r.mnemonics[0].max_cycles, kMax);
  EXPECT_GE(r.units[0].busy_cycles, 9223372036854775800);
}

// The critical path stepped back from layer to layer rescanning every
// earlier one: 100,000 layers took 40 s. Compared with 10,000 layers read
// the same way (linear: about 10x; the old walk: about 100x).
TEST(Stats, CriticalPathOfManyLayersIsLinear) {
  test::ScratchDir dir("stats-layers");
  const auto trace = [&](int n) {
    std::string t;
    for (int i = 0; i < n; ++i)
      t += "[a, {'slyr': " + std::to_string(i) + "}, {'inst_idx': " + std::to_string(i + 1) + ", 'time': [" +
           std::to_string(i) + ", " + std::to_string(i + 10) + "]}, {}]\n";
    const std::string path = dir.file(std::to_string(n) + ".trace");
    test::spit(path, t);
    return path;
  };
  const auto seconds = [](const std::string& path, StatsReport* out) {
    std::vector<double> t;
    for (int run = 0; run < 3; ++run) {
      const auto t0 = std::chrono::steady_clock::now();
      *out = stats_of(path);
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[1];
  };
  StatsReport small_r, large_r;
  const double small = seconds(trace(10000), &small_r);
  const double large = seconds(trace(100000), &large_r);
  EXPECT_LT(large, 40 * small + 0.5) << "10,000 layers " << small << " s, 100,000 layers " << large << " s";
  // Every layer ends after the one before: all are on the path, each
  // exposing the one cycle by which it outlasts its predecessor.
  ASSERT_EQ(large_r.critical_path.size(), 100000u);
  EXPECT_EQ(large_r.critical_path.front().exposed, 10);
  EXPECT_EQ(large_r.critical_path.back().exposed, 1);
  EXPECT_EQ(large_r.critical_path.back().layer, large_r.layers.back().name);
}

