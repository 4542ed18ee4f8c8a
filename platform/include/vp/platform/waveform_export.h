// vp-run --vcd: the run's waveforms, from its instruction trace and the
// fabric activity recorded beside it, through the same converter as
// vp-trace --vcd (so the two give the same signals for the same run).
#pragma once

#include <string>

namespace vp::platform {

// Writes `vcd_path` (atomically); throws std::runtime_error on failure.
void write_run_vcd(const std::string& trace_path, const std::string& fabric_path, const std::string& vcd_path,
                   double clock_mhz);

}  // namespace vp::platform
