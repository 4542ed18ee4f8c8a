// The one rule that turns a real number into an integer code and back,
// shared by the compiler (vp-cc --quantize-input, its golden model's
// inputs) and the host side of vp-run (float .npy inputs and outputs), so
// both give the same bytes for the same input.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace vp::common {

// code = clamp(round(x / scale) + zero_point, lo, hi), rounding half away
// from zero (std::llround's rule). Clamping happens in double before the
// conversion, so values far beyond the range saturate instead of
// overflowing. x must not be NaN (callers refuse it with a named error).
inline std::int64_t quantize_code(double x, double scale, std::int64_t zero_point, std::int64_t lo, std::int64_t hi) {
  const double q = std::round(x / scale) + static_cast<double>(zero_point);
  return static_cast<std::int64_t>(std::clamp(q, static_cast<double>(lo), static_cast<double>(hi)));
}

inline std::int8_t quantize_int8(double x, double scale) {
  return static_cast<std::int8_t>(quantize_code(x, scale, 0, -128, 127));
}

// value = (code - zero_point) * scale, computed in double.
inline double dequantize_code(std::int64_t code, double scale, std::int64_t zero_point) {
  return static_cast<double>(code - zero_point) * scale;
}

}  // namespace vp::common
