#include "vp/sweep/slurm.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <fmt/format.h>

#include "vp/sweep/files.h"
#include "vp/sweep/sweep_error.h"

namespace vp::sweep {
namespace {

std::string self_exe() {
  return self_dir() + "/vp-sweep";
}

std::string tool_args(const SweepSpec& spec, const Layout& layout, const Tools& tools) {
  std::string s = shell_quote(self_exe()) + " " + shell_quote(spec.path) + " --out " + shell_quote(layout.root) +
                  " --vp-run " + shell_quote(tools.vp_run);
  if (!tools.vp_cc.empty()) s += " --vp-cc " + shell_quote(tools.vp_cc);
  return s;
}

void write_script(const std::string& path, const std::string& text) {
  write_file_atomically(path, text);
  ::chmod(path.c_str(), 0755);
}

// Runs a shell command, returns its stdout; throws with its output on failure.
std::string run_capture(const std::string& cmd) {
  std::FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) throw SweepError("", "cannot run: " + cmd);
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int st = ::pclose(p);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) throw SweepError("", cmd + " failed:\n" + out);
  return out;
}

std::string job_id(const std::string& parsable) {
  // --parsable prints "jobid[;cluster]" (after any warnings).
  std::string last = parsable;
  while (!last.empty() && (last.back() == '\n' || last.back() == ' ')) last.pop_back();
  last = last.substr(last.rfind('\n') == std::string::npos ? 0 : last.rfind('\n') + 1);
  return last.substr(0, last.find(';'));
}

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string array_ranges(const std::vector<std::size_t>& sorted) {
  std::string out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(sorted[i]) + (j > i ? "-" + std::to_string(sorted[j]) : "");
    i = j + 1;
  }
  return out;
}

SlurmSubmission submit_slurm(const SweepSpec& spec, const Plan& plan, const Layout& layout, const Tools& tools,
                             const std::vector<std::size_t>& pending, const SlurmOptions& options) {
  SlurmSubmission sub;
  make_dirs(layout.slurm());
  write_plan(spec, plan, layout);
  // One task per pending point while the indices fit the array limit;
  // beyond it, task k runs every point k, k + T, k + 2T, ... (done ones skip).
  std::string run;
  if (plan.points.size() <= options.max_array) {
    sub.array_spec = array_ranges(pending);
    run = " --run-point \"$SLURM_ARRAY_TASK_ID\"";
  } else {
    const std::size_t tasks = std::min(options.max_array, pending.size());
    sub.array_spec = "0-" + std::to_string(tasks - 1);
    run = " --run-point \"$SLURM_ARRAY_TASK_ID\" --stride " + std::to_string(tasks);
  }
  const std::string header = fmt::format(
      "#!/bin/sh\n# Written by vp-sweep for {}; the folder layout is the same as a local run.\n", spec.path);
  sub.array_script = layout.slurm() + "/array.sh";
  write_script(sub.array_script,
               header + fmt::format("#SBATCH --job-name=vp-sweep-{}\n#SBATCH --output={}/task-%A_%a.out\n"
                                    "#SBATCH --cpus-per-task=1\n#SBATCH --array={}\nexec {}{}\n",
                                    spec.name, layout.slurm(), sub.array_spec, tool_args(spec, layout, tools), run));
  sub.collect_script = layout.slurm() + "/collect.sh";
  write_script(sub.collect_script,
               header + fmt::format("#SBATCH --job-name=vp-sweep-{}-collect\n#SBATCH --output={}/collect-%j.out\n"
                                    "exec {} --collect\n",
                                    spec.name, layout.slurm(), tool_args(spec, layout, tools)));
  if (!options.submit) return sub;

  std::string extra;
  for (const auto& a : options.sbatch_args) extra += " " + shell_quote(a);
  sub.array_job = job_id(run_capture(shell_quote(options.sbatch) + " --parsable" + extra + " " +
                                     shell_quote(sub.array_script)));
  sub.collect_job = job_id(run_capture(shell_quote(options.sbatch) + " --parsable" + extra +
                                       " --kill-on-invalid-dep=no --dependency=afterany:" + sub.array_job +
                                       (options.wait ? " --wait" : "") + " " + shell_quote(sub.collect_script)));
  return sub;
}

}  // namespace vp::sweep
