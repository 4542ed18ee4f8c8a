// The RTL column output path against the TLM models: the same random
// crossbars and inputs through MvmEngine + MvmTiming and through
// RtlMvmEngine give identical results, statistics and cycle counts, over
// encodings, DAC widths, row groups, ADC modes, pipelining and
// non-idealities. A difference names the first divergent cycle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/mvm_engine.h"
#include "vp/hw/crossbar/mvm_timing.h"
#include "vp/hw/crossbar/non_ideality.h"
#include "vp/hw/crossbar/weight_encoding.h"
#include "vp/hw/rtl/rtl_mvm_engine.h"

namespace {

using namespace vp::hw;

struct Case {
  std::string name;
  CrossbarConfig xbar;
  MvmTimingConfig timing;
  NonIdealityConfig ni;
  int input_bits = 8;
  bool input_signed = true;
  int output_bits = 64;
  int first_logical_col = 0;
  int logical_cols = -1;
};

Case base(const std::string& name) {
  Case c;
  c.name = name;
  c.xbar.rows = 64;
  c.xbar.cols = 64;
  c.xbar.adc_columns_per_adc = 16;
  return c;
}

// gtest names a failing case by its name, not its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<Case> cases() {
  std::vector<Case> v;
  v.push_back(base("small_preset"));
  { Case c = base("differential"); c.xbar.signed_encoding = SignedEncoding::differential; v.push_back(c); }
  { Case c = base("dac4_rowgroups"); c.xbar.dac_bits = 4; c.xbar.dac_rows_per_step = 24; v.push_back(c); }
  { Case c = base("dac3_unsigned"); c.xbar.dac_bits = 3; c.input_signed = false; c.input_bits = 7; v.push_back(c); }
  { Case c = base("one_bit_signed"); c.input_bits = 1; v.push_back(c); }
  { Case c = base("sixteen_bit_inputs"); c.input_bits = 16; c.xbar.dac_bits = 2; v.push_back(c); }
  { Case c = base("quantize_clipping"); c.xbar.adc_mode = AdcMode::quantize; c.xbar.adc_bits = 5;
    c.xbar.adc_full_scale = 40; v.push_back(c); }
  { Case c = base("quantize_auto_lsb"); c.xbar.adc_mode = AdcMode::quantize; c.xbar.adc_bits = 6;
    c.xbar.dac_bits = 2; v.push_back(c); }
  { Case c = base("not_pipelined"); c.timing.pipelined = false; c.timing.back_pipelined = false; v.push_back(c); }
  { Case c = base("back_bound"); c.timing.read_ns = 3; c.timing.adc_conversion_ns = 2; c.timing.shift_add_ns = 3;
    c.xbar.adc_columns_per_adc = 32; v.push_back(c); }
  { Case c = base("back_bound_unpipelined_adc"); c.timing.read_ns = 5; c.timing.adc_conversion_ns = 3;
    c.timing.back_pipelined = false; v.push_back(c); }
  { Case c = base("one_adc_per_column"); c.xbar.adc_columns_per_adc = 1; v.push_back(c); }
  { Case c = base("uneven_columns"); c.xbar.cols = 61; c.xbar.adc_columns_per_adc = 7; c.xbar.cell_bits = 3; v.push_back(c); }
  { Case c = base("saturating_outputs"); c.output_bits = 12; v.push_back(c); }
  { Case c = base("column_window"); c.first_logical_col = 5; c.logical_cols = 7; v.push_back(c); }
  { Case c = base("read_noise_ir_drop"); c.ni.read_noise_sigma = 0.3; c.ni.ir_drop_ohm_per_cell = 2.0; v.push_back(c); }
  { Case c = base("stuck_cells_prog_noise"); c.ni.stuck_hrs_rate = 0.05; c.ni.stuck_lrs_rate = 0.02;
    c.ni.prog_noise_sigma = 0.1; v.push_back(c); }
  { Case c = base("sidra_y1_crossbar"); c.xbar.rows = 256; c.xbar.cols = 256; c.xbar.adc_columns_per_adc = 32; v.push_back(c); }
  return v;
}

class OutputPath : public ::testing::TestWithParam<Case> {};

TEST_P(OutputPath, SameResultsStatisticsAndCyclesAsTheTlmModel) {
  const Case& k = GetParam();
  std::mt19937 rng(1234);
  const WeightEncoding enc(k.xbar);
  const int lcols = enc.logical_cols(k.xbar.cols);

  // Two crossbars with the same weights and the same non-ideality seed: one
  // per engine, so each engine's reads draw from an identical stream.
  std::vector<std::int32_t> w(static_cast<std::size_t>(k.xbar.rows) * static_cast<std::size_t>(lcols));
  std::uniform_int_distribution<int> wd(enc.min_weight(), enc.max_weight());
  for (auto& x : w) x = wd(rng);
  const std::vector<std::uint8_t> levels = enc.encode(w, k.xbar.rows, lcols);
  const int used = lcols * enc.columns_per_weight();
  auto make = [&] {
    auto xb = std::make_unique<Crossbar>(k.xbar);
    if (!k.ni.ideal()) xb->attach(std::make_shared<NonIdealityModel>(k.ni, 77));
    for (int r = 0; r < k.xbar.rows; ++r)
      xb->program_row_exact(r, 0, levels.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(used), used);
    return xb;
  };
  auto xb_tlm = make();
  auto xb_rtl = make();

  MvmEngine tlm(k.xbar);
  MvmTiming timing(k.xbar, k.timing);
  rtl::RtlMvmEngine rtl(k.xbar, k.timing);
  MvmOptions opt;
  opt.input_bits = k.input_bits;
  opt.input_signed = k.input_signed;
  opt.output_bits = k.output_bits;
  opt.first_logical_col = k.first_logical_col;
  opt.logical_cols = k.logical_cols;
  const int n_out = tlm.output_count(opt);
  const MvmTimingBreakdown bd = timing.breakdown(k.input_bits, k.input_signed);
  const std::uint64_t want_cycles = bd.total_cycles;

  const std::int64_t lo = k.input_signed ? -(std::int64_t{1} << (k.input_bits - 1)) : 0;
  const std::int64_t hi = k.input_signed ? (std::int64_t{1} << (k.input_bits - 1)) - 1
                                         : (std::int64_t{1} << k.input_bits) - 1;
  std::uniform_int_distribution<std::int64_t> xd(lo, hi);
  for (int trial = 0; trial < 12; ++trial) {
    // Some trials drive fewer rows, some inputs are all zero.
    const int n_in = trial % 4 == 3 ? k.xbar.rows / 2 + 1 : k.xbar.rows;
    std::vector<std::int32_t> x(static_cast<std::size_t>(n_in));
    for (auto& e : x) e = trial == 5 ? 0 : static_cast<std::int32_t>(xd(rng));
    std::vector<std::int64_t> y_tlm(static_cast<std::size_t>(n_out)), y_rtl(static_cast<std::size_t>(n_out));
    MvmStats s_tlm, s_rtl;
    tlm.run(*xb_tlm, x.data(), n_in, opt, y_tlm.data(), &s_tlm);
    const std::uint64_t cycles = rtl.run(*xb_rtl, x.data(), n_in, opt, y_rtl.data(), &s_rtl);

    // Stage i's back end ends, in the TLM's formula, where the formula for
    // i + 1 stages ends; the first stage that ends elsewhere in the RTL is
    // where the two diverge.
    const std::vector<std::uint64_t>& ends = rtl.stage_end_cycles();
    ASSERT_EQ(ends.size(), bd.stages) << k.name << " trial " << trial;
    for (std::uint64_t i = 0; i < bd.stages; ++i) {
      const std::uint64_t want = k.timing.pipelined
                                     ? bd.front_cycles + bd.back_cycles + i * std::max(bd.front_cycles, bd.back_cycles)
                                     : (i + 1) * (bd.front_cycles + bd.back_cycles);
      ASSERT_EQ(ends[i], want) << k.name << " trial " << trial << ": first divergent cycle "
                               << std::min(ends[i], want) << " (stage " << i << " of " << bd.stages
                               << " ends at RTL cycle " << ends[i] << ", TLM " << want << ")";
    }
    ASSERT_EQ(cycles, want_cycles) << k.name << " trial " << trial << ": first divergent cycle "
                                   << std::min(cycles, want_cycles) << " (RTL done after " << cycles
                                   << " cycles, TLM timing " << want_cycles << ")";
    for (int o = 0; o < n_out; ++o) {
      if (y_tlm[static_cast<std::size_t>(o)] == y_rtl[static_cast<std::size_t>(o)]) continue;
      // The column's last conversion is the cycle its result was decided.
      std::uint64_t at = 0;
      for (int j = 0; j < enc.columns_per_weight(); ++j)
        at = std::max(at, rtl.last_conversion_cycle()[static_cast<std::size_t>(o * enc.columns_per_weight() + j)]);
      FAIL() << k.name << " trial " << trial << ": logical column " << o << " TLM "
             << y_tlm[static_cast<std::size_t>(o)] << " RTL " << y_rtl[static_cast<std::size_t>(o)]
             << "; first divergent cycle <= " << at << " (its last conversion)";
    }
    EXPECT_EQ(s_rtl.dac_steps, s_tlm.dac_steps);
    EXPECT_EQ(s_rtl.row_groups, s_tlm.row_groups);
    EXPECT_EQ(s_rtl.dac_conversions, s_tlm.dac_conversions);
    EXPECT_EQ(s_rtl.adc_conversions, s_tlm.adc_conversions);
    EXPECT_EQ(s_rtl.adc_clipped, s_tlm.adc_clipped);
    EXPECT_EQ(s_rtl.outputs_saturated, s_tlm.outputs_saturated);
  }
  EXPECT_GT(rtl.cycles_stepped(), 12 * want_cycles);
}

INSTANTIATE_TEST_SUITE_P(Configs, OutputPath, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

TEST(OutputPathLimits, ConfigurationsBeyondTheRtlAreRefusedByName) {
  CrossbarConfig wide;
  wide.rows = 64;
  wide.cols = 512;
  EXPECT_THROW(rtl::RtlMvmEngine(wide, MvmTimingConfig{}), std::invalid_argument);
  CrossbarConfig many_adcs;
  many_adcs.adc_columns_per_adc = 2;  // 128 ADCs
  EXPECT_THROW(rtl::RtlMvmEngine(many_adcs, MvmTimingConfig{}), std::invalid_argument);
  MvmTimingConfig zero;
  zero.adc_conversion_ns = 0;
  try {
    rtl::RtlMvmEngine e(CrossbarConfig{}, zero);
    FAIL() << "a 0-cycle ADC was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("adc.conversion_ns"), std::string::npos);
  }
}

}  // namespace
