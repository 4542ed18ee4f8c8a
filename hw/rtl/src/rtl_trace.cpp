#include "vp/hw/rtl/rtl_trace.h"

#include <stdexcept>

#include <verilated.h>
#include <verilated_vcd_c.h>

namespace vp::hw::rtl {

void RtlTrace::prepare(const std::string& path) {
  if (!path.empty()) Verilated::traceEverOn(true);
}

RtlTrace::RtlTrace(const std::string& path, const std::function<void(VerilatedVcdC*)>& attach) {
  if (path.empty()) return;
  Verilated::traceEverOn(true);
  vcd_ = std::make_unique<VerilatedVcdC>();
  attach(vcd_.get());
  vcd_->open(path.c_str());
  if (!vcd_->isOpen()) throw std::runtime_error("rtl.trace_prefix: cannot write " + path);
}

RtlTrace::~RtlTrace() {
  if (vcd_) vcd_->close();
}

void RtlTrace::dump(std::uint64_t half) {
  // 500 ps per half cycle: the VCD's timescale is the model's (1 ps default).
  if (vcd_) vcd_->dump(half * 500);
}

}  // namespace vp::hw::rtl
