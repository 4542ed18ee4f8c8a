#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/mvm_engine.h"
#include "vp/hw/crossbar/non_ideality.h"
#include "vp/hw/crossbar/weight_encoding.h"

namespace {

using vp::hw::AdcMode;
using vp::hw::CellFault;
using vp::hw::Crossbar;
using vp::hw::CrossbarConfig;
using vp::hw::MvmEngine;
using vp::hw::MvmOptions;
using vp::hw::NonIdealityConfig;
using vp::hw::NonIdealityModel;
using vp::hw::SignedEncoding;
using vp::hw::WeightEncoding;

std::vector<std::int32_t> random_values(std::mt19937_64& rng, std::size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<std::int32_t> v(n);
  for (auto& e : v) e = d(rng);
  return v;
}

std::vector<std::int64_t> product(const std::vector<std::int32_t>& w, int k, int n,
                                  const std::vector<std::int32_t>& x) {
  std::vector<std::int64_t> y(static_cast<std::size_t>(n), 0);
  for (int r = 0; r < k; ++r)
    for (int c = 0; c < n; ++c)
      y[static_cast<std::size_t>(c)] += std::int64_t{w[static_cast<std::size_t>(r * n + c)]} * x[static_cast<std::size_t>(r)];
  return y;
}

Crossbar programmed(const CrossbarConfig& cfg, const std::vector<std::int32_t>& w, int k, int n,
                    std::shared_ptr<vp::hw::NonIdeality> model) {
  Crossbar xb(cfg);
  xb.attach(std::move(model));
  const WeightEncoding enc(cfg);
  const auto lv = enc.encode(w, k, n);
  xb.program_block_exact(0, k, 0, n * enc.columns_per_weight(), lv.data());
  return xb;
}

TEST(NonIdeality, DefaultsAreIdeal) {
  EXPECT_TRUE(NonIdealityConfig{}.ideal());
  NonIdealityModel model(NonIdealityConfig{}, 1);
  Crossbar xb(8, 8, 2);
  EXPECT_EQ(model.read_scale(xb), nullptr);
}

TEST(NonIdeality, IdealModelAttachedChangesNothing) {
  const CrossbarConfig cfg;
  std::mt19937_64 rng(1);
  const auto w = random_values(rng, 256 * 64, -128, 127);
  const auto x = random_values(rng, 256, -128, 127);
  const Crossbar xb = programmed(cfg, w, 256, 64, std::make_shared<NonIdealityModel>(NonIdealityConfig{}, 5));
  MvmEngine engine(cfg);
  EXPECT_EQ(engine.run(xb, x), product(w, 256, 64, x));
  EXPECT_FALSE(xb.has_faults());
}

TEST(NonIdeality, InvalidRatesNameTheParameter) {
  NonIdealityConfig c;
  c.stuck_hrs_rate = 0.8;
  c.stuck_lrs_rate = 0.3;
  try {
    c.validate();
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("nonideal.stuck_lrs_rate"), std::string::npos);
  }
  c = {};
  c.read_noise_sigma = -1.0;
  EXPECT_THROW(c.validate(), std::invalid_argument);
}

TEST(NonIdeality, StuckAtRatesAndSeeds) {
  NonIdealityConfig c;
  c.stuck_hrs_rate = 0.09;  // MNSIM defaults
  c.stuck_lrs_rate = 0.01;
  auto count = [&](std::uint64_t seed, std::vector<std::uint8_t>* map) {
    Crossbar xb(256, 256, 2);
    xb.attach(std::make_shared<NonIdealityModel>(c, seed));
    std::uint64_t hrs = 0;
    std::uint64_t lrs = 0;
    for (int r = 0; r < 256; ++r)
      for (int col = 0; col < 256; ++col) {
        const CellFault f = xb.fault(r, col);
        if (map != nullptr) map->push_back(static_cast<std::uint8_t>(f));
        if (f == CellFault::stuck_hrs) {
          ++hrs;
          EXPECT_EQ(xb.level(r, col), 0.0f);
        }
        if (f == CellFault::stuck_lrs) {
          ++lrs;
          EXPECT_EQ(xb.level(r, col), 3.0f);
        }
      }
    return std::make_pair(hrs, lrs);
  };
  std::vector<std::uint8_t> a, b, other;
  const auto [hrs, lrs] = count(42, &a);
  const double n = 65536.0;
  EXPECT_NEAR(static_cast<double>(hrs), 0.09 * n, 5.0 * std::sqrt(n * 0.09 * 0.91));
  EXPECT_NEAR(static_cast<double>(lrs), 0.01 * n, 5.0 * std::sqrt(n * 0.01 * 0.99));
  count(42, &b);
  count(43, &other);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, other);
}

TEST(NonIdeality, MvmOnStuckCellsEqualsProductOfReadBackWeights) {
  CrossbarConfig cfg;
  cfg.rows = 128;
  cfg.cols = 128;
  NonIdealityConfig c;
  c.stuck_hrs_rate = 0.05;
  c.stuck_lrs_rate = 0.02;
  std::mt19937_64 rng(8);
  const auto w = random_values(rng, 128 * 32, -128, 127);
  const auto x = random_values(rng, 128, -128, 127);
  const Crossbar xb = programmed(cfg, w, 128, 32, std::make_shared<NonIdealityModel>(c, 77));
  ASSERT_GT(xb.fault_count(), 0u);
  const WeightEncoding enc(cfg);
  const auto levels = xb.read_levels(0, 128, 0, 128);
  const auto effective = enc.decode(levels.data(), 128, 32);
  EXPECT_NE(effective, w);
  MvmEngine engine(cfg);
  const auto y = engine.run(xb, x);
  EXPECT_EQ(y, product(effective, 128, 32, x));
  EXPECT_NE(y, product(w, 128, 32, x));
}

TEST(NonIdeality, ProgrammingNoiseHasTheConfiguredSpread) {
  NonIdealityConfig c;
  c.prog_noise_sigma = 0.1;
  Crossbar xb(256, 256, 4);  // levels 0..15; program the middle so clamping stays out
  xb.attach(std::make_shared<NonIdealityModel>(c, 3));
  const std::vector<std::uint8_t> t(256, 7);
  for (int r = 0; r < 256; ++r) xb.program_row_exact(r, 0, t.data(), 256);
  double sum = 0.0;
  double sq = 0.0;
  for (int r = 0; r < 256; ++r)
    for (int col = 0; col < 256; ++col) {
      const double e = xb.level(r, col) - 7.0;
      sum += e;
      sq += e * e;
    }
  const double n = 65536.0;
  const double mean = sum / n;
  const double sd = std::sqrt(sq / n - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.005);
  EXPECT_NEAR(sd, 0.1, 0.005);
  EXPECT_EQ(xb.target(5, 5), 7);
}

// The fits of Wan et al. 2022 (aihwkit ReRamWan2022NoiseModel), in uS at
// Gmax 40 uS, evaluated by hand: sigma(x) = c0 + c1 x + ... + c4 x^4.
TEST(NonIdeality, Wan2022SigmaIsTheMeasuredFitAtItsTimes) {
  using vp::hw::wan2022_sigma_us;
  EXPECT_NEAR(wan2022_sigma_us(0.0, 1.0, 40.0), 0.348, 1e-9);
  EXPECT_NEAR(wan2022_sigma_us(1.0, 1.0, 40.0), 0.348 + 16.030 - 43.853 + 45.393 - 16.815, 1e-9);
  EXPECT_NEAR(wan2022_sigma_us(0.5, 86400.0, 40.0),
              0.701 + 22.086 * 0.5 - 50.773 * 0.25 + 47.095 * 0.125 - 16.458 * 0.0625, 1e-9);
  EXPECT_NEAR(wan2022_sigma_us(0.5, 172800.0, 40.0),
              0.782 + 20.274 * 0.5 - 43.507 * 0.25 + 37.062 * 0.125 - 11.934 * 0.0625, 1e-9);
  // Held at the nearest fit outside the measured times, scaled with Gmax.
  EXPECT_EQ(wan2022_sigma_us(0.5, 0.0, 40.0), wan2022_sigma_us(0.5, 1.0, 40.0));
  EXPECT_EQ(wan2022_sigma_us(0.5, 3.15e7, 40.0), wan2022_sigma_us(0.5, 172800.0, 40.0));
  EXPECT_NEAR(wan2022_sigma_us(0.5, 1.0, 20.0), wan2022_sigma_us(0.5, 1.0, 40.0) / 2, 1e-12);
  // In between, linear in log10(t): an hour sits 0.711 of the way from 1 s to a day.
  const double w = std::log10(3600.0) / std::log10(86400.0);
  EXPECT_NEAR(wan2022_sigma_us(0.5, 3600.0, 40.0),
              (1 - w) * wan2022_sigma_us(0.5, 1.0, 40.0) + w * wan2022_sigma_us(0.5, 86400.0, 40.0), 1e-9);
  EXPECT_THROW(vp::hw::parse_relaxation("pcm"), std::invalid_argument);
}

// Relaxation moves written cells by the fit's sigma at their target level:
// 2-bit cells at level 1 (G/Gmax 1/3) after a day.
TEST(NonIdeality, RelaxationHasTheMeasuredSpreadPerLevel) {
  NonIdealityConfig c;
  c.relaxation = vp::hw::Relaxation::wan2022;
  c.time_since_program_s = 86400.0;
  EXPECT_FALSE(c.ideal());
  Crossbar xb(256, 256, 2);
  xb.attach(std::make_shared<NonIdealityModel>(c, 5));
  const std::vector<std::uint8_t> t(256, 1);
  for (int r = 0; r < 256; ++r) xb.program_row_exact(r, 0, t.data(), 256);
  double sum = 0.0, sq = 0.0;
  for (int r = 0; r < 256; ++r)
    for (int col = 0; col < 256; ++col) {
      const double e = xb.level(r, col) - 1.0;
      sum += e;
      sq += e * e;
    }
  const double mean = sum / 65536.0;
  const double sd = std::sqrt(sq / 65536.0 - mean * mean);
  const double want = vp::hw::wan2022_sigma_us(1.0 / 3.0, 86400.0, 40.0) / (40.0 / 3.0);  // in levels
  EXPECT_NEAR(want, 0.297, 0.001);
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(sd, want, 0.01);
  NonIdealityConfig bad = c;
  bad.time_since_program_s = -1;
  EXPECT_THROW(bad.validate(), std::invalid_argument);
}

TEST(NonIdeality, IrDropFollowsTheLinearDistanceFormula) {
  NonIdealityConfig c;
  c.ir_drop_ohm_per_cell = 2.82;  // MNSIM
  c.g_max_us = 40.0;
  NonIdealityModel model(c, 1);
  const double k = 2.82 * 40e-6;
  EXPECT_NEAR(model.ir_drop_factor(256, 255, 0), 1.0 - k * 2, 1e-7);      // next to both drivers
  EXPECT_NEAR(model.ir_drop_factor(256, 0, 255), 1.0 - k * 512, 1e-6);    // far corner
  Crossbar xb(256, 256, 2);
  const float* s = model.read_scale(xb);
  ASSERT_NE(s, nullptr);
  EXPECT_FLOAT_EQ(s[10 * 256 + 20], model.ir_drop_factor(256, 10, 20));
}

TEST(NonIdeality, IrDropAttenuatesColumnSums) {
  // 2-bit weights on 2-bit cells, differential: w = 1 puts level 1 in the
  // positive column only, so each result is one rounded column sum.
  CrossbarConfig cfg;
  cfg.weight_bits = 2;
  cfg.signed_encoding = SignedEncoding::differential;
  NonIdealityConfig c;
  c.ir_drop_ohm_per_cell = 30.0;  // exaggerated so the loss exceeds the rounding
  auto model = std::make_shared<NonIdealityModel>(c, 1);
  const int n = 128;
  const std::vector<std::int32_t> w(256 * n, 1);
  const Crossbar xb = programmed(cfg, w, 256, n, model);
  MvmEngine engine(cfg);
  MvmOptions opt;
  opt.input_bits = 1;
  opt.input_signed = false;
  const auto y = engine.run(xb, std::vector<std::int32_t>(256, 1), opt);
  for (int j = 0; j < n; ++j) {
    double expect = 0.0;
    for (int r = 0; r < 256; ++r) expect += model->ir_drop_factor(256, r, 2 * j);
    EXPECT_EQ(y[static_cast<std::size_t>(j)], static_cast<std::int64_t>(std::floor(expect + 0.5))) << j;
  }
  EXPECT_LT(y[static_cast<std::size_t>(n - 1)], y[0]);
  EXPECT_LT(y[0], 256);
}

TEST(NonIdeality, ReadNoiseIsSeededAndVariesBetweenReads) {
  const CrossbarConfig cfg;
  NonIdealityConfig c;
  c.read_noise_sigma = 0.2;
  std::mt19937_64 rng(2);
  const auto w = random_values(rng, 256 * 64, -128, 127);
  const auto x = random_values(rng, 256, -128, 127);
  const auto exact = product(w, 256, 64, x);
  auto run_twice = [&](std::uint64_t seed) {
    const Crossbar xb = programmed(cfg, w, 256, 64, std::make_shared<NonIdealityModel>(c, seed));
    MvmEngine engine(cfg);
    auto first = engine.run(xb, x);
    auto second = engine.run(xb, x);
    return std::make_pair(first, second);
  };
  const auto a = run_twice(9);
  const auto b = run_twice(9);
  const auto other = run_twice(10);
  EXPECT_EQ(a, b);                // same seed, same numbers
  EXPECT_NE(a.first, a.second);   // each read draws fresh noise
  EXPECT_NE(a.first, other.first);
  EXPECT_NE(a.first, exact);
  // Error stays in proportion: per conversion sd ~ 0.2 * sqrt(128) ~ 2.3
  // levels; weighted by 2^bit and 4^slice the result sd is ~2.2e4, so 2.5e5
  // is >10 sd while a broken datapath would be off by up to ~4e6.
  for (std::size_t i = 0; i < exact.size(); ++i) EXPECT_LT(std::llabs(a.first[i] - exact[i]), 250000);
}

TEST(NonIdeality, TinyReadNoiseIsAbsorbedByTheAdcRounding) {
  const CrossbarConfig cfg;
  NonIdealityConfig c;
  c.read_noise_sigma = 0.005;  // column sd ~0.06 levels, 8 sd from a rounding edge
  std::mt19937_64 rng(4);
  const auto w = random_values(rng, 256 * 64, -128, 127);
  const auto x = random_values(rng, 256, -128, 127);
  const Crossbar xb = programmed(cfg, w, 256, 64, std::make_shared<NonIdealityModel>(c, 1));
  MvmEngine engine(cfg);
  EXPECT_EQ(engine.run(xb, x), product(w, 256, 64, x));
}

}  // namespace
