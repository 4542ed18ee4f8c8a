// vp-sweep on Slurm: the test starts its own single-node cluster (munged,
// slurmctld, slurmd from Debian's slurm-wlm and munge, configured in a
// scratch folder on private ports), submits a sweep as a job array, and
// checks that the collected results equal a local run's. It skips, saying
// why, where such a cluster cannot run (not root, packages missing, daemons
// not coming up).
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>
#include <sstream>
#include <thread>

#include "sweep_test_util.h"

namespace {

using sweep_test::slurp;
namespace fs = std::filesystem;

bool on_path(const std::string& tool) {
  return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0;
}

class SlurmCluster : public sweep_test::ScratchTest {
 protected:
  void SetUp() override {
    ScratchTest::SetUp();
    if (::geteuid() != 0) GTEST_SKIP() << "a private slurmd must run as root to launch jobs; run the tests as root";
    for (const char* t : {"munged", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo"})
      if (!on_path(t))
        GTEST_SKIP() << t << " not installed (Debian packages slurm-wlm and munge; scripts/install-deps.sh)";
    char host[256] = {0};
    ::gethostname(host, sizeof host - 1);
    std::string node = host;
    node = node.substr(0, node.find('.'));
    const int port = 20000 + static_cast<int>(::getpid() % 20000) * 2;  // two private ports
    const std::string d = tmp_.string();
    fs::create_directories(tmp_ / "munge");
    fs::create_directories(tmp_ / "state");
    fs::create_directories(tmp_ / "spool");
    fs::permissions(tmp_ / "munge", fs::perms::owner_all);
    std::string key(1024, '\0');
    for (auto& c : key) c = static_cast<char>(std::rand());
    write("munge/munge.key", key);
    fs::permissions(tmp_ / "munge/munge.key", fs::perms::owner_read);
    const auto m = sh("munged -f --socket=" + d + "/munge/sock --key-file=" + d + "/munge/munge.key --pid-file=" + d +
                      "/munge/pid --log-file=" + d + "/munge/log --seed-file=" + d + "/munge/seed");
    if (m.code != 0) GTEST_SKIP() << "munged does not start here: " << m.err;
    started_munge_ = true;
    conf_ = write("slurm.conf",
                  "ClusterName=vpsweeptest\nSlurmctldHost=" + node + "\nSlurmUser=root\nSlurmdUser=root\n"
                  "AuthType=auth/munge\nAuthInfo=socket=" + d + "/munge/sock\nCredType=cred/munge\n"
                  "SlurmctldPort=" + std::to_string(port) + "\nSlurmdPort=" + std::to_string(port + 1) + "\n"
                  "StateSaveLocation=" + d + "/state\nSlurmdSpoolDir=" + d + "/spool\n"
                  "SlurmctldPidFile=" + d + "/slurmctld.pid\nSlurmdPidFile=" + d + "/slurmd.pid\n"
                  "SlurmctldLogFile=" + d + "/slurmctld.log\nSlurmdLogFile=" + d + "/slurmd.log\n"
                  "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
                  "AccountingStorageType=accounting_storage/none\nSelectType=select/cons_tres\n"
                  "SelectTypeParameters=CR_Core\nSchedulerType=sched/builtin\nReturnToService=2\nMpiDefault=none\n"
                  "NodeName=" + node + " CPUs=2 State=UNKNOWN\n"
                  "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n");
    ::setenv("SLURM_CONF", conf_.c_str(), 1);
    const auto c = sh("slurmctld -f '" + conf_ + "'");
    started_slurm_ = true;
    const auto s = sh("slurmd -f '" + conf_ + "'");
    if (c.code != 0 || s.code != 0) GTEST_SKIP() << "slurmctld/slurmd do not start here: " << c.err << s.err;
    for (int i = 0; i < 150; ++i) {
      if (sh("sinfo -h -o %t").out.find("idle") != std::string::npos) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    GTEST_SKIP() << "the node never became idle; slurmd.log says:\n" << slurp(tmp_ / "slurmd.log");
  }

  void TearDown() override {
    if (started_slurm_) {
      sh("scontrol shutdown");
      stop("slurmctld.pid");
      stop("slurmd.pid");
    }
    if (started_munge_) stop("munge/pid");
    ::unsetenv("SLURM_CONF");
    ScratchTest::TearDown();
  }

  // Ends a daemon this test started, by the pid it wrote.
  void stop(const std::string& pid_file) {
    for (int i = 0; i < 50; ++i) {
      const std::string text = slurp(tmp_ / pid_file);
      const pid_t pid = text.empty() ? 0 : static_cast<pid_t>(std::atol(text.c_str()));
      if (pid <= 0 || ::kill(pid, 0) != 0) return;
      ::kill(pid, i < 30 ? SIGTERM : SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  std::string conf_;
  bool started_munge_ = false, started_slurm_ = false;
};

TEST_F(SlurmCluster, JobArrayGivesTheSameResultsAsALocalRun) {
  const std::string s = write("s.yaml", mlp_header("slurm") +
                                            "parameters:\n  xbar.read_ns: [50, 100]\nseeds: [1, 2]\n"
                                            "metrics: [run.cycles, energy_pj.total, ispp.pulses]\n");
  // One point done beforehand: the array covers only the other three.
  ASSERT_EQ(sweep("'" + s + "' -o '" + path("out") + "' --run-point 1").code, 0);
  const auto r = sweep("'" + s + "' -o '" + path("out") + "' --slurm --wait");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("--array=0,2-3"), std::string::npos) << r.out;
  const std::string slurm_csv = slurp(path("out/results.csv"));
  ASSERT_FALSE(slurm_csv.empty()) << "the collect job wrote no results; " << slurp(tmp_ / "slurmctld.log");
  EXPECT_EQ(std::count(slurm_csv.begin(), slurm_csv.end(), '\n'), 5);
  EXPECT_EQ(slurm_csv.find("pending"), std::string::npos) << slurm_csv;
  // One log per array task: points 0, 2 and 3 ran on Slurm, 1 did not.
  std::set<std::string> tasks;
  for (const auto& e : fs::directory_iterator(path("out/slurm"))) {
    const std::string f = e.path().filename().string();
    if (f.rfind("task-", 0) == 0) tasks.insert(f.substr(f.find('_') + 1));
  }
  EXPECT_EQ(tasks, (std::set<std::string>{"0.out", "2.out", "3.out"}));

  ASSERT_EQ(sweep("'" + s + "' -o '" + path("local") + "' -j2 -q").code, 0);
  // Same rows except the host wall time.
  auto strip_wall = [](const std::string& csv) {
    std::istringstream in(csv);
    std::string line, out;
    std::getline(in, line);
    const auto column = std::count(line.begin(), line.begin() + static_cast<long>(line.find(",wall_s,")), ',') + 1;
    do {
      std::size_t from = 0;
      for (long i = 0; i < column; ++i) from = line.find(',', from) + 1;
      out += line.substr(0, from) + line.substr(line.find(',', from)) + "\n";
    } while (std::getline(in, line));
    return out;
  };
  EXPECT_EQ(strip_wall(slurm_csv), strip_wall(slurp(path("local/results.csv"))));
  // Everything done: a new submission only collects.
  const auto again = sweep("'" + s + "' -o '" + path("out") + "' --slurm");
  EXPECT_EQ(again.code, 0);
  EXPECT_NE(again.err.find("every point is done"), std::string::npos) << again.err;
}

}  // namespace
