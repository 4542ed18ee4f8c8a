#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>

#include "vp/hw/noc/cycle_math.h"

namespace vp::hw::noc {
namespace {

TEST(CycleMath, RationalizeFindsTheFractionADoubleStandsFor) {
  EXPECT_EQ(rationalize(12.8), (Rational{64, 5}));
  EXPECT_EQ(rationalize(1.25), (Rational{5, 4}));
  EXPECT_EQ(rationalize(64.0), (Rational{64, 1}));
  EXPECT_EQ(rationalize(1.0 / 3.0), (Rational{1, 3}));
  EXPECT_EQ(rationalize(0.3), (Rational{3, 10}));
  EXPECT_EQ(rationalize(1000.0 / 800.0), (Rational{5, 4}));
  EXPECT_EQ(rationalize(25.6 * 1000.0 / 1200.0), (Rational{64, 3}));
  EXPECT_EQ(rationalize(0.5), (Rational{1, 2}));
}

TEST(CycleMath, RationalizeStaysWithinTheDenominatorBound) {
  const double pi = 3.14159265358979323846;
  const Rational r = rationalize(pi, 1000);
  EXPECT_LE(r.den, 1000u);
  EXPECT_EQ(r, (Rational{355, 113}));
  const Rational fine = rationalize(pi);
  EXPECT_LE(fine.den, 1000000u);
  EXPECT_NEAR(fine.value(), pi, 1e-11);
}

TEST(CycleMath, RationalizeRejectsNonPositiveAndTinyValues) {
  EXPECT_THROW(rationalize(0.0), std::invalid_argument);
  EXPECT_THROW(rationalize(-1.0), std::invalid_argument);
  EXPECT_THROW(rationalize(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
  EXPECT_THROW(rationalize(std::numeric_limits<double>::infinity()), std::invalid_argument);
  EXPECT_THROW(rationalize(1e-9), std::invalid_argument);
}

TEST(CycleMath, CeilMulAndCeilDivAreExact) {
  EXPECT_EQ(ceil_mul(7, Rational{5, 4}), 9u);    // 8.75
  EXPECT_EQ(ceil_mul(8, Rational{5, 4}), 10u);   // exact
  EXPECT_EQ(ceil_mul(0, Rational{5, 4}), 0u);
  EXPECT_EQ(ceil_div(100, Rational{64, 5}), 8u);   // 7.8125
  EXPECT_EQ(ceil_div(128, Rational{64, 5}), 10u);  // exact
  EXPECT_EQ(ceil_div(std::uint64_t{7}, std::uint64_t{2}), 4u);
  EXPECT_EQ(ceil_div(std::uint64_t{8}, std::uint64_t{2}), 4u);
  // 128-bit intermediate: no overflow while the result fits.
  const std::uint64_t big = std::uint64_t{1} << 62;
  EXPECT_EQ(ceil_mul(big, Rational{3, 4}), (big / 4) * 3);
  EXPECT_THROW(ceil_mul(std::numeric_limits<std::uint64_t>::max(), Rational{2, 1}), std::overflow_error);
}

TEST(CycleMath, NsToCyclesRoundsUpWithoutBinaryNoise) {
  EXPECT_EQ(ns_to_cycles(100.0, 1000.0), 100u);
  EXPECT_EQ(ns_to_cycles(100.0, 1200.0), 120u);
  EXPECT_EQ(ns_to_cycles(1.0, 800.0), 1u);    // 0.8
  EXPECT_EQ(ns_to_cycles(0.5, 1000.0), 1u);   // 0.5
  EXPECT_EQ(ns_to_cycles(10.0, 333.0), 4u);   // 3.33
  EXPECT_EQ(ns_to_cycles(0.1 * 3, 10000.0), 3u);  // 0.30000000000000004 ns * 10 GHz
  EXPECT_EQ(ns_to_cycles(0.0, 1000.0), 0u);
  EXPECT_EQ(ns_to_cycles(-5.0, 1000.0), 0u);
  EXPECT_THROW(ns_to_cycles(1.0, 0.0), std::invalid_argument);
}

TEST(CycleMath, GbpsToBytesPerCycle) {
  EXPECT_DOUBLE_EQ(gbps_to_bytes_per_cycle(64.0, 1000.0), 64.0);
  EXPECT_DOUBLE_EQ(gbps_to_bytes_per_cycle(6.4, 1000.0), 6.4);
  EXPECT_DOUBLE_EQ(gbps_to_bytes_per_cycle(64.0, 2000.0), 32.0);
}

}  // namespace
}  // namespace vp::hw::noc
