// Incremental-step program-and-verify of one crossbar row, all cells of the
// row in parallel (NeuroSim, MNSIM: a row is the unit of writing).
//
// Each iteration: every cell still outside its window gets one pulse (SET
// raises the level when it is below target - tolerance, RESET lowers it when
// above target + tolerance; the step comes from the cell's DeviceModel draws and
// can overshoot), then the row is read (verify) and cells with
// |level - target| <= tolerance leave the loop. The row stops when every cell
// is inside or after ispp.max_pulses iterations; cells still outside are
// failed and keep the level reached. Levels stay within [0, max_level] (the
// HRS and LRS limits of the device), so an overshoot past either limit is
// absorbed there. Stuck cells take pulses but never move.
//
// A converged cell's analog level is somewhere inside its window. Whether
// that residual stays is a non-ideality like any other and off by default
// (ispp.keep_residual = false): the cell is then recorded at exactly its
// target, so an ISPP-programmed crossbar in ideal mode computes the exact
// integer product. With keep_residual the level reached is kept, and
// column sums carry up to rows * tolerance of programming error.
//
//   iterations   = max over cells of pulses (cells are pulsed in parallel)
//   cycles       = iterations * (ns_to_cycles(pulse_ns) + ns_to_cycles(verify_ns))
//   verify reads = iterations * n (each verify reads every cell of the range)
//   energy       = total pulses * pulse_energy_pj + verify reads * verify_energy_pj
//
// Deterministic device (step_levels_sigma 0, step s), distance D = |target -
// start|, tolerance t, cap P:
//   D <= t                               -> 0 pulses, converged
//   k = ceil((D - t) / s)
//   k <= P and (|D - k s| <= t or the target is 0 or max_level)
//                                        -> k pulses, converged
//   otherwise (the level jumps over the window and oscillates, or the cap
//   is reached)                          -> P pulses, failed
// analytic_pulses() evaluates this; tests compare it with the simulation.
#pragma once

#include <cstdint>
#include <vector>

#include "vp/hw/crossbar/device_model.h"
#include "vp/hw/param_defaults.h"

namespace vp::hw {

class Crossbar;

// Defaults: the parameter table's (vp/config/params.def).
struct IsppConfig {
  double pulse_ns = param_default::ispp_pulse_ns;                  // ispp.pulse_ns [ns]
  double verify_ns = param_default::ispp_verify_ns;                // ispp.verify_ns [ns]
  int max_pulses = param_default::ispp_max_pulses;                 // ispp.max_pulses [pulses per cell]
  double tolerance_levels = param_default::ispp_tolerance_levels;  // ispp.tolerance_levels [levels] half-width
  double pulse_energy_pj = param_default::ispp_pulse_energy_pj;    // ispp.pulse_energy_pj [pJ per cell pulse]
  double verify_energy_pj = param_default::ispp_verify_energy_pj;  // ispp.verify_energy_pj [pJ per cell verify]
  double clock_mhz = param_default::chip_clock_mhz;                // chip.clock_mhz [MHz]
  bool keep_residual = param_default::ispp_keep_residual;  // ispp.keep_residual: converged cells keep the
                                                           // level reached (true) or sit on target (false)
  void validate() const;           // throws std::invalid_argument naming the parameter
};

// What a row write costs: enough for the timeline and the statistics.
struct IsppRowTotals {
  int row = 0;
  int col_begin = 0;
  int iterations = 0;                 // pulse+verify rounds the row needed
  std::uint64_t total_pulses = 0;
  std::uint64_t verify_reads = 0;
  int failed_cells = 0;               // cells that did not converge
  std::uint64_t cycles = 0;
  double time_ns = 0.0;
  double energy_pj = 0.0;
};

// The totals and what every cell did.
struct IsppRowResult : IsppRowTotals {
  std::vector<std::uint16_t> pulses;  // per cell of the range
  std::vector<int> failed_cols;       // absolute column index of non-converged cells
  std::vector<float> final_levels;    // per cell of the range, after the non-ideality's write hook
  int failed() const { return static_cast<int>(failed_cols.size()); }
};

struct IsppAnalytic {
  int pulses;
  bool converged;
};

class IsppWritePath {
 public:
  explicit IsppWritePath(const IsppConfig& cfg);
  const IsppConfig& config() const { return cfg_; }

  // Programs cells [col_begin, col_begin + n) of `row` towards `targets`,
  // starting from their present levels; records the targets in the crossbar
  // and afterwards lets its non-ideality see the write.
  // Every cell converges or fails on its own draws (DeviceModel), so cells
  // are simulated one after another, each to its end, with the same result
  // as pulsing the row in lock step.
  IsppRowResult program_row(Crossbar& xb, int row, int col_begin, const std::uint8_t* targets,
                            int n, DeviceModel& device) const;
  // The same write, reporting only the totals (the chip's statistics).
  IsppRowTotals program_row_totals(Crossbar& xb, int row, int col_begin, const std::uint8_t* targets,
                                   int n, DeviceModel& device) const;

  std::uint64_t cycles_per_iteration() const;
  // The closed form above for a deterministic device with step `step`.
  IsppAnalytic analytic_pulses(double start, double target, double step, int max_level) const;

 private:
  // The write itself; per-cell pulses and failed columns when asked for.
  IsppRowTotals program(Crossbar& xb, int row, int col_begin, const std::uint8_t* targets, int n,
                        DeviceModel& device, std::uint16_t* pulses, std::vector<int>* failed_cols) const;

  IsppConfig cfg_;
};

}  // namespace vp::hw
