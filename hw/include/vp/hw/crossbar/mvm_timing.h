// Cycles of one MVM on one crossbar: the pipelined model of PIMSim-NN
// (src/core/xbar/XbarArray.cpp, calcXbarArrayLatency), without its input and
// output buffer stages (buffers are the CU's business here):
//
//   front = dac + read + sample_hold                (one DAC step: drive, settle, hold)
//   back  = adc + shift_add + (G - 1) * max(adc, shift_add)   (back_pipelined)
//         = G * (adc + shift_add)                             (otherwise)
//   G     = ceil(cols / adc_count), adc_count = ceil(cols / adc.columns_per_adc)
//   T     = steps * ceil(rows / rows_per_step)
//   total = front + back + (T - 1) * max(front, back)          (pipelined)
//         = T * (front + back)                                (otherwise)
//
// Each stage is ns_to_cycles(ns, chip.clock_mhz), i.e. rounded up to whole
// cycles on its own. steps = Dac::steps(input_bits, signed): ceil(in/dac) as
// in PIMSim-NN for unsigned inputs and for 1-bit DACs; one more for signed
// inputs on multi-bit DACs (see dac.h). Two deliberate differences from the
// PIMSim-NN source: ceilings are true ceilings (its divideWithCeiling
// truncates for positive operands), and ../params.md summarises the back
// stage as "repeated ceil(cols/adc_count)", which is the non-pipelined form.
#pragma once

#include <cstdint>

#include "vp/hw/crossbar/crossbar_config.h"

namespace vp::hw {

struct MvmTimingConfig {
  double clock_mhz = 1000.0;        // chip.clock_mhz [MHz] (PUMA, PIMCOMP, NeuroSim: 1 GHz)
  double dac_latency_ns = 1.0;      // dac.latency_ns [ns] (ISAAC, PUMA: 1 ns)
  double read_ns = 100.0;           // xbar.read_ns [ns] one array read (ISAAC, PUMA: 100 ns)
  double sample_hold_ns = 1.0;      // xbar.sample_hold_ns [ns] (PIMCOMP: 1 cycle)
  double adc_conversion_ns = 1.0;   // adc.conversion_ns [ns] per conversion (ISAAC: 1.28 GS/s)
  double shift_add_ns = 1.0;        // xbar.shift_add_ns [ns] (PIMCOMP: 1 cycle)
  bool pipelined = true;            // xbar.pipelined: front/back overlap (double S&H)
  bool back_pipelined = true;       // adc.pipelined: ADC and shift-add of column groups overlap
  void validate() const;
};

struct MvmTimingBreakdown {
  std::uint64_t front_cycles = 0;   // one DAC step through the array
  std::uint64_t back_cycles = 0;    // converting and accumulating all columns of one step
  int input_steps = 0;              // DAC steps per input
  int row_groups = 0;               // ceil(rows / rows_per_step)
  int adcs = 0;                     // ADCs per crossbar
  int column_groups = 0;            // conversions each ADC does per step
  std::uint64_t stages = 0;         // input_steps * row_groups
  std::uint64_t total_cycles = 0;
};

class MvmTiming {
 public:
  MvmTiming(const CrossbarConfig& xbar, const MvmTimingConfig& timing);
  MvmTimingBreakdown breakdown(int input_bits, bool input_signed = true) const;
  std::uint64_t cycles(int input_bits, bool input_signed = true) const {
    return breakdown(input_bits, input_signed).total_cycles;
  }

 private:
  CrossbarConfig xbar_;
  MvmTimingConfig timing_;
};

}  // namespace vp::hw
