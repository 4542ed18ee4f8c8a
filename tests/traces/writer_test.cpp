#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "trace_test_util.hpp"
#include "vp/trace/output_file.hpp"
#include "vp/trace/reader.hpp"
#include "vp/trace/writer.hpp"

using namespace vp::trace;

namespace {

struct Expected {
  std::string mnemonic;
  int cluster, cu;
  Unit unit;
  int layer;
  std::string layer_name;
  std::int64_t pc, idx, start, end;
  std::vector<std::pair<std::string, std::int64_t>> ints;
  std::vector<std::pair<std::string, std::string>> strings;
};

}  // namespace

TEST(TraceWriter, WhatIsWrittenReadsBackEqual) {
  test::ScratchDir dir("writer");
  const std::string path = dir.file("run.trace");
  std::vector<Expected> want;
  {
    TraceWriter w(path, WriterOptions{256, false});  // tiny buffer: many flushes
    for (int k = 0; k < 500; ++k) {
      Expected e{k % 7 == 0 ? "barrier" : "mvm.acc", k % 7 == 0 ? -1 : k % 4, k % 7 == 0 ? -1 : k % 3,
                 k % 7 == 0 ? Unit::Cp : static_cast<Unit>(k % 7), k / 50 - 1, k < 50 ? "" : "conv 'x' \\ " + std::to_string(k / 50),
                 4 * k, k + 1, 10 * k, 10 * k + (k % 5), {{"rd", k}, {"imm", -k * 1000000007LL}},
                 {{"dt", k % 2 ? "i8" : "i32"}}};
      std::vector<Param> params;
      for (const auto& [n, v] : e.ints) params.push_back(Param::integer(n, v));
      for (const auto& [n, s] : e.strings) params.push_back(Param::string(n, s));
      WriteRecord rec;
      rec.mnemonic = e.mnemonic;
      rec.cluster = e.cluster;
      rec.cu = e.cu;
      rec.unit = e.unit;
      rec.layer_id = e.layer;
      rec.layer_name = e.layer_name;
      rec.pc = e.pc;
      rec.inst_idx = e.idx;
      rec.start = e.start;
      rec.end = e.end;
      rec.params = params;
      w.write(rec);
      want.push_back(e);
    }
    EXPECT_EQ(w.records(), 500u);
  }  // destructor flushes

  ReaderOptions strict;
  strict.strict = true;
  TraceReader reader(path, strict);
  TraceRecord r;
  std::size_t k = 0;
  while (reader.next(r)) {
    ASSERT_LT(k, want.size());
    const Expected& e = want[k++];
    EXPECT_EQ(r.mnemonic, e.mnemonic);
    EXPECT_TRUE(r.has_location);
    EXPECT_EQ(r.cluster, e.cluster);
    EXPECT_EQ(r.cu, e.cu);
    EXPECT_EQ(r.unit, unit_name(e.unit));
    EXPECT_EQ(r.layer_id, e.layer);
    EXPECT_EQ(r.layer_name, e.layer_name);
    EXPECT_EQ(r.pc, e.pc);
    EXPECT_EQ(r.inst_idx, e.idx);
    EXPECT_EQ(r.start, e.start);
    EXPECT_EQ(r.end, e.end);
    ASSERT_EQ(r.params.size(), e.ints.size() + e.strings.size());
    for (const auto& [n, v] : e.ints) EXPECT_EQ(r.params.get_int(n, -42), v) << n;
    for (const auto& [n, s] : e.strings) EXPECT_EQ(r.params.get_string(n), s) << n;
  }
  EXPECT_EQ(k, want.size());
}

TEST(TraceWriter, LineMatchesTheDocumentedGrammar) {
  test::ScratchDir dir("grammar");
  const std::string path = dir.file("one.trace");
  {
    TraceWriter w(path);
    const Param params[] = {Param::integer("rd", 4), Param::integer("rs1", 5), Param::string("dt", "i8")};
    WriteRecord rec;
    rec.mnemonic = "add";
    rec.cluster = 0;
    rec.cu = 2;
    rec.unit = Unit::Scalar;
    rec.layer_id = 3;
    rec.layer_name = "conv1";
    rec.pc = 128;
    rec.inst_idx = 17;
    rec.start = 100;
    rec.end = 101;
    rec.params = params;
    w.write(rec);
    w.close();
  }
  EXPECT_EQ(test::slurp(path),
            "[add, {'slyr': 3, 'layer': 'conv1', 'cluster': 0, 'cu': 2, 'unit': 'scalar', 'pc': 128}, "
            "{'inst_idx': 17, 'time': [100, 101]}, {'rd': 4, 'rs1': 5, 'dt': 'i8'}]\n");
}

TEST(TraceWriter, FlushLeavesOnlyCompleteLines) {
  test::ScratchDir dir("flush");
  const std::string path = dir.file("partial.trace");
  TraceWriter w(path);
  WriteRecord rec;
  rec.mnemonic = "nop";
  for (int k = 0; k < 10; ++k) {
    rec.inst_idx = k + 1;
    rec.start = k;
    rec.end = k + 1;
    w.write(rec);
  }
  // Nothing forced out yet (big buffer); after flush the file holds all ten
  // complete lines while the writer is still open: what a crash would leave.
  w.flush();
  const std::string text = test::slurp(path);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 10);
  auto reader = TraceReader::from_string(text, "partial");
  TraceRecord r;
  int n = 0;
  while (reader.next(r)) ++n;
  EXPECT_EQ(n, 10);
  EXPECT_EQ(reader.stats().malformed, 0u);
}

TEST(TraceWriter, RejectsRecordsThatWouldNotReadBack) {
  test::ScratchDir dir("reject");
  TraceWriter w(dir.file("x.trace"));
  WriteRecord rec;
  rec.mnemonic = "bad name";
  EXPECT_THROW(w.write(rec), std::invalid_argument);
  rec.mnemonic = "ok";
  rec.start = 5;
  rec.end = 4;
  EXPECT_THROW(w.write(rec), std::invalid_argument);
  rec.end = 6;
  const Param bad[] = {Param::integer("not-a-name", 1)};
  rec.params = bad;
  EXPECT_THROW(w.write(rec), std::invalid_argument);
  rec.params = {};
  rec.unit = static_cast<Unit>(42);
  EXPECT_THROW(w.write(rec), std::invalid_argument);
  rec.unit = Unit::Dma;
  w.write(rec);
  w.close();
  EXPECT_EQ(w.records(), 1u);
  EXPECT_THROW(w.write(rec), std::runtime_error);
  const std::string text = test::slurp(dir.file("x.trace"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
}

TEST(TraceWriter, UnitNamesRoundTrip) {
  for (int k = 0; k < 8; ++k) {
    Unit u{};
    ASSERT_TRUE(parse_unit(unit_name(static_cast<Unit>(k)), u));
    EXPECT_EQ(static_cast<int>(u), k);
  }
  Unit u{};
  EXPECT_FALSE(parse_unit("gpu", u));
}

TEST(TraceWriter, UnopenablePathThrows) {
  EXPECT_THROW(TraceWriter("/nonexistent-dir/x.trace"), std::runtime_error);
}

// vp-trace's outputs are published together (convert() hands every sink's
// file and every statistics file to commit_together). A rename that fails
// after others succeeded -- here the timeline's destination became a
// directory while the conversion ran -- puts the published ones back: the
// old VCD again, no new JSON, and no temporary anywhere.
TEST(TraceOutputs, ARenameThatFailsPutsBackTheOutputsAlreadyMoved) {
  test::ScratchDir dir("publish");
  const std::string vcd = dir.file("run.vcd"), json = dir.file("stats.json"), svg = dir.file("timeline.svg");
  { std::ofstream(vcd) << "old vcd"; }
  {
    OutputFile a(vcd), b(json), c(svg);
    a.write("$date new $end\n");
    b.write("{}\n");
    c.write(std::string(3 << 20, 'x'));  // beyond one flush: partly on disk already
    std::filesystem::create_directory(svg);
    try {
      commit_together({&a, &b, &c});
      ADD_FAILURE() << "published over a directory";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(svg + ": cannot move the finished output into place"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(test::slurp(vcd), "old vcd");
  EXPECT_FALSE(std::filesystem::exists(json));
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"run.vcd", "timeline.svg"}));
  // The same three published when they can be.
  std::filesystem::remove(svg);
  OutputFile a(vcd), b(json), c(svg);
  a.write("v");
  b.write("j");
  c.write("s");
  commit_together({&a, &b, &c});
  EXPECT_EQ(test::slurp(vcd) + test::slurp(json) + test::slurp(svg), "vjs");
}
