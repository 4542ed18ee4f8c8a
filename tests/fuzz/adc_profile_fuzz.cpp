// libFuzzer: arbitrary bytes as a vp-run --adc-profile file read by vp-cc
// --adc-ranges. CompileError is the only acceptable failure; an accepted
// profile gives every listed crossbar of the target one range in 1..31,
// the finest that covers its sum.
#include <cstddef>
#include <cstdint>
#include <string>

#include "vp/cc/passes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  vp::cc::Target t;  // sidra-y1
  std::map<int, int> ranges;
  try {
    ranges = vp::cc::adc_ranges_from_profile_text(text, "fuzz.json", t, 1.0);
  } catch (const vp::cc::CompileError&) {
    return 0;
  }
  for (const auto& [xbar, range] : ranges)
    if (xbar < 0 || xbar >= t.crossbars() || range < 1 || range > vp::cc::kMaxAdcRangeCode) __builtin_trap();
  return 0;
}
