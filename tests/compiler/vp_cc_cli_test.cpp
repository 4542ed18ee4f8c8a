// vp-cc's command line on broken and hostile inputs, run as a user runs it:
// the exit code (1 bad input, 2 usage), a message naming the file or
// option, and no output left behind -- an output that existed before the
// failing run is left exactly as it was.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <initializer_list>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "vp/cc/npy.h"
#include "vp/cc/onnx_builder.h"

namespace {

namespace fs = std::filesystem;
using vp::cc::OnnxBuilder;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Result {
  int code = -1;
  std::string err, out;
};

// How often `w` occurs in `a`.
std::size_t occurrences(const std::string& a, const std::string& w) {
  std::size_t k = 0;
  for (std::size_t at = a.find(w); at != std::string::npos; at = a.find(w, at + 1)) ++k;
  return k;
}

class VpCcCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("VP_BIN_DIR");
    vp_cc_ = fs::absolute(bin ? bin : "build/bin").string() + "/vp-cc";
    dir_ = fs::temp_directory_path() /
           ("vp_cc_cli_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    OnnxBuilder b("net");
    auto x = b.input("x", {1, 3, 6, 6});
    x = b.relu(b.conv(x, 3, 8, 3, 1, 1));
    b.output(b.global_avgpool(x));
    model_ = b.serialize();
    write("net.onnx", model_);
    write("calib.npy", vp::cc::encode_npy({1, 3, 6, 6}, std::vector<float>(108, 0.5f)));
    write("test.npy", vp::cc::encode_npy({1, 3, 6, 6}, std::vector<float>(108, -0.25f)));
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& bytes) { std::ofstream(dir_ / name, std::ios::binary) << bytes; }
  Result cc(const std::string& args) {
    const std::string cmd =
        "cd '" + dir_.string() + "' && '" + vp_cc_ + "' " + args + " 2>'" + path("err.txt") + "' >'" + path("out.txt") + "'";
    const int st = std::system(cmd.c_str());
    Result r;
    r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r.err = slurp(path("err.txt"));
    r.out = slurp(path("out.txt"));
    fs::remove(path("err.txt"));
    fs::remove(path("out.txt"));
    return r;
  }
  // Each value of `option` is a usage error (exit 2) naming the option.
  void expect_usage_errors(const std::string& option, std::initializer_list<const char*> values) {
    for (const char* bad : values) {
      const auto r = cc("net.onnx -o o.asm " + option + " '" + bad + "'");
      EXPECT_EQ(r.code, 2) << option << " '" << bad << "': " << r.err;
      EXPECT_NE(r.err.find(option), std::string::npos) << r.err;
    }
  }
  // An auto|on|off option parsed strictly, whose program has `label` in it
  // on and not off, auto choosing on for a stream of three and off for one
  // image; the golden bytes the same. One copy, so the Conv walks all six
  // rows; `more` adds to the command line.
  void expect_on_for_streams(const std::string& option, const std::string& more, const std::string& label) {
    expect_usage_errors(option, {"abc", "", "On", "1", "yes", "automatic"});
    EXPECT_TRUE(outputs().empty());
    for (int batch : {1, 3}) {
      SCOPED_TRACE("batch " + std::to_string(batch));
      const std::string base =
          "net.onnx -o o.asm --calib calib.npy --test test.npy --replicate 1 --batch " + std::to_string(batch) + more;
      ASSERT_EQ(cc(base).code, 0);
      const std::string golden = slurp(path("test.golden.bin")), chosen = slurp(path("o.asm"));
      const std::string on = program_of(base + " " + option + " on", golden);
      const std::string off = program_of(base + " " + option + " off", golden);
      EXPECT_GT(occurrences(on, label), 0u);
      EXPECT_EQ(occurrences(off, label), 0u);
      EXPECT_EQ(chosen, batch > 1 ? on : off);
    }
  }

  // The program of `args`, which must compile and leave the golden bytes
  // `golden` as they were.
  std::string program_of(const std::string& args, const std::string& golden) {
    const auto r = cc(args);
    EXPECT_EQ(r.code, 0) << args << ": " << r.err;
    EXPECT_EQ(slurp(path("test.golden.bin")), golden) << args;
    return slurp(path("o.asm"));
  }
  // An option whose `auto` chooses between two settings by the report's
  // estimate (`base` has --report): auto's report line, starting `line`,
  // names the kept setting by its word, and auto's program is that
  // setting's; the line is printed for auto only; no setting changes the
  // golden bytes. Returns the two settings' programs.
  struct Setting {
    std::string word, value;  // as the report line names it, as the option takes it
  };
  std::vector<std::string> expect_auto_keeps_the_program_it_names(const std::string& base, const std::string& option,
                                                                  const std::string& line, const Setting (&set)[2]) {
    const auto a = cc(base);
    EXPECT_EQ(a.code, 0) << a.err;
    const std::string golden = slurp(path("test.golden.bin")), chosen = slurp(path("o.asm"));
    const auto at = a.out.find(line);
    if (at == std::string::npos) {
      ADD_FAILURE() << "no '" << line << "' line in: " << a.out;
      return {};
    }
    int kept = -1;
    for (int k = 0; k < 2; ++k)
      if (a.out.compare(at + line.size(), set[k].word.size(), set[k].word) == 0) kept = k;
    EXPECT_GE(kept, 0) << a.out.substr(at);
    std::vector<std::string> program;
    for (const Setting& k : set) {
      const auto r = cc(base + " " + option + " " + k.value);
      EXPECT_EQ(r.code, 0) << r.err;
      EXPECT_EQ(r.out.find(line), std::string::npos);
      EXPECT_EQ(slurp(path("test.golden.bin")), golden);
      program.push_back(slurp(path("o.asm")));
    }
    if (kept >= 0) {
      EXPECT_EQ(chosen, program[static_cast<std::size_t>(kept)]);
    }
    EXPECT_EQ(cc(base + " " + option + " auto").code, 0);
    EXPECT_EQ(slurp(path("o.asm")), chosen);
    return program;
  }
  // Two bottleneck blocks (1x1, 3x3 and 1x1 Convs, the last computing the
  // residual Add) as net.onnx, with a calibration and a test input; returns
  // the command that compiles them at two copies a layer with a report.
  std::string write_blocks() {
    OnnxBuilder b("blocks");
    auto x = b.input("x", {1, 16, 12, 12});
    for (int k = 0; k < 2; ++k) {
      auto y = b.relu(b.conv(b.relu(b.conv(x, 16, 8, 1)), 8, 8, 3, 1, 1));
      x = b.relu(b.add(b.conv(y, 8, 16, 1), x));
    }
    b.output(b.global_avgpool(x));
    write("net.onnx", b.serialize());
    write("calib.npy", vp::cc::encode_npy({1, 16, 12, 12}, std::vector<float>(16 * 12 * 12, 0.5f)));
    write("test.npy", vp::cc::encode_npy({1, 16, 12, 12}, std::vector<float>(16 * 12 * 12, -0.25f)));
    return "net.onnx -o o.asm --calib calib.npy --test test.npy --replicate 2 --report";
  }
  // Files in the scratch folder other than the test's own inputs.
  std::vector<std::string> outputs() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string n = e.path().filename().string();
      if (n != "net.onnx" && n != "calib.npy" && n != "test.npy" && n.rfind("in-", 0) != 0) out.push_back(n);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  std::string vp_cc_, model_;
  fs::path dir_;
};

#define EXPECT_FAILS(r, code_, ...)                                                          \
  do {                                                                                       \
    EXPECT_EQ((r).code, code_) << (r).err;                                                   \
    for (const char* part : {__VA_ARGS__}) EXPECT_NE((r).err.find(part), std::string::npos) << (r).err; \
  } while (0)

TEST_F(VpCcCli, AGoodRunWritesEveryOutputAndNoTemporary) {
  const auto r = cc("net.onnx -o o.asm --calib calib.npy --test test.npy");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(outputs(), (std::vector<std::string>{"o.asm", "o.io.json", "o.xbar", "test.golden.bin", "test.in.bin"}));
  EXPECT_NE(slurp(path("o.asm")).find("o.xbar"), std::string::npos);  // the program names its image
}

TEST_F(VpCcCli, CalibPercentileAndIoAreParsedStrictly) {
  expect_usage_errors("--calib-percentile", {"abc", "-5", "0", "101", "nan", "50%", ""});
  EXPECT_FAILS(cc("net.onnx -o o.asm --io maybe"), 2, "--io maybe", "auto, on or off");
  EXPECT_FAILS(cc("net.onnx -o o.asm --calib"), 2, "--calib needs a value");
  EXPECT_FAILS(cc("net.onnx other.onnx -o o.asm"), 2, "two models");
  EXPECT_TRUE(outputs().empty());
}

TEST_F(VpCcCli, ThreadsAreParsedStrictlyAndChangeNoByte) {
  expect_usage_errors("--threads", {"abc", "-1", "257", "1.5", ""});
  EXPECT_TRUE(outputs().empty());
  std::vector<std::string> first;
  for (const char* n : {"1", "3", "0"}) {
    const auto r = cc(std::string("net.onnx -o o.asm --calib calib.npy --test test.npy --threads ") + n);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::vector<std::string> got = {slurp(path("o.asm")), slurp(path("o.xbar")), slurp(path("o.io.json")),
                                          slurp(path("test.golden.bin"))};
    if (first.empty()) first = got;
    else EXPECT_TRUE(got == first) << "--threads " << n;
  }
}

// --batch N: a count, 1 to 4096; the test files then hold N images, the
// bindings and io.json lead with N.
TEST_F(VpCcCli, BatchIsParsedStrictlyAndStacksTheTestImages) {
  expect_usage_errors("--batch", {"abc", "-1", "0", "4097", "2.5", ""});
  EXPECT_TRUE(outputs().empty());
  ASSERT_EQ(cc("net.onnx -o o.asm --calib calib.npy --test test.npy").code, 0);
  const std::string one_in = slurp(path("test.in.bin")), one_golden = slurp(path("test.golden.bin"));
  const auto r = cc("net.onnx -o o.asm --calib calib.npy --test test.npy --batch 3");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(path("test.in.bin")), one_in + one_in + one_in);
  EXPECT_EQ(slurp(path("test.golden.bin")), one_golden + one_golden + one_golden);
  const std::string io = slurp(path("o.io.json"));
  EXPECT_NE(io.find("\"batch\": 3"), std::string::npos) << io;
  EXPECT_NE(io.find("\"image_bytes\": " + std::to_string(one_in.size())), std::string::npos) << io;
  EXPECT_NE(io.find("\"bytes\": " + std::to_string(3 * one_in.size())), std::string::npos) << io;
}

// --average-reads N[:LAYER,...]: N a power of two to 16, layers Convs of the
// model; the golden bytes do not change (the chip's sums are N times larger,
// its shifts log2 N longer).
TEST_F(VpCcCli, AverageReadsAreParsedStrictlyAndKeepTheGoldenBytes) {
  expect_usage_errors("--average-reads", {"abc", "0", "3", "32", "-4", "4:", "4:a,,b", ""});
  EXPECT_FAILS(cc("net.onnx -o o.asm --average-reads 4:no_such_layer"), 1, "'no_such_layer' is not a Conv layer");
  EXPECT_TRUE(outputs().empty());
  ASSERT_EQ(cc("net.onnx -o o.asm --calib calib.npy --test test.npy").code, 0);
  const std::string golden = slurp(path("test.golden.bin")), one = slurp(path("o.asm"));
  const auto r = cc("net.onnx -o o.asm --calib calib.npy --test test.npy --average-reads 4");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(path("test.golden.bin")), golden);
  const std::string four = slurp(path("o.asm"));
  EXPECT_GT(occurrences(one, "mvm "), 0u);
  EXPECT_EQ(occurrences(four, "mvm "), 4 * occurrences(one, "mvm "));
}

// --handover-tables auto|memory: with memory every core's row hand-over
// tables go to global memory (one data segment per layer and core) and each
// layer loads its own into its scratch with one DMA before its first row;
// the golden bytes do not change. By default (auto) a core whose parameters
// fit keeps them among its parameters.
TEST_F(VpCcCli, HandoverTablesInMemoryAreParsedStrictlyAndLoadedPerLayer) {
  expect_usage_errors("--handover-tables", {"abc", "", "Memory", "auto,memory"});
  EXPECT_TRUE(outputs().empty());
  ASSERT_EQ(cc("net.onnx -o o.asm --calib calib.npy --test test.npy --replicate 2").code, 0);
  const std::string golden = slurp(path("test.golden.bin")), kept = slurp(path("o.asm"));
  const auto r = cc("net.onnx -o o.asm --calib calib.npy --test test.npy --replicate 2 --handover-tables memory");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(path("test.golden.bin")), golden);
  const std::string loaded = slurp(path("o.asm"));
  EXPECT_EQ(occurrences(kept, "; hand-over tables of layer"), 0u);
  const std::size_t tables = occurrences(loaded, "; hand-over tables of layer");
  EXPECT_GT(tables, 0u);
  EXPECT_EQ(occurrences(loaded, "dma.gl r10, r11, r12"), occurrences(kept, "dma.gl r10, r11, r12") + tables);
  EXPECT_EQ(occurrences(loaded, ".data global"), occurrences(kept, ".data global") + tables);
}

// --stream-release rows|images: a stream's buffers released per row (the
// default: the table walks pass over the first image's takes and the last
// image's sends) or per layer and image; the golden bytes do not change.
TEST_F(VpCcCli, StreamReleaseIsParsedStrictlyAndChangesOnlyTheProgram) {
  expect_usage_errors("--stream-release", {"abc", "", "Rows", "row"});
  EXPECT_TRUE(outputs().empty());
  const std::string base = "net.onnx -o o.asm --calib calib.npy --test test.npy --replicate 2 --batch 3";
  ASSERT_EQ(cc(base).code, 0);
  const std::string golden = slurp(path("test.golden.bin")), rows = slurp(path("o.asm"));
  EXPECT_EQ(program_of(base + " --stream-release rows", golden), rows);
  const std::string images = program_of(base + " --stream-release images", golden);
  EXPECT_GT(occurrences(rows, "_tokwalk"), 0u);
  EXPECT_EQ(occurrences(images, "_tokwalk"), 0u);
  EXPECT_GT(occurrences(images, "_first"), 0u);
  EXPECT_EQ(occurrences(rows, "_first"), 0u);
}

// --stream-buffers 2|1: a stream's tensors in two buffers (the default: the
// image loop emitted twice over, the report's `stream buffers` line) or one;
// the golden bytes do not change.
TEST_F(VpCcCli, StreamBuffersAreParsedStrictlyAndChangeOnlyTheProgram) {
  expect_usage_errors("--stream-buffers", {"abc", "", "3", "0", "2x", "two"});
  EXPECT_TRUE(outputs().empty());
  const std::string base = "net.onnx -o o.asm --calib calib.npy --test test.npy --replicate 2 --batch 3 --report";
  const auto two = cc(base);
  ASSERT_EQ(two.code, 0) << two.err;
  const std::string golden = slurp(path("test.golden.bin")), twin = slurp(path("o.asm"));
  ASSERT_EQ(cc(base + " --stream-buffers 2").code, 0);
  EXPECT_EQ(slurp(path("o.asm")), twin);
  const auto one = cc(base + " --stream-buffers 1");
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(slurp(path("test.golden.bin")), golden);
  const std::string single = slurp(path("o.asm"));
  // One image loop per core, or two copies of it with a test between them.
  EXPECT_GT(occurrences(twin, "_images"), 0u);
  EXPECT_EQ(occurrences(single, "_images"), 0u);
  EXPECT_NE(two.out.find("stream buffers: "), std::string::npos) << two.out;
  EXPECT_EQ(one.out.find("stream buffers: "), std::string::npos) << one.out;
}

// --shared-loads on|off: with 16-column crossbars, one per CU, each copy of
// the Conv spans two CUs, whose row loads go through their cluster's SRAM
// (on, the default: dma.gs and dma.sl) or each over the mesh (off); the
// golden bytes do not change.
TEST_F(VpCcCli, SharedLoadsAreParsedStrictlyAndChangeOnlyTheProgram) {
  expect_usage_errors("--shared-loads", {"abc", "", "On", "1", "yes"});
  EXPECT_TRUE(outputs().empty());
  const std::string base = "net.onnx -o o.asm --calib calib.npy --test test.npy --set xbar.cols=16 --set chip.xbars_per_cu=1";
  const auto on = cc(base);
  ASSERT_EQ(on.code, 0) << on.err;
  const std::string golden = slurp(path("test.golden.bin")), shared = slurp(path("o.asm"));
  ASSERT_EQ(cc(base + " --shared-loads on").code, 0);
  EXPECT_EQ(slurp(path("o.asm")), shared);
  const auto off = cc(base + " --shared-loads off");
  ASSERT_EQ(off.code, 0) << off.err;
  EXPECT_EQ(slurp(path("test.golden.bin")), golden);
  const std::string own = slurp(path("o.asm"));
  EXPECT_GT(occurrences(shared, "dma.gs "), 0u);
  EXPECT_GT(occurrences(shared, "dma.sl "), 0u);
  EXPECT_EQ(occurrences(own, "dma.gs "), 0u);
  EXPECT_EQ(occurrences(own, "dma.sl "), 0u);
}

// --rows-ahead auto|on|off: the Conv's line buffer loaded a row ahead (a
// `lastrow` test before each next row's loads) or at each row's start;
// auto is on for a stream and off for one image; the golden bytes do not
// change.
TEST_F(VpCcCli, RowsAheadAreParsedStrictlyAndAutoFollowsTheBatch) {
  expect_on_for_streams("--rows-ahead", "", "_lastrow");
}

// --late-row-ends auto|on|off: a Conv that loads its rows ahead ends each
// row under the next row's first MVMs (a `heldend` test in its row loop)
// or at the row's end; auto is on for a stream and off for one image (whose
// rows are not loaded ahead unless asked); the golden bytes do not change.
TEST_F(VpCcCli, LateRowEndsAreParsedStrictlyAndAutoFollowsTheBatch) {
  expect_on_for_streams("--late-row-ends", " --rows-ahead on", "_heldend");
}

// --row-pitch auto|on|off: on gives the small maps a granule's pitch (the
// program's addresses differ, its golden output does not), auto is on,
// for one image and for a stream.
TEST_F(VpCcCli, RowPitchIsParsedStrictlyAndAutoIsOn) {
  expect_usage_errors("--row-pitch", {"abc", "", "On", "1", "yes", "automatic"});
  EXPECT_TRUE(outputs().empty());
  for (int batch : {1, 3}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    const std::string base = "net.onnx -o o.asm --calib calib.npy --test test.npy --batch " + std::to_string(batch);
    ASSERT_EQ(cc(base).code, 0);
    const std::string golden = slurp(path("test.golden.bin")), chosen = slurp(path("o.asm"));
    const std::string pitched = program_of(base + " --row-pitch on", golden);
    const std::string packed = program_of(base + " --row-pitch off", golden);
    EXPECT_NE(pitched, packed);
    EXPECT_EQ(chosen, pitched);
  }
}

// --copy-prices whole-rows|as-loaded|auto: auto's program is the one of
// the pricing its report line names; the golden bytes do not change; the
// line is printed only for auto.
TEST_F(VpCcCli, CopyPricesAreParsedStrictlyAndAutoKeepsTheProgramItNames) {
  expect_usage_errors("--copy-prices", {"abc", "", "whole", "Auto", "loaded", "as_loaded"});
  EXPECT_TRUE(outputs().empty());
  expect_auto_keeps_the_program_it_names("net.onnx -o o.asm --calib calib.npy --test test.npy --report",
                                         "--copy-prices", "copy prices: ",
                                         {{"whole rows", "whole-rows"}, {"as loaded", "as-loaded"}});
}

// --rings plain|bordered|auto: a stream of three 24-row maps (two copies a
// layer) on SRAMs of 1 KiB each in 256-byte granules, whose 3x3 Conv reads
// a bordered map that only a bordered ring keeps on chip. auto's program is
// the one of the choice its report line names, plain and bordered differ,
// the golden bytes do not change, and the line is printed only for auto.
TEST_F(VpCcCli, RingsAreParsedStrictlyAndAutoKeepsTheProgramItNames) {
  expect_usage_errors("--rings", {"abc", "", "Plain", "border", "on", "automatic"});
  EXPECT_TRUE(outputs().empty());
  OnnxBuilder b("win");
  auto x = b.input("x", {1, 8, 24, 24});
  x = b.relu(b.conv(b.relu(b.conv(x, 8, 16, 1)), 16, 16, 3, 1, 1));
  b.output(b.global_avgpool(x));
  write("net.onnx", b.serialize());
  write("calib.npy", vp::cc::encode_npy({1, 8, 24, 24}, std::vector<float>(8 * 24 * 24, 0.5f)));
  write("test.npy", vp::cc::encode_npy({1, 8, 24, 24}, std::vector<float>(8 * 24 * 24, -0.25f)));
  const std::string base =
      "net.onnx -o o.asm --calib calib.npy --test test.npy --batch 3 --replicate 2 --report --set cluster.sram_kib=1 "
      "--set cluster.sram.interleave_bytes=256";
  const auto program =
      expect_auto_keeps_the_program_it_names(base, "--rings", "rings: ", {{"plain", "plain"}, {"bordered", "bordered"}});
  ASSERT_EQ(program.size(), 2u);
  EXPECT_NE(program[0], program[1]);
}

// --hand-rows auto|on|off: a stream of two bottleneck blocks, the second's
// first 1x1 Conv reading the first's output (two copies a layer). auto's
// program is the one of the choice its report line names; with the pairs
// the writer's copies store into their slots (dma.ls), without them none
// does; the golden bytes do not change, and the line is printed only for
// auto, and only for a stream (one image goes without the pairs).
TEST_F(VpCcCli, HandRowsAreParsedStrictlyAndAutoKeepsTheProgramItNames) {
  expect_usage_errors("--hand-rows", {"abc", "", "On", "yes", "automatic"});
  EXPECT_TRUE(outputs().empty());
  const std::string one = write_blocks();
  const auto program =
      expect_auto_keeps_the_program_it_names(one + " --batch 3", "--hand-rows", "hand rows: ", {{"off", "off"}, {"on", "on"}});
  ASSERT_EQ(program.size(), 2u);
  EXPECT_EQ(occurrences(program[0], "dma.ls "), 0u);
  EXPECT_GT(occurrences(program[1], "dma.ls "), 0u);
  const auto r = cc(one);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("hand rows: "), std::string::npos);
  EXPECT_EQ(occurrences(slurp(path("o.asm")), "dma.ls "), 0u);
}

// --balance-links auto|on|off: the stream of two bottleneck blocks above
// (two copies a layer) on sidra-y1, its CUs dealt over the clusters (auto
// leaves them: the mesh does not pace so small a stream). auto's
// program is the one of the choice its report line names; on moves CUs,
// so its program differs from off's; the golden bytes do not change; the
// line is printed only for auto, and only for a stream.
TEST_F(VpCcCli, BalanceLinksAreParsedStrictlyAndAutoKeepsTheProgramItNames) {
  expect_usage_errors("--balance-links", {"abc", "", "On", "yes", "automatic"});
  EXPECT_TRUE(outputs().empty());
  const std::string one = write_blocks();
  const auto program = expect_auto_keeps_the_program_it_names(one + " --batch 3", "--balance-links", "balance links: ",
                                                              {{"off", "off"}, {"on", "on"}});
  ASSERT_EQ(program.size(), 2u);
  EXPECT_NE(program[0], program[1]);
  const auto r = cc(one);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("balance links: "), std::string::npos);
}

// --redundancy N[:LAYER,...]: parsed as --average-reads; the golden bytes
// do not change; each MVM stays one instruction (its mask covers every
// copy's crossbars), the patch is repeated (vmov) and the report shows the
// copies and the crossbars they take.
TEST_F(VpCcCli, RedundancyIsParsedStrictlyDoublesTheCrossbarsAndKeepsTheGoldenBytes) {
  expect_usage_errors("--redundancy", {"abc", "0", "3", "32", "2:", "2:a,,b", ""});
  EXPECT_FAILS(cc("net.onnx -o o.asm --redundancy 2:no_such_layer"), 1, "--redundancy: 'no_such_layer' is not a Conv");
  EXPECT_TRUE(outputs().empty());
  ASSERT_EQ(cc("net.onnx -o o.asm --calib calib.npy --test test.npy --replicate none --lanes 1 --report").code, 0);
  const std::string golden = slurp(path("test.golden.bin")), one = slurp(path("o.asm"));
  const auto r = cc("net.onnx -o o.asm --calib calib.npy --test test.npy --replicate none --lanes 1 --report --redundancy 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(path("test.golden.bin")), golden);
  const std::string two = slurp(path("o.asm"));
  EXPECT_GT(occurrences(one, "mvm "), 0u);
  EXPECT_EQ(occurrences(two, "mvm "), occurrences(one, "mvm "));
  EXPECT_GT(occurrences(two, "vmov "), occurrences(one, "vmov "));
  EXPECT_EQ(occurrences(two, ".xbar "), 2 * occurrences(one, ".xbar "));
  EXPECT_NE(r.out.find(" 1+2 "), std::string::npos) << r.out;
}

// --input-bits N[:LAYER,...]: N from 2 to 8, repeatable, a layer named
// once; the golden model computes with the rounded inputs (its bytes
// change), the MVMs take N input bits, the windows are rounded and clamped
// on the chip, and --report shows the width.
TEST_F(VpCcCli, InputBitsAreParsedStrictlyAndChangeTheGoldenModel) {
  expect_usage_errors("--input-bits", {"abc", "1", "9", "-4", "4:", "4:a,,b", ""});
  EXPECT_FAILS(cc("net.onnx -o o.asm --input-bits 4:no_such_layer"), 1, "'no_such_layer' is not a Conv layer");
  EXPECT_FAILS(cc("net.onnx -o o.asm --input-bits 4 --input-bits 6"), 1, "named by two --input-bits options");
  EXPECT_TRUE(outputs().empty());
  // Codes that are not multiples of 16, so four bits round them.
  std::vector<float> odd(108);
  for (std::size_t i = 0; i < odd.size(); ++i) odd[i] = 0.37f * std::sin(0.7f * static_cast<float>(i));
  write("in-odd.npy", vp::cc::encode_npy({1, 3, 6, 6}, odd));
  ASSERT_EQ(cc("net.onnx -o o.asm --calib calib.npy --test in-odd.npy").code, 0);
  const std::string golden = slurp(path("in-odd.golden.bin")), eight = slurp(path("o.asm"));
  const auto r = cc("net.onnx -o o.asm --calib calib.npy --test in-odd.npy --report --input-bits 4");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(slurp(path("in-odd.golden.bin")), golden);
  const std::string four = slurp(path("o.asm"));
  EXPECT_GT(occurrences(four, "mvm "), 0u);
  EXPECT_EQ(occurrences(four, ", 4, 32, "), occurrences(four, "mvm "));
  EXPECT_EQ(occurrences(eight, ", 8, 32, "), occurrences(eight, "mvm "));
  EXPECT_GT(occurrences(four, "vsra "), 0u);
  EXPECT_EQ(occurrences(four, "vclamp ") - occurrences(eight, "vclamp "), occurrences(four, "vsra "));
  EXPECT_NE(r.out.find(" xbar/4 "), std::string::npos) << r.out;
  // 8 bits named explicitly is the default program.
  ASSERT_EQ(cc("net.onnx -o o.asm --calib calib.npy --test in-odd.npy --input-bits 8").code, 0);
  EXPECT_EQ(slurp(path("in-odd.golden.bin")), golden);
  EXPECT_EQ(slurp(path("o.asm")), eight);
}

// --weight-bits N[:LAYER,...]: N from 2 to 12, repeatable, a layer named
// once; the golden model computes with the narrower weights (its bytes
// change), the layer's crossbars are set to N-bit weights with xfmt and
// --report shows the width. 8 bits on sidra-y1 is the default program.
TEST_F(VpCcCli, WeightBitsAreParsedStrictlyAndSetTheCrossbarsFormat) {
  expect_usage_errors("--weight-bits", {"abc", "1", "13", "-4", "4:", "4:a,,b", ""});
  EXPECT_FAILS(cc("net.onnx -o o.asm --weight-bits 4:no_such_layer"), 1, "--weight-bits: 'no_such_layer' is not a Conv");
  EXPECT_FAILS(cc("net.onnx -o o.asm --weight-bits 4 --weight-bits 6"), 1, "named by two --weight-bits options");
  EXPECT_TRUE(outputs().empty());
  ASSERT_EQ(cc("net.onnx -o o.asm --calib calib.npy --test test.npy").code, 0);
  const std::string golden = slurp(path("test.golden.bin")), eight = slurp(path("o.asm")),
                    image = slurp(path("o.xbar"));
  EXPECT_EQ(occurrences(eight, "xfmt "), 0u);
  const auto r = cc("net.onnx -o o.asm --calib calib.npy --test test.npy --report --weight-bits 4");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(slurp(path("test.golden.bin")), golden);
  const std::string four = slurp(path("o.asm"));
  EXPECT_GT(occurrences(four, "xfmt "), 0u);
  EXPECT_EQ(occurrences(four, "xfmt "), occurrences(four, ", 4, offset "));
  // Two slices of 2-bit cells instead of four: half the cells per weight.
  EXPECT_LT(slurp(path("o.xbar")).size(), image.size());
  EXPECT_NE(r.out.find(" xbar,w4 "), std::string::npos) << r.out;
  ASSERT_EQ(cc("net.onnx -o o.asm --calib calib.npy --test test.npy --weight-bits 8").code, 0);
  EXPECT_EQ(slurp(path("test.golden.bin")), golden);
  EXPECT_EQ(slurp(path("o.asm")), eight);
  // Wider than 8: finer weights (this net's eight output bytes may round
  // alike), six slices per weight.
  ASSERT_EQ(cc("net.onnx -o o.asm --calib calib.npy --test test.npy --weight-bits 12 --dump-ir ir12").code, 0);
  EXPECT_NE(slurp(path("ir12/3-quantized.json")).find("\"weight_bits\": 12"), std::string::npos);
  const std::string twelve = slurp(path("o.asm"));
  EXPECT_GT(occurrences(twelve, "xfmt "), 0u);
  EXPECT_EQ(occurrences(twelve, "xfmt "), occurrences(twelve, ", 12, offset "));
  EXPECT_GT(slurp(path("o.xbar")).size(), image.size());
}

// --encoding offset|differential[:LAYER,...]: the golden model does not
// change; the layers' crossbars hold differential pairs (set by xfmt) and
// their levels change; the chip's own encoding named is the default program.
TEST_F(VpCcCli, EncodingPerLayerChangesOnlyTheProgram) {
  expect_usage_errors("--encoding", {"diagonal", "differential:", "offset:a,,b", "", "8"});
  EXPECT_FAILS(cc("net.onnx -o o.asm --encoding differential:no_such_layer"), 1, "'no_such_layer' is not a Conv");
  EXPECT_FAILS(cc("net.onnx -o o.asm --encoding differential --encoding offset"), 1, "named by two --encoding options");
  EXPECT_TRUE(outputs().empty());
  ASSERT_EQ(cc("net.onnx -o o.asm --calib calib.npy --test test.npy").code, 0);
  const std::string golden = slurp(path("test.golden.bin")), offset = slurp(path("o.asm")),
                    image = slurp(path("o.xbar"));
  const auto r = cc("net.onnx -o o.asm --calib calib.npy --test test.npy --report --encoding differential");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(path("test.golden.bin")), golden);
  const std::string diff = slurp(path("o.asm"));
  EXPECT_GT(occurrences(diff, "xfmt "), 0u);
  EXPECT_EQ(occurrences(diff, "xfmt "), occurrences(diff, ", 8, diff "));
  EXPECT_NE(slurp(path("o.xbar")), image);
  EXPECT_NE(r.out.find(" xbar,diff "), std::string::npos) << r.out;
  ASSERT_EQ(cc("net.onnx -o o.asm --calib calib.npy --test test.npy --encoding offset").code, 0);
  EXPECT_EQ(slurp(path("o.asm")), offset);
  // On a chip of differential pairs the same option needs no xfmt.
  ASSERT_EQ(cc("net.onnx -o o.asm --calib calib.npy --test test.npy --encoding differential "
               "--set xbar.signed_encoding=differential").code, 0);
  EXPECT_EQ(occurrences(slurp(path("o.asm")), "xfmt "), 0u);
}

// --ir-drop-compensate: without IR drop in the target nothing changes; with
// it the programmed levels change (the weights are pre-distorted) and the
// golden model, the network's own, does not.
TEST_F(VpCcCli, IrDropCompensationChangesOnlyTheProgrammedLevels) {
  ASSERT_EQ(cc("net.onnx -o o.asm --calib calib.npy --test test.npy").code, 0);
  const std::string golden = slurp(path("test.golden.bin")), image = slurp(path("o.xbar"));
  ASSERT_EQ(cc("net.onnx -o o.asm --calib calib.npy --test test.npy --ir-drop-compensate").code, 0);
  EXPECT_EQ(slurp(path("o.xbar")), image);
  const auto r = cc("net.onnx -o o.asm --calib calib.npy --test test.npy --ir-drop-compensate "
                    "--set nonideal.ir_drop_ohm_per_cell=4");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(path("test.golden.bin")), golden);
  const std::string compensated = slurp(path("o.xbar"));
  ASSERT_EQ(compensated.size(), image.size());
  EXPECT_NE(compensated, image);
  std::size_t changed = 0;
  for (std::size_t i = 0; i < image.size(); ++i) changed += compensated[i] != image[i];
  EXPECT_GT(changed, 0u);
}

// --adc-ranges: a range counts LSBs of the ADC's own width, so a profile
// measured with another width is refused by name, not compiled into ranges
// that clip.
TEST_F(VpCcCli, AdcProfileOfAnotherAdcWidthIsRefused) {
  const auto profile = [](int bits) {
    return "{\"format\": \"vp-adc-profile\", \"version\": 1, \"crossbars_per_cu\": 16, \"adc\": {\"bits\": " +
           std::to_string(bits) + "}, \"crossbars\": [{\"crossbar\": 0, \"max_column_sum\": 100}]}";
  };
  write("in-p4.json", profile(4));
  write("in-p8.json", profile(8));
  EXPECT_FAILS(cc("net.onnx -o o.asm --adc-ranges in-p4.json"), 1,
               "in-p4.json: \"adc\".\"bits\": the profile was measured with 4-bit");
  EXPECT_TRUE(outputs().empty()) << ::testing::PrintToString(outputs());
  const auto four = cc("net.onnx -o o.asm --adc-ranges in-p4.json --set adc.bits=4");
  EXPECT_EQ(four.code, 0) << four.err;
  const auto eight = cc("net.onnx -o o.asm --adc-ranges in-p8.json");
  EXPECT_EQ(eight.code, 0) << eight.err;
}

TEST_F(VpCcCli, NotAModelSaysWhatItIs) {
  write("in-empty.onnx", "");
  EXPECT_FAILS(cc("in-empty.onnx -o o.asm"), 1, "in-empty.onnx: empty file");
  write("in-junk.onnx", "\xff\xff\xff\xff\x0f this is not a protobuf");
  EXPECT_FAILS(cc("in-junk.onnx -o o.asm"), 1, "in-junk.onnx: not an ONNX model");
  fs::create_directories(path("in-dir.onnx"));
  EXPECT_FAILS(cc("in-dir.onnx -o o.asm"), 1, "in-dir.onnx: is a directory");
  EXPECT_FAILS(cc("in-missing.onnx -o o.asm"), 1, "in-missing.onnx: cannot open");
  EXPECT_TRUE(outputs().empty());
}

TEST_F(VpCcCli, DevicesDirectoriesAndBadSettingsAreNamedNotInternal) {
  EXPECT_FAILS(cc("/dev/zero -o o.asm"), 1, "/dev/zero: is not a regular file");
  EXPECT_FAILS(cc("net.onnx -o o.asm --calib /dev/zero"), 1, "/dev/zero: is not a regular file");
  fs::create_directories(path("in-outdir"));
  EXPECT_FAILS(cc("net.onnx -o in-outdir"), 1, "in-outdir: is a directory");
  EXPECT_FAILS(cc("net.onnx -o in-outdir/"), 1, "is a directory");
  EXPECT_FAILS(cc("net.onnx -o o.asm --set no.such.param=1"), 1, "no.such.param");
  EXPECT_FAILS(cc("net.onnx -o o.asm --chip no-such-chip"), 1, "no-such-chip");
  EXPECT_EQ(cc("net.onnx -o o.asm --set no.such.param=1").err.find("internal error"), std::string::npos);
  EXPECT_TRUE(outputs().empty()) << ::testing::PrintToString(outputs());
  EXPECT_TRUE(fs::is_empty(path("in-outdir")));
}

TEST_F(VpCcCli, CyclicAndOutOfRangeModelsFailCleanly) {
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(model_));
  {
    onnx::ModelProto c = m;
    // Conv reads the Relu's output: Conv -> Relu -> Conv.
    c.mutable_graph()->mutable_node(0)->set_input(0, c.graph().node(1).output(0));
    write("in-cycle.onnx", c.SerializeAsString());
  }
  {
    onnx::ModelProto s = m;
    for (auto& a : *s.mutable_graph()->mutable_node(0)->mutable_attribute())
      if (a.name() == "strides")
        for (int i = 0; i < a.ints_size(); ++i) a.set_ints(i, 0);
    write("in-stride0.onnx", s.SerializeAsString());
  }
  {
    onnx::ModelProto z = m;
    z.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(3)->set_dim_value(0);
    write("in-zero.onnx", z.SerializeAsString());
  }
  {
    onnx::ModelProto n = m;
    auto& w = *n.mutable_graph()->mutable_initializer(0);
    std::string raw = w.raw_data();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(raw.data(), &nan, 4);
    w.set_raw_data(raw);
    write("in-nan.onnx", n.SerializeAsString());
  }
  write("o.asm", "keep me\n");
  EXPECT_FAILS(cc("in-cycle.onnx -o o.asm"), 1, "in-cycle.onnx: ", "cycle");
  EXPECT_FAILS(cc("in-stride0.onnx -o o.asm"), 1, "in-stride0.onnx: ", "strides 0 is out of range");
  EXPECT_FAILS(cc("in-zero.onnx -o o.asm"), 1, "in-zero.onnx: ", "dimension 0");
  EXPECT_FAILS(cc("in-nan.onnx -o o.asm"), 1, "in-nan.onnx: ", "NaN");
  EXPECT_EQ(outputs(), (std::vector<std::string>{"o.asm"}));
  EXPECT_EQ(slurp(path("o.asm")), "keep me\n");
}

TEST_F(VpCcCli, NonFiniteCalibrationOrTestDataIsRefused) {
  std::vector<float> v(108, 1.f);
  v[7] = std::numeric_limits<float>::quiet_NaN();
  write("in-nan.npy", vp::cc::encode_npy({1, 3, 6, 6}, v));
  v[7] = -std::numeric_limits<float>::infinity();
  write("in-inf.npy", vp::cc::encode_npy({1, 3, 6, 6}, v));
  EXPECT_FAILS(cc("net.onnx -o o.asm --calib in-nan.npy"), 1, "in-nan.npy: element 7 is NaN");
  EXPECT_FAILS(cc("net.onnx -o o.asm --calib calib.npy --test in-inf.npy"), 1, "in-inf.npy: element 7 is infinite");
  EXPECT_FAILS(cc("net.onnx -o o.npy --fp32 in-nan.npy"), 1, "in-nan.npy");
  EXPECT_TRUE(outputs().empty());
}

TEST_F(VpCcCli, BrokenNpyFilesAreNamed) {
  const std::string good = vp::cc::encode_npy({1, 3, 6, 6}, std::vector<float>(108, 1.f));
  write("in-trunc.npy", good.substr(0, good.size() - 10));
  write("in-short.npy", vp::cc::encode_npy({1, 3, 6}, std::vector<float>(18, 1.f)));
  write("in-text.npy", "x,y\n1,2\n");
  EXPECT_FAILS(cc("net.onnx -o o.asm --calib in-trunc.npy"), 1, "in-trunc.npy: ", "truncated");
  EXPECT_FAILS(cc("net.onnx -o o.asm --calib in-short.npy"), 1, "in-short.npy: has 18 elements", "needs 108");
  EXPECT_FAILS(cc("net.onnx -o o.asm --calib in-text.npy"), 1, "in-text.npy: not a .npy file");
  EXPECT_TRUE(outputs().empty());
}

// The case: a --test file of the wrong shape is found after the
// program is emitted; nothing of the run may appear, and what was there
// before stays as it was.
TEST_F(VpCcCli, AFailingTestFileLeavesNoOutputAndKeepsOldOnes) {
  write("in-wrong.npy", vp::cc::encode_npy({1, 3, 5, 5}, std::vector<float>(75, 1.f)));
  EXPECT_FAILS(cc("net.onnx -o o.asm --calib calib.npy --test test.npy --test in-wrong.npy"), 1, "in-wrong.npy");
  EXPECT_TRUE(outputs().empty()) << ::testing::PrintToString(outputs());

  write("o.asm", "old program\n");
  write("o.xbar", "old image");
  write("o.io.json", "{}\n");
  EXPECT_FAILS(cc("net.onnx -o o.asm --test in-wrong.npy"), 1, "in-wrong.npy");
  EXPECT_EQ(outputs(), (std::vector<std::string>{"o.asm", "o.io.json", "o.xbar"}));
  EXPECT_EQ(slurp(path("o.asm")), "old program\n");
  EXPECT_EQ(slurp(path("o.xbar")), "old image");
  EXPECT_EQ(slurp(path("o.io.json")), "{}\n");
}

TEST_F(VpCcCli, AnOutputNamingAnInputIsRefused) {
  EXPECT_FAILS(cc("net.onnx -o net.onnx"), 1, "net.onnx: is also an input");
  EXPECT_EQ(slurp(path("net.onnx")), model_);
  EXPECT_FAILS(cc("net.onnx -o ./calib.npy --fp32 calib.npy"), 1, "is also an input");
  // --test in-c.npy writes in-c.in.bin: here the calibration file.
  write("in-c.npy", slurp(path("test.npy")));
  write("in-c.in.bin", slurp(path("calib.npy")));
  EXPECT_FAILS(cc("net.onnx -o o.asm --calib in-c.in.bin --test in-c.npy"), 1, "in-c.in.bin: is also an input");
  EXPECT_EQ(slurp(path("in-c.in.bin")), slurp(path("calib.npy")));
  // The model's .xbar derived from -o would overwrite the model itself.
  write("in-m.xbar", model_);
  EXPECT_FAILS(cc("in-m.xbar -o in-m.asm"), 1, "in-m.xbar: is also an input");
  EXPECT_EQ(slurp(path("in-m.xbar")), model_);
  EXPECT_EQ(vp::cc::parse_npy(slurp(path("calib.npy")), "calib.npy").as_float(), std::vector<float>(108, 0.5f));
  EXPECT_TRUE(outputs().empty()) << ::testing::PrintToString(outputs());
}

TEST_F(VpCcCli, ReferenceModesWriteTheirOutputOnlyOnSuccess) {
  ASSERT_EQ(cc("net.onnx -o y.npy --fp32 test.npy").code, 0);
  ASSERT_EQ(cc("net.onnx -o q.bin --quantize-input test.npy").code, 0);
  EXPECT_EQ(fs::file_size(path("q.bin")), 108u);
  const std::string before = slurp(path("y.npy"));
  write("in-wrong.npy", vp::cc::encode_npy({2}, std::vector<float>{1, 2}));
  EXPECT_FAILS(cc("net.onnx -o y.npy --reference in-wrong.npy"), 1, "in-wrong.npy");
  EXPECT_EQ(slurp(path("y.npy")), before);
  EXPECT_EQ(outputs(), (std::vector<std::string>{"q.bin", "y.npy"}));
}

// A graph ending in GlobalAveragePool then Flatten is published as the
// graph's [1, 8], not the chip's [1, 8, 1, 1]: io.json, the .output binding
// (with the scale vp-run dequantizes by) and the reference outputs.
TEST_F(VpCcCli, PublishedShapesAreTheGraphsOwn) {
  OnnxBuilder b("head");
  auto x = b.input("x", {1, 3, 6, 6});
  x = b.relu(b.conv(x, 3, 8, 3, 1, 1));
  b.output(b.flatten(b.global_avgpool(x)));
  write("head.onnx", b.serialize());
  ASSERT_EQ(cc("head.onnx -o h.asm --calib calib.npy").code, 0);
  const std::string io = slurp(path("h.io.json")), program = slurp(path("h.asm"));
  const auto outputs_at = io.find("\"outputs\"");
  ASSERT_NE(outputs_at, std::string::npos) << io;
  EXPECT_NE(io.find("\"dims\": [1, 8], \"h\": 1, \"w\": 1, \"c\": 8", outputs_at), std::string::npos) << io;
  EXPECT_NE(io.find("\"dims\": [1, 3, 6, 6], \"h\": 6, \"w\": 6, \"c\": 3, \"layout\": \"hwc\", "
                    "\"channels_last\": true"),
            std::string::npos)
      << io;
  EXPECT_NE(program.find(", 8, \"int8\", 1, 8, scale="), std::string::npos) << program;
  EXPECT_NE(program.find(".input \"x\", "), std::string::npos) << program;
  EXPECT_NE(program.find(", 108, \"int8\", 1, 3, 6, 6, scale="), std::string::npos) << program;
  EXPECT_NE(program.find("layout=channels_last"), std::string::npos) << program;
  EXPECT_EQ(program.find("1, 8, 1, 1"), std::string::npos) << program;
  for (const char* mode : {"--fp32", "--reference"}) {
    ASSERT_EQ(cc(std::string("head.onnx --calib calib.npy -o r.npy ") + mode + " test.npy").code, 0) << mode;
    EXPECT_EQ(vp::cc::read_npy(path("r.npy")).shape, (std::vector<std::int64_t>{1, 8})) << mode;
  }
}

// vp-run given the float32 input itself gives the codes it gives for the
// bytes vp-cc --quantize-input writes, and its float32 output is those
// codes dequantized, Softmax applied as the model's last node asks.
TEST_F(VpCcCli, VpRunQuantizesAFloatInputAsVpCcDoes) {
  OnnxBuilder b("probs");
  auto x = b.input("x", {1, 3, 6, 6});
  x = b.relu(b.conv(x, 3, 8, 3, 1, 1));
  b.output(b.softmax(b.gemm(b.flatten(b.global_avgpool(x)), 8, 5)));
  write("probs.onnx", b.serialize());
  std::vector<float> t(108);
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = std::sin(0.37f * static_cast<float>(i)) * 1.7f;
  write("t.npy", vp::cc::encode_npy({1, 3, 6, 6}, t));
  ASSERT_EQ(cc("probs.onnx -o p.asm --chip small --calib calib.npy --calib t.npy").code, 0);
  ASSERT_EQ(cc("probs.onnx --calib calib.npy --calib t.npy --quantize-input t.npy -o t.bin").code, 0);
  const std::string vp_run = fs::path(vp_cc_).parent_path().string() + "/vp-run";
  auto run = [&](const std::string& args) {
    const std::string cmd = "cd '" + dir_.string() + "' && '" + vp_run + "' -q --chip small --model p.asm " + args +
                            " 2>'" + path("err.txt") + "'";
    const int st = std::system(cmd.c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  };
  ASSERT_EQ(run("--input t.bin --output codes.bin"), 0) << slurp(path("err.txt"));
  ASSERT_EQ(run("--input t.npy --output codes.npy:int8"), 0) << slurp(path("err.txt"));
  ASSERT_EQ(run("--input t.npy --output probs.npy"), 0) << slurp(path("err.txt"));
  const std::string codes = slurp(path("codes.bin"));
  ASSERT_EQ(codes.size(), 5u);
  const std::string c = slurp(path("codes.npy"));  // "<i1", which read_npy does not take
  EXPECT_NE(c.find("'shape': (1, 5)"), std::string::npos) << c;
  ASSERT_GT(c.size(), 5u);
  EXPECT_EQ(c.substr(c.size() - 5), codes);
  // The scale from io.json, as a host reading it would.
  const std::string io = slurp(path("p.io.json"));
  const auto at = io.find("\"scale\": ", io.find("\"outputs\""));
  ASSERT_NE(at, std::string::npos) << io;
  const double scale = std::stod(io.substr(at + 9));
  EXPECT_NE(io.find("\"host_softmax\": true"), std::string::npos) << io;
  const auto p = vp::cc::read_npy(path("probs.npy"));
  EXPECT_EQ(p.dtype, "<f4");
  EXPECT_EQ(p.shape, (std::vector<std::int64_t>{1, 5}));
  const auto got = p.as_float();
  double mx = -1e300, sum = 0;
  for (char q : codes) mx = std::max(mx, static_cast<signed char>(q) * scale);
  for (char q : codes) sum += std::exp(static_cast<signed char>(q) * scale - mx);
  ASSERT_EQ(got.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i)
    EXPECT_EQ(got[i], static_cast<float>(std::exp(static_cast<signed char>(codes[i]) * scale - mx) / sum)) << i;
}

// vp-cc-modelgen (the benchmarks' model and input generator) aborted on
// --image abc (uncaught std::stoi), took --image -1 and ignored unknown
// options, and reported success after failing to write its output.
TEST_F(VpCcCli, ModelgenOptionsAreStrictAndItsOutputWholeOrAbsent) {
  const std::string gen = fs::path(vp_cc_).parent_path().string() + "/vp-cc-modelgen";
  if (!fs::exists(gen)) GTEST_SKIP() << "vp-cc-modelgen not built";
  const auto run = [&](const std::string& args) {
    const std::string cmd = "cd '" + dir_.string() + "' && '" + gen + "' " + args + " 2>'" + path("err.txt") + "' >/dev/null";
    const int st = std::system(cmd.c_str());
    Result r;
    r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r.err = slurp(path("err.txt"));
    r.out = slurp(path("out.txt"));
    fs::remove(path("err.txt"));
    fs::remove(path("out.txt"));
    return r;
  };
  EXPECT_FAILS(run("resnet18 m.onnx --image abc"), 2, "--image: expected a whole number");
  EXPECT_FAILS(run("resnet18 m.onnx --image -1"), 2, "--image: expected a whole number");
  EXPECT_FAILS(run("resnet18 m.onnx --image 8"), 2, "--image: expected 32 .. 4096 pixels, got 8");
  EXPECT_FAILS(run("resnet18 m.onnx --classes 0"), 2, "--classes: expected 1 .. 100000");
  EXPECT_FAILS(run("input x.npy --classes 3"), 2, "--classes: only for resnet50, resnet18, gap_head and gap_softmax");
  EXPECT_FAILS(run("resnet18 m.onnx --imgae 64"), 2, "unknown option '--imgae'");
  EXPECT_FAILS(run("resnet18 m.onnx --count 2"), 2, "--count: only for input");
  EXPECT_FAILS(run("input x.npy --count 0"), 2, "--count: expected 1 .. 4096, got 0");
  EXPECT_FAILS(run("input x.npy --count 4097"), 2, "--count: expected a whole number");
  EXPECT_FAILS(run("resnet18 m.onnx --seed"), 2, "--seed: expected a value");
  EXPECT_FAILS(run("resnet34 m.onnx"), 2, "unknown model 'resnet34'");
  EXPECT_FAILS(run("input no/such/dir/x.npy"), 1, "no/such/dir/x.npy: cannot create output");
  EXPECT_FAILS(run("resnet18 no/such/dir/m.onnx --image 32 --classes 10"), 1, "no/such/dir/m.onnx: cannot create output");
  EXPECT_EQ(outputs(), std::vector<std::string>{});
  ASSERT_EQ(run("input x.npy --image 4 --seed 3").code, 0);
  const auto one = vp::cc::read_npy(path("x.npy"));
  EXPECT_EQ(one.shape, (std::vector<std::int64_t>{1, 3, 4, 4}));
  // A stream's images: the first is the single image of the same seed, the
  // others differ from it.
  ASSERT_EQ(run("input x3.npy --image 4 --seed 3 --count 3").code, 0);
  const auto three = vp::cc::read_npy(path("x3.npy"));
  ASSERT_EQ(three.shape, (std::vector<std::int64_t>{3, 3, 4, 4}));
  const std::vector<float> a = one.as_float(), b = three.as_float();
  ASSERT_EQ(b.size(), 3 * a.size());
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin()));
  EXPECT_FALSE(std::equal(a.begin(), a.end(), b.begin() + 48));
}

}  // namespace
