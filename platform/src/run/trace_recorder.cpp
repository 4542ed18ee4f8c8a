#include "vp/platform/trace_recorder.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

namespace vp::platform {

namespace {
trace::Unit trace_unit(isa::Unit u, bool control) {
  if (control) return trace::Unit::Cp;
  switch (u) {
    case isa::Unit::Scalar: return trace::Unit::Scalar;
    case isa::Unit::Crossbar: return trace::Unit::Xbar;
    case isa::Unit::Vector: return trace::Unit::Vector;
    case isa::Unit::Dma: return trace::Unit::Dma;
    case isa::Unit::Noc: return trace::Unit::Noc;
    case isa::Unit::Sync: return trace::Unit::Sync;
    case isa::Unit::Control: return trace::Unit::Ctrl;
  }
  return trace::Unit::Ctrl;
}
}  // namespace

TraceRecorder::TraceRecorder(const std::string& path, std::map<uint32_t, std::string> layer_names, int chip)
    : path_(path), layer_names_(std::move(layer_names)), chip_(chip) {
  params_.reserve(isa::kMaxFields);
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw std::runtime_error(path + ": is a directory, expected a file name for the trace");
  const fs::path dir = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
  if (!fs::is_directory(dir, ec)) throw std::runtime_error(path + ": cannot write the trace: no folder " + dir.string());
  if (::access(dir.c_str(), W_OK) != 0)
    throw std::runtime_error(path + ": cannot write the trace: " + std::strerror(errno));
}

TraceRecorder::~TraceRecorder() {
  try {
    stop_formatter();
  } catch (...) {
    // A destructor reports nothing; close() is the call that does.
  }
}

void TraceRecorder::open() {
  // The formatter thread writes the file itself, so the writer needs no
  // thread of its own.
  if (writer_) return;
  writer_ = std::make_unique<trace::TraceWriter>(path_, trace::WriterOptions{});
  batch_.reserve(kBatch);
  formatter_ = std::thread([this] { format_loop(); });
}

void TraceRecorder::retire(const hw::CoreIdentity& who, const hw::RetireEvent& ev) {
  if (!writer_) throw std::logic_error(path_ + ": an instruction retired before the trace was opened");
  batch_.push_back(Retired{*ev.inst, ev.info, who.cluster, who.cu, ev.layer, ev.pc, ev.start, ev.end, next_idx_++});
  if (batch_.size() >= kBatch) hand_over();
}

void TraceRecorder::hand_over() {
  std::unique_lock<std::mutex> lock(mu_);
  if (failed_) {
    lock.unlock();
    rethrow_failure();
  }
  cv_.wait(lock, [this] { return queue_.size() < kQueued || failed_; });
  queue_.push_back(std::move(batch_));
  if (!spare_.empty()) {
    batch_ = std::move(spare_.back());
    spare_.pop_back();
  } else {
    batch_ = Batch();
    batch_.reserve(kBatch);
  }
  cv_.notify_all();
}

void TraceRecorder::format_loop() {
  for (;;) {
    Batch b;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return !queue_.empty() || stopping_; });
      if (queue_.empty()) return;  // stopping, and everything written
      b = std::move(queue_.front());
      queue_.pop_front();
      cv_.notify_all();
    }
    if (!failed_) {
      try {
        for (const Retired& r : b) format(r);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu_);
        failure_ = std::current_exception();
        failed_ = true;  // later batches are dropped; the caller is told
        cv_.notify_all();
      }
    }
    b.clear();
    std::lock_guard<std::mutex> lock(mu_);
    spare_.push_back(std::move(b));
  }
}

void TraceRecorder::format(const Retired& ev) {
  params_.clear();
  const auto& fields = ev.info->fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    const isa::Field& f = fields[i];
    const int64_t v = ev.inst.operand[i];
    if (f.kind == isa::FieldKind::Enum) params_.push_back(trace::Param::string(f.name, f.enums->by_value(static_cast<uint64_t>(v))->name));
    else params_.push_back(trace::Param::integer(f.name, v));
  }
  trace::WriteRecord r;
  r.mnemonic = ev.info->mnemonic;
  r.chip = chip_;
  r.cluster = ev.cluster;
  r.cu = ev.cu;
  r.unit = trace_unit(ev.info->unit, ev.cluster < 0);
  r.layer_id = ev.layer;
  if (ev.layer >= 0) {
    auto it = layer_names_.find(static_cast<uint32_t>(ev.layer));
    if (it == layer_names_.end()) it = layer_names_.emplace(static_cast<uint32_t>(ev.layer), "layer" + std::to_string(ev.layer)).first;
    r.layer_name = it->second;
  }
  r.pc = ev.pc;
  r.inst_idx = ev.idx;
  r.start = static_cast<int64_t>(ev.start);
  r.end = static_cast<int64_t>(ev.end);
  r.params = trace::ParamList(params_);
  writer_->write(r);
}

void TraceRecorder::stop_formatter() {
  if (!formatter_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!batch_.empty()) queue_.push_back(std::move(batch_));
    batch_ = Batch();
    stopping_ = true;
    cv_.notify_all();
  }
  formatter_.join();
}

void TraceRecorder::rethrow_failure() {
  std::exception_ptr e;
  {
    std::lock_guard<std::mutex> lock(mu_);
    e = failure_;
  }
  if (e) std::rethrow_exception(e);
}

void TraceRecorder::close() {
  stop_formatter();
  rethrow_failure();
  if (writer_) writer_->close();
}

}  // namespace vp::platform
