#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "trace_test_util.hpp"
#include "vp/trace/reader.hpp"

using namespace vp::trace;
namespace fs = std::filesystem;

namespace {

struct FileSummary {
  std::uint64_t records = 0;
  std::int64_t first_start = -1;
  std::int64_t last_end = 0;  // max end
  std::int64_t last_line_end = 0;
};

FileSummary summarise(const std::string& path) {
  ReaderOptions strict;
  strict.strict = true;  // any bad line fails the test
  TraceReader reader(path, strict);
  FileSummary s;
  TraceRecord r;
  while (reader.next(r)) {
    ++s.records;
    if (r.timed) {
      if (s.first_start < 0 || r.start < s.first_start) s.first_start = r.start;
      s.last_end = std::max(s.last_end, r.end);
      s.last_line_end = r.end;
      EXPECT_EQ(static_cast<std::uint64_t>(r.inst_idx), s.records) << path << ":" << r.line_no;
    }
  }
  EXPECT_EQ(reader.stats().malformed, 0u);
  EXPECT_FALSE(reader.stats().truncated);
  return s;
}

std::string zebu(const std::string& name) { return (test::zebu_dir() / name).string(); }

}  // namespace

TEST(ZebuReference, EveryFileParsesStrictly) {
  ASSERT_TRUE(fs::exists(test::zebu_dir())) << "reference traces not found at " << test::zebu_dir();
  int files = 0;
  for (const auto& entry : fs::directory_iterator(test::zebu_dir())) {
    if (entry.path().extension() != ".txt") continue;
    ++files;
    std::ifstream in(entry.path());
    std::uint64_t lines = 0;
    for (std::string l; std::getline(in, l);) ++lines;
    const FileSummary s = summarise(entry.path().string());
    EXPECT_EQ(s.records, lines) << entry.path();
  }
  EXPECT_EQ(files, 7);
}

TEST(ZebuReference, DocumentedSizes) {
  const FileSummary b1 = summarise(zebu("int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt"));
  EXPECT_EQ(b1.records, 742u);
  EXPECT_EQ(b1.last_end, 2545655);
  EXPECT_EQ(b1.last_line_end, 2545655);
  EXPECT_EQ(b1.first_start, 0);
  const FileSummary b4 = summarise(zebu("int8_resnet50.sim_quantized_b4_c1_bw16_sim.txt"));
  EXPECT_EQ(b4.records, 779u);
  EXPECT_EQ(b4.last_end, 5470662);
  const FileSummary b64 = summarise(zebu("int8_resnet50.sim_quantized_b64_c1_bw16_sim.txt"));
  EXPECT_EQ(b64.records, 10739u);
  EXPECT_EQ(b64.last_end, 82907529);
  const FileSummary r34 = summarise(zebu("int8_resnet34.sim_quantized_b1_c1_bw16_sim.txt"));
  EXPECT_EQ(r34.last_end, 1922067);
}

TEST(ZebuReference, CfgTakes21CyclesAndCtBetween30And39) {
  TraceReader reader(zebu("int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt"));
  TraceRecord r;
  int cfg = 0, ct = 0;
  while (reader.next(r)) {
    const bool is_cfg = r.mnemonic.find("_cfg") != std::string_view::npos;
    if (is_cfg) {
      ++cfg;
      EXPECT_EQ(r.cycles(), 21) << r.line_no;
    }
    if (r.mnemonic.substr(0, 3) == "ct_") {
      ++ct;
      EXPECT_GE(r.cycles(), 30) << r.line_no;
      EXPECT_LE(r.cycles(), 39) << r.line_no;
    }
  }
  EXPECT_GT(cfg, 100);
  EXPECT_GT(ct, 4);
}

TEST(ZebuReference, StrippingTimingGivesTheAssembly) {
  TraceReader sim(zebu("int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt"));
  // Two readers, so the views of one line stay valid while the other moves.
  TraceReader asm_reader(zebu("int8_resnet50.sim_quanti_b1_c1_bw16_asm.txt"));
  TraceRecord s, a;
  std::uint64_t n = 0;
  while (sim.next(s)) {
    ASSERT_TRUE(asm_reader.next(a)) << "assembly shorter than the trace at line " << s.line_no;
    ASSERT_TRUE(s.timed);
    ASSERT_FALSE(a.timed);
    // Structural: same mnemonic, mapping and params as values.
    EXPECT_EQ(s.mnemonic, a.mnemonic) << s.line_no;
    EXPECT_TRUE(equal(s.mapping, a.mapping)) << s.line_no;
    EXPECT_TRUE(equal(s.params, a.params)) << s.line_no;
    // Textual: the line with the third element cut out is the assembly line.
    const std::string stripped = "[" + std::string(s.mnemonic) + ", " + std::string(s.mapping.raw()) + ", " +
                                 std::string(s.params.raw()) + "]";
    EXPECT_EQ(stripped, a.line) << s.line_no;
    ++n;
  }
  EXPECT_FALSE(asm_reader.next(a)) << "assembly longer than the trace";
  EXPECT_EQ(n, 742u);
}

TEST(TraceReader, OurLocationFieldsAreDecoded) {
  auto reader = TraceReader::from_string(
      "[mvm, {'slyr': 3, 'layer': 'conv1', 'cluster': 2, 'cu': 5, 'unit': 'xbar', 'pc': 64}, "
      "{'inst_idx': 9, 'time': [100, 164]}, {'rd': 4, 'dt': 'i8'}]\n",
      "ours");
  TraceRecord r;
  ASSERT_TRUE(reader.next(r));
  EXPECT_EQ(r.mnemonic, "mvm");
  EXPECT_TRUE(r.has_location);
  EXPECT_EQ(r.cluster, 2);
  EXPECT_EQ(r.cu, 5);
  EXPECT_EQ(r.unit, "xbar");
  EXPECT_EQ(r.pc, 64);
  EXPECT_EQ(r.layer_id, 3);
  EXPECT_EQ(r.layer_name, "conv1");
  EXPECT_EQ(r.inst_idx, 9);
  EXPECT_EQ(r.start, 100);
  EXPECT_EQ(r.end, 164);
  EXPECT_EQ(r.params.get_int("rd", -1), 4);
  EXPECT_EQ(r.params.get_string("dt"), "i8");
  EXPECT_FALSE(reader.next(r));
}

TEST(TraceReader, MalformedLinesAreReportedAndSkipped) {
  const std::string text =
      "[a, {}, {'inst_idx': 1, 'time': [0, 5]}, {}]\n"
      "[b, {'slyr': 1 'x': 2}, {'inst_idx': 2, 'time': [5, 6]}, {}]\n"  // missing comma
      "\n"
      "# a comment\n"
      "[c, {}, {'inst_idx': 3, 'time': [9, 4]}, {}]\n"  // end before start
      "[d, {}, {'inst_idx': 4}, {}]\n"                  // no time
      "[e, {}, {'inst_idx': 5, 'time': [6, 7]}, {}]\r\n";
  std::vector<Diagnostic> seen;
  ReaderOptions opts;
  opts.on_diagnostic = [&](const Diagnostic& d) { seen.push_back(d); };
  auto reader = TraceReader::from_string(text, "bad.trace", opts);
  std::vector<std::string> got;
  TraceRecord r;
  while (reader.next(r)) got.emplace_back(r.mnemonic);
  EXPECT_EQ(got, (std::vector<std::string>{"a", "e"}));
  EXPECT_EQ(reader.stats().malformed, 3u);
  EXPECT_EQ(reader.stats().blank, 2u);
  EXPECT_EQ(reader.stats().lines, 7u);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].line, 2u);
  EXPECT_EQ(seen[0].column, 16u);
  EXPECT_NE(seen[0].format().find("bad.trace:2:16: error: expected ',' or '}'"), std::string::npos) << seen[0].format();
  EXPECT_EQ(seen[1].line, 5u);
  EXPECT_NE(seen[1].message.find("field 'time': end 4 is before start 9"), std::string::npos) << seen[1].message;
  EXPECT_EQ(seen[2].line, 6u);
  EXPECT_NE(seen[2].message.find("field 'time'"), std::string::npos) << seen[2].message;
  EXPECT_EQ(reader.diagnostics().size(), 3u);
}

TEST(TraceReader, StrictStopsAtTheFirstMalformedLine) {
  ReaderOptions opts;
  opts.strict = true;
  auto reader = TraceReader::from_string(
      "[a, {}, {'inst_idx': 1, 'time': [0, 5]}, {}]\n[b, {}, {'inst_idx': 2, 'time': [0, 5]}, []]\n", "s.trace", opts);
  TraceRecord r;
  ASSERT_TRUE(reader.next(r));
  try {
    reader.next(r);
    FAIL() << "expected TraceError";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("s.trace:2:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("params: expected a dict"), std::string::npos) << e.what();
  }
}

TEST(TraceReader, TruncatedLastLineStopsCleanly) {
  const std::string full = "[a, {}, {'inst_idx': 1, 'time': [0, 5]}, {}]\n[b, {}, {'inst_idx': 2, 'time': [5, 9]}, {}]\n";
  // Cut at every position inside the second line: never a malformed count,
  // always the first record, and "truncated" unless the cut is at a boundary.
  const std::size_t second = full.find('\n') + 1;
  for (std::size_t cut = second + 1; cut < full.size() - 1; ++cut) {
    for (const bool strict : {false, true}) {
      ReaderOptions opts;
      opts.strict = strict;
      auto reader = TraceReader::from_string(full.substr(0, cut), "cut", opts);
      TraceRecord r;
      ASSERT_TRUE(reader.next(r));
      EXPECT_EQ(r.mnemonic, "a");
      EXPECT_FALSE(reader.next(r)) << "cut at " << cut;
      EXPECT_TRUE(reader.stats().truncated) << "cut at " << cut;
      EXPECT_EQ(reader.stats().malformed, 0u);
      ASSERT_EQ(reader.diagnostics().size(), 1u);
      EXPECT_EQ(reader.diagnostics()[0].kind, Diagnostic::Kind::Truncated);
      EXPECT_NE(reader.diagnostics()[0].message.find("converted up to line 1"), std::string::npos);
    }
  }
  // Complete last line without its newline: not truncated.
  auto reader = TraceReader::from_string(full.substr(0, full.size() - 1), "nonl");
  TraceRecord r;
  int n = 0;
  while (reader.next(r)) ++n;
  EXPECT_EQ(n, 2);
  EXPECT_FALSE(reader.stats().truncated);
}

TEST(TraceReader, LinesLongerThanTheBufferAndSmallBuffers) {
  test::ScratchDir dir("long");
  std::string params = "{";
  for (int k = 0; k < 3000; ++k) params += (k ? ", " : "") + std::string("'p") + std::to_string(k) + "': " + std::to_string(k);
  params += "}";
  std::string text;
  for (int k = 0; k < 50; ++k)
    text += "[op, {'slyr': 1}, {'inst_idx': " + std::to_string(k + 1) + ", 'time': [0, 1]}, " + params + "]\n";
  test::spit(dir.file("long.trace"), text);
  ReaderOptions opts;
  opts.buffer_bytes = 4096;  // every line is several buffers long
  TraceReader reader(dir.file("long.trace"), opts);
  TraceRecord r;
  int n = 0;
  while (reader.next(r)) {
    ++n;
    EXPECT_EQ(r.params.size(), 3000u);
    EXPECT_EQ(r.params.get_int("p2999", -1), 2999);
  }
  EXPECT_EQ(n, 50);
  EXPECT_EQ(reader.stats().bytes, text.size());
}

// A line without end (vp-trace /dev/zero, a binary file) used to grow the
// buffer until std::bad_alloc; past max_line_bytes it is a named error.
TEST(TraceReader, ALineLongerThanTheLimitIsAnErrorNotAnAllocation) {
  test::ScratchDir dir("endless");
  const std::string good = "[op, {'slyr': 1}, {'inst_idx': 1, 'time': [0, 1]}, {}]\n";
  test::spit(dir.file("t.trace"), good + std::string(200000, 'x') + "\n" + good);
  ReaderOptions opts;
  opts.buffer_bytes = 4096;
  opts.max_line_bytes = 65536;
  TraceReader reader(dir.file("t.trace"), opts);
  TraceRecord r;
  ASSERT_TRUE(reader.next(r));
  try {
    reader.next(r);
    ADD_FAILURE() << "a 200,000-byte line was read";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("t.trace:2: a line longer than 65536 bytes: not a trace"), std::string::npos)
        << e.what();
  }
  // Up to the limit a line is read as before.
  opts.max_line_bytes = 300000;
  TraceReader wide(dir.file("t.trace"), opts);
  int records = 0;
  while (wide.next(r)) ++records;
  EXPECT_EQ(records, 2);
  EXPECT_EQ(wide.stats().malformed, 1u);
}

TEST(TraceReader, MissingFileIsAnError) {
  EXPECT_THROW(TraceReader("/nonexistent/trace.txt"), TraceError);
}
