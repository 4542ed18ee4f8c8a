#include "adc_calibration.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "compile_cache.h"
#include "vp/sweep/files.h"
#include "vp/sweep/process_pool.h"

namespace vp::sweep::detail {
namespace {

// One point's calibration, from its profile run to its recompiled program.
struct Calibration {
  const Point* point;
  std::string tmp, final_dir;
  bool profiled = false;
};

}  // namespace

std::string calibrated_program(const SweepSpec& spec, const Layout& layout, const Point& point) {
  return layout.calibrated(point.id) + "/" + spec.compiler_program;
}

bool calibrate_points(const SweepSpec& spec, const Plan& plan, const Layout& layout, const Tools& tools,
                      const std::vector<const Point*>& points, const std::map<std::string, std::string>& compile_failures,
                      const RunOptions& options, std::map<std::string, std::string>* failures, int* signal) {
  if (spec.adc_calib_inputs.empty()) return true;
  std::vector<std::unique_ptr<Calibration>> todo;
  for (const Point* p : points) {
    if (p->program.empty() || compile_failures.count(p->program)) continue;
    if (file_exists(layout.calibrated(p->id) + "/done")) continue;
    const std::string final_dir = layout.calibrated(p->id);
    todo.push_back(std::make_unique<Calibration>(
        Calibration{p, final_dir + ".tmp-" + std::to_string(::getpid()), final_dir}));
  }
  if (todo.empty()) return true;
  make_dirs(layout.root + "/calibrated");
  if (!options.quiet)
    std::cerr << fmt::format("vp-sweep: measuring the ADC ranges of {} point(s) on {} calibration input(s)\n",
                             todo.size(), spec.adc_calib_inputs.size());
  // 1. Each point's device profiles the largest column sum of every crossbar
  // with exact ADCs, as vp-eval does.
  std::vector<Job> profiles;
  for (auto& c : todo) {
    Calibration* cal = c.get();
    Job job;
    job.command.argv = point_device_argv(spec, *cal->point, tools.vp_run,
                                         compiled_program(spec, layout, cal->point->program));
    job.command.argv.insert(job.command.argv.end(), {"--set", "adc.mode=ideal"});
    for (const auto& in : spec.adc_calib_inputs) job.command.argv.insert(job.command.argv.end(), {"--input", in});
    job.command.argv.insert(job.command.argv.end(), {"--adc-profile", cal->tmp + "/adc_profile.json"});
    job.command.cwd = cal->tmp;
    job.command.stdout_path = cal->tmp + "/vp-run.stdout.txt";
    job.command.stderr_path = cal->tmp + "/vp-run.stderr.txt";
    job.timeout_s = spec.timeout_s;
    job.prepare = [cal] {
      remove_tree(cal->tmp);
      make_dirs(cal->tmp);
      return true;
    };
    // Runs inside the pool's loop: must not throw.
    job.finished = [cal, failures](const Outcome& o) {
      try {
        if (o.interrupted) {
          remove_tree(cal->tmp);
          return;
        }
        if (o.exit_code == 0 && !o.signal && o.error.empty() && file_exists(cal->tmp + "/adc_profile.json")) {
          cal->profiled = true;
          return;
        }
        (*failures)[cal->point->id] =
            "ADC profile: " + tool_failure(o, "vp-run --adc-profile", "adc_profile.json", cal->tmp + "/vp-run.stderr.txt");
        keep_failed(cal->tmp, cal->final_dir);
      } catch (const std::exception& e) {
        (*failures)[cal->point->id] = std::string("ADC profile: ") + e.what();
        remove_tree(cal->tmp);
      }
    };
    profiles.push_back(std::move(job));
  }
  if (run_jobs(profiles, options.parallel, signal) == PoolEnd::kInterrupted) return false;
  // 2. The program compiled again with each crossbar's measured range.
  std::vector<Job> compiles;
  for (auto& c : todo) {
    Calibration* cal = c.get();
    if (!cal->profiled) continue;
    Job job;
    job.command.argv = compiler_argv(spec, *plan.program(cal->point->program), tools.vp_cc, cal->tmp);
    // Every parameter of the point, not only those that shape the program:
    // the ranges are counted in LSBs of the point's ADC (adc.bits).
    for (const auto& file : spec.configs) job.command.argv.insert(job.command.argv.end(), {"--config", file});
    for (const auto& [k, v] : spec.fixed) job.command.argv.insert(job.command.argv.end(), {"--set", k + "=" + v});
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
      job.command.argv.insert(job.command.argv.end(), {"--set", spec.axes[a].param + "=" + cal->point->values[a]});
    job.command.argv.insert(job.command.argv.end(), {"--adc-ranges", cal->tmp + "/adc_profile.json",
                                                     "--adc-headroom", fmt::format("{}", spec.adc_headroom)});
    job.command.cwd = cal->tmp;
    job.command.stdout_path = cal->tmp + "/vp-cc.stdout.txt";
    job.command.stderr_path = cal->tmp + "/vp-cc.stderr.txt";
    job.prepare = [] { return true; };
    job.finished = [&spec, cal, failures](const Outcome& o) {
      try {
        if (o.interrupted) {
          remove_tree(cal->tmp);
          return;
        }
        if (o.exit_code == 0 && !o.signal && o.error.empty() && file_exists(cal->tmp + "/" + spec.compiler_program)) {
          write_file_atomically(cal->tmp + "/done", "calibrated\n");
          // A Slurm task racing on the same point may have published first: keep theirs.
          if (std::rename(cal->tmp.c_str(), cal->final_dir.c_str()) != 0) remove_tree(cal->tmp);
          return;
        }
        (*failures)[cal->point->id] =
            "vp-cc --adc-ranges: " + tool_failure(o, "vp-cc", spec.compiler_program, cal->tmp + "/vp-cc.stderr.txt");
        keep_failed(cal->tmp, cal->final_dir);
      } catch (const std::exception& e) {
        (*failures)[cal->point->id] = std::string("vp-cc --adc-ranges: ") + e.what();
        remove_tree(cal->tmp);
      }
    };
    compiles.push_back(std::move(job));
  }
  return run_jobs(compiles, options.parallel, signal) != PoolEnd::kInterrupted;
}

}  // namespace vp::sweep::detail
