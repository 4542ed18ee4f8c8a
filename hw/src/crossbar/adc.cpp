#include "vp/hw/crossbar/adc.h"

#include <cmath>
#include <stdexcept>

namespace vp::hw {

Adc::Adc(AdcMode mode, int bits, double full_scale)
    : mode_(mode), bits_(bits), full_scale_(full_scale), max_code_((std::int64_t{1} << bits) - 1) {
  if (bits < 1 || bits > 24) throw std::invalid_argument("adc.bits: must be in [1, 24]");
  if (!(full_scale >= 0.0)) throw std::invalid_argument("adc.full_scale: must be >= 0");
  // Smallest power-of-two LSB whose max_code codes reach the full scale.
  while (static_cast<double>(max_code_) * std::ldexp(1.0, shift_) < full_scale_) ++shift_;
  inv_lsb_ = std::ldexp(1.0, -shift_);
}

Adc Adc::for_crossbar(const CrossbarConfig& cfg) {
  const double fs = cfg.adc_full_scale > 0.0 ? cfg.adc_full_scale : cfg.max_column_sum();
  return Adc(cfg.adc_mode, cfg.adc_bits, fs);
}

namespace {
// floor(t) for the range an ADC sees, without a libm call per conversion.
// Works in double: float sums reach 2^24, where float has no room for +0.5.
inline std::int64_t floor_to_int(double t) {
  auto i = static_cast<std::int64_t>(t);
  return static_cast<double>(i) > t ? i - 1 : i;
}
}  // namespace

std::int64_t Adc::convert(float sum, bool* clipped) const {
  if (mode_ == AdcMode::ideal) {
    if (clipped != nullptr) *clipped = false;
    return floor_to_int(static_cast<double>(sum) + 0.5);
  }
  std::int64_t code = floor_to_int(static_cast<double>(sum) * inv_lsb_ + 0.5);
  const bool clip = code < 0 || code > max_code_;
  if (clipped != nullptr) *clipped = clip;
  if (code < 0) code = 0;
  if (code > max_code_) code = max_code_;
  return code * (std::int64_t{1} << shift_);
}

std::uint64_t Adc::convert(const float* sums, int n, std::int64_t* values) const {
  if (mode_ == AdcMode::ideal) {
    for (int c = 0; c < n; ++c) values[c] = floor_to_int(static_cast<double>(sums[c]) + 0.5);
    return 0;
  }
  std::uint64_t clipped = 0;
  const std::int64_t lsb = std::int64_t{1} << shift_;
  for (int c = 0; c < n; ++c) {
    std::int64_t code = floor_to_int(static_cast<double>(sums[c]) * inv_lsb_ + 0.5);
    if (code < 0) {
      code = 0;
      ++clipped;
    } else if (code > max_code_) {
      code = max_code_;
      ++clipped;
    }
    values[c] = code * lsb;
  }
  return clipped;
}

std::uint64_t Adc::convert(const std::uint16_t* sums, int n, std::int64_t* values) const {
  if (mode_ == AdcMode::ideal) {
    for (int c = 0; c < n; ++c) values[c] = sums[c];
    return 0;
  }
  std::uint64_t clipped = 0;
  const std::int64_t half = shift_ > 0 ? (std::int64_t{1} << (shift_ - 1)) : 0;
  for (int c = 0; c < n; ++c) {
    std::int64_t code = (static_cast<std::int64_t>(sums[c]) + half) >> shift_;
    if (code > max_code_) {
      code = max_code_;
      ++clipped;
    }
    values[c] = code << shift_;
  }
  return clipped;
}

}  // namespace vp::hw
