#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/weight_encoding.h"

namespace {

using vp::hw::CrossbarConfig;
using vp::hw::SignedEncoding;
using vp::hw::WeightEncoding;

CrossbarConfig make(int wb, int cb, SignedEncoding e, int cols = 256) {
  CrossbarConfig cfg;
  cfg.weight_bits = wb;
  cfg.cell_bits = cb;
  cfg.signed_encoding = e;
  cfg.cols = cols;
  return cfg;
}

TEST(WeightEncoding, LogicalColumnsPerCrossbar) {
  EXPECT_EQ(vp::hw::logical_cols_per_crossbar(make(8, 2, SignedEncoding::offset_slices)), 64);
  EXPECT_EQ(vp::hw::logical_cols_per_crossbar(make(8, 2, SignedEncoding::differential)), 32);
  EXPECT_EQ(vp::hw::logical_cols_per_crossbar(make(8, 1, SignedEncoding::offset_slices)), 32);
  EXPECT_EQ(vp::hw::logical_cols_per_crossbar(make(8, 4, SignedEncoding::differential)), 64);
  EXPECT_EQ(vp::hw::logical_cols_per_crossbar(make(8, 3, SignedEncoding::offset_slices, 128)), 42);
}

TEST(WeightEncoding, OffsetSlicesLsbFirst) {
  const WeightEncoding enc(make(8, 2, SignedEncoding::offset_slices));
  EXPECT_EQ(enc.slices(), 4);
  EXPECT_EQ(enc.offset(), 128);
  // -75 + 128 = 53 = 0b00'11'01'01 -> slices (LSB first) 1, 1, 3, 0
  const std::int32_t w[] = {-75, -128, 127};
  std::uint8_t lv[12];
  enc.encode_row(w, 3, lv);
  EXPECT_EQ(std::vector<std::uint8_t>(lv, lv + 4), (std::vector<std::uint8_t>{1, 1, 3, 0}));
  EXPECT_EQ(std::vector<std::uint8_t>(lv + 4, lv + 8), (std::vector<std::uint8_t>{0, 0, 0, 0}));
  EXPECT_EQ(std::vector<std::uint8_t>(lv + 8, lv + 12), (std::vector<std::uint8_t>{3, 3, 3, 3}));  // 127 + 128 = 255
}

TEST(WeightEncoding, DifferentialPositiveGroupThenNegativeGroup) {
  const WeightEncoding enc(make(8, 4, SignedEncoding::differential));
  EXPECT_EQ(enc.columns_per_weight(), 4);
  EXPECT_EQ(enc.offset(), 0);
  const std::int32_t w[] = {0x5A, -128};
  std::uint8_t lv[8];
  enc.encode_row(w, 2, lv);
  EXPECT_EQ(std::vector<std::uint8_t>(lv, lv + 4), (std::vector<std::uint8_t>{0xA, 0x5, 0, 0}));
  // |-128| = 0x80 needs the full 8 bits of the negative group
  EXPECT_EQ(std::vector<std::uint8_t>(lv + 4, lv + 8), (std::vector<std::uint8_t>{0, 0, 0x0, 0x8}));
  EXPECT_EQ(enc.physical_col(1, 1, true), 4 + 2 + 1);
}

TEST(WeightEncoding, RejectsWeightsOutsideWeightBits) {
  const WeightEncoding enc(make(4, 2, SignedEncoding::offset_slices));
  const std::int32_t bad_hi[] = {8};
  const std::int32_t bad_lo[] = {-9};
  std::uint8_t lv[2];
  EXPECT_THROW(enc.encode_row(bad_hi, 1, lv), std::out_of_range);
  EXPECT_THROW(enc.encode_row(bad_lo, 1, lv), std::out_of_range);
}

using RoundTripParam = std::tuple<int, int, SignedEncoding>;
class WeightRoundTrip : public ::testing::TestWithParam<RoundTripParam> {};

TEST_P(WeightRoundTrip, DecodeInvertsEncodeAndLevelsFitCells) {
  const auto [wb, cb, e] = GetParam();
  const WeightEncoding enc(make(wb, cb, e));
  const int k = 5;
  const int n = 9;
  std::vector<std::int32_t> w;
  std::mt19937_64 rng(static_cast<std::uint64_t>(wb * 10 + cb));
  std::uniform_int_distribution<std::int32_t> d(enc.min_weight(), enc.max_weight());
  for (int i = 0; i < k * n; ++i) w.push_back(d(rng));
  w[0] = enc.min_weight();
  w[1] = enc.max_weight();
  const auto levels = enc.encode(w, k, n);
  ASSERT_EQ(levels.size(), static_cast<std::size_t>(k * n * enc.columns_per_weight()));
  for (std::uint8_t l : levels) EXPECT_LT(l, 1u << cb);
  EXPECT_EQ(enc.decode(levels.data(), k, n), w);
}

INSTANTIATE_TEST_SUITE_P(Widths, WeightRoundTrip,
                         ::testing::Combine(::testing::Values(2, 4, 7, 8, 16), ::testing::Values(1, 2, 3, 4, 8),
                                            ::testing::Values(SignedEncoding::offset_slices,
                                                              SignedEncoding::differential)));

TEST(WeightEncoding, ReadBackThroughCrossbar) {
  CrossbarConfig cfg;
  const WeightEncoding enc(cfg);
  std::vector<std::int32_t> w = {-128, -1, 0, 1, 127, 64, -64, 33};
  const auto levels = enc.encode(w, 2, 4);
  vp::hw::Crossbar xb(cfg);
  xb.program_block_exact(3, 2, 16, 16, levels.data());
  const auto back = xb.read_levels(3, 2, 16, 16);
  EXPECT_EQ(enc.decode(back.data(), 2, 4), w);
}

}  // namespace
