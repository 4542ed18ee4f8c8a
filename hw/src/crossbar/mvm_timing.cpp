#include "vp/hw/crossbar/mvm_timing.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "vp/hw/crossbar/dac.h"

namespace vp::hw {

void MvmTimingConfig::validate() const {
  auto require = [](bool ok, const char* param) {
    if (!ok) throw std::invalid_argument(std::string(param) + ": must be >= 0");
  };
  if (!(clock_mhz > 0.0)) throw std::invalid_argument("chip.clock_mhz: must be > 0");
  require(dac_latency_ns >= 0.0, "dac.latency_ns");
  require(read_ns >= 0.0, "xbar.read_ns");
  require(sample_hold_ns >= 0.0, "xbar.sample_hold_ns");
  require(adc_conversion_ns >= 0.0, "adc.conversion_ns");
  require(shift_add_ns >= 0.0, "xbar.shift_add_ns");
}

MvmTiming::MvmTiming(const CrossbarConfig& xbar, const MvmTimingConfig& timing)
    : xbar_(xbar), timing_(timing) {
  xbar_.validate();
  timing_.validate();
}

MvmTimingBreakdown MvmTiming::breakdown(int input_bits, bool input_signed) const {
  const double f = timing_.clock_mhz;
  MvmTimingBreakdown b;
  b.front_cycles = ns_to_cycles(timing_.dac_latency_ns, f) + ns_to_cycles(timing_.read_ns, f) +
                   ns_to_cycles(timing_.sample_hold_ns, f);

  b.adcs = (xbar_.cols + xbar_.adc_columns_per_adc - 1) / xbar_.adc_columns_per_adc;
  b.column_groups = (xbar_.cols + b.adcs - 1) / b.adcs;
  const std::uint64_t adc = ns_to_cycles(timing_.adc_conversion_ns, f);
  const std::uint64_t shift_add = ns_to_cycles(timing_.shift_add_ns, f);
  const auto groups = static_cast<std::uint64_t>(b.column_groups);
  b.back_cycles = timing_.back_pipelined ? adc + shift_add + (groups - 1) * std::max(adc, shift_add)
                                         : groups * (adc + shift_add);

  b.input_steps = Dac(xbar_.dac_bits).steps(input_bits, input_signed);
  const int rps = xbar_.rows_per_step();
  b.row_groups = (xbar_.rows + rps - 1) / rps;
  b.stages = static_cast<std::uint64_t>(b.input_steps) * static_cast<std::uint64_t>(b.row_groups);
  b.total_cycles = timing_.pipelined
                       ? b.front_cycles + b.back_cycles +
                             (b.stages - 1) * std::max(b.front_cycles, b.back_cycles)
                       : b.stages * (b.front_cycles + b.back_cycles);
  return b;
}

}  // namespace vp::hw
