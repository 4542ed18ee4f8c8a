// The chip's integer arithmetic, written once: the golden model uses these
// and they are exactly the vector unit's (hw/src/cu/vector_unit.cpp):
// saturating int8/int32, rounding arithmetic shift, requantization.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace vp::cc {

inline std::int64_t sat8(std::int64_t v) { return std::clamp<std::int64_t>(v, -128, 127); }
inline std::int64_t sat32(std::int64_t v) {
  return std::clamp<std::int64_t>(v, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max());
}
// (v + 2^(s-1)) >> s, arithmetic; s = 0 leaves v.
inline std::int64_t round_shift(std::int64_t v, std::int64_t s) { return s == 0 ? v : (v + (std::int64_t{1} << (s - 1))) >> s; }
// vrq / vrqs with zero point 0: sat8(round_shift(x * m, s)).
inline std::int64_t requant(std::int64_t x, std::int32_t m, std::int32_t s) { return sat8(round_shift(x * m, s)); }

// Real multiplier -> (M, S) with m ~= M * 2^-S, |M| < 2^31, 0 <= S <= 62,
// keeping 31 significant bits when the shift range allows.
inline void fixed_point(double m, std::int32_t& M, std::int32_t& S) {
  if (m == 0 || !std::isfinite(m)) {
    M = 0;
    S = 0;
    return;
  }
  int e = 0;
  const double f = std::frexp(std::fabs(m), &e);  // |m| = f * 2^e, f in [0.5, 1)
  std::int64_t mi = std::llround(std::ldexp(f, 31));
  if (mi == (std::int64_t{1} << 31)) {
    mi >>= 1;
    ++e;
  }
  std::int64_t s = 31 - e;
  if (s > 62) {
    mi = s - 62 > 40 ? 0 : round_shift(mi, s - 62);
    s = 62;
  }
  if (s < 0) {  // multipliers >= 2^31: saturate, the result saturates anyway
    mi = std::numeric_limits<std::int32_t>::max();
    s = 0;
  }
  M = static_cast<std::int32_t>(m < 0 ? -mi : mi);
  S = static_cast<std::int32_t>(s);
}

}  // namespace vp::cc
