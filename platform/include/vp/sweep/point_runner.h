// Runs the points of a plan as vp-run processes (compiling ONNX models with
// vp-cc first, once per program key), skipping every point whose `done`
// marker exists, so an interrupted sweep continues where it stopped.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "vp/sweep/layout.h"
#include "vp/sweep/plan.h"
#include "vp/sweep/sweep_spec.h"

namespace vp::sweep {

struct Tools {
  std::string vp_run;
  std::string vp_cc;  // "" when not found
  std::string vp_cc_looked;  // where it was looked for, for the error
};

// Explicit paths win; otherwise beside this executable, then $PATH.
// Throws SweepError when vp-run is nowhere.
Tools find_tools(const std::string& vp_run, const std::string& vp_cc);

// Throws SweepError when a point needs vp-cc and there is none.
void check_tools(const SweepSpec& spec, const Plan& plan, const Tools& tools);

struct RunOptions {
  int parallel = 1;
  bool retry_failed = false;  // rerun done points whose status is not "completed"
  bool quiet = false;         // no per-point progress lines
  bool write_plan = true;     // Slurm tasks leave plan.json as submitted
};

struct RunSummary {
  std::size_t selected = 0, already_done = 0, ran = 0, not_completed = 0, invalid = 0, busy = 0;
  bool interrupted = false;
  int signal = 0;
  double wall_s = 0;
};

// Runs `which` (indices into plan.points). Writes plan.json first.
RunSummary run_points(const SweepSpec& spec, const Plan& plan, const Layout& layout, const Tools& tools,
                      const std::vector<std::size_t>& which, const RunOptions& options);

// vp-run on one point's device: the program, the preset, configs, fixed
// and varied parameters and the seed (no inputs, outputs or statistics).
std::vector<std::string> point_device_argv(const SweepSpec& spec, const Point& point, const std::string& vp_run,
                                           const std::string& program);

// The vp-run command of one point (program = what --model gets).
std::vector<std::string> vp_run_argv(const SweepSpec& spec, const Point& point, const std::string& vp_run,
                                     const std::string& program);

// Compiles the ONNX programs the points `which` need and are not compiled
// yet, `options.parallel` at a time. Failures land in *failures (key ->
// why). False when interrupted by a signal (number in *signal).
bool compile_programs(const SweepSpec& spec, const Plan& plan, const Layout& layout, const Tools& tools,
                      const std::vector<std::size_t>& which, const RunOptions& options,
                      std::map<std::string, std::string>* failures, int* signal);

// Status of a done point ("" when not done).
std::string done_status(const Layout& layout, const Point& point);

// plan.json: the points, so Slurm tasks can check they expand the same plan.
void write_plan(const SweepSpec& spec, const Plan& plan, const Layout& layout);

}  // namespace vp::sweep
