// The memristive device as the write path sees it: where a cell starts and
// how far one programming pulse moves it. Seeded; the caller passes the
// seed (device.seed, typically derive_seed(device.seed, crossbar id)).
//
// The writes of each row are numbered (a reset of the row counts as one),
// and every draw of a cell during a write comes from its own counter-based
// stream keyed by (seed, row, column, write number). A cell's steps thus
// depend on nothing but those four: rows and crossbars can be written in
// any order, or cells drawn on several threads, with the same numbers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "vp/hw/crossbar/cell_kernels.h"
#include "vp/hw/crossbar/rng.h"
#include "vp/hw/param_defaults.h"

namespace vp::hw {

class Crossbar;

// Defaults: the parameter table's (vp/config/params.def).
struct DeviceConfig {
  double start_level = param_default::device_start_level;  // device.start_level [levels] before the first write
  double start_sigma = param_default::device_start_sigma;  // device.start_sigma [levels] spread of that state
  double step_levels_mean = param_default::device_step_levels_mean;    // device.step_levels_mean [levels per pulse]
  double step_levels_sigma = param_default::device_step_levels_sigma;  // device.step_levels_sigma [levels per pulse]
  void validate() const;           // throws std::invalid_argument naming the parameter
};

class DeviceModel {
 public:
  DeviceModel(const DeviceConfig& cfg, std::uint64_t seed);

  const DeviceConfig& config() const { return cfg_; }
  // Smallest step a pulse can make: the N(mean, sigma) draw is clamped up to
  // 1% of the mean so a pulse always moves a healthy cell.
  double min_step() const { return 0.01 * cfg_.step_levels_mean; }
  bool deterministic() const { return cfg_.step_levels_sigma == 0.0; }

  // The draws of one cell during one write, in pulse order.
  class CellDraws {
   public:
    // Conductance change of the next pulse, in levels, >= min_step(). Draws
    // nothing when step_levels_sigma is 0.
    double step() {
      if (cfg_->step_levels_sigma == 0.0) return cfg_->step_levels_mean;
      return std::max(rng_.normal(cfg_->step_levels_mean, cfg_->step_levels_sigma),
                      0.01 * cfg_->step_levels_mean);
    }
    // Fresh state N(start_level, start_sigma) clamped to [0, max_level].
    double start(int max_level) {
      const double v = cfg_->start_sigma == 0.0 ? cfg_->start_level
                                                : rng_.normal(cfg_->start_level, cfg_->start_sigma);
      return std::clamp(v, 0.0, static_cast<double>(max_level));
    }

   private:
    friend class DeviceModel;
    CellDraws(const DeviceConfig* cfg, std::uint64_t key) : cfg_(cfg), rng_(key) {}
    const DeviceConfig* cfg_;
    StreamRng rng_;
  };

  // The streams of one write of one row.
  class RowDraws {
   public:
    CellDraws cell(int col) const { return CellDraws(cfg_, key(col)); }
    // The key of column col's stream (for the cell kernels, cell_kernels.h,
    // which compute it from row_key() the same way: cell_stream_key).
    std::uint64_t key(int col) const { return cell_stream_key(key_, col); }
    std::uint64_t row_key() const { return key_; }

   private:
    friend class DeviceModel;
    RowDraws(const DeviceConfig* cfg, std::uint64_t key) : cfg_(cfg), key_(key) {}
    const DeviceConfig* cfg_;
    std::uint64_t key_;
  };

  // Numbers the next write of `row` (0, 1, ...) and returns its draws.
  RowDraws next_write(int row);
  // The draws of write `write` of `row`, whether or not it happened.
  RowDraws write(int row, std::uint32_t write) const;
  // Writes of `row` so far.
  std::uint32_t writes(int row) const;
  // Sets them: a row whose writes were drawn by another device model of the
  // same seed (DeployAhead), the next write numbered after them.
  void set_writes(int row, std::uint32_t writes);

  // Puts every cell of a row (or the whole array) into a fresh start state,
  // e.g. before first programming; stuck cells keep their level. A reset is
  // a write of the row.
  void reset_row(Crossbar& xb, int row);
  void reset(Crossbar& xb);

 private:
  DeviceConfig cfg_;
  std::uint64_t seed_;
  std::vector<std::uint32_t> writes_;  // per row
};

}  // namespace vp::hw
