#include "vp/platform/trace_recorder.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

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

TraceRecorder::TraceRecorder(const std::string& path, std::map<uint32_t, std::string> layer_names)
    : path_(path), layer_names_(std::move(layer_names)) {
  params_.reserve(isa::kMaxFields);
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw std::runtime_error(path + ": is a directory, expected a file name for the trace");
  const fs::path dir = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
  if (!fs::is_directory(dir, ec)) throw std::runtime_error(path + ": cannot write the trace: no folder " + dir.string());
  if (::access(dir.c_str(), W_OK) != 0)
    throw std::runtime_error(path + ": cannot write the trace: " + std::strerror(errno));
}

void TraceRecorder::open() {
  // Full buffers go to the file from a second thread while the simulation
  // formats the next (same bytes, same order).
  trace::WriterOptions options;
  options.background = true;
  if (!writer_) writer_ = std::make_unique<trace::TraceWriter>(path_, options);
}

void TraceRecorder::retire(const hw::CoreIdentity& who, const hw::RetireEvent& ev) {
  params_.clear();
  const auto& fields = ev.info->fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    const isa::Field& f = fields[i];
    const int64_t v = ev.inst->operand[i];
    if (f.kind == isa::FieldKind::Enum) params_.push_back(trace::Param::string(f.name, f.enums->by_value(static_cast<uint64_t>(v))->name));
    else params_.push_back(trace::Param::integer(f.name, v));
  }
  trace::WriteRecord r;
  r.mnemonic = ev.info->mnemonic;
  r.cluster = who.cluster;
  r.cu = who.cu;
  r.unit = trace_unit(ev.info->unit, who.is_control());
  r.layer_id = ev.layer;
  if (ev.layer >= 0) {
    auto it = layer_names_.find(static_cast<uint32_t>(ev.layer));
    if (it == layer_names_.end()) it = layer_names_.emplace(static_cast<uint32_t>(ev.layer), "layer" + std::to_string(ev.layer)).first;
    r.layer_name = it->second;
  }
  r.pc = ev.pc;
  r.inst_idx = next_idx_++;
  r.start = static_cast<int64_t>(ev.start);
  r.end = static_cast<int64_t>(ev.end);
  r.params = trace::ParamList(params_);
  if (!writer_) throw std::logic_error(path_ + ": an instruction retired before the trace was opened");
  writer_->write(r);
}

void TraceRecorder::close() {
  if (writer_) writer_->close();
}

}  // namespace vp::platform
