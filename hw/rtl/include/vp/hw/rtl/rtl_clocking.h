// How the adaptors drive a verilated block: an asynchronous reset pulse
// before the first command, and one clock cycle as two half-cycles, each
// recorded in the block's own waveform. One place for both blocks, so the
// ISPP controller and the output path are stepped identically.
#pragma once

#include <cstdint>

#include "vp/hw/rtl/rtl_trace.h"

namespace vp::hw::rtl {

template <class Top>
void reset_block(Top& top) {
  top.rst_n = 0;
  top.clk = 0;
  top.eval();
  top.rst_n = 1;
  top.eval();
}

// Advances `top` by one clock cycle; `cycle` counts the cycles stepped.
template <class Top>
void clock_cycle(Top& top, RtlTrace& trace, std::uint64_t& cycle) {
  top.clk = 1;
  top.eval();
  trace.dump(2 * cycle);
  top.clk = 0;
  top.eval();
  trace.dump(2 * cycle + 1);
  ++cycle;
}

}  // namespace vp::hw::rtl
