// The sweep as a Slurm job array: each array task runs
// `vp-sweep SWEEP --out OUT --run-point K` on the same folder layout (a
// shared file system), and a job depending on the array (afterany) runs
// `vp-sweep SWEEP --out OUT --collect`.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "vp/sweep/layout.h"
#include "vp/sweep/plan.h"
#include "vp/sweep/point_runner.h"
#include "vp/sweep/sweep_spec.h"

namespace vp::sweep {

struct SlurmOptions {
  std::vector<std::string> sbatch_args;  // passed to both sbatch calls, e.g. --partition=x
  std::size_t max_array = 1000;          // Slurm's default MaxArraySize is 1001
  bool submit = true;                    // false: write the scripts only
  bool wait = false;                     // block until the collect job has finished
  std::string sbatch = "sbatch";
};

struct SlurmSubmission {
  std::string array_script, collect_script;
  std::string array_spec;  // what --array got
  std::string array_job, collect_job;  // job ids ("" when not submitted)
};

// `pending`: indices of the points still to run (non-empty).
SlurmSubmission submit_slurm(const SweepSpec& spec, const Plan& plan, const Layout& layout, const Tools& tools,
                             const std::vector<std::size_t>& pending, const SlurmOptions& options);

// "0-3,7,9-10" from sorted indices.
std::string array_ranges(const std::vector<std::size_t>& sorted);

// Single-quoted for /bin/sh.
std::string shell_quote(const std::string& s);

}  // namespace vp::sweep
