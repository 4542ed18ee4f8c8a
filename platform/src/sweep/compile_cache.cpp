#include "compile_cache.h"

#include <unistd.h>

#include <cstdio>

#include "vp/sweep/files.h"

namespace vp::sweep::detail {
namespace {

// A finished vp-cc: its folder becomes the cache entry, or NAME.failed with
// the compiler's output for the user to read.
void publish_compiled(const SweepSpec& spec, const Outcome& o, const std::string& key, const std::string& tmp,
                      const std::string& final_dir, std::map<std::string, std::string>& failures) {
  const std::string program_file = tmp + "/" + spec.compiler_program;
  if (o.exit_code == 0 && file_exists(program_file)) {
    write_file_atomically(tmp + "/done", "compiled\n");
    // Another task may have published the same key meanwhile: keep theirs.
    if (std::rename(tmp.c_str(), final_dir.c_str()) != 0) remove_tree(tmp);
    return;
  }
  failures[key] = o.interrupted ? "interrupted"
                                : tool_failure(o, "vp-cc", spec.compiler_program, tmp + "/vp-cc.stderr.txt");
  if (o.interrupted) {
    remove_tree(tmp);
    return;
  }
  keep_failed(tmp, final_dir);
}

}  // namespace

std::string last_lines(const std::string& path, std::size_t n) {
  std::string text;
  try {
    text = read_file(path);
  } catch (const std::exception&) {
    return {};
  }
  while (!text.empty() && text.back() == '\n') text.pop_back();
  if (text.empty()) return {};  // vp-cc printed nothing
  std::size_t pos = text.size();
  for (std::size_t i = 0; i < n && pos != std::string::npos && pos > 0; ++i) pos = text.rfind('\n', pos - 1);
  return pos == std::string::npos ? text : text.substr(pos + 1);
}

std::string tool_failure(const Outcome& o, const std::string& tool, const std::string& output, const std::string& log) {
  std::string why = !o.error.empty()  ? o.error
                    : o.timed_out     ? tool + " timed out"
                    : o.signal        ? tool + " killed by signal " + std::to_string(o.signal)
                    : o.exit_code == 0 ? tool + " exited 0 but wrote no " + output
                                       : tool + " failed (exit " + std::to_string(o.exit_code) + ")";
  const std::string tail = last_lines(log, 3);
  return tail.empty() ? why : why + ": " + tail;
}

void keep_failed(const std::string& tmp, const std::string& final_dir) {
  remove_tree(final_dir + ".failed");
  if (std::rename(tmp.c_str(), (final_dir + ".failed").c_str()) != 0) remove_tree(tmp);
}

bool is_compiled(const Layout& layout, const std::string& key) {
  return file_exists(layout.compiled(key) + "/done");
}

std::string compiled_program(const SweepSpec& spec, const Layout& layout, const std::string& key) {
  return layout.compiled(key) + "/" + spec.compiler_program;
}

std::vector<std::string> compiler_argv(const SweepSpec& spec, const Program& program, const std::string& vp_cc,
                                       const std::string& out_dir) {
  std::vector<std::string> argv{vp_cc};
  auto replace = [](std::string s, const std::string& from, const std::string& to) {
    for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
    return s;
  };
  for (const auto& arg : spec.compiler_args) {
    if (arg == "{configs}") {
      for (const auto& c : spec.configs) argv.insert(argv.end(), {"--config", c});
    } else if (arg == "{sets}") {
      for (const auto& [k, v] : program.sets) argv.insert(argv.end(), {"--set", k + "=" + v});
    } else {
      // {dir}: the sweep file's folder, for files the compiler reads
      // (calibration inputs) named relative to the sweep file.
      const std::string dir = spec.path.substr(0, spec.path.rfind('/') == std::string::npos ? 0 : spec.path.rfind('/'));
      argv.push_back(replace(replace(replace(replace(arg, "{model}", spec.models[program.model]), "{out}", out_dir),
                                     "{preset}", spec.preset),
                             "{dir}", dir.empty() ? "." : dir));
    }
  }
  return argv;
}

std::vector<Job> compile_jobs(const SweepSpec& spec, const Plan& plan, const Layout& layout, const Tools& tools,
                              const std::vector<std::string>& keys, std::map<std::string, std::string>& failures) {
  std::vector<Job> jobs;
  make_dirs(layout.root + "/compiled");
  for (const auto& key : keys) {
    if (is_compiled(layout, key)) continue;
    const Program* program = plan.program(key);
    const std::string final_dir = layout.compiled(key);
    const std::string tmp = final_dir + ".tmp-" + std::to_string(::getpid());
    Job job;
    job.command.argv = compiler_argv(spec, *program, tools.vp_cc, tmp);
    job.command.cwd = tmp;
    job.command.stdout_path = tmp + "/vp-cc.stdout.txt";
    job.command.stderr_path = tmp + "/vp-cc.stderr.txt";
    job.prepare = [tmp] {
      remove_tree(tmp);
      make_dirs(tmp);
      return true;
    };
    // Runs inside the process pool's loop: it must not throw, and whatever
    // happens the temporary folder is published, kept as .failed or removed.
    job.finished = [&spec, &failures, key, tmp, final_dir](const Outcome& o) {
      try {
        publish_compiled(spec, o, key, tmp, final_dir, failures);
      } catch (const std::exception& e) {
        failures[key] = std::string("cannot keep the compiled program: ") + e.what();
        remove_tree(tmp);
      }
    };
    job.timeout_s = 0;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace vp::sweep::detail
