// vp-run --system: a system of chips from its file. Hand-written programs
// (each adds its chip's constant to 16 bytes) make every chip's part known:
// the host's bytes go into the first chip, each chip's output crosses the
// link into the next, and the last chip's output is x + 1 + 2 (+ 3); a
// batch flows through all of them. Malformed files are refused naming the
// file and the field.
#include <nlohmann/json.hpp>

#include "vp_run_fixture.h"

namespace {

using namespace vp_run_test;

// y = x + K over 16 int8 bytes.
std::string add_program(int k) {
  return R"(.input "x", 0x40, 16, "int8", 16
.output "y", 0x100, 16, "int8", 16
.core 0, 0
    li r1, 0
    li r2, 0x40
    li r3, 16
    dma.gl r1, r2, r3
    li r5, )" + std::to_string(k) + R"(
    li r4, 0x80
    vadds r4, r1, r5, r3, i8
    li r6, 0x100
    dma.lg r6, r4, r3
    halt
)";
}

std::string bytes16(int shift) {
  std::string x;
  for (int i = 0; i < 16; ++i) x.push_back(static_cast<char>(i * 3 - 20 + shift));
  return x;
}

class VpRunSystem : public VpRun {
 protected:
  // A chain of `n` chips, chip k adding k + 1.
  std::string system(int n, const std::string& topology_note = "") {
    nlohmann::json j;
    j["format"] = "sidra-system-1";
    j["chip"] = "small";
    j["link"] = "pcie";
    j["programs"] = nlohmann::json::array();
    j["routes"] = nlohmann::json::array();
    for (int k = 0; k < n; ++k) {
      write("add" + std::to_string(k) + ".s", add_program(k + 1));
      j["programs"].push_back("add" + std::to_string(k) + ".s");
      if (k > 0) j["routes"].push_back({{"value", "y" + std::to_string(k - 1)}, {"from", k - 1}, {"output", 0},
                                        {"to", k}, {"input", 0}, {"bytes", 16}});
    }
    (void)topology_note;
    return write("sys.json", j.dump(1));
  }
};

TEST_F(VpRunSystem, EachChipsOutputCrossesTheLinkIntoTheNext) {
  const std::string sys = system(3);
  const std::string x = write("x.bin", bytes16(0));
  Result r = run("-q --system " + sys + " --input " + x + " --output " + path("y.bin") + " --stats " + path("s.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(path("y.bin")), bytes16(1 + 2 + 3));
  const auto s = nlohmann::json::parse(slurp(path("s.json")));
  EXPECT_EQ(s["system"]["chips"], 3);
  EXPECT_EQ(s["chips"].size(), 3u);
  EXPECT_EQ(s["system"]["link"]["transfers"], 2);
  // 16 bytes over each of the two links of the chain, 5 pJ per bit.
  for (const auto& l : s["system"]["link"]["links"]) {
    EXPECT_EQ(l["bytes"], 16);
    EXPECT_DOUBLE_EQ(l["energy_pj"].get<double>(), 16 * 8 * 5.0);
  }
}

TEST_F(VpRunSystem, ABatchFlowsThroughTheChips) {
  const std::string sys = system(2);
  std::string x;
  for (int e = 0; e < 4; ++e) x += bytes16(e);
  write("x.bin", x);
  Result r = run("-q --system " + sys + " --batch 4 --input " + path("x.bin") + " --output " + path("y.bin") +
                 " --stats " + path("s.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  std::string want;
  for (int e = 0; e < 4; ++e) want += bytes16(e + 3);
  EXPECT_EQ(slurp(path("y.bin")), want);
  const auto s = nlohmann::json::parse(slurp(path("s.json")));
  EXPECT_EQ(s["system"]["elements"], 4);
  EXPECT_EQ(s["system"]["link"]["transfers"], 4);
  // The second chip starts each element only after the first ended it and
  // the link carried it: 16 bytes take one cycle, the hop 500.
  const auto& first = s["chips"][0]["firmware"]["inference_times"];
  const auto& second = s["chips"][1]["firmware"]["inference_times"];
  for (int e = 0; e < 4; ++e) EXPECT_GE(second[e][0].get<uint64_t>(), first[e][1].get<uint64_t>() + 501) << e;
}

TEST_F(VpRunSystem, TheSameRunGivesTheSameTracesByteForByte) {
  const std::string sys = system(2);
  const std::string x = write("x.bin", bytes16(0));
  for (const char* t : {"a.trace", "b.trace"}) {
    Result r = run("-q --system " + sys + " --input " + x + " --link d2d --trace " + path(t));
    ASSERT_EQ(r.code, 0) << r.err;
  }
  for (const char* k : {"chip0", "chip1"}) {
    const std::string a = slurp(path(std::string("a.") + k + ".trace")), b = slurp(path(std::string("b.") + k + ".trace"));
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, b) << k;
  }
  // Every line names its chip first in the mapping, and vp-trace reads it.
  const std::string t1 = slurp(path("a.chip1.trace"));
  size_t lines = 0, named = 0;
  for (size_t at = 0; at < t1.size(); at = t1.find('\n', at) + 1) {
    ++lines;
    named += t1.compare(t1.find(", {", at) + 3, 10, "'chip': 1,") == 0;
  }
  EXPECT_EQ(named, lines);
  const std::string cmd = "'" + bin_ + "/vp-trace' '" + path("a.chip1.trace") + "' --stats > /dev/null 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  // Read together, the chips' traces keep their tracks apart; --chips picks.
  const std::string both = "cat '" + path("a.chip0.trace") + "' '" + path("a.chip1.trace") + "' | '" + bin_ +
                           "/vp-trace' - --stats --chips 1 > '" + path("stats.txt") + "' 2>&1";
  ASSERT_EQ(std::system(both.c_str()), 0);
  const std::string stats = slurp(path("stats.txt"));
  EXPECT_NE(stats.find("k1 cp"), std::string::npos) << stats;
  EXPECT_EQ(stats.find("k0 "), std::string::npos) << stats;
}

TEST_F(VpRunSystem, MalformedFilesNameTheField) {
  struct Case {
    std::string text, message;
  };
  const Case cases[] = {
      {"{", "sys.json: not JSON"},
      // A number no double holds is out_of_range to the JSON library, not a
      // syntax error: it must still be an error naming the file.
      {R"({"format": 1e999})", "sys.json: not JSON"},
      {R"({"format": "other"})", "field 'format': expected \"sidra-system-1\""},
      {R"({"format": "sidra-system-1", "chip": "small", "link": "pcie", "programs": ["a.s"], "routes": []})",
       "field 'programs': expected an array of 2 to 64 program files"},
      {R"({"format": "sidra-system-1", "chip": "small", "link": "carrier-pigeon", "programs": ["a.s", "b.s"], "routes": []})",
       "field 'link': expected \"pcie\" or \"d2d\""},
      {R"({"format": "sidra-system-1", "chip": "small", "link": "pcie", "programs": ["a.s", "b.s"], "routes": []})",
       "chip 1 gets no route"},
      {R"({"format": "sidra-system-1", "chip": "small", "link": "pcie", "programs": ["a.s", "b.s"],
          "routes": [{"from": 0, "output": 0, "to": 2, "input": 0, "bytes": 16}]})",
       "routes[0]: field 'to': expected a whole number from 0 to 1"},
  };
  for (const Case& c : cases) {
    write("sys.json", c.text);
    Result r = run("-q --system " + path("sys.json"));
    EXPECT_EQ(r.code, 1) << c.text;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.text << "\n" << r.err;
  }
}

TEST_F(VpRunSystem, ARouteToABindingThatIsNotThereIsRefused) {
  write("add0.s", add_program(1));
  write("add1.s", add_program(2));
  write("sys.json", R"({"format": "sidra-system-1", "chip": "small", "link": "pcie", "programs": ["add0.s", "add1.s"],
      "routes": [{"value": "y", "from": 0, "output": 1, "to": 1, "input": 0, "bytes": 16}]})");
  const std::string x = write("x.bin", bytes16(0));
  Result r = run("-q --system " + path("sys.json") + " --input " + x);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("route of 'y': chip 0's program has 1 output(s), not 2"), std::string::npos) << r.err;
  // --chips must agree with the file, and needs it.
  const std::string sys = system(2);
  r = run("-q --system " + sys + " --chips 3 --input " + x);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("has 2 chips, --chips says 3"), std::string::npos) << r.err;
  r = run("-q --chips 2 --input " + x);
  EXPECT_EQ(r.code, 2);
}

TEST_F(VpRunSystem, ListParamsAndDumpConfigCoverTheLink) {
  Result r = run("--list-params");
  ASSERT_EQ(r.code, 0);
  for (const char* p : {"link.lanes", "link.lane_gtps", "link.latency_ns", "link.pj_per_bit", "link.topology"})
    EXPECT_NE(r.out.find(p), std::string::npos) << p;
  const std::string sys = system(2);
  r = run("--system " + sys + " --link d2d --dump-config -");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("lane_gtps: 32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("latency_ns: 2"), std::string::npos) << r.out;
}

}  // namespace
