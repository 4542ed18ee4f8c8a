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

// Strings are written as Python literals: quotes, backslashes and control
// characters escaped, as ast.literal_eval reads them back.
TEST(TraceWriter, StringsAreEscapedAsPythonLiterals) {
  test::ScratchDir dir("escape");
  const std::string path = dir.file("escape.trace");
  {
    TraceWriter w(path);
    const Param params[] = {Param::string("s", std::string_view("a'b\\c\n\r\t\x01\x1f~\0", 12))};
    WriteRecord r;
    r.mnemonic = "nop";
    r.layer_id = 0;
    r.layer_name = "l\x7f";
    r.params = params;
    w.write(r);
  }
  EXPECT_EQ(test::slurp(path),
            "[nop, {'slyr': 0, 'layer': 'l\x7f', 'cluster': -1, 'cu': -1, 'unit': 'cp', 'pc': 0}, "
            "{'inst_idx': 0, 'time': [0, 0]}, {'s': 'a\\'b\\\\c\\n\\r\\t\\x01\\x1f~\\x00'}]\n");
}

// Records with every kind of field, numbered k.
WriteRecord numbered(int k, std::vector<Param>& params) {
  params = {Param::integer("rd", k % 32), Param::string("dt", k % 3 ? "i8" : "i'32"), Param::integer("imm", -k * 7919)};
  WriteRecord r;
  r.mnemonic = k % 2 ? "mvm" : "add";
  r.cluster = k % 4;
  r.cu = k % 5;
  r.unit = static_cast<Unit>(k % 8);
  r.layer_id = k % 9 - 1;
  r.layer_name = "conv1";
  r.pc = 4 * k;
  r.inst_idx = k + 1;
  r.start = k;
  r.end = k + k % 7;
  r.params = ParamList(params);
  return r;
}

// The background thread writes the same bytes as the caller's own writes,
// through many hand-overs (tiny buffer) and an explicit flush half-way,
// which returns only once the file holds every line given so far.
TEST(TraceWriter, BackgroundWritingGivesTheSameBytes) {
  test::ScratchDir dir("background");
  const std::string a = dir.file("sync.trace"), b = dir.file("background.trace");
  {
    TraceWriter sync(a, WriterOptions{300, false, false});
    TraceWriter bg(b, WriterOptions{300, false, true});
    std::vector<Param> params;
    for (int k = 0; k < 20000; ++k) {
      sync.write(numbered(k, params));
      bg.write(numbered(k, params));
      if (k == 9999) {
        bg.flush();
        const std::string text = test::slurp(b);
        EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 10000);
      }
    }
    sync.close();
    bg.close();
    EXPECT_EQ(bg.records(), 20000u);
  }
  const std::string sa = test::slurp(a), sb = test::slurp(b);
  EXPECT_EQ(std::count(sa.begin(), sa.end(), '\n'), 20000);
  EXPECT_TRUE(sa == sb) << "the background writer's file differs";
}

// A write that fails on the second thread is reported to the caller, by a
// later write or by close(), not lost.
TEST(TraceWriter, BackgroundWriteFailureReachesTheCaller) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  TraceWriter w("/dev/full", WriterOptions{300, false, true});
  std::vector<Param> params;
  bool thrown = false;
  try {
    for (int k = 0; k < 1000; ++k) w.write(numbered(k, params));
    w.close();
  } catch (const std::runtime_error& e) {
    thrown = true;
    EXPECT_NE(std::string(e.what()).find("/dev/full: write failed"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(thrown);
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
