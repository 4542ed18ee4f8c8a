// Where analog non-idealities plug into the crossbar. A NonIdeality is
// attached to a Crossbar (Crossbar::attach) and is called at the three
// moments an effect can arise: fabrication (stuck cells), writing
// (programming noise) and reading (IR drop, read noise). With nothing
// attached the crossbar is ideal and MvmEngine takes its plain path.
//
// NonIdealityModel is the parameterised implementation; subclass
// NonIdeality for other effects (drift, a measured noise table, ...).
#pragma once

#include <cstdint>
#include <vector>

#include "vp/hw/crossbar/relaxation.h"
#include "vp/hw/crossbar/rng.h"
#include "vp/hw/param_defaults.h"

namespace vp::hw {

class Crossbar;

// What the read hook knows about one conversion step.
struct ColumnReadInfo {
  int row_begin;          // rows driven in this step: [row_begin, row_end)
  int row_end;
  int col_begin;          // physical column of sums[0]
  double drive_sq_sum;    // sum over driven rows of (DAC code)^2
};

class NonIdeality {
 public:
  virtual ~NonIdeality() = default;
  // Once, when attached to a crossbar: draw the fault map.
  virtual void on_fabricate(Crossbar& /*xb*/) {}
  // After cells [col_begin, col_end) of `row` were written (ISPP or exact).
  virtual void on_program_row(Crossbar& /*xb*/, int /*row*/, int /*col_begin*/, int /*col_end*/) {}
  // Per-cell multiplicative factor on every read, rows x cols row-major, or
  // nullptr for none. The pointer must stay valid until the next call.
  virtual const float* read_scale(const Crossbar& /*xb*/) { return nullptr; }
  // Perturb the analog column sums of one conversion step before the ADC.
  virtual void on_column_read(float* /*sums*/, int /*n*/, const ColumnReadInfo& /*info*/) {}
};

// Defaults: the parameter table's (vp/config/params.def), all ideal.
struct NonIdealityConfig {
  double read_noise_sigma = param_default::nonideal_read_noise_sigma;  // [levels, per cell per read]
  double prog_noise_sigma = param_default::nonideal_prog_noise_sigma;  // [levels, per cell per write]
  double stuck_hrs_rate = param_default::nonideal_stuck_hrs_rate;      // [fraction of cells]
  double stuck_lrs_rate = param_default::nonideal_stuck_lrs_rate;      // [fraction of cells]
  double ir_drop_ohm_per_cell = param_default::nonideal_ir_drop_ohm_per_cell;  // [ohm per segment], 0 = off
  double g_max_us = param_default::device_g_max_us;  // device.g_max_us [uS] conductance of the top level
  Relaxation relaxation = relaxation_named(param_default::nonideal_relaxation);  // nonideal.relaxation
  double time_since_program_s = param_default::device_time_since_program_s;      // [s] the relaxation's time

  bool ideal() const {
    return read_noise_sigma == 0.0 && prog_noise_sigma == 0.0 && stuck_hrs_rate == 0.0 &&
           stuck_lrs_rate == 0.0 && ir_drop_ohm_per_cell == 0.0 && relaxation == Relaxation::none;
  }
  void validate() const;  // throws std::invalid_argument naming the parameter
};

// The effects, each off at 0:
//  - stuck-at: at fabrication each cell is independently stuck at HRS with
//    probability stuck_hrs_rate, else at LRS with stuck_lrs_rate. A stuck
//    cell ignores writes (ISPP pulses do not move it, so it fails to converge
//    unless its target happens to be its stuck level).
//  - programming noise: after a write completes every written, non-stuck
//    cell moves by N(0, prog_noise_sigma) levels (post-verify relaxation),
//    clamped to [0, max_level].
//  - relaxation (wan2022): then also by N(0, s^2), s = wan2022_sigma_us(
//    target / max_level, time_since_program_s, g_max_us) in levels (one
//    level is g_max_us / max_level): the measured RRAM deviation at that
//    time, larger for middle conductances than for the ends.
//  - IR drop: the voltage a cell sees falls linearly with the wire length
//    between it and the periphery. Row drivers sit at column 0, sense
//    amplifiers below row rows-1, so cell (r, c) is d = (c + 1) + (rows - r)
//    wire segments away and its read conductance is scaled by
//    max(0, 1 - ir_drop_ohm_per_cell * g_max * d): the first-order drop with
//    every cell at g_max, data-independent (worst case).
//  - read noise: every read perturbs each cell by independent N(0, s^2),
//    s = read_noise_sigma levels; a column sum over driven rows with DAC
//    codes a_r then carries N(0, s^2 * sum a_r^2), drawn once per column and
//    step (same distribution as per cell, far cheaper).
// Random numbers come from one Rng(seed); the order of calls fixes the
// sequence, so the same program and seed give the same results.
// IR-drop factor of cell (row, col) in an array of `rows` rows (above):
// max(0, 1 - ohm_per_cell * g_max * ((col + 1) + (rows - row))), 1 when
// ohm_per_cell is 0. The compiler pre-distorts the levels it programs by
// the same factor (vp-cc --ir-drop-compensate).
float ir_drop_factor(double ohm_per_cell, double g_max_us, int rows, int row, int col);

class NonIdealityModel : public NonIdeality {
 public:
  NonIdealityModel(const NonIdealityConfig& cfg, std::uint64_t seed);

  const NonIdealityConfig& config() const { return cfg_; }

  void on_fabricate(Crossbar& xb) override;
  void on_program_row(Crossbar& xb, int row, int col_begin, int col_end) override;
  const float* read_scale(const Crossbar& xb) override;
  void on_column_read(float* sums, int n, const ColumnReadInfo& info) override;

  // IR-drop factor of cell (row, col) in a rows x cols array (1 when off).
  float ir_drop_factor(int rows, int row, int col) const;

 private:
  NonIdealityConfig cfg_;
  Rng rng_;
  std::vector<float> scale_;  // cached IR-drop map for scale_rows_ x scale_cols_
  int scale_rows_ = 0;
  int scale_cols_ = 0;
};

}  // namespace vp::hw
