// The scalar unit's reciprocal square root against long-double arithmetic,
// and its edges: exact squares, the saturation at small inputs, zero; the
// reciprocal the same way.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "vp/common/rsqrt.h"

namespace {

using vp::common::isqrt_u64;
using vp::common::recip_q31;
using vp::common::rsqrt_q31;

TEST(Rsqrt, IsqrtIsTheFloorOfTheSquareRoot) {
  for (std::uint64_t r : {0ull, 1ull, 2ull, 3ull, 255ull, 65535ull, 4294967295ull}) {
    EXPECT_EQ(isqrt_u64(r * r), r);
    if (r > 0) {
      EXPECT_EQ(isqrt_u64(r * r - 1), r - 1);
    }
  }
  EXPECT_EQ(isqrt_u64(~std::uint64_t{0}), 4294967295ull);
}

TEST(Rsqrt, IsTheFloorOf2To31OverTheRoot) {
  EXPECT_EQ(rsqrt_q31(0), 0x7FFFFFFFu);
  EXPECT_EQ(rsqrt_q31(1), 0x7FFFFFFFu);  // 2^31 saturates
  EXPECT_EQ(rsqrt_q31(4), 1u << 30);     // exact: 2^31 / 2
  EXPECT_EQ(rsqrt_q31(1u << 30), 1u << 16);
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const std::uint32_t v = 2 + rng() % (i % 2 ? 0xFFFFFFFFu : 100000u);
    const std::uint32_t r = rsqrt_q31(v);
    // r is the largest integer whose square is at most floor(2^62 / v).
    const std::uint64_t q = (std::uint64_t{1} << 62) / v, r64 = r;
    EXPECT_LE(r64 * r64, q) << v;
    EXPECT_GT((r64 + 1) * (r64 + 1), q) << v;
    EXPECT_NEAR(double(r), std::ldexp(1.0L, 31) / std::sqrt(static_cast<long double>(v)), 1.0) << v;
  }
}

TEST(Recip, IsTheFloorOf2To31OverTheValue) {
  EXPECT_EQ(recip_q31(0), 0x7FFFFFFFu);
  EXPECT_EQ(recip_q31(1), 0x7FFFFFFFu);  // 2^31 saturates
  EXPECT_EQ(recip_q31(2), 1u << 30);
  EXPECT_EQ(recip_q31(127), 16909320u);  // a Softmax row whose only exponential is 127
  EXPECT_EQ(recip_q31(0xFFFFFFFFu), 0u);
  std::mt19937 rng(11);
  for (int i = 0; i < 20000; ++i) {
    const std::uint32_t v = 2 + rng() % (i % 2 ? 0xFFFFFFFEu : 100000u);
    const std::uint64_t r = recip_q31(v);
    EXPECT_LE(r * v, std::uint64_t{1} << 31) << v;
    EXPECT_GT((r + 1) * v, std::uint64_t{1} << 31) << v;
  }
}

}  // namespace
