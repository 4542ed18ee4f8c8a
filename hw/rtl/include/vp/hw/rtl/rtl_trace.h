// The RTL's own waveform: a VCD of one verilated block, written when a path
// is given (rtl.trace_prefix). Time is the block's own clock, one cycle =
// 1 ns, rows or MVMs back to back as the adaptor steps them (the chip's
// timeline is in the chip trace; the two are not aligned).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

class VerilatedVcdC;

namespace vp::hw::rtl {

class RtlTrace {
 public:
  // Call before the model is built: switches Verilator's tracing on when
  // `path` is not empty.
  static void prepare(const std::string& path);
  // `attach` hands the VCD to the model (model.trace(vcd, levels)); then
  // `path` is opened. Does nothing for an empty path.
  RtlTrace(const std::string& path, const std::function<void(VerilatedVcdC*)>& attach);
  ~RtlTrace();
  RtlTrace(const RtlTrace&) = delete;
  RtlTrace& operator=(const RtlTrace&) = delete;

  bool on() const { return vcd_ != nullptr; }
  // Records the signals at half-cycle `half` (2 per clock cycle).
  void dump(std::uint64_t half);

 private:
  std::unique_ptr<VerilatedVcdC> vcd_;
};

}  // namespace vp::hw::rtl
