// MvmEngine against (a) the plain integer product wherever the ADC covers
// the column sums, and (b) an independent reference model of the bit-serial
// datapath with ADC quantization and clipping where it does not. The
// reference below is written from the documented behaviour with integer
// arithmetic only and calls nothing from the library.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/mvm_engine.h"
#include "vp/hw/crossbar/non_ideality.h"
#include "vp/hw/crossbar/weight_encoding.h"

namespace {

using vp::hw::AdcMode;
using vp::hw::Crossbar;
using vp::hw::CrossbarConfig;
using vp::hw::MvmEngine;
using vp::hw::MvmOptions;
using vp::hw::MvmStats;
using vp::hw::SignedEncoding;
using vp::hw::WeightEncoding;

// ---------------------------------------------------------------- reference
struct RefSetup {
  int cell_bits;
  int weight_bits;
  bool differential;
  int dac_bits;
  int input_bits;
  bool input_signed;
  int rows_per_step;   // rows converted together
  bool quantize;
  int adc_bits;
  std::int64_t full_scale;  // 0 = rows_per_step * (2^cell-1) * (2^dac-1)
};

// One cell level of the stored weight, by the encoding's definition.
std::int64_t ref_cell(const RefSetup& s, std::int64_t w, bool negative_part, int slice) {
  std::int64_t u;
  if (!s.differential) {
    if (negative_part) return 0;
    u = w + (std::int64_t{1} << (s.weight_bits - 1));
  } else {
    u = negative_part ? (w < 0 ? -w : 0) : (w > 0 ? w : 0);
  }
  return (u >> (slice * s.cell_bits)) & ((std::int64_t{1} << s.cell_bits) - 1);
}

std::int64_t ref_adc(const RefSetup& s, std::int64_t sum, std::uint64_t& clips) {
  if (!s.quantize) return sum;
  const std::int64_t fs = s.full_scale > 0
                              ? s.full_scale
                              : std::int64_t{s.rows_per_step} * ((1 << s.cell_bits) - 1) *
                                    ((1 << s.dac_bits) - 1);
  const std::int64_t top = (std::int64_t{1} << s.adc_bits) - 1;
  int lsb_log = 0;
  while ((top << lsb_log) < fs) ++lsb_log;
  const std::int64_t half = lsb_log > 0 ? (std::int64_t{1} << (lsb_log - 1)) : 0;
  std::int64_t code = (sum + half) >> lsb_log;  // round half up
  if (code > top) {
    code = top;
    ++clips;
  }
  return code << lsb_log;
}

struct Chunk {
  int low_bit;
  int bits;
  std::int64_t weight;
};

std::vector<Chunk> ref_chunks(const RefSetup& s) {
  std::vector<Chunk> chunks;
  const int mag = s.input_signed ? s.input_bits - 1 : s.input_bits;
  int b = 0;
  while (b < mag) {
    const int w = std::min(s.dac_bits, mag - b);
    chunks.push_back({b, w, std::int64_t{1} << b});
    b += w;
  }
  if (s.input_signed) {
    chunks.push_back({s.input_bits - 1, 1, -(std::int64_t{1} << (s.input_bits - 1))});
  }
  return chunks;
}

std::vector<std::int64_t> reference_mvm(const RefSetup& s, const std::vector<std::int32_t>& w,
                                        int k, int n, const std::vector<std::int32_t>& x,
                                        std::uint64_t* clips_out = nullptr) {
  const int slices = (s.weight_bits + s.cell_bits - 1) / s.cell_bits;
  const std::vector<Chunk> chunks = ref_chunks(s);
  std::int64_t xsum = 0;
  for (int r = 0; r < k; ++r) xsum += x[static_cast<std::size_t>(r)];
  std::uint64_t clips = 0;
  std::vector<std::int64_t> y(static_cast<std::size_t>(n), 0);
  for (int col = 0; col < n; ++col) {
    std::int64_t total = 0;
    for (int part = 0; part < (s.differential ? 2 : 1); ++part) {
      for (int sl = 0; sl < slices; ++sl) {
        std::int64_t column_value = 0;
        for (const Chunk& ch : chunks) {
          for (int g = 0; g < k; g += s.rows_per_step) {
            std::int64_t analog = 0;
            for (int r = g; r < std::min(k, g + s.rows_per_step); ++r) {
              const auto pattern = static_cast<std::uint32_t>(x[static_cast<std::size_t>(r)]) &
                                   ((1u << s.input_bits) - 1u);
              const std::int64_t code = (pattern >> ch.low_bit) & ((1u << ch.bits) - 1u);
              analog += code * ref_cell(s, w[static_cast<std::size_t>(r) * n + col], part == 1, sl);
            }
            column_value += ch.weight * ref_adc(s, analog, clips);
          }
        }
        total += (part == 1 ? -1 : 1) * column_value * (std::int64_t{1} << (sl * s.cell_bits));
      }
    }
    if (!s.differential) total -= (std::int64_t{1} << (s.weight_bits - 1)) * xsum;
    y[static_cast<std::size_t>(col)] = total;
  }
  if (clips_out != nullptr) *clips_out = clips;
  return y;
}

std::vector<std::int64_t> integer_product(const std::vector<std::int32_t>& w, int k, int n,
                                          const std::vector<std::int32_t>& x) {
  std::vector<std::int64_t> y(static_cast<std::size_t>(n), 0);
  for (int r = 0; r < k; ++r) {
    for (int c = 0; c < n; ++c) {
      y[static_cast<std::size_t>(c)] +=
          std::int64_t{w[static_cast<std::size_t>(r) * n + c]} * x[static_cast<std::size_t>(r)];
    }
  }
  return y;
}

// ------------------------------------------------------------------ helpers
Crossbar program(const CrossbarConfig& cfg, const std::vector<std::int32_t>& w, int k, int n) {
  Crossbar xb(cfg);
  const WeightEncoding enc(cfg);
  const std::vector<std::uint8_t> levels = enc.encode(w, k, n);
  xb.program_block_exact(0, k, 0, n * enc.columns_per_weight(), levels.data());
  return xb;
}

std::vector<std::int32_t> random_values(std::mt19937_64& rng, std::size_t count, std::int64_t lo,
                                        std::int64_t hi) {
  std::uniform_int_distribution<std::int64_t> d(lo, hi);
  std::vector<std::int32_t> v(count);
  for (auto& e : v) e = static_cast<std::int32_t>(d(rng));
  return v;
}

int bits_to_cover(std::int64_t max_sum) {  // smallest b with 2^b > max_sum
  int b = 1;
  while ((std::int64_t{1} << b) <= max_sum) ++b;
  return b;
}

std::int64_t in_lo(int bits, bool sgn) { return sgn ? -(std::int64_t{1} << (bits - 1)) : 0; }
std::int64_t in_hi(int bits, bool sgn) {
  return sgn ? (std::int64_t{1} << (bits - 1)) - 1 : (std::int64_t{1} << bits) - 1;
}

// Runs the MVM twice: on the crossbar as given (the integer path when its
// levels equal its targets) and on a copy with a no-op non-ideality
// attached (always the float path). Both must agree, results and stats.
std::vector<std::int64_t> run_both_paths(MvmEngine& engine, const Crossbar& xb,
                                         const std::vector<std::int32_t>& x, const MvmOptions& opt,
                                         MvmStats* stats = nullptr) {
  MvmStats s1;
  MvmStats s2;
  const auto y1 = engine.run(xb, x, opt, &s1);
  Crossbar analog = xb;
  analog.attach(std::make_shared<vp::hw::NonIdeality>());
  const auto y2 = engine.run(analog, x, opt, &s2);
  EXPECT_EQ(y1, y2) << "integer and float paths disagree";
  EXPECT_EQ(s1.adc_clipped, s2.adc_clipped);
  EXPECT_EQ(s1.adc_conversions, s2.adc_conversions);
  if (stats != nullptr) *stats = s1;
  return y1;
}

// ------------------------------------------- exact whenever the ADC covers
using ExactParam = std::tuple<int /*cell*/, int /*dac*/, int /*in bits*/, SignedEncoding, bool /*signed*/>;

class MvmExact : public ::testing::TestWithParam<ExactParam> {};

TEST_P(MvmExact, EqualsIntegerProductWhenAdcCoversColumnSums) {
  const auto [cell_bits, dac_bits, in_bits, encoding, in_signed] = GetParam();
  std::mt19937_64 rng(static_cast<std::uint64_t>(cell_bits * 1000 + dac_bits * 100 + in_bits));
  struct Shape {
    int rows, cols, k, n, rows_per_step;
  };
  const Shape shapes[] = {{1, 64, 1, 3, 0}, {37, 96, 37, 5, 0}, {128, 128, 100, 8, 0},
                          {128, 128, 128, 8, 16}, {64, 100, 50, 6, 7},
                          {512, 128, 512, 4, 0}};
  for (const Shape& sh : shapes) {
    for (AdcMode mode : {AdcMode::ideal, AdcMode::quantize}) {
      CrossbarConfig cfg;
      cfg.rows = sh.rows;
      cfg.cols = sh.cols;
      cfg.cell_bits = cell_bits;
      cfg.weight_bits = 8;
      cfg.signed_encoding = encoding;
      cfg.dac_bits = dac_bits;
      cfg.dac_rows_per_step = sh.rows_per_step;
      cfg.adc_mode = mode;
      cfg.adc_bits = bits_to_cover(cfg.max_column_sum() > 0 ? static_cast<std::int64_t>(cfg.max_column_sum()) : 0);
      const int n = std::min(sh.n, vp::hw::logical_cols_per_crossbar(cfg));
      ASSERT_GT(n, 0);
      MvmEngine engine(cfg);
      ASSERT_TRUE(engine.adc().exact());
      // Random data plus the extremes, which drive the column sums to full scale.
      for (int trial = 0; trial < 3; ++trial) {
        std::vector<std::int32_t> w = random_values(rng, static_cast<std::size_t>(sh.k) * n, -128, 127);
        std::vector<std::int32_t> x = random_values(rng, static_cast<std::size_t>(sh.k),
                                                    in_lo(in_bits, in_signed), in_hi(in_bits, in_signed));
        if (trial == 1) {
          std::fill(w.begin(), w.end(), 127);
          std::fill(x.begin(), x.end(), static_cast<std::int32_t>(in_hi(in_bits, in_signed)));
        } else if (trial == 2) {
          std::fill(w.begin(), w.end(), -128);
          std::fill(x.begin(), x.end(), static_cast<std::int32_t>(in_lo(in_bits, in_signed)));
        }
        const Crossbar xb = program(cfg, w, sh.k, n);
        MvmOptions opt;
        opt.input_bits = in_bits;
        opt.input_signed = in_signed;
        opt.output_bits = 64;
        opt.logical_cols = n;
        MvmStats stats;
        const auto y = run_both_paths(engine, xb, x, opt, &stats);
        ASSERT_EQ(y, integer_product(w, sh.k, n, x))
            << "rows " << sh.rows << " k " << sh.k << " rps " << sh.rows_per_step << " mode "
            << vp::hw::to_string(mode) << " trial " << trial;
        EXPECT_EQ(stats.adc_clipped, 0u);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllSlicings, MvmExact,
    ::testing::Combine(::testing::Values(1, 2, 4), ::testing::Values(1, 2, 4),
                       ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 16),
                       ::testing::Values(SignedEncoding::offset_slices, SignedEncoding::differential),
                       ::testing::Bool()),
    [](const ::testing::TestParamInfo<ExactParam>& p) {
      return "cell" + std::to_string(std::get<0>(p.param)) + "_dac" +
             std::to_string(std::get<1>(p.param)) + "_in" + std::to_string(std::get<2>(p.param)) +
             "_" + vp::hw::to_string(std::get<3>(p.param)) +
             (std::get<4>(p.param) ? "_signed" : "_unsigned");
    });

// Weight widths that are not a multiple of the cell bits leave a short top slice.
using WidthParam = std::tuple<int /*weight bits*/, int /*cell bits*/, SignedEncoding>;
class MvmWeightWidths : public ::testing::TestWithParam<WidthParam> {};

TEST_P(MvmWeightWidths, EqualsIntegerProduct) {
  const auto [wb, cb, encoding] = GetParam();
  CrossbarConfig cfg;
  cfg.rows = 64;
  cfg.cols = 256;
  cfg.weight_bits = wb;
  cfg.cell_bits = cb;
  cfg.signed_encoding = encoding;
  cfg.dac_bits = 2;
  cfg.adc_mode = AdcMode::ideal;
  std::mt19937_64 rng(static_cast<std::uint64_t>(wb * 31 + cb));
  const int n = std::min(7, vp::hw::logical_cols_per_crossbar(cfg));
  ASSERT_GT(n, 0);
  const std::int64_t wmax = (std::int64_t{1} << (wb - 1)) - 1;
  const auto w = random_values(rng, static_cast<std::size_t>(64) * n, -wmax - 1, wmax);
  const auto x = random_values(rng, 64, -128, 127);
  const Crossbar xb = program(cfg, w, 64, n);
  MvmEngine engine(cfg);
  MvmOptions opt;
  opt.output_bits = 64;
  opt.logical_cols = n;
  EXPECT_EQ(run_both_paths(engine, xb, x, opt), integer_product(w, 64, n, x));
}

INSTANTIATE_TEST_SUITE_P(Widths, MvmWeightWidths,
                         ::testing::Combine(::testing::Values(2, 3, 5, 8, 12, 16),
                                            ::testing::Values(1, 2, 3, 4),
                                            ::testing::Values(SignedEncoding::offset_slices,
                                                              SignedEncoding::differential)));

TEST(MvmEngine, DefaultConfigFullCrossbarIsExact) {
  const CrossbarConfig cfg;  // 256x256, 2-bit cells, 8-bit weights, ideal ADC
  const int n = vp::hw::logical_cols_per_crossbar(cfg);
  ASSERT_EQ(n, 64);
  std::mt19937_64 rng(7);
  const auto w = random_values(rng, static_cast<std::size_t>(256) * n, -128, 127);
  const auto x = random_values(rng, 256, -128, 127);
  const Crossbar xb = program(cfg, w, 256, n);
  MvmEngine engine(cfg);
  MvmStats stats;
  const auto y = engine.run(xb, x, {}, &stats);
  EXPECT_EQ(y, integer_product(w, 256, n, x));
  EXPECT_EQ(stats.dac_steps, 8);
  EXPECT_EQ(stats.row_groups, 1);
  EXPECT_EQ(stats.adc_conversions, 8u * 256u);
  EXPECT_EQ(stats.dac_conversions, 8u * 256u);
}

// 8-bit cells, 16-bit inputs, 512 rows: |x| x max_level x rows passes 2^31,
// so the one-pass sum of the ideal integer path accumulates in 64 bits; it
// still equals the integer product and the step-by-step float path.
TEST(MvmEngine, WideInputsOnWideCellsStayExact) {
  CrossbarConfig cfg;
  cfg.rows = 512;
  cfg.cols = 16;
  cfg.cell_bits = 8;
  cfg.weight_bits = 8;
  cfg.dac_rows_per_step = 256;  // column sums stay within 16 bits
  const int n = vp::hw::logical_cols_per_crossbar(cfg);
  ASSERT_GT(n, 0);
  std::mt19937_64 rng(11);
  MvmEngine engine(cfg);
  MvmOptions opt;
  opt.input_bits = 16;
  opt.output_bits = 64;
  for (int trial = 0; trial < 3; ++trial) {
    auto w = random_values(rng, static_cast<std::size_t>(512) * n, -128, 127);
    auto x = random_values(rng, 512, -32768, 32767);
    if (trial > 0) {
      std::fill(w.begin(), w.end(), trial == 1 ? 127 : -128);
      std::fill(x.begin(), x.end(), -32768);
    }
    const Crossbar xb = program(cfg, w, 512, n);
    EXPECT_EQ(run_both_paths(engine, xb, x, opt), integer_product(w, 512, n, x)) << "trial " << trial;
  }
}

TEST(MvmEngine, ColumnWindowSelectsLogicalColumns) {
  CrossbarConfig cfg;
  cfg.rows = 32;
  cfg.cols = 64;  // 16 logical columns of 4 slices
  std::mt19937_64 rng(3);
  const auto w = random_values(rng, 32 * 16, -128, 127);
  const auto x = random_values(rng, 32, -128, 127);
  const Crossbar xb = program(cfg, w, 32, 16);
  const auto full = integer_product(w, 32, 16, x);
  MvmEngine engine(cfg);
  MvmOptions opt;
  opt.first_logical_col = 5;
  opt.logical_cols = 6;
  const auto y = engine.run(xb, x, opt);
  ASSERT_EQ(y.size(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y[static_cast<std::size_t>(i)], full[static_cast<std::size_t>(5 + i)]);
  opt.logical_cols = 12;
  EXPECT_THROW(engine.run(xb, x, opt), std::out_of_range);
}

TEST(MvmEngine, OutputSaturatesToRequestedBits) {
  CrossbarConfig cfg;
  cfg.rows = 128;
  cfg.cols = 8;
  const std::vector<std::int32_t> w(128 * 2, 127);
  std::vector<std::int32_t> x(128, 127);
  const Crossbar xb = program(cfg, w, 128, 2);
  MvmEngine engine(cfg);
  MvmOptions opt;
  opt.output_bits = 16;  // 128 * 127 * 127 = 2064512 does not fit
  MvmStats stats;
  auto y = engine.run(xb, x, opt, &stats);
  EXPECT_EQ(y[0], 32767);
  EXPECT_EQ(stats.outputs_saturated, 2u);
  std::fill(x.begin(), x.end(), -128);
  y = engine.run(xb, x, opt, &stats);
  EXPECT_EQ(y[0], -32768);
  opt.output_bits = 32;
  y = engine.run(xb, x, opt, &stats);
  EXPECT_EQ(y[0], 128 * 127 * -128);
  EXPECT_EQ(stats.outputs_saturated, 0u);
}

TEST(MvmEngine, OnlyTheLowInputBitsReachTheDacs) {
  CrossbarConfig cfg;
  cfg.rows = 16;
  cfg.cols = 16;
  std::mt19937_64 rng(11);
  const auto w = random_values(rng, 16 * 4, -128, 127);
  const auto x_wide = random_values(rng, 16, -100000, 100000);
  std::vector<std::int32_t> x_wrapped(16);
  for (int i = 0; i < 16; ++i) {
    // 6-bit two's complement of each value.
    std::int32_t v = x_wide[static_cast<std::size_t>(i)] & 0x3f;
    if (v & 0x20) v -= 64;
    x_wrapped[static_cast<std::size_t>(i)] = v;
  }
  const Crossbar xb = program(cfg, w, 16, 4);
  MvmEngine engine(cfg);
  MvmOptions opt;
  opt.input_bits = 6;
  EXPECT_EQ(engine.run(xb, x_wide, opt), integer_product(w, 16, 4, x_wrapped));
}

TEST(MvmEngine, ShortInputDrivesOnlyLeadingRows) {
  CrossbarConfig cfg;
  cfg.rows = 64;
  cfg.cols = 16;
  std::mt19937_64 rng(5);
  const auto w = random_values(rng, 64 * 4, -128, 127);
  const Crossbar xb = program(cfg, w, 64, 4);
  const auto x = random_values(rng, 20, -128, 127);
  const std::vector<std::int32_t> w_top(w.begin(), w.begin() + 20 * 4);
  MvmEngine engine(cfg);
  EXPECT_EQ(engine.run(xb, x), integer_product(w_top, 20, 4, x));
}

TEST(MvmEngine, RejectsMismatchedCrossbar) {
  CrossbarConfig cfg;
  cfg.rows = 16;
  cfg.cols = 16;
  MvmEngine engine(cfg);
  Crossbar other(32, 16, 2);
  EXPECT_THROW(engine.run(other, std::vector<std::int32_t>(16, 0)), std::invalid_argument);
  Crossbar same(cfg);
  EXPECT_THROW(engine.run(same, std::vector<std::int32_t>(17, 0)), std::out_of_range);
}

// -------------------------------------- ADC does not cover: reference model
using QuantParam = std::tuple<int /*cell*/, int /*dac*/, int /*adc bits*/, SignedEncoding, int /*rps*/>;
class MvmQuantized : public ::testing::TestWithParam<QuantParam> {};

TEST_P(MvmQuantized, MatchesIndependentAdcReferenceModel) {
  const auto [cell_bits, dac_bits, adc_bits, encoding, rps] = GetParam();
  CrossbarConfig cfg;
  cfg.rows = 128;
  cfg.cols = 128;
  cfg.cell_bits = cell_bits;
  cfg.dac_bits = dac_bits;
  cfg.adc_bits = adc_bits;
  cfg.signed_encoding = encoding;
  cfg.dac_rows_per_step = rps;
  cfg.adc_mode = AdcMode::quantize;
  MvmEngine engine(cfg);
  const int k = 128;
  const int n = std::min(6, vp::hw::logical_cols_per_crossbar(cfg));
  std::mt19937_64 rng(static_cast<std::uint64_t>(cell_bits * 7 + dac_bits * 13 + adc_bits + rps));
  int differs_from_exact = 0;
  for (int in_bits : {4, 8}) {
    for (bool sgn : {true, false}) {
      const auto w = random_values(rng, static_cast<std::size_t>(k) * n, -128, 127);
      const auto x = random_values(rng, k, in_lo(in_bits, sgn), in_hi(in_bits, sgn));
      const Crossbar xb = program(cfg, w, k, n);
      MvmOptions opt;
      opt.input_bits = in_bits;
      opt.input_signed = sgn;
      opt.output_bits = 64;
      opt.logical_cols = n;
      const RefSetup ref{cell_bits, 8, encoding == SignedEncoding::differential, dac_bits, in_bits,
                         sgn, rps == 0 ? 128 : rps, true, adc_bits, 0};
      const auto y = run_both_paths(engine, xb, x, opt);
      ASSERT_EQ(y, reference_mvm(ref, w, k, n, x)) << "in_bits " << in_bits << " signed " << sgn;
      if (y != integer_product(w, k, n, x)) ++differs_from_exact;
    }
  }
  if ((std::int64_t{1} << adc_bits) > static_cast<std::int64_t>(cfg.max_column_sum())) {
    EXPECT_EQ(differs_from_exact, 0);  // this ADC happens to cover the sums
  } else {
    EXPECT_GT(differs_from_exact, 0);  // too coarse: quantization must show
  }
}

INSTANTIATE_TEST_SUITE_P(
    CoarseAdc, MvmQuantized,
    ::testing::Combine(::testing::Values(1, 2, 4), ::testing::Values(1, 2, 4), ::testing::Values(3, 5, 7),
                       ::testing::Values(SignedEncoding::offset_slices, SignedEncoding::differential),
                       ::testing::Values(0, 32)));

TEST(MvmEngine, ReducedFullScaleClipsLikeTheReference) {
  CrossbarConfig cfg;
  cfg.rows = 64;
  cfg.cols = 64;
  cfg.adc_mode = AdcMode::quantize;
  cfg.adc_bits = 6;
  cfg.adc_full_scale = 40.0;  // far below 64 * 3 * 1 = 192: large sums clip
  MvmEngine engine(cfg);
  EXPECT_EQ(engine.adc().lsb_shift(), 0);  // 63 >= 40
  std::mt19937_64 rng(99);
  const int n = 16;
  const auto w = random_values(rng, 64 * n, -128, 127);
  const auto x = random_values(rng, 64, -128, 127);
  const Crossbar xb = program(cfg, w, 64, n);
  MvmStats stats;
  MvmOptions opt;
  opt.output_bits = 64;
  const auto y = run_both_paths(engine, xb, x, opt, &stats);
  std::uint64_t ref_clips = 0;
  const RefSetup ref{2, 8, false, 1, 8, true, 64, true, 6, 40};
  EXPECT_EQ(y, reference_mvm(ref, w, 64, n, x, &ref_clips));
  EXPECT_GT(stats.adc_clipped, 0u);
  EXPECT_EQ(stats.adc_clipped, ref_clips);
}

TEST(MvmEngine, OneAdcBitShortOfCoverageIsNoLongerExact) {
  CrossbarConfig cfg;
  cfg.rows = 128;
  cfg.cols = 128;
  cfg.adc_mode = AdcMode::quantize;
  cfg.adc_bits = 9;  // 2^9 = 512 > 128 * 3 = 384: exact
  std::mt19937_64 rng(1234);
  const auto w = random_values(rng, 128 * 32, -128, 127);
  const auto x = random_values(rng, 128, -128, 127);
  const Crossbar xb = program(cfg, w, 128, 32);
  EXPECT_EQ(MvmEngine(cfg).run(xb, x), integer_product(w, 128, 32, x));
  cfg.adc_bits = 8;  // 255 < 384: LSB 2
  MvmEngine coarse(cfg);
  EXPECT_EQ(coarse.adc().lsb_shift(), 1);
  const auto y = run_both_paths(coarse, xb, x, MvmOptions{});
  EXPECT_NE(y, integer_product(w, 128, 32, x));
  const RefSetup ref{2, 8, false, 1, 8, true, 128, true, 8, 0};
  EXPECT_EQ(y, reference_mvm(ref, w, 128, 32, x));
}

// The ADC range code of an MVM (xadc): range k gives an LSB of 2^(k-1),
// the reference's full scale of max_code << (k - 1), on both paths.
TEST(MvmEngine, AdcRangeSetsTheLsbLikeTheReference) {
  CrossbarConfig cfg;
  cfg.rows = 128;
  cfg.cols = 128;
  cfg.adc_mode = AdcMode::quantize;
  cfg.adc_bits = 8;  // configured full scale 128 * 3 = 384: LSB 2
  MvmEngine engine(cfg);
  std::mt19937_64 rng(4321);
  const int n = 16;
  const auto w = random_values(rng, 128 * n, -128, 127);
  const auto x = random_values(rng, 128, -128, 127);
  const Crossbar xb = program(cfg, w, 128, n);
  for (int k = 1; k <= 4; ++k) {
    MvmOptions opt;
    opt.output_bits = 64;
    opt.logical_cols = n;
    opt.adc_range = k;
    MvmStats stats;
    const auto y = run_both_paths(engine, xb, x, opt, &stats);
    std::uint64_t clips = 0;
    const RefSetup ref{2, 8, false, 1, 8, true, 128, true, 8, std::int64_t{255} << (k - 1)};
    EXPECT_EQ(y, reference_mvm(ref, w, 128, n, x, &clips)) << "range " << k;
    EXPECT_EQ(stats.adc_clipped, clips) << "range " << k;
  }
  EXPECT_EQ(engine.adc_at(1).lsb_shift(), 0);
  EXPECT_EQ(engine.adc_at(3).lsb_shift(), 2);
  EXPECT_THROW(engine.adc_at(vp::hw::kMaxAdcRange + 1), std::out_of_range);
}

// The profile reports the largest column sum converted: the smallest range
// that covers it clips nothing, the next smaller one clips.
TEST(MvmEngine, ProfiledColumnSumChoosesARangeThatJustCovers) {
  CrossbarConfig cfg;
  cfg.rows = 256;
  cfg.cols = 64;
  cfg.adc_mode = AdcMode::quantize;
  cfg.adc_bits = 6;
  MvmEngine engine(cfg);
  std::mt19937_64 rng(77);
  const int n = 8;
  const auto w = random_values(rng, 256 * n, -128, 127);
  const auto x = random_values(rng, 256, -128, 127);
  const Crossbar xb = program(cfg, w, 256, n);
  MvmOptions opt;
  opt.output_bits = 64;
  opt.logical_cols = n;
  opt.profile_sums = true;
  MvmStats profile;
  const auto exact = engine.run(xb, x, opt, &profile);
  ASSERT_GT(profile.max_column_sum, 63.0);  // more than a 6-bit ADC at LSB 1 holds
  int k = 1;
  while ((63.0 * std::ldexp(1.0, k - 1)) < profile.max_column_sum) ++k;
  for (const int range : {k, k - 1}) {
    MvmOptions o = opt;
    o.profile_sums = false;
    o.adc_range = range;
    MvmStats st;
    run_both_paths(engine, xb, x, o, &st);
    if (range == k) EXPECT_EQ(st.adc_clipped, 0u) << "range " << range;
    else EXPECT_GT(st.adc_clipped, 0u) << "range " << range;
  }
  MvmOptions ideal = opt;
  ideal.profile_sums = false;
  EXPECT_EQ(exact, engine.run(xb, x, ideal)) << "profiling does not change results";
}

}  // namespace
