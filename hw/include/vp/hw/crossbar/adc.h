// The column ADC: converts one analog column sum S (level units x DAC code,
// the current of the column in units of one level at DAC code 1) into the
// integer the digital shift-and-add uses.
//
//   ideal:    value = floor(S + 0.5). No resolution or range limit; with
//             exact cell levels S is an integer and the value is exact.
//   quantize: B = adc.bits, max_code = 2^B - 1. FS = adc.full_scale, or when
//             that is 0 the largest possible column sum
//             rows_per_step * (2^cell_bits - 1) * (2^dac.bits - 1).
//             The LSB is a power of two, 2^s, with s the smallest s >= 0 for
//             which max_code * 2^s >= FS (so shift-and-add stays integer):
//               code  = clamp(floor(S / 2^s + 0.5), 0, max_code)
//               value = code * 2^s
//             Codes outside [0, max_code] are clipped (and counted). When
//             2^B > FS, s = 0 and the ADC is exact for every possible sum.
#pragma once

#include <cstdint>

#include "vp/hw/crossbar/crossbar_config.h"

namespace vp::hw {

class Adc {
 public:
  Adc(AdcMode mode, int bits, double full_scale);
  // The ADC the config describes (auto full scale from geometry).
  static Adc for_crossbar(const CrossbarConfig& cfg);

  AdcMode mode() const { return mode_; }
  int bits() const { return bits_; }
  double full_scale() const { return full_scale_; }
  int lsb_shift() const { return shift_; }
  std::int64_t max_code() const { return max_code_; }
  // True when every integer column sum in [0, full_scale] converts exactly.
  bool exact() const { return mode_ == AdcMode::ideal || shift_ == 0; }

  // One conversion; *clipped set when the code left [0, max_code].
  std::int64_t convert(float sum, bool* clipped = nullptr) const;
  // n conversions; returns the number clipped.
  std::uint64_t convert(const float* sums, int n, std::int64_t* values) const;
  // The same for exact integer sums (MvmEngine's integer path), in integer
  // arithmetic: floor(S / 2^s + 0.5) = (S + 2^(s-1)) >> s.
  std::uint64_t convert(const std::uint16_t* sums, int n, std::int64_t* values) const;

 private:
  AdcMode mode_;
  int bits_;
  double full_scale_;
  int shift_ = 0;
  std::int64_t max_code_;
  double inv_lsb_ = 1.0;
};

}  // namespace vp::hw
