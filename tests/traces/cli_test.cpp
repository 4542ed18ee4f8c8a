// vp-trace as users run it: exit codes, messages, and outputs that appear
// whole or not at all.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "trace_test_util.hpp"

namespace fs = std::filesystem;
using vp::trace::test::ScratchDir;
using vp::trace::test::slurp;
using vp::trace::test::spit;

namespace {

struct ToolRun {
  int code;
  std::string out, err;
};

ToolRun vp_trace(const ScratchDir& dir, const std::string& args, const std::string& env = "") {
  std::string exe = (vp::trace::test::bin_dir() / "vp-trace").string();
  if (!std::getenv("VP_BIN_DIR") || !fs::exists(exe)) exe = VP_TRACE_EXE;
  const std::string cmd = (env.empty() ? "" : env + " ") + exe + " " + args + " > " + dir.file("stdout") + " 2> " + dir.file("stderr");
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir.file("stdout")), slurp(dir.file("stderr"))};
}

std::string zebu(const std::string& n) { return (vp::trace::test::zebu_dir() / n).string(); }

const char* kGood = "[a, {'slyr': 0}, {'inst_idx': 1, 'time': [0, 10]}, {}]\n";
const char* kBad = "[b, {'slyr': 0}, {'inst_idx': 2, 'time': [10, 20]} {}]\n";

}  // namespace

TEST(VpTraceCli, ConvertsAZebuTraceToEveryOutput) {
  ScratchDir dir("cli-all");
  const ToolRun r = vp_trace(dir, zebu("int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt") + " --stats --vcd " +
                                  dir.file("a.vcd") + " --perfetto " + dir.file("a.json") + " --stats-csv " +
                                  dir.file("a.csv") + " --stats-json " + dir.file("a.stats.json") +
                                  " --plot-timeline " + dir.file("t.svg") + " --plot-layers " + dir.file("l.svg"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("742 records"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("critical path"), std::string::npos);
  EXPECT_NE(r.err.find("742 records read, 742 kept, 0 malformed"), std::string::npos) << r.err;
  for (const char* f : {"a.vcd", "a.json", "a.csv", "a.stats.json", "t.svg", "l.svg"})
    EXPECT_GT(fs::file_size(dir.file(f)), 100u) << f;
  EXPECT_NE(slurp(dir.file("t.svg")).find("<svg"), std::string::npos);
  EXPECT_NE(slurp(dir.file("l.svg")).find("L72"), std::string::npos);
  for (const auto& e : fs::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << "left-over temporary " << e.path();
}

TEST(VpTraceCli, MalformedLineIsReportedAndSkipped) {
  ScratchDir dir("cli-bad");
  spit(dir.file("t.trace"), std::string(kGood) + kBad);
  const ToolRun r = vp_trace(dir, dir.file("t.trace") + " --perfetto " + dir.file("o.json"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(dir.file("t.trace") + ":2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 malformed skipped"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir.file("o.json")));
  int x = 0;
  for (const auto& e : j["traceEvents"]) x += e["ph"] == "X";
  EXPECT_EQ(x, 1);
}

TEST(VpTraceCli, StrictFailsWithoutLeavingOutputs) {
  ScratchDir dir("cli-strict");
  spit(dir.file("t.trace"), std::string(kGood) + kBad);
  const ToolRun r = vp_trace(dir, dir.file("t.trace") + " --strict --vcd " + dir.file("o.vcd") + " --perfetto " +
                                  dir.file("o.json"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(":2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expected"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("o.vcd")));
  EXPECT_FALSE(fs::exists(dir.file("o.json")));
  for (const auto& e : fs::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << e.path();
}

TEST(VpTraceCli, TruncatedTraceConvertsAndSaysSo) {
  ScratchDir dir("cli-trunc");
  const std::string full = slurp(zebu("int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt"));
  // Cut in the middle of line 500.
  std::size_t pos = 0;
  for (int k = 0; k < 499; ++k) pos = full.find('\n', pos) + 1;
  spit(dir.file("cut.trace"), full.substr(0, pos + 60));
  const ToolRun r = vp_trace(dir, dir.file("cut.trace") + " --strict --perfetto " + dir.file("o.json"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("up to line 499"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir.file("o.json")));
  int x = 0;
  for (const auto& e : j["traceEvents"]) x += e["ph"] == "X";
  EXPECT_EQ(x, 499);
}

TEST(VpTraceCli, UsageErrorsAndAssemblyInput) {
  ScratchDir dir("cli-usage");
  EXPECT_EQ(vp_trace(dir, "").code, 2);
  EXPECT_EQ(vp_trace(dir, "--no-such-option x").code, 2);
  const ToolRun from = vp_trace(dir, zebu("int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt") + " --from abc");
  EXPECT_EQ(from.code, 2);
  EXPECT_NE(from.err.find("--from"), std::string::npos);
  EXPECT_EQ(vp_trace(dir, zebu("int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt") + " --cores x.y").code, 2);
  const ToolRun missing = vp_trace(dir, dir.file("nope.trace"));
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("cannot open"), std::string::npos);
  const ToolRun asm_in = vp_trace(dir, zebu("int8_resnet50.sim_quanti_b1_c1_bw16_asm.txt") + " --stats");
  EXPECT_EQ(asm_in.code, 1);
  EXPECT_NE(asm_in.err.find("assembly"), std::string::npos) << asm_in.err;
  const ToolRun help = vp_trace(dir, "--help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("--perfetto"), std::string::npos);
}

TEST(VpTraceCli, ReadsStdinAndFiltersByWindow) {
  ScratchDir dir("cli-stdin");
  const ToolRun r = vp_trace(dir, "- --from 1000000 --to 2000000 --stats-json " + dir.file("s.json") + " < " +
                                  zebu("int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt"));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir.file("s.json")));
  EXPECT_GE(j["start"].get<long>(), 1000000);
  EXPECT_LE(j["end"].get<long>(), 2000000);
}

TEST(VpTraceCli, ManyMalformedLinesAreCountedNotAllPrinted) {
  ScratchDir dir("cli-many");
  std::string text = kGood;
  for (int k = 0; k < 30; ++k) text += kBad;
  spit(dir.file("t.trace"), text);
  const ToolRun r = vp_trace(dir, dir.file("t.trace") + " --stats");
  EXPECT_EQ(r.code, 0) << r.err;
  std::size_t shown = 0;
  for (std::size_t at = r.err.find(": error: "); at != std::string::npos; at = r.err.find(": error: ", at + 1)) ++shown;
  EXPECT_EQ(shown, 20u);
  EXPECT_NE(r.err.find("10 more malformed lines not shown"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("30 malformed skipped"), std::string::npos) << r.err;
}

TEST(VpTraceCli, NotATraceAtAllIsAnError) {
  ScratchDir dir("cli-prose");
  spit(dir.file("notes.txt"), "this is not a trace\n[neither, is, this]\n");
  const ToolRun r = vp_trace(dir, dir.file("notes.txt") + " --vcd " + dir.file("o.vcd"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("notes.txt:1:1: error: expected '[' opening a trace line"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("notes.txt:2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("none of its 2 non-blank lines"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("o.vcd")));
  // An empty trace (a run that stopped before its first instruction) is fine.
  spit(dir.file("empty.trace"), "");
  EXPECT_EQ(vp_trace(dir, dir.file("empty.trace") + " --stats").code, 0);
}

namespace {

const char* kAtTheEnd =
    "[a, {'slyr': 0}, {'inst_idx': 1, 'time': [0, 10]}, {}]\n"
    "[b, {'slyr': 0}, {'inst_idx': 2, 'time': [9223372036854775807, 9223372036854775807]}, {}]\n";

}  // namespace

TEST(VpTraceCliHostile, RecordAtTheLastCycleIsKept) {
  ScratchDir dir("cli-tmax");
  spit(dir.file("t.trace"), kAtTheEnd);
  const ToolRun r = vp_trace(dir, dir.file("t.trace") + " --stats-json " + dir.file("s.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("2 records read, 2 kept"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir.file("s.json")));
  EXPECT_EQ(j["end"].get<std::int64_t>(), std::numeric_limits<std::int64_t>::max());
  // An explicit window still clips; the open end is 2^63 - 1 itself.
  const ToolRun w = vp_trace(dir, dir.file("t.trace") + " --to 9223372036854775806 --stats");
  EXPECT_EQ(w.code, 0) << w.err;
  EXPECT_NE(w.err.find("2 records read, 1 kept"), std::string::npos) << w.err;
  const ToolRun past = vp_trace(dir, dir.file("t.trace") + " --to 9223372036854775807");
  EXPECT_EQ(past.code, 2);
  EXPECT_NE(past.err.find("--to: expected an integer from 0 to 9223372036854775806"), std::string::npos) << past.err;
}

TEST(VpTraceCliHostile, NumericOptionsAreStrict) {
  ScratchDir dir("cli-numbers");
  spit(dir.file("t.trace"), kGood);
  const struct {
    const char* args;
    const char* message;
  } cases[] = {
      {"--top -1", "--top: expected a whole number from 0 to 1000000, got '-1'"},
      {"--top 18446744073709551615", "--top: expected a whole number"},
      {"--top 3x", "--top: expected a whole number"},
      {"--clock-mhz nan", "--clock-mhz: expected a finite number"},
      {"--clock-mhz 0", "--clock-mhz: expected a finite number"},
      {"--sort-memory-mb 99999999999999", "--sort-memory-mb: expected a whole number from 0 to 1048576"},
      {"--sort-memory-mb 0", "--sort-memory-mb: expected at least 1 MB"},
      {"--from -5", "--from: expected an integer from 0"},
      {"--to 1e3", "--to: expected an integer"},
  };
  for (const auto& c : cases) {
    const ToolRun r = vp_trace(dir, dir.file("t.trace") + " " + c.args + " --stats-csv " + dir.file("s.csv"));
    EXPECT_EQ(r.code, 2) << c.args;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << ": " << r.err;
    EXPECT_FALSE(fs::exists(dir.file("s.csv"))) << c.args;
  }
  EXPECT_EQ(vp_trace(dir, dir.file("t.trace") + " --top 0 --clock-mhz 1.5 --sort-memory-mb 1").code, 0);
}

TEST(VpTraceCliHostile, UnknownUnitIsNamedWithASuggestion) {
  ScratchDir dir("cli-units");
  spit(dir.file("t.trace"), kGood);
  const ToolRun frob = vp_trace(dir, dir.file("t.trace") + " --units frob");
  EXPECT_EQ(frob.code, 2);
  EXPECT_NE(frob.err.find("--units: unknown unit 'frob' (expected one of scalar,xbar,"), std::string::npos)
      << frob.err;
  const ToolRun typo = vp_trace(dir, dir.file("t.trace") + " --units xbar,vectr");
  EXPECT_EQ(typo.code, 2);
  EXPECT_NE(typo.err.find("unknown unit 'vectr'"), std::string::npos) << typo.err;
  EXPECT_NE(typo.err.find("did you mean 'vector'?"), std::string::npos) << typo.err;
  EXPECT_EQ(vp_trace(dir, dir.file("t.trace") + " --units ,").code, 2);
  // Known names in any case, ZeBu classes included.
  EXPECT_EQ(vp_trace(dir, dir.file("t.trace") + " --units XBAR,pe,Cp").code, 0);
}

TEST(VpTraceCliHostile, OutputsWholeOrNotAtAll) {
  ScratchDir dir("cli-outputs");
  spit(dir.file("t.trace"), kGood);
  spit(dir.file("old.vcd"), "old");
  // An output that cannot be created fails the run and leaves no other output.
  fs::create_directories(dir.file("sub"));
  const ToolRun r = vp_trace(dir, dir.file("t.trace") + " --vcd " + dir.file("old.vcd") + " --perfetto " +
                                  dir.file("sub"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir.file("old.vcd")), "old");
  // An output naming the input is refused before anything is read or written.
  const ToolRun self = vp_trace(dir, dir.file("t.trace") + " --vcd " + dir.file("t.trace"));
  EXPECT_EQ(self.code, 2);
  EXPECT_NE(self.err.find("refusing to write an output over the input trace"), std::string::npos) << self.err;
  EXPECT_EQ(slurp(dir.file("t.trace")), kGood);
  for (const auto& e : fs::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << e.path();
}

// Several outputs are renamed into place one after the other; when a later
// rename fails (injected: rename() onto the timeline's path fails with EIO)
// the ones already moved are put back: an older VCD is there again, the
// statistics that did not exist before are gone, no temporary remains.
TEST(VpTraceCliHostile, ALaterRenameThatFailsPublishesNoOutput) {
  ScratchDir dir("cli-publish");
  spit(dir.file("t.trace"), kGood);
  spit(dir.file("a.vcd"), "old vcd");
  const std::string outputs = " --vcd " + dir.file("a.vcd") + " --perfetto " + dir.file("a.json") +
                              " --stats-json " + dir.file("s.json") + " --plot-timeline " + dir.file("t.svg");
  // The sanitizer runtime, when there is one, need not come first.
  const std::string asan = std::getenv("ASAN_OPTIONS") ? std::getenv("ASAN_OPTIONS") + std::string(":") : "";
  const std::string env = "ASAN_OPTIONS='" + asan + "verify_asan_link_order=0' LD_PRELOAD=" VP_FAIL_RENAME_SHIM " ";
  for (const char* failing : {"t.svg", "s.json"}) {
    const ToolRun r = vp_trace(dir, dir.file("t.trace") + outputs, env + "VP_TEST_FAIL_RENAME_TO=" + dir.file(failing));
    EXPECT_EQ(r.code, 1) << failing << ": " << r.err;
    EXPECT_NE(r.err.find(dir.file(failing) + ": cannot move the finished output into place: Input/output error"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("already moved are put back as they were"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(dir.file("a.vcd")), "old vcd") << failing;
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir.path())) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"a.vcd", "stderr", "stdout", "t.trace"})) << failing;
  }
  // The shim passes every other rename through: the same run publishes all.
  const ToolRun ok = vp_trace(dir, dir.file("t.trace") + outputs, env + "VP_TEST_FAIL_RENAME_TO=/nowhere");
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(slurp(dir.file("a.vcd")), "old vcd");
  for (const char* f : {"a.json", "s.json", "t.svg"}) EXPECT_TRUE(fs::exists(dir.file(f))) << f;
}

TEST(VpTraceCliHostile, EndlessInputWithoutNewlinesIsAnError) {
  if (!fs::exists("/dev/zero")) GTEST_SKIP();
  ScratchDir dir("cli-endless");
  const ToolRun r = vp_trace(dir, "/dev/zero --stats --vcd " + dir.file("z.vcd"));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("/dev/zero:1: a line longer than 16777216 bytes: not a trace"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("z.vcd")));
}

TEST(VpTraceCliHostile, BadInputsAreNamed) {
  ScratchDir dir("cli-inputs");
  const ToolRun d = vp_trace(dir, dir.path().string() + " --vcd " + dir.file("o.vcd"));
  EXPECT_EQ(d.code, 1);
  EXPECT_NE(d.err.find("Is a directory"), std::string::npos) << d.err;
  EXPECT_FALSE(fs::exists(dir.file("o.vcd")));
  std::string junk;
  for (int k = 0; k < 4096; ++k) junk += static_cast<char>((k * 131 + 7) & 0xff);
  spit(dir.file("junk.trace"), junk);
  const ToolRun j = vp_trace(dir, dir.file("junk.trace") + " --vcd " + dir.file("o.vcd"));
  EXPECT_EQ(j.code, 1);
  EXPECT_NE(j.err.find("junk.trace:1:"), std::string::npos) << j.err;
  EXPECT_FALSE(fs::exists(dir.file("o.vcd")));
  if (fs::exists("/dev/full")) {
    spit(dir.file("t.trace"), kGood);
    std::string exe = (vp::trace::test::bin_dir() / "vp-trace").string();
    if (!std::getenv("VP_BIN_DIR") || !fs::exists(exe)) exe = VP_TRACE_EXE;
    const int status = std::system((exe + " " + dir.file("t.trace") + " --stats > /dev/full 2> " + dir.file("err")).c_str());
    EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 1);
    EXPECT_NE(slurp(dir.file("err")).find("cannot write to standard output"), std::string::npos);
  }
}
