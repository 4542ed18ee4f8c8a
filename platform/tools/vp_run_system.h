// vp-run --system: the command-line side of a run of a system of chips
// (platform/system_run.h): the programs the system file names, the host's
// inputs into the first chip, the outputs and statistics out of the run.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "vp/config/param_set.h"
#include "vp/platform/system_file.h"

struct SystemRunOptions {
  const vp::platform::SystemFile* system = nullptr;
  const vp::config::ParamSet* params = nullptr;
  std::vector<std::string> inputs, outputs;
  uint32_t batch = 0;
  bool deploy = true;
  uint32_t retries = 2;
  uint64_t max_cycles = 0;
  std::string firmware, trace, stats, dump_config;
  bool quiet = false;
  const std::atomic<bool>* interrupt = nullptr;
};

// vp-run's exit status (0 done, 1 bad input, 3..6 as a single chip's run);
// kInterrupted when a signal stopped it (the caller knows which).
inline constexpr int kInterrupted = -1;
int run_system_command(const SystemRunOptions& o);
