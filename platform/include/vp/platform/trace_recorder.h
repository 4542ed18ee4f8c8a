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
  TraceRecorder(const std::string& path, std::map<uint32_t, std::string> layer_names);
  void retire(const hw::CoreIdentity& who, const hw::RetireEvent& ev) override;
  void close();
  uint64_t records() const { return next_idx_ - 1; }

 private:
  trace::TraceWriter writer_;
  std::map<uint32_t, std::string> layer_names_;
  std::vector<trace::Param> params_;
  std::vector<std::string> numbered_layers_;
  int64_t next_idx_ = 1;
};

}  // namespace vp::platform
