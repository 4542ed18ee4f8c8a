#include "vp/sweep/point_runner.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "adc_calibration.h"
#include "compile_cache.h"
#include "vp/sweep/files.h"
#include "vp/sweep/process_pool.h"
#include "vp/sweep/sweep_error.h"

namespace vp::sweep {
namespace {

using nlohmann::json;

bool executable(const std::string& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0; }

std::string find_beside_or_on_path(const std::string& name, std::string* looked) {
  const std::string beside = self_dir() + "/" + name;
  *looked = beside;
  if (executable(beside)) return beside;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  std::size_t pos = 0;
  while (pos <= dirs.size()) {
    std::size_t end = dirs.find(':', pos);
    if (end == std::string::npos) end = dirs.size();
    const std::string cand = dirs.substr(pos, end - pos) + "/" + name;
    if (end > pos && executable(cand)) return cand;
    pos = end + 1;
  }
  *looked += " and $PATH";
  return {};
}

// vp-run's exit codes (platform/tools/vp_run_main.cpp).
std::string status_of(const Outcome& o) {
  if (!o.error.empty()) return "error";
  if (o.timed_out) return "timeout";
  if (o.signal) return "crashed";
  switch (o.exit_code) {
    case 0: return "completed";
    case 1: return "bad_input";
    case 2: return "usage";
    case 3: return "deadlock";
    case 4: return "max_cycles";
    case 5: return "fault";
    case 6: return "trap";
    default: return "exit_" + std::to_string(o.exit_code);
  }
}

// An exclusive, non-blocking lock on the point, held while it runs, so two
// sweeps (or a sweep and a Slurm task) never run one point at once. The
// kernel drops it when the holder dies.
class PointLock {
 public:
  explicit PointLock(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~PointLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  PointLock(const PointLock&) = delete;
  PointLock& operator=(const PointLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

std::string hostname() {
  char buf[256] = {0};
  return ::gethostname(buf, sizeof buf - 1) == 0 ? buf : "";
}

json point_json(const SweepSpec& spec, const Point& p) {
  json values = json::object();
  for (std::size_t a = 0; a < spec.axes.size(); ++a) values[spec.axes[a].param] = p.values[a];
  return {{"index", p.index}, {"id", p.id},           {"model", spec.models[p.model]},
          {"seed", p.seed},   {"parameters", values}, {"program", p.program}};
}

}  // namespace

Tools find_tools(const std::string& vp_run, const std::string& vp_cc) {
  Tools t;
  std::string looked;
  t.vp_run = vp_run.empty() ? find_beside_or_on_path("vp-run", &looked) : absolute(vp_run);
  if (!executable(t.vp_run))
    throw SweepError("", "vp-run not found (looked at " + (vp_run.empty() ? looked : vp_run) +
                             "); build it (ninja vp-run) or pass --vp-run PATH");
  t.vp_cc = vp_cc.empty() ? find_beside_or_on_path("vp-cc", &t.vp_cc_looked) : absolute(vp_cc);
  if (!vp_cc.empty()) t.vp_cc_looked = vp_cc;
  if (!executable(t.vp_cc)) t.vp_cc.clear();
  return t;
}

void check_tools(const SweepSpec& spec, const Plan& plan, const Tools& tools) {
  if (plan.programs.empty() || !tools.vp_cc.empty()) return;
  throw SweepError(spec.path, "model " + spec.models[plan.programs.front().model] +
                                  " is ONNX and needs vp-cc to compile it, but vp-cc was not found (looked at " +
                                  tools.vp_cc_looked +
                                  "); build it (ninja vp-cc), pass --vp-cc PATH, or sweep an assembled "
                                  "program (.s/.vpo) instead");
}

std::vector<std::string> point_device_argv(const SweepSpec& spec, const Point& point, const std::string& vp_run,
                                           const std::string& program) {
  std::vector<std::string> argv{vp_run, "-q", "--model", program, "--chip", spec.preset};
  for (const auto& c : spec.configs) argv.insert(argv.end(), {"--config", c});
  for (const auto& [k, v] : spec.fixed) argv.insert(argv.end(), {"--set", k + "=" + v});
  for (std::size_t a = 0; a < spec.axes.size(); ++a)
    argv.insert(argv.end(), {"--set", spec.axes[a].param + "=" + point.values[a]});
  argv.insert(argv.end(), {"--seed", std::to_string(point.seed)});
  return argv;
}

std::vector<std::string> vp_run_argv(const SweepSpec& spec, const Point& point, const std::string& vp_run,
                                     const std::string& program) {
  std::vector<std::string> argv = point_device_argv(spec, point, vp_run, program);
  argv.insert(argv.end(), {"--stats", "stats.json"});
  for (const auto& in : spec.inputs) argv.insert(argv.end(), {"--input", in});
  for (const auto& o : spec.outputs) argv.insert(argv.end(), {"--output", o.file + o.spec});
  if (spec.max_cycles) argv.insert(argv.end(), {"--max-cycles", std::to_string(spec.max_cycles)});
  if (spec.batch) argv.insert(argv.end(), {"--batch", std::to_string(spec.batch)});
  return argv;
}

std::string done_status(const Layout& layout, const Point& point) {
  if (!file_exists(layout.done(point.id))) return {};
  try {
    std::string s = read_file(layout.done(point.id));
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s.empty() ? "completed" : s;
  } catch (const std::exception&) {
    return "completed";
  }
}

void write_plan(const SweepSpec& spec, const Plan& plan, const Layout& layout) {
  json points = json::array();
  for (const auto& p : plan.points) points.push_back(point_json(spec, p));
  json axes = json::array();
  for (const auto& a : spec.axes) axes.push_back(a.param);
  const json j = {{"sweep", spec.path}, {"name", spec.name}, {"parameters", axes}, {"points", points}};
  make_dirs(layout.root);
  write_file_atomically(layout.plan(), j.dump(1) + "\n");
}

bool compile_programs(const SweepSpec& spec, const Plan& plan, const Layout& layout, const Tools& tools,
                      const std::vector<std::size_t>& which, const RunOptions& options,
                      std::map<std::string, std::string>* failures, int* signal) {
  std::set<std::string> keys;
  for (std::size_t i : which)
    if (!plan.points.at(i).program.empty()) keys.insert(plan.points[i].program);
  if (keys.empty()) return true;
  std::vector<Job> jobs = detail::compile_jobs(spec, plan, layout, tools, {keys.begin(), keys.end()}, *failures);
  if (!jobs.empty() && !options.quiet)
    std::cerr << fmt::format("vp-sweep: compiling {} program(s) with {}\n", jobs.size(), tools.vp_cc);
  return run_jobs(jobs, options.parallel, signal) != PoolEnd::kInterrupted;
}

RunSummary run_points(const SweepSpec& spec, const Plan& plan, const Layout& layout, const Tools& tools,
                      const std::vector<std::size_t>& which, const RunOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  RunSummary sum;
  sum.selected = which.size();
  if (options.write_plan) write_plan(spec, plan, layout);
  make_dirs(layout.points());

  std::vector<const Point*> todo;
  for (std::size_t i : which) {
    const Point& p = plan.points.at(i);
    if (!p.invalid.empty()) {
      ++sum.invalid;
      continue;
    }
    const std::string st = done_status(layout, p);
    if (!st.empty() && (st == "completed" || !options.retry_failed)) {
      ++sum.already_done;
      continue;
    }
    todo.push_back(&p);
  }

  // Compile first: every program key the remaining points need, in parallel.
  std::map<std::string, std::string> compile_failures;
  {
    std::vector<std::size_t> indices;
    for (const Point* p : todo) indices.push_back(p->index);
    if (!compile_programs(spec, plan, layout, tools, indices, options, &compile_failures, &sum.signal)) {
      sum.interrupted = true;
      return sum;
    }
  }

  // Then each point's ADC ranges, measured on its own device (compiler.adc_ranges).
  std::map<std::string, std::string> calibration_failures;
  if (!detail::calibrate_points(spec, plan, layout, tools, todo, compile_failures, options, &calibration_failures,
                                &sum.signal)) {
    sum.interrupted = true;
    return sum;
  }

  if (!options.quiet)
    std::cerr << fmt::format("vp-sweep: {} point(s): {} done before, {} to run, {} invalid; {} at a time\n",
                             sum.selected, sum.already_done, todo.size(), sum.invalid, options.parallel);
  std::vector<Job> jobs;
  std::map<std::string, std::unique_ptr<PointLock>> locks;  // held from prepare to finished
  std::size_t finished = 0;
  for (const Point* p : todo) {
    const std::string dir = layout.point(p->id);
    const std::string program = p->program.empty()              ? spec.models[p->model]
                                : !spec.adc_calib_inputs.empty() ? detail::calibrated_program(spec, layout, *p)
                                                                 : detail::compiled_program(spec, layout, p->program);
    Job job;
    job.command.argv = vp_run_argv(spec, *p, tools.vp_run, program);
    job.command.cwd = dir;
    job.command.stdout_path = dir + "/stdout.txt";
    job.command.stderr_path = dir + "/stderr.txt";
    job.timeout_s = spec.timeout_s;
    const std::vector<std::string> argv = job.command.argv;
    job.prepare = [&, p, dir, argv] {
      auto lock = std::make_unique<PointLock>(layout.point_lock(p->id));
      if (!lock->held()) {
        ++sum.busy;
        return false;
      }
      // Whatever an interrupted attempt left is stale: start clean.
      remove_tree(dir);
      make_dirs(dir);
      json pj = point_json(spec, *p);
      pj["command"] = argv;
      write_file_atomically(dir + "/point.json", pj.dump(1) + "\n");
      // A point whose program could not be made is done without running.
      const auto not_run = [&](const std::string& status, const std::string& why) {
        write_file_atomically(layout.result(p->id), json{{"status", status}, {"message", why}}.dump(1) + "\n");
        write_file_atomically(layout.done(p->id), status + "\n");
        ++sum.not_completed;
        return false;
      };
      if (const auto failed = compile_failures.find(p->program); failed != compile_failures.end())
        return not_run("compile_error", failed->second);
      if (const auto failed = calibration_failures.find(p->id); failed != calibration_failures.end())
        return not_run("calibration_error", failed->second);
      locks[p->id] = std::move(lock);
      return true;
    };
    job.finished = [&, p, argv](const Outcome& o) {
      // Stopped by a signal meant for the sweep: not done, rerun next time.
      if (o.interrupted) {
        locks.erase(p->id);
        return;
      }
      const std::string status = status_of(o);
      json r = {{"index", p->index}, {"id", p->id},         {"status", status},
                {"exit_code", o.exit_code}, {"signal", o.signal}, {"wall_s", o.wall_s},
                {"host", hostname()}, {"command", argv}};
      if (!o.error.empty()) r["message"] = o.error;
      write_file_atomically(layout.result(p->id), r.dump(1) + "\n");
      write_file_atomically(layout.done(p->id), status + "\n");  // last: the point is done
      locks.erase(p->id);
      ++sum.ran;
      if (status != "completed") ++sum.not_completed;
      ++finished;
      if (!options.quiet)
        std::cerr << fmt::format("[{}/{}] {:<10} {} ({:.2f} s)\n", finished, todo.size(), status, describe(spec, *p),
                                 o.wall_s);
    };
    jobs.push_back(std::move(job));
  }
  if (run_jobs(jobs, options.parallel, &sum.signal) == PoolEnd::kInterrupted) sum.interrupted = true;
  sum.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return sum;
}

}  // namespace vp::sweep
