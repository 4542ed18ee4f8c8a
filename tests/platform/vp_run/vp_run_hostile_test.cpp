// vp-run against hostile input: out-of-range numbers, directories, empty and
// garbage files, an oversized chip, an output naming an input, an interrupt
// in the middle of a traced run. Every case: a named error, the documented
// exit code, and no output file in place of a good one.
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "vp/obj/object.h"
#include "vp_run_fixture.h"

namespace {

using namespace vp_run_test;

// One core spinning forever: dbnz on a counter reloaded every iteration.
const char* kSpin = R"(.chip clusters=1, cus=1
.cp
    li r1, 0
    li r2, 0
    cstart r1, r2
    cwait r1
    halt
.core 0, 0
.entry start
start:
    li r1, 0
spin:
    li r1, 5
    dbnz r1, spin
)";

// Files in the test folder other than the ones named: leftovers of a write
// that was not finished (a .tmp-XXXXXX beside its destination).
std::vector<std::string> leftovers(const fs::path& dir, std::initializer_list<std::string> expected) {
  std::vector<std::string> extra;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    bool known = name == "out" || name == "err";
    for (const auto& x : expected) known = known || name == x;
    if (!known) extra.push_back(name);
  }
  return extra;
}

// A .npy version 1.0 header around `dict`, padded as numpy pads it.
std::string npy_header(const std::string& dict) {
  std::string h = dict;
  h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
  h += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(h.size() & 0xff));
  out.push_back(static_cast<char>(h.size() >> 8));
  return out + h;
}

TEST_F(VpRun, NegativeOrMalformedCountsAreUsageErrorsNotNoLimit) {
  const std::string prog = src_ + "/examples/loop.s";
  const struct {
    const char* args;
    const char* option;
  } cases[] = {
      {"--max-cycles -5", "--max-cycles"}, {"--batch -1", "--batch"},       {"--deploy-retries -1", "--deploy-retries"},
      {"--seed -1", "--seed"},             {"--max-cycles 1e3", "--max-cycles"}, {"--batch 4294967296", "--batch"},
      {"--max-cycles ''", "--max-cycles"}, {"--max-cycles 18446744073709551616", "--max-cycles"},
  };
  for (const auto& c : cases) {
    Result r = run("--chip small " + prog + " " + c.args + " --stats " + path("s.json"));
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.option), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("expected a whole number"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("s.json"))) << c.args;
  }
  // The largest values still work.
  Result ok = run("-q --chip small " + prog + " --max-cycles 18446744073709551615 --seed 0x10");
  EXPECT_EQ(ok.code, 0) << ok.err;
}

TEST_F(VpRun, ConfigFilesThatAreNotConfigurationsAreNamed) {
  const std::string prog = src_ + "/examples/loop.s";
  fs::create_directories(tmp_ / "dir.yaml");
  write("empty.yaml", "");
  write("blank.yaml", "  \n\n");
  write("garbage.yaml", std::string("\x01\xff{{{ ]] :\n", 11));
  write("scalar.yaml", "just words\n");
  write("type.yaml", "xbar:\n  rows: banana\n");
  write("list.yaml", "chip:\n  clusters: [1, 2]\n");
  write("bad.json", "{\"xbar\": {\"rows\": \"128\"}}");
  const struct {
    const char* file;
    const char* says;
  } cases[] = {
      {"dir.yaml", "dir.yaml: is a directory"},
      {"empty.yaml", "empty.yaml: is empty"},
      {"blank.yaml", "blank.yaml: is empty"},
      {"garbage.yaml", "garbage.yaml:1"},
      {"scalar.yaml", "expected a map of parameters"},
      {"type.yaml", "type.yaml:2: xbar.rows: expected int"},
      {"list.yaml", "list.yaml:2: chip.clusters: expected int (count), got a list"},
      {"bad.json", "xbar.rows"},
      {"missing.yaml", "missing.yaml: cannot open file"},
  };
  for (const auto& c : cases) {
    Result r = run("--chip small " + prog + " --config " + path(c.file) + " --stats " + path("s.json"));
    EXPECT_EQ(r.code, 1) << c.file << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.file << ": " << r.err;
    EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("s.json")));
  }
  // A file of only comments is deliberate and changes nothing.
  write("comments.yaml", "# nothing to change\n");
  Result ok = run("-q --chip small " + prog + " --config " + path("comments.yaml"));
  EXPECT_EQ(ok.code, 0) << ok.err;
}

TEST_F(VpRun, InputFilesThatCannotBeReadAreNamed) {
  const std::string prog = src_ + "/examples/loop.s";
  fs::create_directories(tmp_ / "dir");
  write("trunc.npy", std::string("\x93NUMPY\x01\x00\x76\x00{'descr'", 17));
  write("shape.npy", npy_header("{'descr': '|i1', 'fortran_order': False, 'shape': (-3,), }"));
  write("size.npy", npy_header("{'descr': '|i1', 'fortran_order': False, 'shape': (4,), }") + "ab");
  write("huge.npy", npy_header("{'descr': '<i8', 'fortran_order': False, 'shape': (4611686018427387904, 2), }"));
  write("dtype.npy", npy_header("{'descr': '<U7', 'fortran_order': False, 'shape': (1,), }"));
  const struct {
    std::string spec;
    const char* says;
  } cases[] = {
      {path("dir") + "@0", "dir: is a directory, expected a .npy or raw data file"},
      {path("missing.bin") + "@0", "missing.bin: cannot open"},
      {path("trunc.npy") + "@0", "trunc.npy: truncated .npy header"},
      {path("shape.npy") + "@0", "has a dimension that is not a size"},
      {path("size.npy") + "@0", "size.npy: .npy data holds 2 bytes"},
      {path("huge.npy") + "@0", "more than 2^64"},
      {path("dtype.npy") + "@0", "unsupported dtype"},
      {path("size.npy") + "@-1", "expected a whole number from 0 to 18446744073709551615, got '-1'"},
      {path("size.npy") + "@1e3", "got '1e3'"},
  };
  for (const auto& c : cases) {
    Result r = run("--chip small " + prog + " --input " + c.spec + " --stats " + path("s.json"));
    EXPECT_EQ(r.code, 1) << c.spec << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.spec << ": " << r.err;
    EXPECT_EQ(r.err.find("basic_filebuf"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("s.json")));
  }
}

TEST_F(VpRun, AnOversizedChipIsRefusedBeforeAnythingIsBuilt) {
  const std::string prog = src_ + "/examples/loop.s";
  const auto t0 = std::chrono::steady_clock::now();
  Result r = run(prog + " --set chip.clusters=4096 --set chip.cus_per_cluster=1024");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("configuration error: chip.clusters (4096) x chip.cus_per_cluster (1024) = 4194304 cores"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("bad_alloc"), std::string::npos) << r.err;
  EXPECT_LT(s, 10.0);
  // More crossbars than a 32-bit number names.
  r = run(prog + " --set chip.clusters=4096 --set chip.cus_per_cluster=1024 --set chip.xbars_per_cu=1024");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("= 4294967296 crossbars, more than the 4294967295"), std::string::npos) << r.err;
}

TEST_F(VpRun, QuietPrintsNothingNotEvenTheKernelsBannerOrNotes) {
  const std::string prog = src_ + "/examples/loop.s";
  Result r = run("-q --chip small " + prog);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "");
  r = run("-q --chip small " + prog + " --max-cycles 5");
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_EQ(r.err.find("SystemC"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Info:"), std::string::npos) << r.err;
}

TEST_F(VpRun, AnOutputNamingAnInputIsRefusedAndTheInputKept) {
  const std::string prog = write("loop.s", slurp(src_ + "/examples/loop.s"));
  for (const std::string& opt : {"--output " + prog + "@0x1000:4", "--trace " + prog, "--stats " + prog}) {
    Result r = run("-q --chip small " + prog + " " + opt);
    EXPECT_EQ(r.code, 1) << opt << "\n" << r.err;
    EXPECT_NE(r.err.find("refusing to overwrite an input"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(prog), slurp(src_ + "/examples/loop.s"));
  }
}

TEST_F(VpRun, AFailedRunLeavesEarlierOutputsAsTheyWere) {
  const std::string prog = src_ + "/examples/loop.s";
  const std::string out = write("y.bin", "good");
  const std::string trace = write("run.trace", "[old, {}, {}, {}]\n");
  // Stopped at --max-cycles: the outputs are not read back.
  Result r = run("-q --chip small " + prog + " --max-cycles 5 --output " + out + "@0x1000:4");
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_EQ(slurp(out), "good");
  // Refused before the run starts: the older trace stays.
  const std::string x = write("x.bin", "abcd");
  r = run("-q --chip small " + prog + " --trace " + trace + " --input " + x + "@0xffffffffffff");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("do not fit global memory"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(trace), "[old, {}, {}, {}]\n");
  // An output that cannot be read back leaves every output untouched.
  r = run("-q --chip small " + prog + " --output " + out + "@0x1000:4 --output " + path("z.bin") +
          "@0xffffffffff00:4096");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("outside global memory"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(out), "good");
  EXPECT_FALSE(fs::exists(path("z.bin")));
  // Outputs into a directory or a missing folder: named, nothing left.
  fs::create_directories(tmp_ / "d");
  r = run("-q --chip small " + prog + " --stats " + path("d"));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  r = run("-q --chip small " + prog + " --trace " + path("nowhere/t.trace"));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("nowhere/t.trace: cannot write the trace"), std::string::npos) << r.err;
  EXPECT_EQ(leftovers(tmp_, {"y.bin", "run.trace", "x.bin", "d"}), std::vector<std::string>{});
}

// The run's files other than the trace (statistics, waveforms, the
// configuration, every --output) appear together or not at all: when the
// last cannot be moved into place, those already moved are put back.
TEST_F(VpRun, ARunsOutputsArePublishedTogether) {
  const std::string prog = src_ + "/examples/loop.s";
  const std::string y = write("y.bin", "old y"), stats = write("s.json", "old stats"),
                    vcd = write("w.vcd", "old vcd"), conf = write("c.yaml", "old config");
  const std::string args = "-q --chip small " + prog + " --stats " + stats + " --vcd " + vcd + " --dump-config " +
                           conf + " --output " + y + "@0x1000:4";
  {
    // The shim goes to vp-run only: under the sanitizers it is instrumented,
    // and the shell that starts vp-run is not.
    const char* asan = std::getenv("ASAN_OPTIONS");
    const std::string env = "ASAN_OPTIONS='" + (asan ? asan + std::string(":") : std::string()) +
                            "verify_asan_link_order=0' LD_PRELOAD=" VP_FAIL_RENAME_SHIM " VP_TEST_FAIL_RENAME_TO='" +
                            y + "'";
    const Result r = run(args, env);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find(y + ": cannot move the finished output into place"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("already moved are put back as they were"), std::string::npos) << r.err;
  }
  EXPECT_EQ(slurp(y), "old y");
  EXPECT_EQ(slurp(stats), "old stats");
  EXPECT_EQ(slurp(vcd), "old vcd");
  EXPECT_EQ(slurp(conf), "old config");
  EXPECT_EQ(leftovers(tmp_, {"y.bin", "s.json", "w.vcd", "c.yaml"}), std::vector<std::string>{});
  // Without the failure the same run publishes every one.
  const Result ok = run(args);
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(slurp(y).size(), 4u);
  EXPECT_NE(slurp(stats).find("\"cycles\""), std::string::npos);
  EXPECT_EQ(slurp(vcd).rfind("$version", 0), 0u) << slurp(vcd).substr(0, 80);
  EXPECT_NE(slurp(conf).find("chip:"), std::string::npos);
  EXPECT_EQ(leftovers(tmp_, {"y.bin", "s.json", "w.vcd", "c.yaml"}), std::vector<std::string>{});
}

TEST_F(VpRun, AFullStandardOutputIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  for (const std::string args : {"--list-params", "--chip small --dump-config -"}) {
    const std::string cmd = "'" + bin_ + "/vp-run' " + args + " >/dev/full 2>'" + path("err") + "'";
    const int st = std::system(cmd.c_str());
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 1) << args;
    EXPECT_NE(slurp(path("err")).find("standard output: write failed"), std::string::npos) << slurp(path("err"));
  }
}

// A traced run that never ends, stopped by a signal: every trace line is
// whole, the exit code is 128 + the signal, and no other output appears.
void interrupt_traced_run(VpRun* t, const fs::path& tmp, const std::string& bin, int sig, int want_code) {
  const std::string prog = (tmp / "spin.s").string();
  std::ofstream(prog) << kSpin;
  const std::string trace = (tmp / "spin.trace").string();
  const std::string stats = (tmp / "spin.json").string();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string err = (tmp / "err").string();
    if (!freopen(err.c_str(), "w", stderr)) _exit(126);
    // The test may run where SIGINT is ignored (a background job); vp-run
    // keeps an ignored signal ignored, so the child starts from the default.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    execl((bin + "/vp-run").c_str(), "vp-run", "--chip", "small", "--firmware", "none", prog.c_str(), "--trace",
          trace.c_str(), "--stats", stats.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until the trace has grown past several buffer flushes.
  const auto t0 = std::chrono::steady_clock::now();
  std::error_code ec;
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
    if (fs::exists(trace, ec) && fs::file_size(trace, ec) > (4u << 20)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, sig);
  // The run must end by itself within a few seconds; never hang the suite.
  int st = 0;
  pid_t done = 0;
  for (int i = 0; i < 600 && (done = waitpid(pid, &st, WNOHANG)) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (done == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    FAIL() << "vp-run did not stop within 30 s of signal " << sig;
  }
  ASSERT_TRUE(WIFEXITED(st)) << "vp-run was killed by signal " << (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  EXPECT_EQ(WEXITSTATUS(st), want_code);
  const std::string err = slurp(tmp / "err");
  EXPECT_NE(err.find("interrupted at cycle"), std::string::npos) << err;
  const std::string text = slurp(trace);
  ASSERT_GT(text.size(), 4u << 20);
  EXPECT_EQ(text.back(), '\n');
  size_t lines = 0, start = 0;
  for (size_t nl = text.find('\n'); nl != std::string::npos; start = nl + 1, nl = text.find('\n', start)) {
    const std::string line = text.substr(start, nl - start);
    ++lines;
    ASSERT_TRUE(line.size() > 2 && line.front() == '[' && line.compare(line.size() - 2, 2, "}]") == 0)
        << "line " << lines << " is cut: " << line;
  }
  EXPECT_EQ(start, text.size());
  EXPECT_FALSE(fs::exists(stats));
  (void)t;
}

TEST_F(VpRun, AnObjectWithoutCodeIsANamedError) {
  // vp-as refuses such a source, but an object from elsewhere may still have
  // no instruction and no cell program: it used to boot, run nothing and
  // exit 0. Cell programs alone are a model to deploy and still run.
  vp::obj::Object empty;
  vp::obj::write_object(empty, path("empty.vpo"));
  vp::obj::Object bare_core;
  bare_core.texts.push_back(vp::obj::CoreText{vp::obj::CoreId{0, 0}, {}, 0});
  vp::obj::write_object(bare_core, path("bare.vpo"));
  for (const char* firmware : {"", " --firmware none"}) {
    Result r = run("--chip small " + path("empty.vpo") + firmware + " --stats " + path("s.json"));
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("empty.vpo: no code: the object has no core text and no cell program (nothing to run or deploy)"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(path("s.json")));
    r = run("--chip small " + path("bare.vpo") + firmware);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("bare.vpo: no code: none of the object's 1 core texts has an instruction"), std::string::npos)
        << r.err;
  }
  vp::obj::Object cells_only;
  std::vector<uint8_t> levels{1, 2};
  cells_only.cells.push_back(vp::obj::CellProgram{0, 0, 0, 0, 0, 1, 2, vp::obj::Bytes{levels.data(), levels.size()}});
  vp::obj::write_object(cells_only, path("cells.vpo"));
  Result deploy = run("-q --chip small " + path("cells.vpo"));
  EXPECT_EQ(deploy.code, 0) << deploy.err;
  write("empty.s", "# to do\n");
  Result r = run("--chip small " + path("empty.s"));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("empty.s: no code: the object has no core text and no cell program"), std::string::npos)
      << r.err;
}

TEST_F(VpRun, SigintStopsATracedRunAtALineBoundary) { interrupt_traced_run(this, tmp_, bin_, SIGINT, 130); }

TEST_F(VpRun, SigtermStopsATracedRunAtALineBoundary) { interrupt_traced_run(this, tmp_, bin_, SIGTERM, 143); }

}  // namespace
