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
#include "vp/hw/param_defaults.h"

namespace vp::hw {

// Defaults: the parameter table's (vp/config/params.def).
struct MvmTimingConfig {
  double clock_mhz = param_default::chip_clock_mhz;              // chip.clock_mhz [MHz]
  double dac_latency_ns = param_default::dac_latency_ns;         // dac.latency_ns [ns]
  double read_ns = param_default::xbar_read_ns;                  // xbar.read_ns [ns] one array read
  double sample_hold_ns = param_default::xbar_sample_hold_ns;    // xbar.sample_hold_ns [ns]
  double adc_conversion_ns = param_default::adc_conversion_ns;   // adc.conversion_ns [ns] per conversion
  double shift_add_ns = param_default::xbar_shift_add_ns;        // xbar.shift_add_ns [ns]
  bool pipelined = param_default::xbar_pipelined;      // xbar.pipelined: front/back overlap (double S&H)
  bool back_pipelined = param_default::adc_pipelined;  // adc.pipelined: ADC and shift-add of column groups overlap
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
