// The memristive device as the write path sees it: where a cell starts and
// how far one programming pulse moves it. Seeded; the caller passes the
// seed (device.seed, typically derive_seed(device.seed, crossbar id)).
#pragma once

#include <cstdint>

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

  // Conductance change of one pulse, in levels, > 0. Draws nothing when
  // step_levels_sigma is 0.
  double draw_step();
  // Initial state N(start_level, start_sigma) clamped to [0, max_level].
  double draw_start(int max_level);
  // Puts every cell of a row (or the whole array) into a fresh start state,
  // e.g. before first programming; stuck cells keep their level.
  void reset_row(Crossbar& xb, int row);
  void reset(Crossbar& xb);

 private:
  DeviceConfig cfg_;
  Rng rng_;
};

}  // namespace vp::hw
