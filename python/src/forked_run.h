// One run of the chip for the Python module, in a child process.
//
// SystemC elaborates once per process: a chip is built, run and never built
// again in the same process (vp-run runs once; the tests run one chip per
// process). The Python session runs many, so each run_model() call happens
// in a fork of the Python process, which calls the same library code vp-run
// does and sends the outcome back through a pipe. The child touches nothing
// of Python's: everything it needs is C++ data prepared before the fork.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "vp/platform/model_run.h"

namespace vp::py {

struct ChildOutcome {
  bool started = false;        // false: start_error says why the run did not start
  std::string start_error;
  std::string status;          // hw::run_status_name
  uint64_t cycles = 0;
  int exit_code = 0;           // as vp-run's (platform::run_ending); 1 when `error` is set
  std::vector<std::string> ending;  // the lines vp-run prints for it
  std::string error;           // a step after the run failed
  std::string stats_json;      // empty when there are no statistics
  std::vector<platform::OutputTensor> outputs;
  bool interrupted = false;
};

// Runs `setup` in a child process. `poll_interrupt` is called about ten
// times a second in the parent; when it returns true the child is asked to
// stop between two instructions (SIGINT) and the result says interrupted.
ChildOutcome run_in_child(const platform::RunSetup& setup, const std::function<bool()>& poll_interrupt);

}  // namespace vp::py
