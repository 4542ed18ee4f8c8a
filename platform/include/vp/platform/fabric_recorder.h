// Activity of the chip's shared fabric — every NoC link reservation and
// every global-memory channel transfer — as lines of the trace grammar with
// units `link.<name>` and `gmem`, so the trace tools draw them as waveforms
// beside the instructions (vp-run --vcd). Kept out of the instruction trace,
// which stays one line per executed instruction.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "vp/hw/chip/chip.h"

namespace vp::platform {

class FabricRecorder {
 public:
  // Subscribes to the chip's NoC and global memory; writes to `path`.
  FabricRecorder(hw::Chip& chip, const std::string& path);
  ~FabricRecorder();
  FabricRecorder(const FabricRecorder&) = delete;
  FabricRecorder& operator=(const FabricRecorder&) = delete;

  void close();  // flushes; throws std::runtime_error when the disk write failed
  uint64_t records() const { return records_; }

 private:
  void line(const std::string& mnemonic, const std::string& unit, uint64_t start, uint64_t end, const char* key,
            uint64_t value);

  std::FILE* out_ = nullptr;
  std::string path_;
  std::vector<std::string> link_units_;
  uint64_t records_ = 0;
  bool failed_ = false;
};

}  // namespace vp::platform
