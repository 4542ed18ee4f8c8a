// vp-sweep: runs a sweep file's design points as vp-run processes (in
// parallel here, or as a Slurm job array), resumably, and collects one row
// per point into CSV, JSON, plots and a Pareto front. docs/vp-sweep.md.
//
// Exit codes: 0 every point completed (or --collect/--slurm/--dry-run done);
// 1 bad sweep file or other error; 2 usage; 3 interrupted (rerun the same
// command to continue); 4 every point ran but some did not complete
// (deadlock, fault, timeout, ...: see the status column).
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "vp/common/atomic_file.h"
#include "vp/common/parse_number.h"
#include "vp/sweep/files.h"
#include "vp/sweep/layout.h"
#include "vp/sweep/plan.h"
#include "vp/sweep/plots.h"
#include "vp/sweep/point_runner.h"
#include "vp/sweep/process_pool.h"
#include "vp/sweep/results.h"
#include "vp/sweep/slurm.h"
#include "vp/sweep/sweep_error.h"
#include "vp/sweep/sweep_spec.h"

namespace po = boost::program_options;
using namespace vp::sweep;

namespace {

constexpr int kExitError = 1, kExitUsage = 2, kExitInterrupted = 3, kExitIncomplete = 4;

std::string default_out(const SweepSpec& spec) {
  return spec.out_dir.empty() ? absolute(spec.name + ".sweep") : spec.out_dir;
}

// Results of whatever is done so far; pending points get empty metrics.
int collect(const SweepSpec& spec, const Plan& plan, const Layout& layout, bool quiet) {
  std::vector<Row> rows = collect_rows(spec, plan, layout);
  mark_pareto(spec, rows);
  make_dirs(layout.root);
  // The tables and plots of one collection appear together or not at all:
  // a results.csv never sits beside the results.json or plots of an older one.
  std::size_t plot_files = 0;
  {
    vp::common::AtomicFile csv(layout.root + "/results.csv"), json(layout.root + "/results.json");
    csv.write(results_csv(spec, rows));
    json.write(results_json(spec, rows).dump(1) + "\n");
    const StagedFiles plots = stage_plots(spec, rows, layout.plots());
    std::vector<vp::common::AtomicFile*> all{&csv, &json};
    for (const auto& p : plots) all.push_back(p.get());
    vp::common::commit_together(all, /*durable=*/true);
    plot_files = plots.size();
  }
  std::map<std::string, int> by_status;
  for (const auto& r : rows) by_status[r.status]++;
  std::string counts;
  for (const auto& [s, n] : by_status) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, s);
  if (!quiet)
    std::cerr << fmt::format("vp-sweep: {} points ({}); results in {}/results.csv, results.json, {} plot files in {}\n",
                             rows.size(), counts, layout.root, plot_files, layout.plots());
  const std::size_t fine = static_cast<std::size_t>(by_status["completed"] + by_status["invalid"]);
  return rows.size() == fine ? 0 : kExitIncomplete;
}

void check_plan_matches(const Plan& plan, const Layout& layout) {
  if (!file_exists(layout.plan())) return;
  const auto j = nlohmann::json::parse(read_file(layout.plan()));
  const auto& pts = j.at("points");
  bool same = pts.size() == plan.points.size();
  for (std::size_t i = 0; same && i < pts.size(); ++i) same = pts[i].at("id") == plan.points[i].id;
  if (!same)
    throw SweepError(layout.plan(), "the sweep file no longer expands to the plan this folder was started with; "
                                    "use a new --out folder or resubmit");
}

int run(int argc, char** argv) {
  po::options_description opts("vp-sweep options");
  std::vector<std::string> sbatch_args;
  opts.add_options()
      ("help,h", "this help")
      ("sweep", po::value<std::string>(), "the sweep file (YAML)")
      ("out,o", po::value<std::string>(), "output folder (default: the file's `output:`, else ./NAME.sweep)")
      ("jobs,j", po::value<std::string>()->default_value(std::to_string(usable_cores())), "points run at once on this machine")
      ("dry-run,n", "list the points and their vp-run commands; run nothing")
      ("retry-failed", "rerun done points whose status is not `completed`")
      ("vp-run", po::value<std::string>()->default_value(""), "vp-run to use (default: beside vp-sweep, then $PATH)")
      ("vp-cc", po::value<std::string>()->default_value(""), "vp-cc for .onnx models (default: beside vp-sweep, then $PATH)")
      ("slurm", "submit the pending points as a Slurm job array (+ a job that collects the results)")
      ("sbatch-arg", po::value(&sbatch_args)->composing(), "extra sbatch argument, e.g. --partition=cpu; repeatable")
      ("slurm-max-array", po::value<std::string>()->default_value("1000"), "largest array index Slurm accepts")
      ("no-submit", "with --slurm: write the job scripts only")
      ("wait", "with --slurm: wait until the collect job has finished")
      ("run-point", po::value<std::string>(), "run one point by index (what a Slurm task does)")
      ("stride", po::value<std::string>()->default_value("0"), "with --run-point K: also K+S, K+2S, ...")
      ("collect", "build results.csv/json and plots from the points done so far")
      ("quiet,q", "no progress lines");
  po::positional_options_description pos;
  pos.add("sweep", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(opts).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "vp-sweep: " << e.what() << "\n" << opts;
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << "usage: vp-sweep SWEEP.yaml [-o DIR] [-j N] [--slurm | --run-point K | --collect]\n" << opts;
    return 0;
  }
  if (!vm.count("sweep")) {
    std::cerr << "vp-sweep: no sweep file given\n" << opts;
    return kExitUsage;
  }
  const int modes = static_cast<int>(vm.count("slurm") + vm.count("run-point") + vm.count("collect") + vm.count("dry-run"));
  if (modes > 1) {
    std::cerr << "vp-sweep: --slurm, --run-point, --collect and --dry-run exclude each other\n";
    return kExitUsage;
  }
  // Counts and indices, strictly: "-1" is an error, not 2^64 - 1.
  std::uint64_t jobs = 0, max_array = 0, run_point = 0, stride = 0;
  try {
    jobs = vp::common::parse_uint(vm["jobs"].as<std::string>(), "--jobs", 4096);
    max_array = vp::common::parse_uint(vm["slurm-max-array"].as<std::string>(), "--slurm-max-array");
    if (vm.count("run-point")) run_point = vp::common::parse_uint(vm["run-point"].as<std::string>(), "--run-point");
    stride = vp::common::parse_uint(vm["stride"].as<std::string>(), "--stride");
  } catch (const vp::common::NumberError& e) {
    std::cerr << "vp-sweep: " << e.what() << "\n";
    return kExitUsage;
  }
  if (jobs < 1) {
    std::cerr << "vp-sweep: --jobs must be at least 1\n";
    return kExitUsage;
  }
  if (max_array < 1) {
    std::cerr << "vp-sweep: --slurm-max-array must be at least 1\n";
    return kExitUsage;
  }
  const bool quiet = vm.count("quiet") > 0;

  const SweepSpec spec = parse_sweep_file(vm["sweep"].as<std::string>());
  const Plan plan = make_plan(spec);
  const Layout layout{vm.count("out") ? absolute(vm["out"].as<std::string>()) : default_out(spec)};

  if (vm.count("collect")) {
    collect(spec, plan, layout, quiet);
    return 0;
  }
  if (vm.count("dry-run")) {
    const Tools tools = find_tools(vm["vp-run"].as<std::string>(), vm["vp-cc"].as<std::string>());
    for (const auto& p : plan.points) {
      std::string cmd;
      const std::string program =
          p.program.empty() ? spec.models[p.model] : layout.compiled(p.program) + "/" + spec.compiler_program;
      for (const auto& a : vp_run_argv(spec, p, tools.vp_run, program)) cmd += " " + shell_quote(a);
      const std::string st = done_status(layout, p);
      std::cout << fmt::format("{} {} {}{}\n  {}\n", p.index, p.id, describe(spec, p),
                               !p.invalid.empty() ? " [invalid: " + p.invalid + "]" : st.empty() ? "" : " [" + st + "]",
                               cmd.substr(1));
    }
    std::cout << fmt::format("{} points, {} programs to compile\n", plan.points.size(), plan.programs.size());
    return 0;
  }

  const Tools tools = find_tools(vm["vp-run"].as<std::string>(), vm["vp-cc"].as<std::string>());
  check_tools(spec, plan, tools);
  RunOptions ro;
  ro.parallel = static_cast<int>(jobs);
  // With a point on every core, a point's second host thread for its
  // deployment (hw::DeployAhead) only competes with the other points for
  // the cores and holds its results' memory: each point deploys on its own
  // thread (the same results either way; an explicit VP_DEPLOY_AHEAD is
  // left as it is).
  if (jobs >= static_cast<std::uint64_t>(usable_cores())) ::setenv("VP_DEPLOY_AHEAD", "0", 0);
  ro.retry_failed = vm.count("retry-failed") > 0;
  ro.quiet = quiet;

  if (vm.count("slurm")) {
    std::vector<std::size_t> pending;
    for (const auto& p : plan.points) {
      const std::string st = done_status(layout, p);
      if (p.invalid.empty() && (st.empty() || (ro.retry_failed && st != "completed"))) pending.push_back(p.index);
    }
    if (pending.empty()) {
      std::cerr << "vp-sweep: every point is done; collecting\n";
      return collect(spec, plan, layout, quiet);
    }
    // Compiled here, once, rather than by every array task at the same time.
    std::map<std::string, std::string> failures;
    int signal = 0;
    if (!compile_programs(spec, plan, layout, tools, pending, ro, &failures, &signal)) return kExitInterrupted;
    for (const auto& [key, why] : failures) std::cerr << "vp-sweep: compile " << key << " failed: " << why << "\n";
    SlurmOptions so;
    so.sbatch_args = sbatch_args;
    so.max_array = static_cast<std::size_t>(max_array);
    so.submit = !vm.count("no-submit");
    so.wait = vm.count("wait") > 0;
    const SlurmSubmission sub = submit_slurm(spec, plan, layout, tools, pending, so);
    if (!so.submit) {
      std::cout << fmt::format("wrote {} (--array={}) and {}\n", sub.array_script, sub.array_spec, sub.collect_script);
      return 0;
    }
    std::cout << fmt::format("submitted job array {} ({} points, --array={}) and collect job {}; results in {}\n",
                             sub.array_job, pending.size(), sub.array_spec, sub.collect_job, layout.root);
    return 0;
  }

  std::vector<std::size_t> which;
  if (vm.count("run-point")) {
    const std::size_t k = static_cast<std::size_t>(run_point);
    if (k >= plan.points.size())
      throw SweepError("", fmt::format("--run-point {}: the sweep has {} points", k, plan.points.size()));
    check_plan_matches(plan, layout);
    for (std::size_t i = k; i < plan.points.size(); i += stride ? stride : plan.points.size()) which.push_back(i);
    ro.parallel = 1;
    ro.write_plan = false;
  } else {
    for (std::size_t i = 0; i < plan.points.size(); ++i) which.push_back(i);
  }
  const RunSummary sum = run_points(spec, plan, layout, tools, which, ro);
  if (sum.interrupted) {
    std::cerr << fmt::format("vp-sweep: interrupted by signal {}; {} point(s) finished this time. Run the same "
                             "command again to continue: finished points are not rerun\n",
                             sum.signal, sum.ran);
    return kExitInterrupted;
  }
  if (vm.count("run-point")) return sum.not_completed ? kExitIncomplete : 0;
  if (!quiet)
    std::cerr << fmt::format("vp-sweep: ran {} point(s) in {:.1f} s ({} not completed, {} busy elsewhere)\n", sum.ran,
                             sum.wall_s, sum.not_completed, sum.busy);
  return collect(spec, plan, layout, quiet);
}

}  // namespace

// What was printed (the --dry-run listing, the summary lines) reached
// standard output: `--dry-run > /dev/full` is an error, not a silent 0.
int with_stdout_checked(int code) {
  std::cout.flush();
  if (std::cout && std::fflush(stdout) == 0 && !std::ferror(stdout)) return code;
  std::cerr << "vp-sweep: cannot write to standard output (a full disk or a closed pipe)\n";
  return code ? code : kExitError;
}

int main(int argc, char** argv) {
  try {
    return with_stdout_checked(run(argc, argv));
  } catch (const SweepError& e) {
    std::cerr << "vp-sweep: " << e.what() << "\n";
    return kExitError;
  } catch (const std::exception& e) {
    std::cerr << "vp-sweep: " << e.what() << "\n";
    return kExitError;
  } catch (...) {
    std::cerr << "vp-sweep: internal error: unknown exception\n";
    return kExitError;
  }
}
