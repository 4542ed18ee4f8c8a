#include "forked_run.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <systemc>

namespace vp::py {

namespace {

std::atomic<bool> g_child_interrupt{false};

extern "C" void on_child_stop(int) { g_child_interrupt.store(true, std::memory_order_relaxed); }

void write_all(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(120);  // the parent is gone; nobody to tell
    p += n;
    size -= static_cast<size_t>(n);
  }
}

// The child's whole life: run, send the outcome, leave without running any
// of the parent's exit handlers (Python's, the interpreter's atexit).
[[noreturn]] void child_main(int fd, platform::RunSetup setup) {
  struct sigaction sa {};
  sa.sa_handler = on_child_stop;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  setup.interrupt = &g_child_interrupt;
  setup.progress = false;
  setup.notes = false;
  // The kernel's own notes repeat what the result says in words.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);

  nlohmann::json head;
  std::vector<platform::OutputTensor> outputs;
  try {
    platform::RunOutcome o = platform::run_model(setup);
    const platform::RunEnding end = platform::run_ending(o, setup.firmware == nullptr);
    head["started"] = true;
    head["status"] = hw::run_status_name(o.result.status);
    head["cycles"] = o.result.cycles;
    head["interrupted"] = o.result.status == hw::RunStatus::Interrupted;
    head["message"] = o.result.message;
    head["exit_code"] = end.exit_code ? end.exit_code : o.error.empty() ? 0 : 1;
    head["ending"] = end.lines;
    head["error"] = o.error;
    head["stats"] = o.stats.is_null() ? std::string() : o.stats.dump();
    outputs = std::move(o.outputs);
  } catch (const std::exception& e) {
    head = {{"started", false}, {"start_error", e.what()}};
  }
  nlohmann::json outs = nlohmann::json::array();
  for (const auto& t : outputs) outs.push_back({{"path", t.path}, {"dtype", t.dtype}, {"shape", t.shape}, {"bytes", t.bytes.size()}});
  head["outputs"] = outs;
  const std::string text = head.dump();
  const uint64_t size = text.size();
  write_all(fd, &size, sizeof size);
  write_all(fd, text.data(), text.size());
  for (const auto& t : outputs) write_all(fd, t.bytes.data(), t.bytes.size());
  ::close(fd);
  _exit(0);
}

}  // namespace

ChildOutcome run_in_child(const platform::RunSetup& setup, const std::function<bool()>& poll_interrupt) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("cannot start the simulation process: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], setup);
  }
  ::close(fds[1]);

  std::string data;
  bool asked_to_stop = false;
  char chunk[1 << 16];
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    const int r = ::poll(&p, 1, 100);
    if (r == 0 || (r < 0 && errno == EINTR)) {
      if (!asked_to_stop && poll_interrupt && poll_interrupt()) {
        ::kill(pid, SIGINT);
        asked_to_stop = true;
      }
      continue;
    }
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(chunk, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }

  uint64_t size = 0;
  if (data.size() < sizeof size || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    if (WIFSIGNALED(wstatus))
      throw std::runtime_error(std::string("the simulation process ended with signal ") +
                               std::to_string(WTERMSIG(wstatus)) + " (" + strsignal(WTERMSIG(wstatus)) + ")");
    throw std::runtime_error("the simulation process ended with status " + std::to_string(WEXITSTATUS(wstatus)) +
                             " before reporting");
  }
  std::memcpy(&size, data.data(), sizeof size);
  if (data.size() < sizeof size + size) throw std::runtime_error("the simulation process's report is cut short");
  const nlohmann::json head = nlohmann::json::parse(data.substr(sizeof size, size));
  ChildOutcome out;
  out.started = head.at("started").get<bool>();
  if (!out.started) {
    out.start_error = head.at("start_error").get<std::string>();
    return out;
  }
  out.status = head.at("status").get<std::string>();
  out.cycles = head.at("cycles").get<uint64_t>();
  out.interrupted = head.at("interrupted").get<bool>() || asked_to_stop;
  out.exit_code = head.at("exit_code").get<int>();
  out.ending = head.at("ending").get<std::vector<std::string>>();
  out.error = head.at("error").get<std::string>();
  out.stats_json = head.at("stats").get<std::string>();
  if (out.interrupted) out.ending = {head.at("message").get<std::string>()};
  size_t at = sizeof size + size;
  for (const auto& o : head.at("outputs")) {
    platform::OutputTensor t;
    t.path = o.at("path").get<std::string>();
    t.dtype = o.at("dtype").get<std::string>();
    t.shape = o.at("shape").get<std::vector<uint64_t>>();
    const size_t n = o.at("bytes").get<size_t>();
    if (data.size() < at + n) throw std::runtime_error("the simulation process's report is cut short");
    t.bytes.assign(data.begin() + static_cast<long>(at), data.begin() + static_cast<long>(at + n));
    at += n;
    out.outputs.push_back(std::move(t));
  }
  return out;
}

}  // namespace vp::py
