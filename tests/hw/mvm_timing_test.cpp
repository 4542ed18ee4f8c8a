// MvmTiming against cycle counts worked out by hand from the PIMSim-NN
// pipeline formula (see mvm_timing.h).
#include <gtest/gtest.h>

#include "vp/hw/crossbar/crossbar_config.h"
#include "vp/hw/crossbar/mvm_timing.h"

namespace {

using vp::hw::CrossbarConfig;
using vp::hw::MvmTiming;
using vp::hw::MvmTimingConfig;

// The crossbar these hand-worked counts assume: the default 256x256 with
// 8 columns per ADC (32 ADCs), set explicitly.
CrossbarConfig eight_columns_per_adc() {
  CrossbarConfig x;
  x.adc_columns_per_adc = 8;
  return x;
}

TEST(NsToCycles, RoundsUpButNotOnExactMultiples) {
  EXPECT_EQ(vp::hw::ns_to_cycles(100.0, 1000.0), 100u);
  EXPECT_EQ(vp::hw::ns_to_cycles(0.78125, 1000.0), 1u);
  EXPECT_EQ(vp::hw::ns_to_cycles(1.0, 1250.0), 2u);   // 1.25 cycles
  EXPECT_EQ(vp::hw::ns_to_cycles(0.8, 1250.0), 1u);   // exactly 1.0
  EXPECT_EQ(vp::hw::ns_to_cycles(0.3, 1000.0), 1u);
  EXPECT_EQ(vp::hw::ns_to_cycles(0.0, 1000.0), 0u);
  EXPECT_THROW(vp::hw::ns_to_cycles(1.0, 0.0), std::invalid_argument);
}

TEST(MvmTiming, DefaultSidraCrossbar) {
  // 256x256, 1-bit DAC, 8 columns per ADC -> 32 ADCs, 8 conversions each.
  // front = 1 + 100 + 1 = 102; back = 1 + 1 + 7 * max(1, 1) = 9;
  // 8 steps: 102 + 9 + 7 * 102 = 825.
  const MvmTiming t(eight_columns_per_adc(), MvmTimingConfig{});
  const auto b = t.breakdown(8, true);
  EXPECT_EQ(b.front_cycles, 102u);
  EXPECT_EQ(b.adcs, 32);
  EXPECT_EQ(b.column_groups, 8);
  EXPECT_EQ(b.back_cycles, 9u);
  EXPECT_EQ(b.input_steps, 8);
  EXPECT_EQ(b.row_groups, 1);
  EXPECT_EQ(b.total_cycles, 825u);
  EXPECT_EQ(t.cycles(8, false), 825u);  // 1-bit DAC: same steps unsigned
}

TEST(MvmTiming, DefaultSerialBackAndNoPipeline) {
  MvmTimingConfig tc;
  tc.back_pipelined = false;  // back = 8 * (1 + 1) = 16
  EXPECT_EQ(MvmTiming(eight_columns_per_adc(), tc).cycles(8), 102u + 16u + 7u * 102u);  // 832
  tc.pipelined = false;       // 8 * (102 + 16)
  EXPECT_EQ(MvmTiming(eight_columns_per_adc(), tc).cycles(8), 944u);
}

TEST(MvmTiming, IsaacLike) {
  // 128x128, 1-bit DAC, one 8-bit 1.28 GS/s ADC for 128 columns, 16-bit
  // inputs, 100 ns read, 1 GHz. ADC 0.78 ns -> 1 cycle.
  // front = 1 + 100 + 1 = 102; back = 1 + 1 + 127 * 1 = 129 (> front)
  // total = 102 + 129 + 15 * 129 = 2166.
  CrossbarConfig x;
  x.rows = 128;
  x.cols = 128;
  x.adc_columns_per_adc = 128;
  MvmTimingConfig tc;
  tc.adc_conversion_ns = 1.0 / 1.28;
  const auto b = MvmTiming(x, tc).breakdown(16, true);
  EXPECT_EQ(b.adcs, 1);
  EXPECT_EQ(b.column_groups, 128);
  EXPECT_EQ(b.back_cycles, 129u);
  EXPECT_EQ(b.total_cycles, 2166u);
}

TEST(MvmTiming, PumaLikeSlowAdc) {
  // 128x128, 2 ADCs (64 columns each) at 100 ns per 8-bit conversion.
  // back = 100 + 1 + 63 * 100 = 6401; 16 steps: 102 + 6401 + 15 * 6401 = 102518.
  CrossbarConfig x;
  x.rows = 128;
  x.cols = 128;
  x.adc_columns_per_adc = 64;
  MvmTimingConfig tc;
  tc.adc_conversion_ns = 100.0;
  EXPECT_EQ(MvmTiming(x, tc).cycles(16), 102518u);
}

TEST(MvmTiming, FasterClockRoundsEachStageUp) {
  // 1250 MHz: dac 1 ns -> 2, read 100 ns -> 125, S&H 1 ns -> 2: front 129.
  // ADC 0.78 ns -> 1, shift-add 1 ns -> 2; 8 groups: back = 1 + 2 + 7 * 2 = 17.
  // 8 steps: 129 + 17 + 7 * 129 = 1049.
  MvmTimingConfig tc;
  tc.clock_mhz = 1250.0;
  tc.adc_conversion_ns = 0.78125;
  const auto b = MvmTiming(eight_columns_per_adc(), tc).breakdown(8);
  EXPECT_EQ(b.front_cycles, 129u);
  EXPECT_EQ(b.back_cycles, 17u);
  EXPECT_EQ(b.total_cycles, 1049u);
}

TEST(MvmTiming, RowGroupsAndMultiBitDacMultiplyStages) {
  CrossbarConfig x = eight_columns_per_adc();
  x.dac_rows_per_step = 64;  // 4 row groups, 8 steps -> 32 stages
  EXPECT_EQ(MvmTiming(x, MvmTimingConfig{}).cycles(8), 102u + 9u + 31u * 102u);  // 3273
  x.dac_rows_per_step = 0;
  x.dac_bits = 2;
  EXPECT_EQ(MvmTiming(x, MvmTimingConfig{}).breakdown(8, false).input_steps, 4);  // ceil(8/2)
  EXPECT_EQ(MvmTiming(x, MvmTimingConfig{}).cycles(8, false), 102u + 9u + 3u * 102u);  // 417
  EXPECT_EQ(MvmTiming(x, MvmTimingConfig{}).cycles(8, true), 102u + 9u + 4u * 102u);   // sign step
}

TEST(MvmTiming, ColumnsNotAMultipleOfTheAdcShare) {
  // 100 columns, 8 per ADC -> 13 ADCs, ceil(100 / 13) = 8 conversions each.
  CrossbarConfig x = eight_columns_per_adc();
  x.rows = 100;
  x.cols = 100;
  const auto b = MvmTiming(x, MvmTimingConfig{}).breakdown(4, false);
  EXPECT_EQ(b.adcs, 13);
  EXPECT_EQ(b.column_groups, 8);
  EXPECT_EQ(b.total_cycles, 102u + 9u + 3u * 102u);
}

TEST(MvmTiming, RejectsBadParameters) {
  MvmTimingConfig tc;
  tc.read_ns = -1.0;
  EXPECT_THROW(MvmTiming(CrossbarConfig{}, tc), std::invalid_argument);
  CrossbarConfig x;
  x.adc_columns_per_adc = 0;
  EXPECT_THROW(MvmTiming(x, MvmTimingConfig{}), std::invalid_argument);
}

}  // namespace
