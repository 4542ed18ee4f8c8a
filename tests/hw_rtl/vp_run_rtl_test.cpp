// Whole programs with the RTL blocks in place: vp-run on examples/mlp.s
// (small preset) with ispp.impl=rtl and adc.output_path_impl=rtl gives the
// same output, the same statistics (every count and cycle; only the host's
// wall time differs) and the same chip trace, byte for byte, as with the
// TLM blocks; and the RTL writes its own waveforms on request.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class VpRunRtl : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_ = fs::temp_directory_path() / ("hw_rtl_vp_run_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(tmp_);
    fs::create_directories(tmp_);
  }
  void TearDown() override { fs::remove_all(tmp_); }

  // Runs the MLP with `extra` settings; outputs land under tag.*.
  void run_mlp(const std::string& tag, const std::string& extra) {
    const std::string cmd = "cd '" + src_ + "' && '" + bin_ + "/vp-run' -q --chip small examples/mlp.s" +
                            " --input examples/data/mlp.x.bin@0 --output '" + path(tag + ".bin") +
                            "@0x1000:80:int32' --stats '" + path(tag + ".json") + "' --trace '" +
                            path(tag + ".trace") + "' " + extra + " 2>'" + path(tag + ".err") + "'";
    const int st = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << cmd << "\n" << slurp(path(tag + ".err"));
  }
  // The statistics without the host's timing.
  nlohmann::json stats(const std::string& tag) {
    auto j = nlohmann::json::parse(slurp(path(tag + ".json")));
    j.erase("host");
    return j;
  }
  std::string path(const std::string& name) const { return (tmp_ / name).string(); }

  std::string src_ = env_or("VP_SOURCE_DIR", ".");
  std::string bin_ = env_or("VP_BIN_DIR", "build/bin");
  fs::path tmp_;
};

constexpr const char* kRtl = "--set ispp.impl=rtl --set adc.output_path_impl=rtl";

TEST_F(VpRunRtl, MlpWithRtlBlocksMatchesTheTlmRunInOutputCyclesAndTrace) {
  ASSERT_NO_FATAL_FAILURE(run_mlp("tlm", ""));
  ASSERT_NO_FATAL_FAILURE(run_mlp("rtl", kRtl));
  const std::string out = slurp(path("rtl.bin"));
  EXPECT_EQ(out, slurp(path("tlm.bin")));
  EXPECT_EQ(out, slurp(src_ + "/examples/data/mlp.expected.bin"));
  const auto a = stats("tlm");
  const auto b = stats("rtl");
  EXPECT_EQ(b["run"], a["run"]);
  EXPECT_GT(b["ispp"]["pulses"].get<long>(), 0);
  EXPECT_EQ(b, a) << "first differences: " << nlohmann::json::diff(a, b).dump().substr(0, 2000);
  EXPECT_EQ(slurp(path("rtl.trace")), slurp(path("tlm.trace")));
}

TEST_F(VpRunRtl, EachBlockAloneAndANonIdealQuantizedChipAgreeToo) {
  const std::string analog =
      "--set nonideal.read_noise_sigma=0.3 --set nonideal.stuck_hrs_rate=0.02 --set adc.mode=quantize "
      "--set adc.bits=6 --set device.step_levels_sigma=0.1 --set ispp.max_pulses=12 ";
  ASSERT_NO_FATAL_FAILURE(run_mlp("tlm", analog));
  ASSERT_NO_FATAL_FAILURE(run_mlp("ispp", analog + "--set ispp.impl=rtl"));
  ASSERT_NO_FATAL_FAILURE(run_mlp("path", analog + "--set adc.output_path_impl=rtl"));
  const auto a = stats("tlm");
  EXPECT_GT(a["ispp"]["failed_cells"].get<long>(), 0);  // stuck cells fail to converge
  for (const char* tag : {"ispp", "path"}) {
    EXPECT_EQ(slurp(path(std::string(tag) + ".bin")), slurp(path("tlm.bin"))) << tag;
    EXPECT_EQ(stats(tag), a) << tag << ": " << nlohmann::json::diff(a, stats(tag)).dump().substr(0, 2000);
    EXPECT_EQ(slurp(path(std::string(tag) + ".trace")), slurp(path("tlm.trace"))) << tag;
  }
}

// Rows programmed on the timeline (xprog, as the firmware's deploy kernel
// does): the controller's cycles become the instruction's latency, and
// xstat reads what the RTL counted.
TEST_F(VpRunRtl, RowsProgrammedOnTheTimelineTakeTheSameCyclesAndCounts) {
  std::string prog = ".core 0, 0\n";
  for (int row = 0; row < 6; ++row) {
    prog += "    li r1, " + std::to_string(256 + 64 * row) + "\n    li r2, 1\n    li r3, " + std::to_string(row) +
            "\n    xprog r1, r2, r3\n    xstat r4, pulses\n    xstat r5, failed\n    xstat r6, rounds\n" +
            "    add r7, r7, r4\n    add r8, r8, r6\n";
  }
  prog += "    li r9, 0\n    st r7, r9, 0\n    st r8, r9, 8\n    halt\n.data local, 256\n    .byte ";
  for (int i = 0; i < 6 * 64; ++i) prog += (i ? ", " : "") + std::to_string((i * 7 + i / 5) % 4);
  prog += "\n";
  std::ofstream(path("rows.s")) << prog;
  for (const std::string device : {"", "--set device.step_levels_sigma=0.12 --set ispp.max_pulses=9 "}) {
    auto run = [&](const std::string& tag, const std::string& extra) {
      const std::string cmd = "cd '" + src_ + "' && '" + bin_ + "/vp-run' -q --chip small '" + path("rows.s") +
                              "' --stats '" + path(tag + ".json") + "' --trace '" + path(tag + ".trace") + "' " +
                              device + extra + " 2>'" + path(tag + ".err") + "'";
      const int st = std::system(cmd.c_str());
      ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << cmd << "\n" << slurp(path(tag + ".err"));
    };
    ASSERT_NO_FATAL_FAILURE(run("tlm", ""));
    ASSERT_NO_FATAL_FAILURE(run("rtl", "--set ispp.impl=rtl"));
    const auto a = stats("tlm");
    EXPECT_EQ(a["ispp"]["rows_programmed"], 6);
    EXPECT_EQ(stats("rtl"), a) << device << nlohmann::json::diff(a, stats("rtl")).dump().substr(0, 2000);
    EXPECT_EQ(slurp(path("rtl.trace")), slurp(path("tlm.trace"))) << device;
  }
}

TEST_F(VpRunRtl, RtlTracePrefixWritesAWaveformPerBlock) {
  ASSERT_NO_FATAL_FAILURE(run_mlp("rtl", std::string(kRtl) + " --set rtl.trace_prefix=" + path("wave")));
  for (const char* block : {"ispp", "output_path"}) {
    const std::string vcd = slurp(path(std::string("wave.") + block + ".vcd"));
    ASSERT_FALSE(vcd.empty()) << block;
    EXPECT_NE(vcd.find("$enddefinitions"), std::string::npos) << block;
    EXPECT_NE(vcd.find(" busy "), std::string::npos) << block;
    EXPECT_NE(vcd.find(" done "), std::string::npos) << block;
    // Value changes after the header: the run's cycles are in it.
    EXPECT_GT(vcd.size() - vcd.find("$enddefinitions"), 10000u) << block;
  }
}

TEST_F(VpRunRtl, AConfigurationTheRtlCannotRunIsRefusedByName) {
  const std::string cmd = "cd '" + src_ + "' && '" + bin_ + "/vp-run' -q --chip small --set ispp.pulse_ns=0 " +
                          "--set ispp.impl=rtl examples/mlp.s 2>'" + path("err") + "'";
  const int st = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_NE(WEXITSTATUS(st), 0);
  EXPECT_NE(slurp(path("err")).find("ispp.pulse_ns"), std::string::npos) << slurp(path("err"));
}

}  // namespace
