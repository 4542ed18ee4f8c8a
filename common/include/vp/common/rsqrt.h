// The reciprocal square root (rsqrt) and the reciprocal (recip) the CU's
// scalar unit computes and the compiler's golden model reproduces: one exact
// integer definition each, so a LayerNorm or a Softmax on the chip equals the
// golden model byte for byte.
#pragma once

#include <cmath>
#include <cstdint>

namespace vp::common {

// floor(sqrt(v)) exactly for any 64-bit v: the double estimate is within one
// of the answer, and the two corrections make it exact.
inline std::uint64_t isqrt_u64(std::uint64_t v) {
  std::uint64_t r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(v)));
  if (r > 0xFFFFFFFFull) r = 0xFFFFFFFFull;
  while (r * r > v) --r;
  while (r < 0xFFFFFFFFull && (r + 1) * (r + 1) <= v) ++r;
  return r;
}

// min(2^31 - 1, floor(2^31 / sqrt(v))), and 2^31 - 1 for v = 0. It equals
// floor(sqrt(floor(2^62 / v))), which integers give exactly. The result
// fits a signed 32-bit register, so vmuls can scale by it.
inline std::uint32_t rsqrt_q31(std::uint32_t v) {
  constexpr std::uint64_t kMax = 0x7FFFFFFFull;
  if (v == 0) return static_cast<std::uint32_t>(kMax);
  const std::uint64_t r = isqrt_u64((std::uint64_t{1} << 62) / v);
  return static_cast<std::uint32_t>(r < kMax ? r : kMax);
}

// min(2^31 - 1, floor(2^31 / v)), and 2^31 - 1 for v = 0 (recip): a
// Softmax's 1 / sum of its exponentials, exact in integers.
inline std::uint32_t recip_q31(std::uint32_t v) {
  constexpr std::uint64_t kMax = 0x7FFFFFFFull;
  if (v == 0) return static_cast<std::uint32_t>(kMax);
  const std::uint64_t r = (std::uint64_t{1} << 31) / v;
  return static_cast<std::uint32_t>(r < kMax ? r : kMax);
}

}  // namespace vp::common
