#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "vp/hw/crossbar/rng.h"

namespace {

using vp::hw::Rng;

TEST(Rng, SameSeedSameSequence) {
  Rng a(123);
  Rng b(123);
  Rng c(124);
  int differ = 0;
  for (int i = 0; i < 1000; ++i) {
    const double x = a.normal();
    EXPECT_EQ(x, b.normal());
    differ += x != c.normal() ? 1 : 0;
    EXPECT_EQ(a.uniform(), b.uniform());
    c.uniform();
  }
  EXPECT_GT(differ, 990);
}

TEST(Rng, DeriveSeedSeparatesStreams) {
  EXPECT_NE(vp::hw::derive_seed(1, 0), vp::hw::derive_seed(1, 1));
  EXPECT_NE(vp::hw::derive_seed(1, 0), vp::hw::derive_seed(2, 0));
  EXPECT_EQ(vp::hw::derive_seed(7, 42), vp::hw::derive_seed(7, 42));
}

TEST(Rng, UniformRange) {
  Rng r(5);
  double sum = 0.0;
  for (int i = 0; i < 100000; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    const double o = r.uniform_open();
    ASSERT_GT(o, 0.0);
    ASSERT_LT(o, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / 100000.0, 0.5, 0.005);
}

TEST(Rng, NormalMomentsAndTails) {
  Rng r(2024);
  const int n = 2000000;
  double s1 = 0.0;
  double s2 = 0.0;
  double s3 = 0.0;
  double s4 = 0.0;
  int beyond1 = 0;
  int beyond2 = 0;
  int beyond3 = 0;
  int beyond_r = 0;  // past the ziggurat's base strip, 3.4426
  for (int i = 0; i < n; ++i) {
    const double x = r.normal();
    s1 += x;
    s2 += x * x;
    s3 += x * x * x;
    s4 += x * x * x * x;
    const double a = std::fabs(x);
    beyond1 += a > 1.0;
    beyond2 += a > 2.0;
    beyond3 += a > 3.0;
    beyond_r += a > 3.5;
  }
  EXPECT_NEAR(s1 / n, 0.0, 0.004);
  EXPECT_NEAR(s2 / n, 1.0, 0.005);
  EXPECT_NEAR(s3 / n, 0.0, 0.015);
  EXPECT_NEAR(s4 / n, 3.0, 0.03);
  // Two-sided tail probabilities of N(0, 1), within ~5 binomial sd.
  EXPECT_NEAR(beyond1 / double(n), 0.317311, 0.0017);
  EXPECT_NEAR(beyond2 / double(n), 0.0455003, 0.00075);
  EXPECT_NEAR(beyond3 / double(n), 0.0026998, 0.00019);
  EXPECT_NEAR(beyond_r / double(n), 0.000465, 0.000077);
}

TEST(Rng, ScaledNormal) {
  Rng r(9);
  double s = 0.0;
  double s2 = 0.0;
  for (int i = 0; i < 200000; ++i) {
    const double x = r.normal(5.0, 0.25);
    s += x;
    s2 += x * x;
  }
  const double mean = s / 200000.0;
  EXPECT_NEAR(mean, 5.0, 0.003);
  EXPECT_NEAR(std::sqrt(s2 / 200000.0 - mean * mean), 0.25, 0.003);
}

}  // namespace
