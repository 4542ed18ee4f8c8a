#include "vp/hw/crossbar/device_model.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "vp/hw/crossbar/cell_kernels.h"
#include "vp/hw/crossbar/crossbar.h"

namespace vp::hw {

void DeviceConfig::validate() const {
  if (!(start_level >= 0.0)) throw std::invalid_argument("device.start_level: must be >= 0");
  if (!(start_sigma >= 0.0)) throw std::invalid_argument("device.start_sigma: must be >= 0");
  if (!(step_levels_mean > 0.0)) throw std::invalid_argument("device.step_levels_mean: must be > 0");
  if (!(step_levels_sigma >= 0.0)) throw std::invalid_argument("device.step_levels_sigma: must be >= 0");
}

DeviceModel::DeviceModel(const DeviceConfig& cfg, std::uint64_t seed) : cfg_(cfg), seed_(seed) {
  cfg_.validate();
}

DeviceModel::RowDraws DeviceModel::write(int row, std::uint32_t write) const {
  // Row and write number in one word, hashed, then keyed by the seed: every
  // (row, write) starts its cells' streams from an unrelated point.
  const std::uint64_t rw = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(row)) << 32) | write;
  return RowDraws(&cfg_, mix64(seed_ ^ mix64(rw)));
}

std::uint32_t DeviceModel::writes(int row) const {
  const auto r = static_cast<std::size_t>(row);
  return r < writes_.size() ? writes_[r] : 0u;
}

void DeviceModel::set_writes(int row, std::uint32_t writes) {
  if (row < 0) throw std::out_of_range("device model: row " + std::to_string(row));
  const auto r = static_cast<std::size_t>(row);
  if (r >= writes_.size()) writes_.resize(r + 1, 0u);
  writes_[r] = writes;
}

DeviceModel::RowDraws DeviceModel::next_write(int row) {
  if (row < 0) throw std::out_of_range("device model: row " + std::to_string(row));
  const auto r = static_cast<std::size_t>(row);
  if (r >= writes_.size()) writes_.resize(r + 1, 0u);
  return write(row, writes_[r]++);
}

void DeviceModel::reset_row(Crossbar& xb, int row) {
  const RowDraws draws = next_write(row);
  const std::uint8_t* faults = xb.row_faults(row);
  float* lv = xb.row_levels(row);
  const int top = xb.max_level();
  const int cols = xb.cols();
  if (faults == nullptr && cfg_.start_sigma != 0.0) {
    // No stuck cell: the draws go straight into the row.
    start_row_levels(draws.row_key(), cfg_.start_level, cfg_.start_sigma, static_cast<double>(top), lv, cols);
    return;
  }
  // One draw per cell, all cells of the row at once (cell_kernels.h).
  thread_local std::vector<std::uint64_t> keys;
  thread_local std::vector<float> start;
  start.resize(static_cast<std::size_t>(cols));
  if (cfg_.start_sigma == 0.0) {
    std::fill(start.begin(), start.end(), static_cast<float>(std::clamp(cfg_.start_level, 0.0, static_cast<double>(top))));
  } else {
    thread_local std::vector<std::int32_t> col;
    if (col.size() < static_cast<std::size_t>(cols)) {
      col.resize(static_cast<std::size_t>(cols));
      for (int c = 0; c < cols; ++c) col[static_cast<std::size_t>(c)] = c;
    }
    keys.resize(static_cast<std::size_t>(cols));
    cell_stream_keys(draws.row_key(), col.data(), cols, keys.data());
    start_levels(keys.data(), cfg_.start_level, cfg_.start_sigma, static_cast<double>(top), start.data(), cols);
  }
  for (int c = 0; c < cols; ++c) {
    if (faults == nullptr || faults[c] == 0) lv[c] = start[static_cast<std::size_t>(c)];
  }
}

void DeviceModel::reset(Crossbar& xb) {
  for (int r = 0; r < xb.rows(); ++r) reset_row(xb, r);
}

}  // namespace vp::hw
