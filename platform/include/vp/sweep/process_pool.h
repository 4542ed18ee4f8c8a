// Runs commands as child processes, at most N at a time, on this machine.
// Each child's stdout and stderr go to files; a child dies with vp-sweep
// (PR_SET_PDEATHSIG), so killing the sweep never leaves simulations running.
// SIGINT/SIGTERM/SIGHUP stop the pool: running children are terminated and
// reported as interrupted, which callers treat as "not done".
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace vp::sweep {

struct Command {
  std::vector<std::string> argv;  // argv[0] is a path
  std::string cwd;                // "" = inherit
  std::string stdout_path, stderr_path;
};

struct Outcome {
  int exit_code = -1;     // when the child exited
  int signal = 0;         // when a signal ended it
  bool timed_out = false; // killed by the pool after the job's timeout
  bool interrupted = false;  // ended because the pool was stopped (or SIGINT/SIGTERM/SIGKILL/SIGHUP)
  double wall_s = 0;
  std::string error;      // the command could not be started
};

struct Job {
  // Called just before starting; false skips the job (e.g. someone else runs it).
  std::function<bool()> prepare;
  Command command;
  double timeout_s = 0;   // 0 = none
  // Called once the child has ended (not for skipped jobs).
  std::function<void(const Outcome&)> finished;
};

enum class PoolEnd { kFinished, kInterrupted };

// Runs every job with at most `parallel` children at once, in order of the
// vector. Returns kInterrupted after a termination signal (the signal number
// is in *signal_out when given).
PoolEnd run_jobs(std::vector<Job>& jobs, int parallel, int* signal_out = nullptr);

// Cores this process may use (sched_getaffinity), at least 1.
int usable_cores();

}  // namespace vp::sweep
