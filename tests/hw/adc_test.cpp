#include <gtest/gtest.h>

#include <cstdint>

#include "vp/hw/crossbar/adc.h"
#include "vp/hw/crossbar/dac.h"

namespace {

using vp::hw::Adc;
using vp::hw::AdcMode;
using vp::hw::CrossbarConfig;
using vp::hw::Dac;

TEST(Adc, IdealRoundsHalfUpWithoutLimit) {
  const Adc adc(AdcMode::ideal, 4, 15.0);
  EXPECT_TRUE(adc.exact());
  EXPECT_EQ(adc.convert(2.49f), 2);
  EXPECT_EQ(adc.convert(2.5f), 3);
  EXPECT_EQ(adc.convert(1000.0f), 1000);
  EXPECT_EQ(adc.convert(-0.5f), 0);
  EXPECT_EQ(adc.convert(-0.51f), -1);
  EXPECT_EQ(adc.convert(16777215.0f), 16777215);
}

TEST(Adc, FullScaleSetsPowerOfTwoLsb) {
  // 256 rows * 3 * 1 = 768; 255 * 4 = 1020 >= 768 > 255 * 2
  CrossbarConfig cfg;
  cfg.adc_mode = AdcMode::quantize;
  const Adc adc = Adc::for_crossbar(cfg);
  EXPECT_DOUBLE_EQ(adc.full_scale(), 768.0);
  EXPECT_EQ(adc.lsb_shift(), 2);
  EXPECT_FALSE(adc.exact());
  EXPECT_EQ(adc.convert(5.0f), 4);   // 1.25 -> 1
  EXPECT_EQ(adc.convert(6.0f), 8);   // 1.5 -> 2 (half up)
  EXPECT_EQ(adc.convert(768.0f), 768);
  cfg.adc_bits = 10;  // 1023 >= 768
  EXPECT_EQ(Adc::for_crossbar(cfg).lsb_shift(), 0);
  EXPECT_TRUE(Adc::for_crossbar(cfg).exact());
}

TEST(Adc, ClipsAndCounts) {
  const Adc adc(AdcMode::quantize, 3, 7.0);
  bool clipped = false;
  EXPECT_EQ(adc.convert(9.0f, &clipped), 7);
  EXPECT_TRUE(clipped);
  EXPECT_EQ(adc.convert(-2.0f, &clipped), 0);
  EXPECT_TRUE(clipped);
  EXPECT_EQ(adc.convert(6.6f, &clipped), 7);
  EXPECT_FALSE(clipped);
  const float sums[] = {1.0f, 8.0f, 100.0f, -1.0f, 3.4f};
  std::int64_t out[5];
  EXPECT_EQ(adc.convert(sums, 5, out), 3u);
  EXPECT_EQ(out[4], 3);
}

TEST(Adc, RowsPerStepShrinksFullScale) {
  CrossbarConfig cfg;
  cfg.adc_mode = AdcMode::quantize;
  cfg.dac_rows_per_step = 64;  // 64 * 3 = 192 < 255
  EXPECT_TRUE(Adc::for_crossbar(cfg).exact());
}

TEST(Dac, OneBitSignedIsTextbookBitSerial) {
  const auto s = Dac(1).schedule(8, true);
  ASSERT_EQ(s.size(), 8u);
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(s[static_cast<std::size_t>(i)].shift, i);
    EXPECT_FALSE(s[static_cast<std::size_t>(i)].negative);
  }
  EXPECT_EQ(s[7].shift, 7);
  EXPECT_TRUE(s[7].negative);
}

TEST(Dac, MultiBitChunksAndSignStep) {
  EXPECT_EQ(Dac(2).steps(8, false), 4);
  EXPECT_EQ(Dac(2).steps(8, true), 5);  // 7 magnitude bits in 4 chunks + sign
  EXPECT_EQ(Dac(4).steps(8, true), 3);
  EXPECT_EQ(Dac(4).steps(16, false), 4);
  EXPECT_EQ(Dac(4).steps(1, true), 1);
  const auto s = Dac(4).schedule(6, true);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].width, 4);
  EXPECT_EQ(s[1].shift, 4);
  EXPECT_EQ(s[1].width, 1);
  EXPECT_TRUE(s[2].negative);
  EXPECT_THROW(Dac(2).schedule(0, true), std::invalid_argument);
  EXPECT_THROW(Dac(2).schedule(17, true), std::invalid_argument);
}

}  // namespace
