// vp-run as the firmware's host driver: a batch gives the outputs of single
// runs and deploys once; --no-deploy says so in the statistics; deploy and
// per-inference times are reported apart; an element's inputs and outputs
// are copied at the pace of the control processor's port, and an input read
// through a pointer is not copied at all; a corrupt model
// section and a model for a bigger chip end with named errors and their
// exit codes.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// One CU, one 64x64 crossbar of random levels: y = W^T x, x 64 int8, y 16 int32.
std::string mvm_model() {
  std::mt19937 rng(5);
  std::ostringstream s;
  s << ".chip clusters=1, cus=1, xbars=1, rows=64, cols=64, cell_bits=2\n"
       ".input \"x\", 0x0, 64, \"int8\", 64\n"
       ".output \"y\", 0x100, 64, \"int32\", 16\n"
       ".core 0, 0\n"
       "    li r1, 0\n    li r2, 0\n    li r3, 64\n    dma.gl r1, r2, r3\n"
       "    li r4, 0x100\n    mvm r4, r1, 0, 0x1, 8, 32, concat, 0\n"
       "    li r5, 0x100\n    dma.lg r5, r4, r3\n    halt\n"
       ".xbar 0, 0, 0, 0, 0, 64, 64\n";
  for (int i = 0; i < 64 * 64; ++i) s << (i % 32 ? "," : "\n    .byte ") << rng() % 4;
  s << "\n";
  return s.str();
}

class FirmwareVpRun : public ::testing::Test {
 protected:
  void SetUp() override {
    src_ = env_or("VP_SOURCE_DIR", ".");
    bin_ = env_or("VP_BIN_DIR", "build/bin");
    tmp_ = fs::temp_directory_path() / ("fw_vp_run_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(tmp_);
    fs::create_directories(tmp_);
    std::ofstream(tmp_ / "m.s") << mvm_model();
    std::mt19937 rng(9);
    for (int e = 0; e < 3; ++e) {
      std::string x(64, '\0');
      for (auto& c : x) c = static_cast<char>(rng() % 256);
      std::ofstream(tmp_ / ("x" + std::to_string(e) + ".bin"), std::ios::binary) << x;
    }
  }
  void TearDown() override { fs::remove_all(tmp_); }

  int run(const std::string& args, std::string* err = nullptr, const std::string& env = "") {
    const std::string cmd = "cd '" + src_ + "' && " + env + " '" + bin_ + "/vp-run' -q --chip small " + args + " 2>'" +
                            (tmp_ / "err").string() + "' >/dev/null";
    const int st = std::system(cmd.c_str());
    if (err) *err = slurp(tmp_ / "err");
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  std::string p(const std::string& name) const { return (tmp_ / name).string(); }
  nlohmann::json stats(const std::string& name) const { return nlohmann::json::parse(slurp(tmp_ / name)); }

  std::string src_, bin_;
  fs::path tmp_;
};

TEST_F(FirmwareVpRun, ABatchGivesTheOutputsOfSingleRunsAndDeploysOnce) {
  std::string err;
  ASSERT_EQ(run(p("m.s") + " --input " + p("x0.bin") + " --input " + p("x1.bin") + " --input " + p("x2.bin") +
                    " --output " + p("y.bin") + " --stats " + p("b.json"),
                &err),
            0)
      << err;
  std::string singles;
  for (int e = 0; e < 3; ++e) {
    const std::string n = std::to_string(e);
    ASSERT_EQ(run(p("m.s") + " --input " + p("x" + n + ".bin") + " --output " + p("y" + n + ".bin") + " --stats " +
                      p("s" + n + ".json"),
                  &err),
              0)
        << err;
    singles += slurp(p("y" + n + ".bin"));
  }
  EXPECT_EQ(singles.size(), 3u * 64u);
  EXPECT_EQ(slurp(p("y.bin")), singles);
  EXPECT_NE(slurp(p("y0.bin")), slurp(p("y1.bin")));  // the inputs differ, so must the outputs

  const auto b = stats("b.json")["firmware"], s = stats("s0.json")["firmware"];
  EXPECT_EQ(b["status"], "done");
  EXPECT_EQ(b["batch"], 3);
  EXPECT_EQ(b["inferences"], 3);
  EXPECT_EQ(b["inference_cycles"].size(), 3u);
  EXPECT_EQ(b["rows_programmed"], 64);  // deployed once
  EXPECT_EQ(b["pulses"], s["pulses"]);
  EXPECT_EQ(b["deploy_cycles"], s["deploy_cycles"]);
  EXPECT_GT(b["deploy_cycles"].get<uint64_t>(), 10 * b["inference_cycles_mean"].get<double>());
  EXPECT_EQ(stats("b.json")["crossbar"]["crossbar_activations"], 3);
}

TEST_F(FirmwareVpRun, AStackedNpyInputAndOutput) {
  // The three elements in one file, --batch 3; the output stacks them.
  std::string x = slurp(p("x0.bin")) + slurp(p("x1.bin")) + slurp(p("x2.bin"));
  std::ofstream(p("xs.bin"), std::ios::binary) << x;
  std::string err;
  ASSERT_EQ(run(p("m.s") + " --batch 3 --input " + p("xs.bin") + " --output " + p("y.npy"), &err), 0) << err;
  const std::string npy = slurp(p("y.npy"));
  EXPECT_NE(npy.find("'shape': (3, 16)"), std::string::npos) << npy.substr(0, 128);
  EXPECT_NE(npy.find("'descr': '<i4'"), std::string::npos);
}

// The deployment's rows computed ahead on a second host thread (the
// default on a machine of two cores or more) or all on the simulation
// thread (VP_DEPLOY_AHEAD=0): the same trace, statistics and output, byte
// for byte; on a crossbar whose cell programs are partial rows (48 of 64
// columns: the deploy kernel reads each row back first) and whose device
// fails cells at a low pulse cap (rows retried).
TEST_F(FirmwareVpRun, TheDeploymentComputedAheadChangesNoByte) {
  std::string model = mvm_model();
  const std::size_t at = model.find(".xbar 0, 0, 0, 0, 0, 64, 64\n");
  ASSERT_NE(at, std::string::npos);
  std::string xbar = ".xbar 0, 0, 0, 0, 0, 64, 48\n";
  std::mt19937 rng(3);
  for (int i = 0; i < 64 * 48; ++i) xbar += (i % 32 ? "," : "\n    .byte ") + std::to_string(rng() % 4);
  model = model.substr(0, at) + xbar + "\n";
  std::ofstream(p("partial.s")) << model;
  const std::string args = p("partial.s") + " --input " + p("x1.bin") +
                           " --set device.start_sigma=0.3 --set ispp.max_pulses=6 --output ";
  std::string err;
  ASSERT_EQ(run(args + p("a.bin") + " --stats " + p("a.json") + " --trace " + p("a.trace"), &err), 0) << err;
  ASSERT_EQ(run(args + p("b.bin") + " --stats " + p("b.json") + " --trace " + p("b.trace"), &err,
                "VP_DEPLOY_AHEAD=0"),
            0)
      << err;
  EXPECT_EQ(slurp(p("a.bin")), slurp(p("b.bin")));
  EXPECT_FALSE(slurp(p("a.trace")).empty());
  EXPECT_EQ(slurp(p("a.trace")), slurp(p("b.trace")));
  auto a = stats("a.json"), b = stats("b.json");
  EXPECT_GT(a["firmware"]["retries"].get<uint64_t>() + a["firmware"]["failed_cells"].get<uint64_t>(), 0u);
  for (auto* j : {&a, &b})
    for (auto it = j->begin(); it != j->end();)
      it = it.key().rfind("host", 0) == 0 ? j->erase(it) : std::next(it);
  EXPECT_EQ(a, b);
}

TEST_F(FirmwareVpRun, NoDeploySaysSoAndGivesTheSameOutput) {
  std::string err;
  ASSERT_EQ(run(p("m.s") + " --input " + p("x1.bin") + " --output " + p("a.bin") + " --stats " + p("a.json")), 0);
  ASSERT_EQ(run(p("m.s") + " --no-deploy --input " + p("x1.bin") + " --output " + p("b.bin") + " --stats " +
                    p("b.json"),
                &err),
            0)
      << err;
  EXPECT_EQ(slurp(p("a.bin")), slurp(p("b.bin")));
  const auto f = stats("b.json")["firmware"];
  EXPECT_EQ(f["deploy"], false);
  EXPECT_EQ(f["deploy_cycles"], 0);
  EXPECT_NE(f["note"].get<std::string>().find("--no-deploy"), std::string::npos);
  EXPECT_EQ(f["pulses"], stats("a.json")["firmware"]["pulses"]);  // same device, same seed
  EXPECT_LT(stats("b.json")["run"]["cycles"].get<uint64_t>(), stats("a.json")["run"]["cycles"].get<uint64_t>());
}

// The element's inputs and outputs are copied in chunks of 4 KiB through
// the control processor's staging buffers, the reads running ahead of the
// writes: past the first chunk each costs its transfer on the control
// processor's port, 4096 B of 64-bit flits and a header (the small preset's
// noc.link_bits), for the input's copy and again for the output's. A model
// whose output is its input, 1 and 21 chunks long: the bytes come back and
// the 20 more chunks of each copy cost 20 x 2 x 513 cycles within 5 %. One
// buffer read and wrote each chunk in turn: 2,738 cycles a chunk, both
// copies' four DMA latencies.
TEST_F(FirmwareVpRun, InputsAndOutputsAreCopiedAtThePortsPace) {
  std::string err;
  double cycles[2] = {0, 0};
  const int chunks[2] = {1, 21};
  for (int k = 0; k < 2; ++k) {
    const std::string n = std::to_string(4096 * chunks[k]), m = "copy" + std::to_string(k);
    std::ofstream(p(m + ".s")) << ".chip clusters=1, cus=1, xbars=1, rows=64, cols=64, cell_bits=2\n"
                               << ".input \"x\", 0x0, " << n << ", \"int8\", " << n << "\n"
                               << ".output \"y\", 0x0, " << n << ", \"int8\", " << n << "\n"
                               << ".core 0, 0\n    halt\n";
    std::mt19937 rng(11 + k);
    std::string x(static_cast<size_t>(4096 * chunks[k]), '\0');
    for (auto& c : x) c = static_cast<char>(rng() % 256);
    std::ofstream(p(m + ".bin"), std::ios::binary) << x;
    ASSERT_EQ(run(p(m + ".s") + " --input " + p(m + ".bin") + " --output " + p(m + ".out") + " --stats " +
                      p(m + ".json"),
                  &err),
              0)
        << err;
    EXPECT_EQ(slurp(p(m + ".out")), x);
    cycles[k] = stats(m + ".json")["firmware"]["inference_cycles_mean"].get<double>();
  }
  const double per_chunk = (cycles[1] - cycles[0]) / (chunks[1] - chunks[0]);
  EXPECT_NEAR(per_chunk, 2 * 513.0, 0.05 * 2 * 513.0) << cycles[0] << " and " << cycles[1] << " cycles";
}

// An input read through a pointer (indirect=ADDR): the firmware copies none
// of its bytes but writes their address in the element's area into the
// word at ADDR, and the program reads them through it. Every element of a
// batch gets its own address (the outputs are the inputs), and the copy's
// time is gone: the 21-chunk input costs what the 1-chunk one does. Bytes
// the host places at the binding itself (FILE@ADDR) are read there.
TEST_F(FirmwareVpRun, AnIndirectInputIsReadWhereTheHostPutIt) {
  auto model = [](int bytes) {
    const std::string n = std::to_string(bytes);
    return ".chip clusters=1, cus=1, xbars=1, rows=64, cols=64, cell_bits=2\n"
           ".input \"x\", 0x1000, " + n + ", \"int8\", " + n + ", indirect=0x40\n"
           ".output \"y\", 0x100000, 64, \"int8\", 64\n"
           ".core 0, 0\n"
           "    li r1, 0\n    li r2, 0x40\n    li r3, 4\n    dma.gl r1, r2, r3\n"  // the word: x's address
           "    ld r4, r1, 0\n    li r5, 64\n    li r6, 64\n    dma.gl r6, r4, r5\n"  // x's first 64 bytes
           "    li r7, 0x100000\n    dma.lg r7, r6, r5\n    halt\n";
  };
  std::string err;
  double cycles[2] = {0, 0};
  const int sizes[2] = {4096, 21 * 4096};
  for (int k = 0; k < 2; ++k) {
    const std::string m = "ind" + std::to_string(k);
    std::ofstream(p(m + ".s")) << model(sizes[k]);
    std::string args = p(m + ".s") + " --output " + p(m + ".y") + " --stats " + p(m + ".json");
    std::string want;
    std::mt19937 rng(21 + k);
    for (int e = 0; e < 3; ++e) {
      std::string x(static_cast<size_t>(sizes[k]), '\0');
      for (auto& c : x) c = static_cast<char>(rng() % 256);
      const std::string f = m + "_" + std::to_string(e) + ".bin";
      std::ofstream(p(f), std::ios::binary) << x;
      args += " --input " + p(f);
      want += x.substr(0, 64);
    }
    ASSERT_EQ(run(args, &err), 0) << err;
    EXPECT_EQ(slurp(p(m + ".y")), want);
    cycles[k] = stats(m + ".json")["firmware"]["inference_cycles_mean"].get<double>();
  }
  EXPECT_LT(std::fabs(cycles[1] - cycles[0]), 100.0) << cycles[0] << " and " << cycles[1] << " cycles";
  ASSERT_EQ(run(p("ind0.s") + " --input " + p("ind0_1.bin") + "@4096 --output " + p("raw.y") + "@1048576:64", &err), 0)
      << err;
  EXPECT_EQ(slurp(p("raw.y")), slurp(p("ind0_1.bin")).substr(0, 64));
}

TEST_F(FirmwareVpRun, AModelForABiggerChipEndsWithTheNamedError) {
  std::ofstream(p("big.s")) << ".chip clusters=2, cus=2, xbars=8\n.core 0, 0\n halt\n";
  std::string err;
  EXPECT_EQ(run(p("big.s"), &err), 6);
  EXPECT_NE(err.find("firmware: the model needs 8 crossbars per CU, the chip has 4 (ERR_XBARS)"), std::string::npos)
      << err;
}

TEST_F(FirmwareVpRun, ACorruptSectionIsRefusedBeforeTheRun) {
  std::string err;
  ASSERT_EQ(run(p("m.s") + " --input " + p("x0.bin") + " --dump-config " + p("c.yaml")), 0);
  ASSERT_EQ(std::system(("'" + bin_ + "/vp-as' " + p("m.s") + " -o " + p("m.vpo")).c_str()), 0);
  std::string obj = slurp(p("m.vpo"));
  const size_t at = obj.find(std::string("x\0y\0", 4));  // the io names, last in .vp.io
  ASSERT_NE(at, std::string::npos);
  obj[at + 3] = 'z';  // names no longer NUL-terminated
  std::ofstream(p("bad.vpo"), std::ios::binary) << obj;
  EXPECT_EQ(run(p("bad.vpo"), &err), 1);
  EXPECT_NE(err.find("section .vp.io: names are not NUL-terminated"), std::string::npos) << err;
}

TEST_F(FirmwareVpRun, AnotherFirmwareAndAMissingOne) {
  std::ofstream(p("fw.s")) << ".cp\n halt\n.core 0, 0\n halt\n";
  std::string err;
  EXPECT_EQ(run(p("m.s") + " --firmware " + p("fw.s") + " --stats " + p("s.json"), &err), 0) << err;
  EXPECT_EQ(stats("s.json")["firmware"]["status"], "unfinished");  // it never wrote the status block
  EXPECT_EQ(run(p("m.s") + " --firmware " + p("nope.vpo"), &err), 1);
  EXPECT_NE(err.find("firmware"), std::string::npos) << err;
  std::ofstream(p("nokernel.s")) << ".cp\n halt\n";
  EXPECT_EQ(run(p("m.s") + " --firmware " + p("nokernel.s"), &err), 1);
  EXPECT_NE(err.find("the firmware has no deploy kernel"), std::string::npos) << err;
}

}  // namespace
