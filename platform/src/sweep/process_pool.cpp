#include "vp/sweep/process_pool.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>

namespace vp::sweep {
namespace {

using Clock = std::chrono::steady_clock;

struct Running {
  std::size_t job = 0;
  Clock::time_point start;
  bool timed_out = false;
  bool stopped = false;
};

// Async-signal-safe write of a message to fd 2 of the child.
void child_fail(const char* what, const char* arg) {
  const char* err = std::strerror(errno);
  for (const char* s : {"vp-sweep: cannot ", what, " ", arg, ": ", err, "\n"}) {
    const ssize_t n = ::write(2, s, std::strlen(s));
    (void)n;
  }
  ::_exit(127);
}

// Everything the child needs is prepared before fork: after it only
// async-signal-safe calls are allowed.
pid_t spawn(const Command& cmd, const sigset_t& original_mask) {
  std::vector<char*> argv;
  for (const auto& a : cmd.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
  ::sigprocmask(SIG_SETMASK, &original_mask, nullptr);
  const int out = ::open(cmd.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int err = ::open(cmd.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0 || err < 0) child_fail("open the output files of", argv[0]);
  ::dup2(out, 1);
  ::dup2(err, 2);
  ::close(out);
  ::close(err);
  const int in = ::open("/dev/null", O_RDONLY);
  if (in >= 0) ::dup2(in, 0);
  if (!cmd.cwd.empty() && ::chdir(cmd.cwd.c_str()) != 0) child_fail("enter", cmd.cwd.c_str());
  ::execv(argv[0], argv.data());
  child_fail("run", argv[0]);
  return -1;
}

bool is_stop_signal(int sig) { return sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGKILL; }

}  // namespace

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

PoolEnd run_jobs(std::vector<Job>& jobs, int parallel, int* signal_out) {
  if (parallel < 1) parallel = 1;
  // Signals are taken synchronously (sigtimedwait) so the loop never races
  // a handler: SIGCHLD wakes it to reap, the others stop it.
  sigset_t wanted, original;
  sigemptyset(&wanted);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&wanted, s);
  ::sigprocmask(SIG_BLOCK, &wanted, &original);

  std::map<pid_t, Running> running;
  std::size_t next = 0;
  int stop_signal = 0;
  auto finish = [&](pid_t pid, int status) {
    auto it = running.find(pid);
    if (it == running.end()) return;
    Running r = it->second;
    running.erase(it);
    Outcome o;
    o.wall_s = std::chrono::duration<double>(Clock::now() - r.start).count();
    o.timed_out = r.timed_out;
    if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
    o.interrupted = r.stopped || (!r.timed_out && o.signal != 0 && is_stop_signal(o.signal));
    if (jobs[r.job].finished) jobs[r.job].finished(o);
  };

  while (true) {
    while (stop_signal == 0 && static_cast<int>(running.size()) < parallel && next < jobs.size()) {
      Job& job = jobs[next];
      const std::size_t index = next++;
      if (job.prepare && !job.prepare()) continue;
      const pid_t pid = spawn(job.command, original);
      if (pid < 0) {
        Outcome o;
        o.error = std::string("fork failed: ") + std::strerror(errno);
        if (job.finished) job.finished(o);
        continue;
      }
      running[pid] = Running{index, Clock::now(), false, false};
    }
    if (running.empty()) break;

    timespec wait{0, 200 * 1000 * 1000};
    const int sig = ::sigtimedwait(&wanted, nullptr, &wait);
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
      if (stop_signal == 0) {
        stop_signal = sig;
        for (auto& [pid, r] : running) {
          r.stopped = true;
          ::kill(pid, SIGTERM);
        }
      }
    }
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) finish(pid, status);
    const auto now = Clock::now();
    for (auto& [p, r] : running) {
      const double limit = jobs[r.job].timeout_s;
      if (!r.timed_out && limit > 0 && std::chrono::duration<double>(now - r.start).count() > limit) {
        r.timed_out = true;
        ::kill(p, SIGKILL);
      }
    }
  }
  ::sigprocmask(SIG_SETMASK, &original, nullptr);
  if (signal_out) *signal_out = stop_signal;
  return stop_signal ? PoolEnd::kInterrupted : PoolEnd::kFinished;
}

}  // namespace vp::sweep
