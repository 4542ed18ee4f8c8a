// The one conversion from a latency in ns to whole clock cycles, shared by
// the registry, the crossbar, ISPP and NoC models and the memory paths.
#pragma once

#include <cstdint>

namespace vp::config {

// Cycles of `clock_mhz` covering `ns`, rounded up: a stage occupies whole
// cycles, so any fraction of a cycle costs a cycle. A tolerance of 1e-9 of
// the result (at least 1e-9 cycle) absorbs binary rounding, so 100 ns at
// 1000 MHz stays 100 cycles and 10 ns at 300 MHz (3.0000000000000004) is 3.
// ns <= 0 (or NaN) takes no cycles; throws std::invalid_argument unless
// clock_mhz > 0.
std::uint64_t ns_to_cycles(double ns, double clock_mhz);

}  // namespace vp::config
