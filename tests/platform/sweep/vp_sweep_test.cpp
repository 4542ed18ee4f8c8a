// vp-sweep end to end on the MLP example and the small preset: a sweep runs
// to completion, resumes after SIGKILL/SIGTERM without rerunning finished
// points, its CSV equals separate vp-run runs, ONNX models compile once per
// program-affecting combination, and the metric catalog equals what vp-run
// writes.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <set>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "sweep_test_util.h"
#include "vp/sweep/stats_catalog.h"

namespace {

using nlohmann::json;
using sweep_test::slurp;
namespace fs = std::filesystem;

// CSV without quoted fields (what these sweeps produce) as header -> cells.
std::vector<std::map<std::string, std::string>> read_csv(const std::string& text) {
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::size_t pos = 0;
    while (true) {
      const std::size_t c = line.find(',', pos);
      cells.push_back(line.substr(pos, c == std::string::npos ? std::string::npos : c - pos));
      if (c == std::string::npos) break;
      pos = c + 1;
    }
    lines.push_back(cells);
  }
  std::vector<std::map<std::string, std::string>> rows;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::map<std::string, std::string> row;
    for (std::size_t k = 0; k < lines[0].size() && k < lines[i].size(); ++k) row[lines[0][k]] = lines[i][k];
    rows.push_back(row);
  }
  return rows;
}

struct Marker {
  ino_t inode;
  std::int64_t mtime_ns;
};

std::map<std::string, Marker> done_markers(const fs::path& out) {
  std::map<std::string, Marker> m;
  if (!fs::exists(out / "points")) return m;
  for (const auto& e : fs::directory_iterator(out / "points")) {
    struct stat st {};
    if (e.is_directory() && ::stat((e.path() / "done").c_str(), &st) == 0)
      m[e.path().filename().string()] = {st.st_ino, st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec};
  }
  return m;
}

class VpSweep : public sweep_test::ScratchTest {
 protected:
  // 4 x 2 seeds = 8 MLP points.
  std::string eight_points() {
    return write("s.yaml", mlp_header("eight") +
                               "parameters:\n  xbar.read_ns: [25, 50, 100, 200]\nseeds: [1, 2]\n"
                               "metrics: [run.cycles, energy_pj.total, ispp.pulses, units.xbar.utilization,\n"
                               "          inferences_per_s,\n"
                               "          {name: exact, golden: " + src_ + "/examples/data/mlp.expected.bin, output: logits.bin}]\n"
                               "pareto: {energy_pj.total: min, inferences_per_s: max}\n");
  }
  pid_t start_sweep(const std::string& args_file, const std::string& out, const std::string& jobs) {
    const std::string exe = bin_ + "/vp-sweep";
    const std::string err = path("bg.err");
    const pid_t pid = ::fork();
    if (pid == 0) {
      const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 2);
      ::execl(exe.c_str(), exe.c_str(), args_file.c_str(), "-o", out.c_str(), "-j", jobs.c_str(), "-q",
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    return pid;
  }
  // Waits until `n` points are done (or the sweep ended); false on timeout.
  bool wait_done(const fs::path& out, std::size_t n, pid_t pid) {
    for (int i = 0; i < 3000; ++i) {
      if (done_markers(out).size() >= n) return true;
      int st;
      if (::waitpid(pid, &st, WNOHANG) == pid) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  // "vp-sweep: 8 point(s): 3 done before, 5 to run, ..." -> {3, 5}
  static std::pair<int, int> before_and_to_run(const std::string& err) {
    int total = 0, before = -1, to_run = -1;
    const std::size_t p = err.find("point(s): ");
    if (p != std::string::npos) {
      // The summary line starts after the previous newline, or at the start.
      const std::size_t nl = err.rfind('\n', p);
      const std::size_t line = nl == std::string::npos ? 0 : nl + 1;
      std::sscanf(err.c_str() + line, "vp-sweep: %d point(s): %d done before, %d to run", &total, &before, &to_run);
    }
    return {before, to_run};
  }
};

TEST_F(VpSweep, SmallSweepRunsToCompletionWithResultsAndPlots) {
  const std::string s = eight_points();
  const auto r = sweep("'" + s + "' -o '" + path("out") + "' -j2");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = read_csv(slurp(path("out/results.csv")));
  ASSERT_EQ(rows.size(), 8u);
  int front = 0;
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("status"), "completed");
    EXPECT_EQ(row.at("exact"), "1.0");  // ideal mode: logits equal the integer reference
    EXPECT_FALSE(row.at("units.xbar.utilization").empty());
    front += row.at("pareto") == "1";
    EXPECT_TRUE(fs::exists(path("out/points/" + row.at("id") + "/stats.json")));
    EXPECT_TRUE(fs::exists(path("out/points/" + row.at("id") + "/logits.bin")));
  }
  // Faster reads cost less leakage: the 25 ns points (both seeds, which
  // differ only in programming energy) make the front.
  EXPECT_GE(front, 1);
  for (const auto& row : rows) {
    if (row.at("pareto") == "1") {
      EXPECT_EQ(row.at("xbar.read_ns"), "25");
    }
  }
  // Cycles grow with the read latency.
  EXPECT_LT(std::stol(rows[0].at("run.cycles")), std::stol(rows[7].at("run.cycles")));
  const json j = json::parse(slurp(path("out/results.json")));
  EXPECT_EQ(j["points"].size(), 8u);
  EXPECT_EQ(j["points"][0]["metrics"]["run.cycles"].get<long>(), std::stol(rows[0].at("run.cycles")));
  for (const char* f : {"run_cycles-vs-xbar_read_ns.svg", "run_cycles-vs-xbar_read_ns.png", "pareto.svg", "pareto.png"})
    EXPECT_TRUE(fs::exists(path(std::string("out/plots/") + f))) << f;
  EXPECT_EQ(slurp(path("out/plots/pareto.png")).substr(1, 3), "PNG");
  // A second run finds everything done and runs nothing.
  const auto again = sweep("'" + s + "' -o '" + path("out") + "' -j2");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(before_and_to_run(again.err), std::make_pair(8, 0)) << again.err;

  // A collection's tables and plots are published together: when the last
  // plot cannot be moved into place, the tables and the other plots stay as
  // they were (the shim makes that one rename fail, all others succeed).
  write("out/results.csv", "old csv");
  write("out/plots/pareto.svg", "old svg");
  const std::string asan = std::getenv("ASAN_OPTIONS") ? std::getenv("ASAN_OPTIONS") + std::string(":") : "";
  const std::string shim = "ASAN_OPTIONS='" + asan + "verify_asan_link_order=0' LD_PRELOAD=" VP_FAIL_RENAME_SHIM " ";
  const auto failed = sh(shim + "VP_TEST_FAIL_RENAME_TO='" + path("out/plots/pareto.png") + "' '" + bin_ +
                         "/vp-sweep' '" + s + "' -o '" + path("out") + "' --collect");
  EXPECT_NE(failed.code, 0) << failed.err;
  EXPECT_NE(failed.err.find(path("out/plots/pareto.png")), std::string::npos) << failed.err;
  EXPECT_EQ(slurp(path("out/results.csv")), "old csv");
  EXPECT_EQ(slurp(path("out/plots/pareto.svg")), "old svg");
  for (const auto& e : fs::directory_iterator(path("out/plots")))
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
  const auto collected = sh(shim + "VP_TEST_FAIL_RENAME_TO=/nowhere '" + bin_ + "/vp-sweep' '" + s + "' -o '" +
                            path("out") + "' --collect");
  ASSERT_EQ(collected.code, 0) << collected.err;
  EXPECT_EQ(read_csv(slurp(path("out/results.csv"))).size(), 8u);
  EXPECT_NE(slurp(path("out/plots/pareto.svg")), "old svg");
}

TEST_F(VpSweep, KilledMidwayItResumesWithoutRerunningFinishedPoints) {
  const std::string s = eight_points();
  const fs::path out = path("out");
  const pid_t pid = start_sweep(s, out.string(), "1");
  ASSERT_TRUE(wait_done(out, 2, pid)) << slurp(path("bg.err"));
  ::kill(pid, SIGKILL);
  int st = 0;
  ::waitpid(pid, &st, 0);
  const auto before = done_markers(out);
  ASSERT_GE(before.size(), 2u);
  ASSERT_LT(before.size(), 8u) << "the sweep finished before it could be killed";

  const auto r = sweep("'" + s + "' -o '" + out.string() + "' -j2");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto [done_before, to_run] = before_and_to_run(r.err);
  EXPECT_EQ(done_before, static_cast<int>(before.size())) << r.err;
  EXPECT_EQ(to_run, 8 - static_cast<int>(before.size())) << r.err;
  const auto after = done_markers(out);
  EXPECT_EQ(after.size(), 8u);
  for (const auto& [id, m] : before) {
    ASSERT_TRUE(after.count(id));
    EXPECT_EQ(after.at(id).inode, m.inode) << id << " was run again";
    EXPECT_EQ(after.at(id).mtime_ns, m.mtime_ns) << id << " was run again";
  }
  for (const auto& row : read_csv(slurp(out / "results.csv"))) EXPECT_EQ(row.at("status"), "completed");
}

TEST_F(VpSweep, SigtermStopsTheSweepAndTheNextRunFinishesIt) {
  const std::string s = eight_points();
  const fs::path out = path("out");
  const pid_t pid = start_sweep(s, out.string(), "2");
  ASSERT_TRUE(wait_done(out, 1, pid)) << slurp(path("bg.err"));
  ::kill(pid, SIGTERM);
  int st = 0;
  ::waitpid(pid, &st, 0);
  const auto before = done_markers(out);
  if (before.size() < 8u) {  // it may have raced to the end
    ASSERT_TRUE(WIFEXITED(st));
    EXPECT_EQ(WEXITSTATUS(st), 3);
    EXPECT_NE(slurp(path("bg.err")).find("interrupted"), std::string::npos);
  }
  const auto r = sweep("'" + s + "' -o '" + out.string() + "' -j2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(before_and_to_run(r.err).first, static_cast<int>(before.size()));
  EXPECT_EQ(done_markers(out).size(), 8u);
}

TEST_F(VpSweep, CsvEqualsSeparateVpRunResults) {
  const std::string s = eight_points();
  ASSERT_EQ(sweep("'" + s + "' -o '" + path("out") + "' -j2").code, 0);
  const auto rows = read_csv(slurp(path("out/results.csv")));
  for (const std::size_t i : {std::size_t{1}, std::size_t{6}}) {
    const auto& row = rows.at(i);
    const auto r = sh("cd '" + src_ + "' && '" + bin_ + "/vp-run' -q --chip small examples/mlp.s --input " +
                      "examples/data/mlp.x.bin@0 --set xbar.read_ns=" + row.at("xbar.read_ns") + " --seed " +
                      row.at("seed") + " --stats '" + path("s.json") + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    const json stats = json::parse(slurp(path("s.json")));
    EXPECT_EQ(std::to_string(stats["run"]["cycles"].get<long>()), row.at("run.cycles"));
    EXPECT_EQ(stats["energy_pj"]["total"].dump(), row.at("energy_pj.total"));
    EXPECT_EQ(stats["ispp"]["pulses"].dump(), row.at("ispp.pulses"));
    EXPECT_EQ(stats["units"]["xbar"]["utilization"].dump(), row.at("units.xbar.utilization"));
  }
}

TEST_F(VpSweep, OnnxModelsCompileOncePerProgramAffectingCombination) {
  // A stand-in for vp-cc that logs its calls and emits the MLP program.
  const std::string cc = write("fake-vp-cc", "#!/bin/sh\necho \"$@\" >> '" + path("compiles.log") +
                                                 "'\nout=\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n"
                                                 "printf '.include \"%s\"\\n' '" + src_ + "/examples/mlp.s' > \"$out\"\n");
  ::chmod(cc.c_str(), 0755);
  write("net.onnx", "stand-in model bytes");
  const std::string body = "model: net.onnx\npreset: small\ninputs: [" + src_ + "/examples/data/mlp.x.bin@0]\n"
                           "metrics: [run.cycles]\nplots: []\nparameters:\n  cu.spad_kib: [16, 32]\n";
  const std::string s = write("s.yaml", body + "  xbar.read_ns: [50, 100]\n");
  const auto r = sweep("'" + s + "' -o '" + path("out") + "' --vp-cc '" + cc + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  std::string log = slurp(path("compiles.log"));
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 2) << log;  // two spad sizes, one compile each
  // The small preset has 16 KiB: only the other size is passed on.
  EXPECT_NE(log.find("--chip small --set cu.spad_kib=32\n"), std::string::npos) << log;
  EXPECT_NE(log.find("--chip small\n"), std::string::npos) << log;
  EXPECT_EQ(log.find("xbar.read_ns"), std::string::npos) << log;  // timing never reaches the compiler
  // More timing points reuse the cached programs.
  write("s.yaml", body + "  xbar.read_ns: [50, 100, 200]\n");
  const auto more = sweep("'" + s + "' -o '" + path("out") + "' --vp-cc '" + cc + "'");
  ASSERT_EQ(more.code, 0) << more.err;
  log = slurp(path("compiles.log"));
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 2) << log;
  for (const auto& row : read_csv(slurp(path("out/results.csv")))) EXPECT_EQ(row.at("status"), "completed");
}

TEST_F(VpSweep, OnnxWithoutVpCcSaysSo) {
  write("net.onnx", "x");
  const std::string s = write("s.yaml", "model: net.onnx\npreset: small\n");
  const auto r = sweep("'" + s + "' -o '" + path("out") + "' --vp-cc '" + path("no-such-vp-cc") + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("needs vp-cc"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not found"), std::string::npos) << r.err;
}

// A vp-cc that fails without a word: the failure is reported with its exit
// code, the sweep does not abort, and no temporary compile folder is left.
TEST_F(VpSweep, SilentlyFailingVpCcIsReportedAndLeavesNoTemporary) {
  const std::string cc = write("silent-vp-cc", "#!/bin/sh\nexit 1\n");
  ::chmod(cc.c_str(), 0755);
  write("net.onnx", "stand-in model bytes");
  const std::string s = write("s.yaml", "model: net.onnx\npreset: small\nmetrics: [run.cycles]\nplots: []\n");
  const auto r = sweep("'" + s + "' -o '" + path("out") + "' --vp-cc '" + cc + "'");
  EXPECT_EQ(r.code, 4) << r.err;  // every point ran, none completed
  EXPECT_NE(r.err.find("1 compile_error"), std::string::npos) << r.err;
  EXPECT_NE(slurp(path("out/results.json")).find("vp-cc failed (exit 1)"), std::string::npos);
  EXPECT_EQ(r.err.find("basic_string"), std::string::npos) << r.err;
  for (const auto& e : fs::directory_iterator(path("out/compiled")))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

// compiler.adc_ranges: each point profiles its own device with the real
// vp-run (exact ADCs, its own parameters and seed), and its program is
// compiled again with the profile and every parameter of the point; the
// point runs that program. Resumed, nothing is measured or compiled again.
// A compile that fails on the ranges marks its points calibration_error.
TEST_F(VpSweep, AdcRangesAreCalibratedPerPointAndCached) {
  // A stand-in for vp-cc that logs its calls, checks the profile it gets
  // and emits the MLP program.
  const std::string cc = write(
      "fake-vp-cc", "#!/bin/sh\necho \"$@\" >> '" + path("compiles.log") +
                        "'\nout=\nprofile=\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; "
                        "[ \"$1\" = --adc-ranges ] && profile=$2; shift; done\n"
                        "if [ -n \"$profile\" ]; then grep -q vp-adc-profile \"$profile\" || exit 3; "
                        "[ -n \"$FAIL_RANGES\" ] && { echo 'ranges refused' >&2; exit 5; }; fi\n"
                        "printf '.include \"%s\"\\n' '" + src_ + "/examples/mlp.s' > \"$out\"\n");
  ::chmod(cc.c_str(), 0755);
  write("net.onnx", "stand-in model bytes");
  const std::string in = src_ + "/examples/data/mlp.x.bin@0";
  const std::string s = write("s.yaml", "model: net.onnx\npreset: small\ninputs: [" + in +
                                            "]\nset: {adc.mode: quantize}\nmetrics: [run.cycles]\nplots: []\n"
                                            "parameters:\n  xbar.read_ns: [50, 100]\n"
                                            "compiler:\n  adc_ranges: {inputs: [" + in + "], headroom: 2}\n");
  const auto r = sweep("'" + s + "' -o '" + path("out") + "' --vp-cc '" + cc + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  std::string log = slurp(path("compiles.log"));
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 3) << log;  // the program, then one per point
  EXPECT_NE(log.find("--set adc.mode=quantize --set xbar.read_ns=50 --adc-ranges "), std::string::npos) << log;
  EXPECT_NE(log.find("--set xbar.read_ns=100 --adc-ranges "), std::string::npos) << log;
  EXPECT_NE(log.find("--adc-headroom 2\n"), std::string::npos) << log;
  std::size_t calibrated = 0;
  for (const auto& e : fs::directory_iterator(path("out/calibrated"))) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
    const json profile = json::parse(slurp((e.path() / "adc_profile.json").string()));
    EXPECT_EQ(profile.at("format"), "vp-adc-profile");
    EXPECT_TRUE(fs::exists(e.path() / "done"));
    // The point ran the program compiled with its own ranges.
    const json point = json::parse(slurp(path("out/points/" + e.path().filename().string() + "/point.json")));
    const auto& cmd = point.at("command");
    const auto model = std::find(cmd.begin(), cmd.end(), "--model");
    ASSERT_NE(model, cmd.end());
    EXPECT_EQ(*(model + 1), (e.path() / "model.asm").string());
    ++calibrated;
  }
  EXPECT_EQ(calibrated, 2u);
  for (const auto& row : read_csv(slurp(path("out/results.csv")))) EXPECT_EQ(row.at("status"), "completed");
  // A third point is measured and compiled; the first two are not.
  write("s.yaml", slurp(s).replace(slurp(s).find("[50, 100]"), 9, "[50, 100, 200]"));
  const auto more = sweep("'" + s + "' -o '" + path("out") + "' --vp-cc '" + cc + "'");
  ASSERT_EQ(more.code, 0) << more.err;
  log = slurp(path("compiles.log"));
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 4) << log;
  // Ranges the compiler refuses: the points say why, and keep the logs.
  const auto failed = sh("FAIL_RANGES=1 '" + bin_ + "/vp-sweep' '" + s + "' -o '" + path("out2") + "' --vp-cc '" + cc + "'");
  EXPECT_EQ(failed.code, 4) << failed.err;
  EXPECT_NE(failed.err.find("3 calibration_error"), std::string::npos) << failed.err;
  const std::string results = slurp(path("out2/results.json"));
  EXPECT_NE(results.find("vp-cc --adc-ranges: vp-cc failed (exit 5): ranges refused"), std::string::npos) << results;
  std::size_t kept = 0;
  for (const auto& e : fs::directory_iterator(path("out2/calibrated")))
    kept += e.path().extension() == ".failed" && fs::exists(e.path() / "adc_profile.json");
  EXPECT_EQ(kept, 3u);
}

// Counts and indices on the command line: no wrap, no negative.
TEST_F(VpSweep, NumericOptionsAreStrict) {
  const std::string s = write("s.yaml", mlp_header("strict"));
  for (const std::string opt : {"-j -1", "--jobs abc", "-j 0", "--run-point -1", "--stride -3", "--stride 1x",
                                "--slurm-max-array 0", "--slurm-max-array 18446744073709551616"}) {
    const auto r = sweep("'" + s + "' -o '" + path("out") + "' " + opt);
    EXPECT_EQ(r.code, 2) << opt << ": " << r.err;
    const std::string name = opt.substr(0, opt.find(' '));
    EXPECT_NE(r.err.find(name == "-j" ? "--jobs" : name), std::string::npos) << opt << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(path("out")));
}

// The --dry-run listing lost to a full disk used to end in exit 0.
TEST_F(VpSweep, AFullStandardOutputIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string s = write("s.yaml", mlp_header("full") + "parameters:\n  xbar.read_ns: [50, 100]\n");
  const auto r = sh("( '" + bin_ + "/vp-sweep' '" + s + "' --dry-run >/dev/full )");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("vp-sweep: cannot write to standard output"), std::string::npos) << r.err;
  EXPECT_EQ(sweep("'" + s + "' --dry-run").code, 0);
}

// results.csv used to be published before results.json was tried: a
// collection that could not write the JSON left a new CSV beside the old JSON.
TEST_F(VpSweep, ResultTablesArePublishedTogether) {
  const std::string s = write("s.yaml", mlp_header("tables") + "parameters:\n  xbar.read_ns: [50]\nmetrics: [run.cycles]\n");
  ASSERT_EQ(sweep("'" + s + "' -o '" + path("out") + "' -j1 -q").code, 0);
  write("out/results.csv", "old csv\n");
  fs::remove(path("out/results.json"));
  fs::create_directories(path("out/results.json"));
  const auto r = sweep("'" + s + "' -o '" + path("out") + "' --collect");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("results.json: is a directory"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(path("out/results.csv")), "old csv\n");
  fs::remove(path("out/results.json"));
  ASSERT_EQ(sweep("'" + s + "' -o '" + path("out") + "' --collect").code, 0);
  EXPECT_NE(slurp(path("out/results.csv")), "old csv\n");
  EXPECT_TRUE(fs::exists(path("out/results.json")));
}

TEST_F(VpSweep, BadSweepFileIsAnErrorNamingTheLine) {
  const std::string s = write("s.yaml", mlp_header("bad") + "parameters:\n  xbar.read_nss: [1]\n");
  const auto r = sweep("'" + s + "'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("s.yaml:8"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("xbar.read_ns"), std::string::npos) << r.err;
}

// Points that do not complete are done all the same (not rerun), their
// status says why, the sweep exits 4, and --retry-failed runs them again.
TEST_F(VpSweep, FailedAndTimedOutPointsAreDoneUntilRetried) {
  // Spins for ever on one core: only the timeout ends it.
  write("spin.s", ".chip clusters=1, cus=1\n.core 0, 0\nspin:\n    jmp spin\n");
  const std::string s = write("s.yaml", "model: spin.s\npreset: small\ntimeout_s: 0.5\nmetrics: [run.cycles]\n"
                                        "parameters:\n  xbar.read_ns: [50, 100]\n  chip.mesh_cols: [2, 3]\n");
  const auto r = sweep("'" + s + "' -o '" + path("out") + "' -j2");
  EXPECT_EQ(r.code, 4) << r.err;
  const auto rows = read_csv(slurp(path("out/results.csv")));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].at("status"), "timeout");
  EXPECT_EQ(rows[1].at("status"), "invalid");  // 3 mesh columns do not divide the 4 clusters
  EXPECT_TRUE(rows[0].at("run.cycles").empty());
  const auto again = sweep("'" + s + "' -o '" + path("out") + "' -j2");
  EXPECT_EQ(before_and_to_run(again.err), std::make_pair(2, 0)) << again.err;
  const auto retry = sweep("'" + s + "' -o '" + path("out") + "' -j2 --retry-failed");
  EXPECT_EQ(before_and_to_run(retry.err), std::make_pair(0, 2)) << retry.err;
}

// Every aggregate statistic vp-run writes is collectable, and nothing the
// catalog lists is missing from vp-run's output.
TEST_F(VpSweep, MetricCatalogEqualsWhatVpRunWrites) {
  const auto r = sh("cd '" + src_ + "' && '" + bin_ + "/vp-run' -q --chip small examples/mlp.s --input " +
                    "examples/data/mlp.x.bin@0 --stats '" + path("s.json") + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const json stats = json::parse(slurp(path("s.json")));
  std::set<std::string> leaves;
  std::function<void(const json&, const std::string&)> walk = [&](const json& j, const std::string& prefix) {
    for (const auto& [k, v] : j.items()) {
      const std::string p = prefix.empty() ? k : prefix + "." + k;
      if (v.is_object()) walk(v, p);
      else if (v.is_number()) leaves.insert(p);
    }
  };
  walk(stats, "");
  for (const auto& leaf : leaves) EXPECT_NE(vp::sweep::find_stat(leaf), nullptr) << leaf << " is not collectable";
  for (const auto& s : vp::sweep::stat_catalog()) {
    if ((s.zero_when_absent || s.optional) && !leaves.count(s.path)) continue;  // a unit this program does not use
    EXPECT_TRUE(leaves.count(s.path)) << s.path << " is listed but vp-run does not write it";
  }
}

}  // namespace
