#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <set>
#include <sstream>

#include "synthetic_trace.hpp"
#include "trace_test_util.hpp"
#include "vp/trace/convert.hpp"
#include "vp/trace/vcd_writer.hpp"

using namespace vp::trace;

namespace {

using Intervals = std::vector<std::pair<std::int64_t, std::int64_t>>;

std::string scope_of(const test::SynthRecord& r) {
  const std::string unit(unit_name(r.unit));
  if (r.cluster < 0) return unit == "cp" ? std::string("chip.cp") : "chip.cp." + unit;
  return fmt::format("chip.cluster{}.cu{}.{}", r.cluster, r.cu, unit);
}

// opcode code -> mnemonic, from the $comment block the writer documents.
std::map<std::int64_t, std::string> opcode_codes(const std::string& vcd_text) {
  std::map<std::int64_t, std::string> codes;
  const std::size_t at = vcd_text.find("opcode codes");
  const std::size_t end = vcd_text.find("$end", at);
  std::istringstream in(vcd_text.substr(at, end - at));
  std::string tok;
  while (in >> tok) {
    const std::size_t eq = tok.find('=');
    if (eq != std::string::npos && std::isdigit(static_cast<unsigned char>(tok[0])))
      codes[std::stoll(tok.substr(0, eq))] = tok.substr(eq + 1);
  }
  return codes;
}

std::string value_at(const test::VcdSignal& s, std::int64_t t) {
  std::string v = "?";
  for (const auto& [time, value] : s.changes) {
    if (time > t) break;
    v = value;
  }
  return v;
}

ConvertSummary run(ConvertOptions o) {
  std::ostringstream out, err;
  return convert(o, out, err);
}

}  // namespace

TEST(Vcd, OurTraceRoundTripsThroughTheWaves) {
  test::ScratchDir dir("vcd-ours");
  const auto recs = test::make_synthetic(3, 2, 300, 7);
  test::write_synthetic(dir.file("run.trace"), recs);
  ConvertOptions o;
  o.input = dir.file("run.trace");
  o.vcd = dir.file("run.vcd");
  o.sort_run_bytes = 1 << 16;  // force the on-disk merge
  const ConvertSummary s = run(o);
  EXPECT_EQ(s.kept, recs.size());

  const test::VcdFile vcd = test::read_vcd(o.vcd);
  EXPECT_EQ(vcd.timescale, "1 ns");
  std::map<std::string, Intervals> want;
  for (const auto& r : recs) want[scope_of(r)].emplace_back(r.start, r.end);
  ASSERT_EQ(want.size(), 3u * 2u * 5u + 1u);
  for (auto& [scope, iv] : want) {
    ASSERT_TRUE(vcd.by_path.count(scope + ".busy")) << scope;
    EXPECT_EQ(test::high_intervals(vcd.by_path.at(scope + ".busy"), vcd.last_time), test::merged(iv)) << scope;
    // Whenever busy falls, opcode, layer and op fall idle with it.
    for (const auto& [b, e] : test::merged(iv)) {
      EXPECT_EQ(value_at(vcd.by_path.at(scope + ".opcode"), e), "z") << scope << " at " << e;
      EXPECT_EQ(value_at(vcd.by_path.at(scope + ".layer"), e), "z") << scope << " at " << e;
      EXPECT_EQ(value_at(vcd.by_path.at(scope + ".op"), e), "-") << scope << " at " << e;
      EXPECT_EQ(value_at(vcd.by_path.at(scope + ".active"), e), "0") << scope << " at " << e;
    }
  }

  // The opcode shown at each instruction's start is that instruction's.
  const auto codes = opcode_codes(test::slurp(o.vcd));
  int checked = 0;
  for (const auto& r : recs) {
    if (r.end == r.start) continue;
    const std::string v = value_at(vcd.by_path.at(scope_of(r) + ".opcode"), r.start);
    ASSERT_NE(v.find_first_of("01"), std::string::npos) << v;
    EXPECT_EQ(codes.at(std::stoll(v, nullptr, 2)), r.mnemonic) << scope_of(r) << " at " << r.start;
    const std::string layer = value_at(vcd.by_path.at(scope_of(r) + ".layer"), r.start);
    EXPECT_EQ(std::stoll(layer, nullptr, 2), r.layer);
    EXPECT_EQ(value_at(vcd.by_path.at(scope_of(r) + ".op"), r.start), r.mnemonic);
    ++checked;
  }
  EXPECT_GT(checked, 3000);
}

TEST(Vcd, ZebuClassesBusyEqualsTheUnionOfTheirIntervals) {
  const std::string path = (test::zebu_dir() / "int8_resnet50.sim_quantized_b4_c1_bw16_sim.txt").string();
  test::ScratchDir dir("vcd-zebu");
  ConvertOptions o;
  o.input = path;
  o.vcd = dir.file("b4.vcd");
  run(o);
  // Independent reading of the file: mnemonic before the first ',', the two
  // numbers after 'time': [.
  std::map<std::string, Intervals> want;
  std::istringstream in(test::slurp(path));
  for (std::string line; std::getline(in, line);) {
    const std::string m = line.substr(1, line.find(',') - 1);
    std::string cls = m.substr(0, 2);
    std::transform(cls.begin(), cls.end(), cls.begin(), ::toupper);
    long long a = 0, b = 0;
    ASSERT_EQ(std::sscanf(line.c_str() + line.find("'time': [") + 9, "%lld, %lld", &a, &b), 2);
    want[cls].emplace_back(a, b);
  }
  const test::VcdFile vcd = test::read_vcd(o.vcd);
  EXPECT_GE(want.size(), 6u);  // this file has no DT instruction
  for (auto& [cls, iv] : want)
    EXPECT_EQ(test::high_intervals(vcd.by_path.at("chip.core0." + cls + ".busy"), vcd.last_time), test::merged(iv))
        << cls;
  EXPECT_EQ(vcd.last_time, 5470662);
}

TEST(Vcd, TimescaleFollowsTheClock) {
  EXPECT_EQ(vcd_timescale(1000).unit, "1 ns");
  EXPECT_EQ(vcd_timescale(1000).per_cycle, 1);
  EXPECT_EQ(vcd_timescale(500).unit, "1 ns");
  EXPECT_EQ(vcd_timescale(500).per_cycle, 2);
  EXPECT_EQ(vcd_timescale(800).unit, "10 ps");
  EXPECT_EQ(vcd_timescale(800).per_cycle, 125);
  EXPECT_EQ(vcd_timescale(100).unit, "10 ns");
  EXPECT_TRUE(vcd_timescale(3000).exact == false || vcd_timescale(3000).unit.find("fs") != std::string::npos);
  EXPECT_EQ(vcd_identifier(0), "!");
  EXPECT_EQ(vcd_identifier(93), "~");
  EXPECT_EQ(vcd_identifier(94), "!\"");
}

TEST(Vcd, GtkwaveAcceptsTheFile) {
  if (std::system("command -v vcd2fst > /dev/null 2>&1") != 0) GTEST_SKIP() << "vcd2fst (gtkwave) not installed";
  test::ScratchDir dir("vcd2fst");
  const auto recs = test::make_synthetic(2, 2, 100, 3);
  test::write_synthetic(dir.file("run.trace"), recs);
  for (const std::string& input :
       {dir.file("run.trace"), (test::zebu_dir() / "int8_resnet34.sim_quantized_b1_c1_bw16_sim.txt").string()}) {
    ConvertOptions o;
    o.input = input;
    o.vcd = dir.file("w.vcd");
    run(o);
    const std::string cmd = "vcd2fst " + o.vcd + " " + dir.file("w.fst") + " > " + dir.file("log") + " 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << test::slurp(dir.file("log"));
    EXPECT_GT(std::filesystem::file_size(dir.file("w.fst")), 100u);
  }
}

TEST(Vcd, FiltersLeaveOnlyTheSelectedUnitsAndLayers) {
  test::ScratchDir dir("vcd-filter");
  ConvertOptions o;
  o.input = (test::zebu_dir() / "int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt").string();
  o.vcd = dir.file("pe.vcd");
  o.filter.units = {"PE"};
  o.filter.layers = FilterSpec::parse_layers("10-12");
  run(o);
  const test::VcdFile vcd = test::read_vcd(o.vcd);
  EXPECT_TRUE(vcd.by_path.count("chip.core0.PE.busy"));
  EXPECT_TRUE(vcd.by_path.count("chip.core0.PE.op"));
  EXPECT_FALSE(vcd.by_path.count("chip.core0.LD.busy"));
  std::set<std::string> layers;
  for (const auto& [path, sig] : vcd.by_path)
    if (path.rfind("chip.layers.", 0) == 0) layers.insert(path.substr(12));
  // Independently: the layers 10..12 that have a pe_ instruction (L11 has none).
  std::set<std::string> want;
  std::istringstream in(test::slurp(o.input));
  for (std::string line; std::getline(in, line);) {
    const int slyr = std::atoi(line.c_str() + line.find("'slyr': ") + 8);
    if (line.rfind("[pe_", 0) == 0 && slyr >= 10 && slyr <= 12) want.insert("L" + std::to_string(slyr));
  }
  EXPECT_EQ(want.size(), 2u);
  EXPECT_EQ(layers, want);
}

TEST(Vcd, StrictModeUsesOnlyIeeeTypes) {
  test::ScratchDir dir("vcd-strict");
  ConvertOptions o;
  o.input = (test::zebu_dir() / "int8_resnet34.sim_quantized_b1_c1_bw16_sim.txt").string();
  o.vcd = dir.file("s.vcd");
  o.vcd_names = false;
  run(o);
  const std::string text = test::slurp(o.vcd);
  EXPECT_EQ(text.find("$var string"), std::string::npos);
  EXPECT_EQ(text.find("\ns"), std::string::npos);
  const test::VcdFile vcd = test::read_vcd(o.vcd);
  EXPECT_FALSE(vcd.by_path.count("chip.core0.PE.op"));
  EXPECT_TRUE(vcd.by_path.count("chip.core0.PE.opcode"));
  EXPECT_EQ(vcd.last_time, 1922067);
}
