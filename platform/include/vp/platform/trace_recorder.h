// Turns every retired instruction into one line of the ZeBu-style trace:
// mnemonic, where it ran (cluster, CU, unit, layer), its global index and
// its start and end cycle, and its operand fields by name.
//
// The simulation thread only copies what a line needs (the instruction,
// where and when it ran) into a batch; full batches are formatted and
// written on a second thread, in order, so the file has the same bytes as
// formatting each line at retirement. A failed write is reported by the
// next retire() or by close().
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "vp/hw/cu/execution_core.h"
#include "vp/trace/writer.hpp"

namespace vp::platform {

class TraceRecorder : public hw::TraceSink {
 public:
  // Checks that `path` can be written (not a directory, its folder
  // writable) but leaves an existing file alone until open(): a run that
  // fails before it starts does not replace an older trace.
  // chip >= 0: one chip of a system; every line names it ('chip' key).
  TraceRecorder(const std::string& path, std::map<uint32_t, std::string> layer_names, int chip = -1);
  ~TraceRecorder() override;
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;
  void open();
  void retire(const hw::CoreIdentity& who, const hw::RetireEvent& ev) override;
  // Formats and writes every line retired so far, then closes the file.
  void close();
  uint64_t records() const { return next_idx_ - 1; }

 private:
  // One retired instruction, as copied on the simulation thread.
  struct Retired {
    isa::Instruction inst;
    const isa::InstrInfo* info;
    int32_t cluster, cu, layer;
    uint32_t pc;
    uint64_t start, end;
    int64_t idx;
  };
  using Batch = std::vector<Retired>;
  static constexpr std::size_t kBatch = 4096;  // lines handed over at once
  static constexpr std::size_t kQueued = 8;    // batches waiting at most

  void hand_over();       // the current batch to the formatter
  void format_loop();     // the formatter thread
  void format(const Retired& r);
  void stop_formatter();  // waits for the queue to drain
  void rethrow_failure();

  std::string path_;
  std::unique_ptr<trace::TraceWriter> writer_;
  std::map<uint32_t, std::string> layer_names_;  // the formatter's
  int chip_ = -1;
  std::vector<trace::Param> params_;             // the formatter's
  int64_t next_idx_ = 1;

  Batch batch_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Batch> queue_;
  std::vector<Batch> spare_;  // emptied batches, their memory reused
  bool stopping_ = false;
  bool failed_ = false;
  std::exception_ptr failure_;
  std::thread formatter_;
};

}  // namespace vp::platform
