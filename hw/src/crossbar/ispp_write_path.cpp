#include "vp/hw/crossbar/ispp_write_path.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "vp/hw/crossbar/cell_kernels.h"
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

IsppRowTotals IsppWritePath::program(Crossbar& xb, int row, int col_begin, const std::uint8_t* targets,
                                     int n, DeviceModel& device, std::uint16_t* pulses,
                                     std::vector<int>* failed_cols) const {
  xb.set_row_targets(row, col_begin, targets, n);  // checks the range and the levels

  IsppRowTotals res;
  res.row = row;
  res.col_begin = col_begin;

  const double tol = cfg_.tolerance_levels;
  const double top = static_cast<double>(xb.max_level());
  const int cap = cfg_.max_pulses;
  float* lv = xb.row_levels(row) + col_begin;
  const std::uint8_t* faults = xb.row_faults(row);
  const DeviceModel::RowDraws draws = device.next_write(row);

  // A cell's pulses depend only on its own draws, so each cell runs to its
  // end (inside the window, or the cap) on its own: the lock-step row
  // loop's result without its bookkeeping. With a stochastic device the
  // cells that need pulses go through the cell kernels (SIMD lanes, same
  // numbers as the scalar loop). Levels are kept in double so accumulated
  // steps do not lose precision.
  thread_local std::vector<double> level;
  thread_local std::vector<std::int32_t> cell_pulses;
  thread_local std::vector<std::int32_t> job_col;
  thread_local std::vector<std::uint64_t> keys;
  thread_local std::vector<double> job_target;
  thread_local std::vector<double> job_level;
  thread_local std::vector<std::int32_t> job_pulses;
  const auto un = static_cast<std::size_t>(std::max(n, 0));
  if (level.size() < un) {
    level.resize(un);
    cell_pulses.resize(un);
    job_col.resize(un);
    keys.resize(un);
    job_target.resize(un);
    job_level.resize(un);
    job_pulses.resize(un);
  }
  const bool draws_steps = !device.deterministic();
  int m = 0;  // cells for the kernels
  // No stuck cell and a drawing device (a deployment's rows): the cells
  // outside their window are listed in lanes (cell_kernels.h), the same
  // list as the loop below makes.
  const bool listed = faults == nullptr && draws_steps;
  if (listed) {
    m = cells_outside(lv, targets, n, tol, col_begin, level.data(), {job_col.data(), job_target.data(), job_level.data()});
    std::fill(cell_pulses.begin(), cell_pulses.begin() + n, 0);
  }
  for (int i = listed ? n : 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    const double target = targets[i];
    double v = lv[i];
    int p = 0;
    if (std::fabs(v - target) > tol) {
      const bool stuck = faults != nullptr && faults[col_begin + i] != 0;
      if (stuck) {
        p = cap;  // pulses reach it but never move it
      } else if (draws_steps) {
        const auto j = static_cast<std::size_t>(m++);
        job_col[j] = col_begin + i;
        job_target[j] = target;
        job_level[j] = v;
      } else {
        const double step = device.config().step_levels_mean;  // no draws
        do {
          v = std::clamp(v < target ? v + step : v - step, 0.0, top);
          ++p;
        } while (p < cap && std::fabs(v - target) > tol);
      }
    }
    level[u] = v;
    cell_pulses[u] = p;
  }
  if (m > 0) {
    CellPulseParams prm;
    prm.step_mean = device.config().step_levels_mean;
    prm.step_sigma = device.config().step_levels_sigma;
    prm.min_step = device.min_step();
    prm.tolerance = tol;
    prm.top = top;
    prm.cap = cap;
    cell_stream_keys(draws.row_key(), job_col.data(), m, keys.data());
    CellPulseJob job;
    job.keys = keys.data();
    job.targets = job_target.data();
    job.levels = job_level.data();
    job.pulses = job_pulses.data();
    job.n = m;
    pulse_cells(prm, job);
    for (std::size_t j = 0; j < static_cast<std::size_t>(m); ++j) {
      const auto u = static_cast<std::size_t>(job_col[j] - col_begin);
      level[u] = job_level[j];
      cell_pulses[u] = job_pulses[j];
    }
  }

  int iterations = 0;
  std::uint64_t total = 0;
  int failed = 0;
  // Only the totals asked for and no stuck cell: the end of the write in
  // lanes too (the loop's results).
  const bool totals_only = faults == nullptr && pulses == nullptr && failed_cols == nullptr;
  if (totals_only) {
    const RowEnd end = finish_cells(level.data(), cell_pulses.data(), targets, n, tol, cfg_.keep_residual, lv);
    iterations = end.iterations;
    total = end.pulses;
    failed = end.failed;
  }
  for (int i = totals_only ? n : 0; i < n; ++i) {
    const double target = targets[i];
    const double v = level[static_cast<std::size_t>(i)];
    const int p = cell_pulses[static_cast<std::size_t>(i)];
    const bool converged = std::fabs(v - target) <= tol;
    if (!converged) {
      ++failed;
      if (failed_cols != nullptr) failed_cols->push_back(col_begin + i);
    }
    if (faults == nullptr || faults[col_begin + i] == 0) {
      lv[i] = converged && !cfg_.keep_residual ? static_cast<float>(target) : static_cast<float>(v);
    }
    if (pulses != nullptr) pulses[i] = static_cast<std::uint16_t>(p);
    total += static_cast<std::uint64_t>(p);
    iterations = std::max(iterations, p);
  }

  res.iterations = iterations;
  res.total_pulses = total;
  res.failed_cells = failed;
  res.verify_reads = static_cast<std::uint64_t>(iterations) * static_cast<std::uint64_t>(n);
  res.cycles = static_cast<std::uint64_t>(iterations) * cycles_per_iteration();
  res.time_ns = iterations * (cfg_.pulse_ns + cfg_.verify_ns);
  res.energy_pj = static_cast<double>(res.total_pulses) * cfg_.pulse_energy_pj +
                  static_cast<double>(res.verify_reads) * cfg_.verify_energy_pj;

  // The non-ideality sees the completed write (post-verify relaxation).
  if (NonIdeality* ni = xb.non_ideality()) ni->on_program_row(xb, row, col_begin, col_begin + n);
  return res;
}

IsppRowResult IsppWritePath::program_row(Crossbar& xb, int row, int col_begin,
                                         const std::uint8_t* targets, int n,
                                         DeviceModel& device) const {
  IsppRowResult res;
  res.pulses.assign(static_cast<std::size_t>(std::max(n, 0)), 0);
  static_cast<IsppRowTotals&>(res) = program(xb, row, col_begin, targets, n, device, res.pulses.data(), &res.failed_cols);
  const float* lv = static_cast<const Crossbar&>(xb).row_levels(row) + col_begin;
  res.final_levels.assign(lv, lv + n);
  return res;
}

IsppRowTotals IsppWritePath::program_row_totals(Crossbar& xb, int row, int col_begin,
                                                const std::uint8_t* targets, int n,
                                                DeviceModel& device) const {
  return program(xb, row, col_begin, targets, n, device, nullptr, nullptr);
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
