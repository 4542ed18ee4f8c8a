#include "vp/config/cycles.h"

#include <cmath>
#include <stdexcept>

namespace vp::config {

std::uint64_t ns_to_cycles(double ns, double clock_mhz) {
  if (!(clock_mhz > 0.0)) throw std::invalid_argument("ns_to_cycles: clock_mhz must be > 0");
  if (!(ns > 0.0)) return 0;
  const double cycles = ns * clock_mhz / 1000.0;
  return static_cast<std::uint64_t>(std::ceil(cycles - 1e-9 * (1.0 + cycles)));
}

}  // namespace vp::config
