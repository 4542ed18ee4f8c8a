#include "vp/hw/crossbar/ispp_write_path.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/crossbar_config.h"
#include "vp/hw/crossbar/non_ideality.h"

namespace vp::hw {

void IsppConfig::validate() const {
  if (!(pulse_ns >= 0.0)) throw std::invalid_argument("ispp.pulse_ns: must be >= 0");
  if (!(verify_ns >= 0.0)) throw std::invalid_argument("ispp.verify_ns: must be >= 0");
  if (max_pulses < 1 || max_pulses > std::numeric_limits<std::uint16_t>::max()) {
    throw std::invalid_argument("ispp.max_pulses: must be in [1, 65535]");
  }
  if (!(tolerance_levels >= 0.0)) throw std::invalid_argument("ispp.tolerance_levels: must be >= 0");
  if (!(pulse_energy_pj >= 0.0)) throw std::invalid_argument("ispp.pulse_energy_pj: must be >= 0");
  if (!(verify_energy_pj >= 0.0)) throw std::invalid_argument("ispp.verify_energy_pj: must be >= 0");
  if (!(clock_mhz > 0.0)) throw std::invalid_argument("chip.clock_mhz: must be > 0");
}

IsppWritePath::IsppWritePath(const IsppConfig& cfg) : cfg_(cfg) { cfg_.validate(); }

std::uint64_t IsppWritePath::cycles_per_iteration() const {
  return ns_to_cycles(cfg_.pulse_ns, cfg_.clock_mhz) + ns_to_cycles(cfg_.verify_ns, cfg_.clock_mhz);
}

IsppRowResult IsppWritePath::program_row(Crossbar& xb, int row, int col_begin,
                                         const std::uint8_t* targets, int n,
                                         DeviceModel& device) const {
  xb.set_row_targets(row, col_begin, targets, n);  // checks the range and the levels

  IsppRowResult res;
  res.row = row;
  res.col_begin = col_begin;
  res.pulses.assign(static_cast<std::size_t>(n), 0);

  const double tol = cfg_.tolerance_levels;
  const double top = static_cast<double>(xb.max_level());
  float* lv = xb.row_levels(row) + col_begin;
  const std::uint8_t* faults = xb.row_faults(row);

  // Work in double on a copy of the row so accumulated steps do not lose
  // precision; `active` lists the cells still outside their window.
  std::vector<double> level(lv, lv + n);
  std::vector<int> active;
  active.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (std::fabs(level[static_cast<std::size_t>(i)] - targets[i]) > tol) active.push_back(i);
  }

  int iterations = 0;
  while (!active.empty() && iterations < cfg_.max_pulses) {
    ++iterations;
    // Pulse every active cell (SET below the window, RESET above it) ...
    for (int i : active) {
      auto& v = level[static_cast<std::size_t>(i)];
      const double step = device.draw_step();
      const bool stuck = faults != nullptr && faults[col_begin + i] != 0;
      if (!stuck) v = std::clamp(v < targets[i] ? v + step : v - step, 0.0, top);
      ++res.pulses[static_cast<std::size_t>(i)];
    }
    // ... then verify the row; converged cells leave the loop.
    active.erase(std::remove_if(active.begin(), active.end(),
                                [&](int i) {
                                  return std::fabs(level[static_cast<std::size_t>(i)] -
                                                   targets[i]) <= tol;
                                }),
                 active.end());
  }

  // `active` now holds exactly the non-converged cells, in column order.
  std::vector<char> failed(static_cast<std::size_t>(n), 0);
  for (int i : active) {
    failed[static_cast<std::size_t>(i)] = 1;
    res.failed_cols.push_back(col_begin + i);
  }
  for (int i = 0; i < n; ++i) {
    const bool stuck = faults != nullptr && faults[col_begin + i] != 0;
    const bool snap = !cfg_.keep_residual && failed[static_cast<std::size_t>(i)] == 0;
    if (!stuck) lv[i] = snap ? static_cast<float>(targets[i]) : static_cast<float>(level[static_cast<std::size_t>(i)]);
    res.total_pulses += res.pulses[static_cast<std::size_t>(i)];
  }

  res.iterations = iterations;
  res.verify_reads = static_cast<std::uint64_t>(iterations) * static_cast<std::uint64_t>(n);
  res.cycles = static_cast<std::uint64_t>(iterations) * cycles_per_iteration();
  res.time_ns = iterations * (cfg_.pulse_ns + cfg_.verify_ns);
  res.energy_pj = static_cast<double>(res.total_pulses) * cfg_.pulse_energy_pj +
                  static_cast<double>(res.verify_reads) * cfg_.verify_energy_pj;

  // The non-ideality sees the completed write (post-verify relaxation).
  if (NonIdeality* ni = xb.non_ideality()) ni->on_program_row(xb, row, col_begin, col_begin + n);
  res.final_levels.assign(lv, lv + n);
  return res;
}

IsppAnalytic IsppWritePath::analytic_pulses(double start, double target, double step,
                                            int max_level) const {
  const double tol = cfg_.tolerance_levels;
  const double d = std::fabs(target - start);
  if (d <= tol) return {0, true};
  const double k = std::ceil((d - tol) / step);
  const bool at_limit = (target >= start && target >= max_level) || (target < start && target <= 0.0);
  if (k <= cfg_.max_pulses && (std::fabs(d - k * step) <= tol || at_limit)) {
    return {static_cast<int>(k), true};
  }
  return {cfg_.max_pulses, false};
}

}  // namespace vp::hw
