#include "vp/hw/crossbar/non_ideality.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "vp/hw/crossbar/crossbar.h"

namespace vp::hw {

namespace {
void require(bool ok, const char* param, const char* what) {
  if (!ok) throw std::invalid_argument(std::string(param) + ": " + what);
}
}  // namespace

void NonIdealityConfig::validate() const {
  require(read_noise_sigma >= 0.0, "nonideal.read_noise_sigma", "must be >= 0");
  require(prog_noise_sigma >= 0.0, "nonideal.prog_noise_sigma", "must be >= 0");
  require(stuck_hrs_rate >= 0.0 && stuck_hrs_rate <= 1.0, "nonideal.stuck_hrs_rate", "must be in [0, 1]");
  require(stuck_lrs_rate >= 0.0 && stuck_lrs_rate <= 1.0, "nonideal.stuck_lrs_rate", "must be in [0, 1]");
  require(stuck_hrs_rate + stuck_lrs_rate <= 1.0, "nonideal.stuck_lrs_rate",
          "stuck_hrs_rate + stuck_lrs_rate must not exceed 1");
  require(ir_drop_ohm_per_cell >= 0.0, "nonideal.ir_drop_ohm_per_cell", "must be >= 0");
  require(g_max_us > 0.0, "device.g_max_us", "must be > 0");
  require(time_since_program_s >= 0.0 && std::isfinite(time_since_program_s), "device.time_since_program_s",
          "must be a finite time >= 0");
}

NonIdealityModel::NonIdealityModel(const NonIdealityConfig& cfg, std::uint64_t seed)
    : cfg_(cfg), rng_(seed) {
  cfg_.validate();
}

void NonIdealityModel::on_fabricate(Crossbar& xb) {
  const double hrs = cfg_.stuck_hrs_rate;
  const double any = cfg_.stuck_hrs_rate + cfg_.stuck_lrs_rate;
  if (any <= 0.0) return;
  for (int r = 0; r < xb.rows(); ++r) {
    for (int c = 0; c < xb.cols(); ++c) {
      const double u = rng_.uniform();
      if (u < hrs) {
        xb.set_fault(r, c, CellFault::stuck_hrs);
      } else if (u < any) {
        xb.set_fault(r, c, CellFault::stuck_lrs);
      }
    }
  }
}

void NonIdealityModel::on_program_row(Crossbar& xb, int row, int col_begin, int col_end) {
  const bool relax = cfg_.relaxation == Relaxation::wan2022;
  if (cfg_.prog_noise_sigma <= 0.0 && !relax) return;
  const float top = static_cast<float>(xb.max_level());
  // The relaxation's sigma per target level, in levels.
  double relax_sigma[256] = {};
  if (relax) {
    const double level_us = cfg_.g_max_us / top;
    for (int l = 0; l <= static_cast<int>(top) && l < 256; ++l)
      relax_sigma[l] = wan2022_sigma_us(l / static_cast<double>(top), cfg_.time_since_program_s, cfg_.g_max_us) / level_us;
  }
  float* lv = xb.row_levels(row);
  const std::uint8_t* faults = xb.row_faults(row);
  const std::uint8_t* targets = xb.targets() + static_cast<std::size_t>(row) * static_cast<std::size_t>(xb.cols());
  for (int c = col_begin; c < col_end; ++c) {
    if (faults != nullptr && faults[c] != 0) continue;
    double v = static_cast<double>(lv[c]);
    if (cfg_.prog_noise_sigma > 0.0) v += cfg_.prog_noise_sigma * rng_.normal();
    if (relax) v += relax_sigma[targets[c]] * rng_.normal();
    lv[c] = std::clamp(static_cast<float>(v), 0.0f, top);
  }
}

float ir_drop_factor(double ohm_per_cell, double g_max_us, int rows, int row, int col) {
  if (ohm_per_cell <= 0.0) return 1.0f;
  const double k = ohm_per_cell * g_max_us * 1e-6;
  const double segments = static_cast<double>(col + 1) + static_cast<double>(rows - row);
  return static_cast<float>(std::max(0.0, 1.0 - k * segments));
}

float NonIdealityModel::ir_drop_factor(int rows, int row, int col) const {
  return hw::ir_drop_factor(cfg_.ir_drop_ohm_per_cell, cfg_.g_max_us, rows, row, col);
}

const float* NonIdealityModel::read_scale(const Crossbar& xb) {
  if (cfg_.ir_drop_ohm_per_cell <= 0.0) return nullptr;
  if (scale_rows_ != xb.rows() || scale_cols_ != xb.cols()) {
    scale_rows_ = xb.rows();
    scale_cols_ = xb.cols();
    scale_.resize(static_cast<std::size_t>(scale_rows_) * static_cast<std::size_t>(scale_cols_));
    for (int r = 0; r < scale_rows_; ++r) {
      for (int c = 0; c < scale_cols_; ++c) {
        scale_[static_cast<std::size_t>(r) * static_cast<std::size_t>(scale_cols_) +
               static_cast<std::size_t>(c)] = ir_drop_factor(scale_rows_, r, c);
      }
    }
  }
  return scale_.data();
}

void NonIdealityModel::on_column_read(float* sums, int n, const ColumnReadInfo& info) {
  if (cfg_.read_noise_sigma <= 0.0 || info.drive_sq_sum <= 0.0) return;
  const double sigma = cfg_.read_noise_sigma * std::sqrt(info.drive_sq_sum);
  for (int c = 0; c < n; ++c) {
    sums[c] = static_cast<float>(static_cast<double>(sums[c]) + sigma * rng_.normal());
  }
}

}  // namespace vp::hw
