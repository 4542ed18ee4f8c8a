// Turns every retired instruction into one line of the ZeBu-style trace:
// mnemonic, where it ran (cluster, CU, unit, layer), its global index and
// its start and end cycle, and its operand fields by name.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vp/hw/cu/execution_core.h"
#include "vp/trace/writer.hpp"

namespace vp::platform {

class TraceRecorder : public hw::TraceSink {
 public:
  // Checks that `path` can be written (not a directory, its folder
  // writable) but leaves an existing file alone until open(): a run that
  // fails before it starts does not replace an older trace.
  TraceRecorder(const std::string& path, std::map<uint32_t, std::string> layer_names);
  void open();
  void retire(const hw::CoreIdentity& who, const hw::RetireEvent& ev) override;
  void close();
  uint64_t records() const { return next_idx_ - 1; }

 private:
  std::string path_;
  std::unique_ptr<trace::TraceWriter> writer_;
  std::map<uint32_t, std::string> layer_names_;
  std::vector<trace::Param> params_;
  std::vector<std::string> numbered_layers_;
  int64_t next_idx_ = 1;
};

}  // namespace vp::platform
