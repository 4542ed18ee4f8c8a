#include "vp/hw/crossbar/device_model.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "vp/hw/crossbar/crossbar.h"

namespace vp::hw {

void DeviceConfig::validate() const {
  if (!(start_level >= 0.0)) throw std::invalid_argument("device.start_level: must be >= 0");
  if (!(start_sigma >= 0.0)) throw std::invalid_argument("device.start_sigma: must be >= 0");
  if (!(step_levels_mean > 0.0)) throw std::invalid_argument("device.step_levels_mean: must be > 0");
  if (!(step_levels_sigma >= 0.0)) throw std::invalid_argument("device.step_levels_sigma: must be >= 0");
}

DeviceModel::DeviceModel(const DeviceConfig& cfg, std::uint64_t seed) : cfg_(cfg), rng_(seed) {
  cfg_.validate();
}

double DeviceModel::draw_step() {
  if (cfg_.step_levels_sigma == 0.0) return cfg_.step_levels_mean;
  return std::max(rng_.normal(cfg_.step_levels_mean, cfg_.step_levels_sigma), min_step());
}

double DeviceModel::draw_start(int max_level) {
  const double v = cfg_.start_sigma == 0.0 ? cfg_.start_level
                                           : rng_.normal(cfg_.start_level, cfg_.start_sigma);
  return std::clamp(v, 0.0, static_cast<double>(max_level));
}

void DeviceModel::reset_row(Crossbar& xb, int row) {
  for (int c = 0; c < xb.cols(); ++c) {
    xb.set_level(row, c, static_cast<float>(draw_start(xb.max_level())));
  }
}

void DeviceModel::reset(Crossbar& xb) {
  for (int r = 0; r < xb.rows(); ++r) reset_row(xb, r);
}

}  // namespace vp::hw
