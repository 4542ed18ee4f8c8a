// ONNX models compiled once per distinct combination of program-affecting
// parameters (ParamDef::affects_program): OUT/compiled/<key>/ holds vp-cc's
// output and a `done` marker. A compile runs in "<key>.tmp-<pid>" and is
// renamed into place, so concurrent Slurm tasks racing on one key at worst
// compile twice and never see half a program (private to src/sweep).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "vp/sweep/layout.h"
#include "vp/sweep/plan.h"
#include "vp/sweep/point_runner.h"
#include "vp/sweep/process_pool.h"

namespace vp::sweep::detail {

bool is_compiled(const Layout& layout, const std::string& key);

// The last n lines of a tool's log file ("" when it is empty or unreadable).
std::string last_lines(const std::string& path, std::size_t n);

// Why a tool's run did not give its `output`: the pool's error, a timeout,
// a signal, a clean exit without the file, or the exit code; then the last
// lines of its `log`.
std::string tool_failure(const Outcome& o, const std::string& tool, const std::string& output, const std::string& log);

// A failed step's temporary folder `tmp` kept for the user as
// `final_dir`.failed (an older one replaced).
void keep_failed(const std::string& tmp, const std::string& final_dir);

// The program file vp-run gets for a compiled key.
std::string compiled_program(const SweepSpec& spec, const Layout& layout, const std::string& key);

// vp-cc's command line from the sweep's template.
std::vector<std::string> compiler_argv(const SweepSpec& spec, const Program& program, const std::string& vp_cc,
                                       const std::string& out_dir);

// Jobs for the keys not compiled yet; a failure's message lands in
// failures[key] (and its log in OUT/compiled/<key>.failed/).
std::vector<Job> compile_jobs(const SweepSpec& spec, const Plan& plan, const Layout& layout, const Tools& tools,
                              const std::vector<std::string>& keys, std::map<std::string, std::string>& failures);

}  // namespace vp::sweep::detail
