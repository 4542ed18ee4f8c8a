// vp-run end to end: the examples' outputs against their independent integer
// references, determinism of the trace, the trace's form, and every error
// path a user meets (bad configuration, bad program, a program too big for
// the chip, deadlock, --max-cycles), each with its message and exit code.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "vp/trace/reader.hpp"
#include "vp_run_fixture.h"

namespace {

using namespace vp_run_test;

TEST_F(VpRun, TiledMvmOverTwoClustersEqualsItsIntegerReference) {
  Result r = run("-q --chip small examples/tiled_mvm_noc.s --input examples/data/tiled_mvm.x.bin@0 --output " +
                 path("y.bin") + "@0x1000:32");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(path("y.bin")), slurp(src_ + "/examples/data/tiled_mvm.expected.bin"));
}

TEST_F(VpRun, MlpBatchEqualsItsIntegerReference) {
  Result r = run("-q --chip small examples/mlp.s --input examples/data/mlp.x.bin@0 --output " + path("l.npy") +
                 "@0x1000:80:int32 --stats " + path("s.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string npy = slurp(path("l.npy"));
  const std::string want = slurp(src_ + "/examples/data/mlp.expected.bin");
  ASSERT_GT(npy.size(), want.size());
  EXPECT_EQ(npy.substr(0, 6), "\x93NUMPY");
  EXPECT_NE(npy.find("'descr': '<i4'"), std::string::npos);
  EXPECT_EQ(npy.substr(npy.size() - want.size()), want);
  const auto stats = nlohmann::json::parse(slurp(path("s.json")));
  EXPECT_EQ(stats["run"]["status"], "completed");
  EXPECT_EQ(stats["crossbar"]["crossbar_activations"], 6);  // 2 inputs x (2 + 1) crossbars
  EXPECT_EQ(stats["ispp"]["cells_programmed"], 3 * 64 * 64);
  EXPECT_GT(stats["energy_pj"]["total"].get<double>(), 0.0);
}

TEST_F(VpRun, AdcEnergyDoublesWithEachBitOfResolution) {
  // The same conversions at 8, 10 and 6 bits (ideal ADCs: the outputs and
  // counts do not change): energy.adc_pj x 2^(adc.bits - energy.adc_ref_bits).
  const std::string common = "-q --chip small examples/mlp.s --input examples/data/mlp.x.bin@0 --stats ";
  ASSERT_EQ(run(common + path("b8.json")).code, 0);
  ASSERT_EQ(run(common + path("b10.json") + " --set adc.bits=10").code, 0);
  ASSERT_EQ(run(common + path("b6.json") + " --set adc.bits=6 --set energy.adc_ref_bits=6").code, 0);
  const auto b8 = nlohmann::json::parse(slurp(path("b8.json")));
  const auto b10 = nlohmann::json::parse(slurp(path("b10.json")));
  const auto b6 = nlohmann::json::parse(slurp(path("b6.json")));
  const double conversions = b8["crossbar"]["adc_conversions"].get<double>();
  ASSERT_GT(conversions, 0.0);
  EXPECT_EQ(b10["crossbar"]["adc_conversions"].get<double>(), conversions);
  EXPECT_NEAR(b8["energy_pj"]["adc"].get<double>(), conversions * 1.67, 1e-6 * conversions);
  EXPECT_NEAR(b10["energy_pj"]["adc"].get<double>(), 4 * b8["energy_pj"]["adc"].get<double>(), 1e-6 * conversions);
  EXPECT_NEAR(b6["energy_pj"]["adc"].get<double>(), b8["energy_pj"]["adc"].get<double>(), 1e-6 * conversions);
}

TEST_F(VpRun, TheSameRunGivesTheSameTraceByteForByte) {
  const std::string common = "-q --chip small examples/mlp.s --input examples/data/mlp.x.bin@0 --trace ";
  ASSERT_EQ(run(common + path("a.trace")).code, 0);
  ASSERT_EQ(run(common + path("b.trace")).code, 0);
  const std::string a = slurp(path("a.trace"));
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, slurp(path("b.trace")));
}

TEST_F(VpRun, TheSeedChangesTheDeviceButNotAnIdealResult) {
  const std::string common = "-q --chip small examples/tiled_mvm_noc.s --input examples/data/tiled_mvm.x.bin@0 ";
  ASSERT_EQ(run(common + "--seed 1 --stats " + path("s1.json") + " --output " + path("y1.bin") + "@0x1000:32").code, 0);
  ASSERT_EQ(run(common + "--seed 2 --stats " + path("s2.json") + " --output " + path("y2.bin") + "@0x1000:32").code, 0);
  const auto s1 = nlohmann::json::parse(slurp(path("s1.json")));
  const auto s2 = nlohmann::json::parse(slurp(path("s2.json")));
  EXPECT_NE(s1["ispp"]["pulses"], s2["ispp"]["pulses"]);
  EXPECT_EQ(slurp(path("y1.bin")), slurp(path("y2.bin")));
}

TEST_F(VpRun, TheTraceHasOneWellFormedLinePerInstruction) {
  Result r = run("-q --chip small examples/mlp.s --input examples/data/mlp.x.bin@0 --trace " + path("t.trace") +
                 " --stats " + path("s.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  vp::trace::ReaderOptions opt;
  opt.strict = true;
  vp::trace::TraceReader reader(path("t.trace"), opt);
  vp::trace::TraceRecord rec;
  int64_t n = 0, last_end = 0;
  bool saw_cp = false, saw_layer = false;
  while (reader.next(rec)) {
    ++n;
    EXPECT_EQ(rec.inst_idx, n);
    EXPECT_GE(rec.end, rec.start);
    EXPECT_TRUE(rec.has_location);
    saw_cp |= rec.cluster == -1 && rec.unit == "cp";
    saw_layer |= rec.layer_name == "fc2";
    last_end = std::max<int64_t>(last_end, rec.end);
  }
  const auto stats = nlohmann::json::parse(slurp(path("s.json")));
  EXPECT_EQ(n, stats["instructions"].get<int64_t>());
  EXPECT_EQ(last_end, stats["run"]["cycles"].get<int64_t>());
  EXPECT_TRUE(saw_cp);
  EXPECT_TRUE(saw_layer);
}

TEST_F(VpRun, ADeadlockIsReportedWithWhoWaitsForWhat) {
  const std::string prog = write("dead.s", ".core 0, 0\n li r1, 0\n li r2, 4\n li r3, 1\n recv r1, r2, r3, 2\n halt\n"
                                           ".core 0, 1\n li r1, 0\n li r2, 4\n li r3, 0\n recv r1, r2, r3, 2\n halt\n");
  Result r = run("-q --chip small --firmware none " + prog + " --trace " + path("d.trace"));
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("deadlock"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("core 1 (cluster 0, cu 1) at pc 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("recv from core 0 tag 2"), std::string::npos) << r.err;
  // The trace of what did execute is complete: six li, every line whole.
  const std::string t = slurp(path("d.trace"));
  EXPECT_EQ(std::count(t.begin(), t.end(), '\n'), 6);
  EXPECT_EQ(t.back(), '\n');
  // Under the firmware the control processor is one of the waiters.
  Result f = run("-q --chip small " + prog);
  EXPECT_EQ(f.code, 3);
  EXPECT_NE(f.err.find("core 1 (cluster 0, cu 1) at pc 3"), std::string::npos) << f.err;
  EXPECT_NE(f.err.find("control processor at pc"), std::string::npos) << f.err;
  EXPECT_NE(f.err.find("waits for core 0 to halt"), std::string::npos) << f.err;
}

// --check-races: core 0 writes 16 bytes of global memory and core 1 reads
// them. With a token sent once the write has landed (wait 4) and taken
// before the read, the run is clean; with the token sent while the write is
// still in flight, or taken only after the read, it is a race, reported
// with both cores and exit 7, though the read still gets the right bytes.
TEST_F(VpRun, CheckRacesReportsAccessesNoMessageOrders) {
  auto prog = [&](const std::string& name, bool wait, bool recv_first) {
    const std::string writer = std::string(".core 0, 0\n li r1, 0\n li r2, 0x2000\n li r3, 16\n dma.lg r2, r1, r3\n") +
                               (wait ? " wait 4\n" : "") + " li r4, 1\n li r5, 64\n send r5, r3, r4, 3\n halt\n";
    const std::string take = " li r4, 0\n li r5, 64\n li r3, 16\n recv r5, r3, r4, 3\n";
    const std::string read = " li r1, 0\n li r2, 0x2000\n li r3, 16\n dma.gl r1, r2, r3\n wait 4\n";
    return write(name, writer + ".core 0, 1\n" + (recv_first ? take + read : read + take) + " halt\n");
  };
  const std::string common = "-q --chip small --firmware none --check-races ";
  Result ok = run(common + prog("ok.s", true, true) + " --stats " + path("ok.json"));
  ASSERT_EQ(ok.code, 0) << ok.err;
  const auto stats = nlohmann::json::parse(slurp(path("ok.json")));
  EXPECT_EQ(stats["race_check"]["races"], 0);
  EXPECT_EQ(stats["race_check"]["accesses"], 2);
  Result early = run(common + prog("early.s", false, true));
  EXPECT_EQ(early.code, 7) << early.err;
  EXPECT_NE(early.err.find("1 of 2 shared-memory accesses race"), std::string::npos) << early.err;
  EXPECT_NE(early.err.find("core 1 (pc 7) reads global [8192, 8208)"), std::string::npos) << early.err;
  EXPECT_NE(early.err.find("written by core 0 (pc 3)"), std::string::npos) << early.err;
  EXPECT_NE(early.err.find("read-after-write race"), std::string::npos) << early.err;
  Result late = run(common + prog("late.s", true, false));
  EXPECT_EQ(late.code, 7) << late.err;
  // Without --check-races the same program runs to completion.
  EXPECT_EQ(run("-q --chip small --firmware none " + prog("late2.s", true, false)).code, 0);
  // A system of chips is not checked: said, not ignored.
  Result sys = run("-q --check-races --system " + path("none.system.json"));
  EXPECT_EQ(sys.code, 2);
  EXPECT_NE(sys.err.find("--check-races checks one chip's run"), std::string::npos) << sys.err;
}

TEST_F(VpRun, MaxCyclesStopsARunawayProgram) {
  const std::string prog = write("spin.s", ".core 0, 0\nl:\n jmp l\n");
  Result r = run("-q --chip small --max-cycles 2000 " + prog);
  EXPECT_EQ(r.code, 4);
  EXPECT_NE(r.err.find("--max-cycles 2000"), std::string::npos) << r.err;
}

TEST_F(VpRun, AFaultNamesTheCoreAndExitsNonZero) {
  const std::string prog = write("fault.s", ".core 1, 0\n li r1, -16\n li r2, 64\n vmov r1, r1, r2, i8\n halt\n");
  Result r = run("-q --chip small " + prog + " --output " + path("o.bin") + "@0:4");
  EXPECT_EQ(r.code, 5);
  EXPECT_NE(r.err.find("core 2 (cluster 1, cu 0) pc 2"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("o.bin")));  // no output from a failed run
}

TEST_F(VpRun, BadConfigurationNamesTheKey) {
  Result a = run("--chip small --set xbar.rows=abc --list-params");
  EXPECT_EQ(a.code, 1);
  EXPECT_NE(a.err.find("xbar.rows"), std::string::npos) << a.err;
  Result b = run("--chip small --set xbar.rowz=128 --list-params");
  EXPECT_EQ(b.code, 1);
  EXPECT_NE(b.err.find("xbar.rowz"), std::string::npos) << b.err;
  EXPECT_NE(b.err.find("xbar.rows"), std::string::npos) << "suggestion expected: " << b.err;
  Result c = run("--chip nosuchchip --list-params");
  EXPECT_EQ(c.code, 1);
  EXPECT_NE(c.err.find("nosuchchip"), std::string::npos) << c.err;
  const std::string cfg = write("bad.yaml", "xbar:\n  cols: 100000000\n");
  Result d = run("--chip small --config " + cfg + " --list-params");
  EXPECT_EQ(d.code, 1);
  EXPECT_NE(d.err.find("xbar.cols"), std::string::npos) << d.err;
}

TEST_F(VpRun, ABadProgramGetsItsAssemblerDiagnostics) {
  const std::string prog = write("bad.s", ".core 0, 0\n li r1, 5\n addd r1, r1, r1\n halt\n");
  Result r = run("-q --chip small " + prog);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("bad.s:3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("addd"), std::string::npos) << r.err;
}

TEST_F(VpRun, AProgramForABiggerChipIsRefused) {
  // The firmware's boot check refuses it with a named error (a trap, exit 6).
  Result r = run("-q --chip small --set chip.cus_per_cluster=1 examples/mlp.s");
  EXPECT_EQ(r.code, 6);
  EXPECT_NE(r.err.find("firmware: the model needs 2 CUs per cluster, the chip has 1 (ERR_CUS)"), std::string::npos)
      << r.err;
  // Run bare, the platform's own check refuses it before the run.
  Result b = run("-q --chip small --firmware none --set chip.cus_per_cluster=1 examples/mlp.s");
  EXPECT_EQ(b.code, 1);
  EXPECT_NE(b.err.find("needs 2 CUs per cluster, the chip has 1"), std::string::npos) << b.err;
}

TEST_F(VpRun, ACellLevelAboveTheChipsCellsIsNamed) {
  // mlp.s programs 2-bit cells; on 1-bit cells its first level 3 is named
  // where it is, before anything runs.
  Result r = run("-q --chip small --set xbar.cell_bits=1 examples/mlp.s");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("cell program of crossbar 0 (cluster 0 cu 0) row 0 column 0: level 3 exceeds 1 for 1-bit cells"),
            std::string::npos)
      << r.err;
}

TEST_F(VpRun, ListsParametersAndDumpsAConfigurationThatLoadsBack) {
  Result l = run("--list-params");
  ASSERT_EQ(l.code, 0);
  EXPECT_NE(l.out.find("xbar.rows"), std::string::npos);
  EXPECT_NE(l.out.find("ispp.pulse_ns"), std::string::npos);
  ASSERT_EQ(run("--chip small --set xbar.read_ns=50 --dump-config " + path("c1.yaml")).code, 0);
  ASSERT_EQ(run("--chip sidra-y1 --config " + path("c1.yaml") + " --dump-config " + path("c2.yaml")).code, 0);
  const std::string c1 = slurp(path("c1.yaml"));
  EXPECT_NE(c1.find("read_ns: 50"), std::string::npos);
  // The second dump differs only in where values were set, not in values.
  auto values = [](const std::string& y) {
    std::string v;
    std::istringstream in(y);
    for (std::string line; std::getline(in, line);)
      if (line.find('#') == std::string::npos) v += line + "\n";
    return v;
  };
  EXPECT_EQ(values(c1), values(slurp(path("c2.yaml"))));
}

TEST_F(VpRun, VcdHasEveryUnitNocLinksAndGlobalMemory) {
  Result r = run("-q --chip small examples/tiled_mvm_noc.s --input examples/data/tiled_mvm.x.bin@0 --vcd " +
                 path("run.vcd"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string vcd = slurp(path("run.vcd"));
  EXPECT_NE(vcd.find("$timescale"), std::string::npos);
  for (const char* scope : {"$scope module cluster1 $end", "$scope module xbar $end", "$scope module noc $end",
                            "$scope module r_1_0___r_0_0_ $end", "$scope module gmem $end"})
    EXPECT_NE(vcd.find(scope), std::string::npos) << scope;
  EXPECT_NE(vcd.find("$enddefinitions"), std::string::npos);
  // No temporary inputs are left behind.
  for (const auto& e : fs::directory_iterator(tmp_)) EXPECT_NE(e.path().extension(), ".tmp") << e.path();
  if (std::system("command -v vcd2fst >/dev/null 2>&1") == 0) {
    const std::string cmd = "vcd2fst '" + path("run.vcd") + "' '" + path("run.fst") + "' >/dev/null 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << "GTKWave's vcd2fst rejects the file";
  }
}

TEST_F(VpRun, ExampleDataIsWhatTheGeneratorWrites) {
  const std::string out = path("gen");
  ASSERT_EQ(std::system(("python3 '" + src_ + "/examples/gen_examples.py' '" + out + "'").c_str()), 0);
  int files = 0;
  for (const auto& e : fs::directory_iterator(src_ + "/examples/data")) {
    ++files;
    EXPECT_EQ(slurp(e.path()), slurp(fs::path(out) / e.path().filename())) << e.path() << " is stale";
  }
  EXPECT_EQ(files, static_cast<int>(std::distance(fs::directory_iterator(out), fs::directory_iterator())));
}

}  // namespace
