#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/device_model.h"
#include "vp/hw/crossbar/ispp_write_path.h"
#include "vp/hw/crossbar/mvm_engine.h"
#include "vp/hw/crossbar/non_ideality.h"
#include "vp/hw/crossbar/weight_encoding.h"

namespace {

using vp::hw::CellFault;
using vp::hw::Crossbar;
using vp::hw::DeviceConfig;
using vp::hw::DeviceModel;
using vp::hw::IsppConfig;
using vp::hw::IsppWritePath;

DeviceConfig fixed_step(double step, double start = 0.0) {
  DeviceConfig d;
  d.step_levels_mean = step;
  d.step_levels_sigma = 0.0;
  d.start_level = start;
  return d;
}

// Closed form written out here from the documented rule, independent of
// IsppWritePath::analytic_pulses (which is checked against it too).
struct Expect {
  int pulses;
  bool converged;
};
Expect hand_formula(double start, double target, double step, double tol, int cap, int top) {
  const double d = std::fabs(target - start);
  if (d <= tol) return {0, true};
  const int k = static_cast<int>(std::ceil((d - tol) / step));
  const bool clamps = (target > start && target == top) || (target < start && target == 0.0);
  if (k <= cap && (std::fabs(d - k * step) <= tol || clamps)) return {k, true};
  return {cap, false};
}

// True when floating-point accumulation could fall on either side of a
// window edge: such cases are excluded from the exact comparison.
bool near_edge(double start, double target, double step, double tol) {
  const double d = std::fabs(target - start);
  const double q = (d - tol) / step;
  if (std::fabs(q - std::round(q)) < 1e-6) return true;
  for (int k = 0; k < 200; ++k) {
    if (std::fabs(std::fabs(d - k * step) - tol) < 1e-6) return true;
  }
  return false;
}

TEST(IsppWritePath, DeterministicDeviceMatchesTheAnalyticPulseCount) {
  int checked = 0;
  int failures_seen = 0;
  for (double step : {0.07, 0.13, 0.17, 0.23, 0.31, 0.45}) {
    for (double tol : {0.05, 0.1, 0.12}) {
      for (double start : {0.0, 0.4, 2.6, 3.0}) {
        IsppConfig ic;
        ic.tolerance_levels = tol;
        ic.max_pulses = 30;
        ic.keep_residual = true;  // so the window check below sees the level reached
        const IsppWritePath ispp(ic);
        Crossbar xb(1, 4, 2, static_cast<float>(start));
        DeviceModel dev(fixed_step(step, start), 1);
        const std::uint8_t targets[] = {0, 1, 2, 3};
        const auto res = ispp.program_row(xb, 0, 0, targets, 4, dev);
        int max_pulses = 0;
        for (int i = 0; i < 4; ++i) {
          const Expect e = hand_formula(static_cast<float>(start), targets[i], step, tol, 30, 3);
          const auto a = ispp.analytic_pulses(static_cast<float>(start), targets[i], step, 3);
          EXPECT_EQ(a.pulses, e.pulses);
          EXPECT_EQ(a.converged, e.converged);
          max_pulses = std::max(max_pulses, e.pulses);
          if (near_edge(static_cast<float>(start), targets[i], step, tol)) continue;
          ++checked;
          EXPECT_EQ(res.pulses[static_cast<std::size_t>(i)], e.pulses)
              << "step " << step << " tol " << tol << " start " << start << " target " << int{targets[i]};
          const bool failed = std::find(res.failed_cols.begin(), res.failed_cols.end(), i) != res.failed_cols.end();
          EXPECT_EQ(failed, !e.converged);
          if (!e.converged) ++failures_seen;
          if (e.converged) {
            EXPECT_LE(std::fabs(xb.level(0, i) - targets[i]), tol + 1e-6);
          }
        }
        EXPECT_EQ(res.iterations, *std::max_element(res.pulses.begin(), res.pulses.end()));
      }
    }
  }
  EXPECT_GT(checked, 200);
  EXPECT_GT(failures_seen, 0);  // steps wider than the window do oscillate
}

TEST(IsppWritePath, RowArithmeticForADeterministicDevice) {
  // Step 0.2, tolerance 0.1, from HRS (0): target 3 needs ceil(2.9 / 0.2) =
  // 15 pulses, target 2 ceil(1.9 / 0.2) = 10, target 1 5, target 0 none.
  IsppConfig ic;
  ic.pulse_ns = 100.0;
  ic.verify_ns = 50.0;
  ic.pulse_energy_pj = 2.0;
  ic.verify_energy_pj = 0.5;
  ic.clock_mhz = 1000.0;
  ic.tolerance_levels = 0.1;
  const IsppWritePath ispp(ic);
  Crossbar xb(4, 256, 2);
  DeviceModel dev(fixed_step(0.2), 1);
  std::vector<std::uint8_t> targets(256);
  for (int i = 0; i < 256; ++i) targets[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i % 4);
  const auto res = ispp.program_row(xb, 2, 0, targets.data(), 256, dev);
  EXPECT_EQ(res.iterations, 15);
  EXPECT_EQ(res.total_pulses, 64u * (0 + 5 + 10 + 15));
  EXPECT_EQ(res.failed(), 0);
  EXPECT_EQ(res.verify_reads, 15u * 256u);
  EXPECT_EQ(res.cycles, 15u * 150u);
  EXPECT_DOUBLE_EQ(res.time_ns, 15 * 150.0);
  EXPECT_DOUBLE_EQ(res.energy_pj, 1920.0 * 2.0 + 3840.0 * 0.5);
  for (int i = 0; i < 256; ++i) {
    EXPECT_NEAR(xb.level(2, i), targets[static_cast<std::size_t>(i)], 0.1 + 1e-6);
    EXPECT_EQ(xb.target(2, i), targets[static_cast<std::size_t>(i)]);
    EXPECT_FLOAT_EQ(res.final_levels[static_cast<std::size_t>(i)], xb.level(2, i));
  }
  // A second pass over the same targets finds every cell already in the window.
  const auto again = ispp.program_row(xb, 2, 0, targets.data(), 256, dev);
  EXPECT_EQ(again.iterations, 0);
  EXPECT_EQ(again.cycles, 0u);
}

TEST(IsppWritePath, NonConvergedCellsAreReportedAndKeepTheirLevel) {
  IsppConfig ic;
  ic.max_pulses = 6;  // 0.2 * 6 = 1.2: targets 2 and 3 cannot be reached
  const IsppWritePath ispp(ic);
  Crossbar xb(1, 8, 2);
  DeviceModel dev(fixed_step(0.2), 1);
  const std::uint8_t targets[] = {0, 1, 2, 3, 3, 2, 1, 0};
  const auto res = ispp.program_row(xb, 0, 0, targets, 8, dev);
  EXPECT_EQ(res.failed_cols, (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(res.iterations, 6);
  EXPECT_NEAR(xb.level(0, 3), 1.2, 1e-6);
  EXPECT_NEAR(xb.level(0, 1), 1.0, 1e-6);
}

TEST(IsppWritePath, StuckCellsNeverConvergeUnlessAlreadyThere) {
  IsppConfig ic;
  const IsppWritePath ispp(ic);
  Crossbar xb(1, 4, 2);
  xb.set_fault(0, 1, CellFault::stuck_hrs);
  xb.set_fault(0, 2, CellFault::stuck_lrs);
  DeviceModel dev(fixed_step(0.2), 1);
  const std::uint8_t targets[] = {2, 2, 3, 1};
  const auto res = ispp.program_row(xb, 0, 0, targets, 4, dev);
  EXPECT_EQ(res.failed_cols, (std::vector<int>{1}));
  EXPECT_EQ(res.pulses[1], ic.max_pulses);
  EXPECT_EQ(res.pulses[2], 0);
  EXPECT_EQ(xb.level(0, 1), 0.0f);
  EXPECT_EQ(res.iterations, ic.max_pulses);
}

TEST(IsppWritePath, SameSeedSameRowDifferentSeedDifferentPulses) {
  const IsppWritePath ispp(IsppConfig{});
  std::vector<std::uint8_t> targets(256);
  std::mt19937 rng(1);
  for (auto& t : targets) t = static_cast<std::uint8_t>(rng() % 4);
  DeviceConfig dc;  // step 0.2 +- 0.05
  auto run = [&](std::uint64_t seed) {
    Crossbar xb(1, 256, 2);
    DeviceModel dev(dc, seed);
    return ispp.program_row(xb, 0, 0, targets.data(), 256, dev);
  };
  const auto a = run(11);
  const auto b = run(11);
  const auto c = run(12);
  EXPECT_EQ(a.pulses, b.pulses);
  EXPECT_EQ(a.final_levels, b.final_levels);
  EXPECT_EQ(a.total_pulses, b.total_pulses);
  EXPECT_NE(a.pulses, c.pulses);
  // Pulse counts vary from cell to cell among cells with the same target.
  std::vector<int> for_three;
  for (int i = 0; i < 256; ++i)
    if (targets[static_cast<std::size_t>(i)] == 3) for_three.push_back(a.pulses[static_cast<std::size_t>(i)]);
  EXPECT_GT(*std::max_element(for_three.begin(), for_three.end()),
            *std::min_element(for_three.begin(), for_three.end()));
}

// Each cell draws from its own stream keyed by (seed, row, column, write
// number): programming rows in another order, or interleaving two
// crossbars, changes nothing.
TEST(IsppWritePath, RowsGiveTheSameResultInAnyOrder) {
  const IsppWritePath ispp(IsppConfig{});
  DeviceConfig dc;  // stochastic steps and start state
  std::mt19937 rng(8);
  std::vector<std::vector<std::uint8_t>> t(16, std::vector<std::uint8_t>(64));
  for (auto& row : t)
    for (auto& v : row) v = static_cast<std::uint8_t>(rng() % 4);
  auto program = [&](const std::vector<int>& order, int passes) {
    Crossbar xb(16, 64, 2);
    DeviceModel dev(dc, 77);
    dev.reset(xb);
    std::vector<std::vector<std::uint16_t>> pulses(16);
    for (int pass = 0; pass < passes; ++pass)
      for (int r : order) {
        const auto res = ispp.program_row(xb, r, 0, t[static_cast<std::size_t>(r)].data(), 64, dev);
        pulses[static_cast<std::size_t>(r)].insert(pulses[static_cast<std::size_t>(r)].end(), res.pulses.begin(),
                                                   res.pulses.end());
      }
    return std::make_pair(pulses, std::vector<float>(xb.levels(), xb.levels() + 16 * 64));
  };
  std::vector<int> forward(16);
  for (int r = 0; r < 16; ++r) forward[static_cast<std::size_t>(r)] = r;
  std::vector<int> shuffled = forward;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  const auto a = program(forward, 2);
  const auto b = program(shuffled, 2);
  EXPECT_EQ(a.first, b.first);
  EXPECT_EQ(a.second, b.second);
  // The second write of a row draws new steps: same targets, other pulses.
  int differ = 0;
  for (const auto& p : a.first)
    for (std::size_t i = 0; i < 64; ++i) differ += p[i] != p[64 + i] ? 1 : 0;
  EXPECT_GT(differ, 0);
}

// The pulses a cell needs follow the device's distribution: mean pulses
// per target level from HRS equal those of a Monte Carlo of the documented
// rule on std::normal_distribution, within 5 standard errors.
TEST(IsppWritePath, MeanPulsesPerLevelMatchAnIndependentMonteCarlo) {
  IsppConfig ic;  // tolerance 0.2, cap 30
  const IsppWritePath ispp(ic);
  const DeviceConfig dc;  // step 0.25 +- 0.05 levels
  const int rows = 64;
  const int cols = 256;
  Crossbar xb(rows, cols, 2);
  DeviceModel dev(dc, 2024);
  double sum[4] = {};
  double sum2[4] = {};
  double count[4] = {};
  std::vector<std::uint8_t> t(cols);
  for (int c = 0; c < cols; ++c) t[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c % 4);
  for (int r = 0; r < rows; ++r) {
    const auto res = ispp.program_row(xb, r, 0, t.data(), cols, dev);
    for (int c = 0; c < cols; ++c) {
      const double p = res.pulses[static_cast<std::size_t>(c)];
      sum[c % 4] += p;
      sum2[c % 4] += p * p;
      count[c % 4] += 1;
    }
  }
  std::mt19937_64 eng(5);
  std::normal_distribution<double> step(dc.step_levels_mean, dc.step_levels_sigma);
  for (int level = 1; level < 4; ++level) {
    const int n = 200000;
    double ref = 0.0;
    for (int k = 0; k < n; ++k) {
      double v = 0.0;
      int p = 0;
      while (p < ic.max_pulses && std::fabs(v - level) > ic.tolerance_levels) {
        const double s = std::max(step(eng), 0.01 * dc.step_levels_mean);
        v = std::clamp(v < level ? v + s : v - s, 0.0, 3.0);
        ++p;
      }
      ref += p;
    }
    ref /= n;
    const double mean = sum[level] / count[level];
    const double var = sum2[level] / count[level] - mean * mean;
    const double se = std::sqrt(std::max(var, 0.01) / count[level]);
    EXPECT_NEAR(mean, ref, 5 * se) << "level " << level;
    EXPECT_GT(var, 0.0) << "level " << level;  // the device is stochastic
  }
  EXPECT_EQ(sum[0], 0.0);  // HRS cells need no pulse
}

TEST(IsppWritePath, StochasticDeviceMostlyConvergesInsideTheWindow) {
  IsppConfig ic;  // tolerance 0.1, cap 30
  ic.tolerance_levels = 0.1;
  ic.max_pulses = 30;
  ic.keep_residual = true;
  const IsppWritePath ispp(ic);
  DeviceConfig dc;
  dc.step_levels_mean = 0.2;
  dc.step_levels_sigma = 0.05;
  dc.start_sigma = 0.05;
  Crossbar xb(64, 256, 2);
  DeviceModel dev(dc, 5);
  dev.reset(xb);
  std::mt19937 rng(2);
  std::uint64_t failed = 0;
  std::uint64_t cells = 0;
  for (int r = 0; r < 64; ++r) {
    std::vector<std::uint8_t> t(256);
    for (auto& v : t) v = static_cast<std::uint8_t>(rng() % 4);
    const auto res = ispp.program_row(xb, r, 0, t.data(), 256, dev);
    failed += static_cast<std::uint64_t>(res.failed());
    cells += 256;
    for (int i = 0; i < 256; ++i) {
      const bool f = std::find(res.failed_cols.begin(), res.failed_cols.end(), i) != res.failed_cols.end();
      if (!f) {
        EXPECT_LE(std::fabs(xb.level(r, i) - t[static_cast<std::size_t>(i)]), 0.1 + 1e-6);
      }
    }
    EXPECT_LE(res.iterations, ic.max_pulses);
  }
  EXPECT_LT(static_cast<double>(failed) / static_cast<double>(cells), 0.05);
}

TEST(IsppWritePath, ProgrammedWeightsReadBack) {
  vp::hw::CrossbarConfig cfg;
  cfg.rows = 32;
  cfg.cols = 64;
  const vp::hw::WeightEncoding enc(cfg);
  std::mt19937 rng(3);
  std::vector<std::int32_t> w(32 * 16);
  for (auto& v : w) v = static_cast<std::int32_t>(rng() % 256) - 128;
  const auto levels = enc.encode(w, 32, 16);
  Crossbar xb(cfg);
  DeviceModel dev(DeviceConfig{}, 99);
  IsppConfig ic;
  ic.max_pulses = 100;  // generous cap so every cell converges
  const IsppWritePath ispp(ic);
  int failed = 0;
  for (int r = 0; r < 32; ++r) failed += ispp.program_row(xb, r, 0, levels.data() + r * 64, 64, dev).failed();
  ASSERT_EQ(failed, 0);
  const auto back = xb.read_levels(0, 32, 0, 64);
  EXPECT_EQ(enc.decode(back.data(), 32, 16), w);
}

TEST(IsppWritePath, ResidualInsideTheWindowIsANonIdeality) {
  // Step 0.23, tolerance 0.12, 0 -> 1: ceil(0.88 / 0.23) = 4 pulses reach 0.92.
  IsppConfig ic;
  ic.tolerance_levels = 0.12;
  const std::uint8_t target[] = {1};
  {
    Crossbar xb(1, 1, 2);
    DeviceModel dev(fixed_step(0.23), 1);
    const auto res = IsppWritePath(ic).program_row(xb, 0, 0, target, 1, dev);
    EXPECT_EQ(res.pulses[0], 4);
    EXPECT_EQ(xb.level(0, 0), 1.0f);  // default: converged cells sit on target
    EXPECT_EQ(res.final_levels[0], 1.0f);
  }
  ic.keep_residual = true;
  Crossbar xb(1, 1, 2);
  DeviceModel dev(fixed_step(0.23), 1);
  const auto res = IsppWritePath(ic).program_row(xb, 0, 0, target, 1, dev);
  EXPECT_EQ(res.pulses[0], 4);
  EXPECT_NEAR(xb.level(0, 0), 0.92, 1e-6);
}

// ISPP-programmed weights through the MVM: exact by default; with the
// residual kept, off by no more than the window allows.
TEST(IsppWritePath, MvmOnIsppProgrammedCrossbar) {
  vp::hw::CrossbarConfig cfg;
  cfg.rows = 128;
  cfg.cols = 128;
  const vp::hw::WeightEncoding enc(cfg);
  const int k = 128;
  const int n = 32;
  std::mt19937 rng(21);
  std::vector<std::int32_t> w(static_cast<std::size_t>(k) * n);
  for (auto& v : w) v = static_cast<std::int32_t>(rng() % 256) - 128;
  std::vector<std::int32_t> x(k);
  for (auto& v : x) v = static_cast<std::int32_t>(rng() % 256) - 128;
  std::vector<std::int64_t> exact(n, 0);
  for (int r = 0; r < k; ++r)
    for (int c = 0; c < n; ++c)
      exact[static_cast<std::size_t>(c)] += std::int64_t{w[static_cast<std::size_t>(r * n + c)]} * x[static_cast<std::size_t>(r)];
  const auto levels = enc.encode(w, k, n);
  auto program = [&](bool keep) {
    IsppConfig ic;
    ic.max_pulses = 100;
    ic.keep_residual = keep;
    Crossbar xb(cfg);
    DeviceModel dev(DeviceConfig{}, 4);
    int failed = 0;
    for (int r = 0; r < k; ++r)
      failed += IsppWritePath(ic).program_row(xb, r, 0, levels.data() + r * 128, 128, dev).failed();
    EXPECT_EQ(failed, 0);
    return vp::hw::MvmEngine(cfg).run(xb, x);
  };
  EXPECT_EQ(program(false), exact);
  const auto y = program(true);
  EXPECT_NE(y, exact);
  // Per step and slice the column error is at most rows * 0.1 + 0.5 levels;
  // weighted by sum(2^bit) = 255 and sum(4^slice) = 85 over both polarities.
  const double bound = (128 * 0.1 + 0.5) * 255.0 * 85.0;
  for (int c = 0; c < n; ++c) {
    EXPECT_LE(std::fabs(static_cast<double>(y[static_cast<std::size_t>(c)] - exact[static_cast<std::size_t>(c)])), bound);
  }
}

TEST(IsppWritePath, NonIdealityAddsNoiseAfterTheVerify) {
  vp::hw::NonIdealityConfig nc;
  nc.prog_noise_sigma = 0.3;
  Crossbar xb(1, 256, 2);
  xb.attach(std::make_shared<vp::hw::NonIdealityModel>(nc, 1));
  DeviceModel dev(fixed_step(0.2), 1);
  const std::vector<std::uint8_t> targets(256, 2);
  const auto res = IsppWritePath(IsppConfig{}).program_row(xb, 0, 0, targets.data(), 256, dev);
  EXPECT_EQ(res.failed(), 0);
  int outside = 0;
  for (int i = 0; i < 256; ++i) outside += std::fabs(xb.level(0, i) - 2.0f) > 0.1f ? 1 : 0;
  EXPECT_GT(outside, 100);  // sd 0.3 moves most cells out of the 0.1 window
}

TEST(DeviceModel, StartStateSpreadAndClamp) {
  DeviceConfig dc;
  dc.start_level = 0.0;
  dc.start_sigma = 0.3;
  DeviceModel dev(dc, 1);
  Crossbar xb(16, 16, 2, 2.0f);
  dev.reset(xb);
  int above = 0;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) {
      EXPECT_GE(xb.level(r, c), 0.0f);
      above += xb.level(r, c) > 0.0f ? 1 : 0;
    }
  EXPECT_GT(above, 64);  // about half are clamped at 0, the rest spread above
  EXPECT_LT(above, 192);
}

TEST(DeviceModel, StepsArePositiveAndSeeded) {
  DeviceConfig dc;
  dc.step_levels_mean = 0.1;
  dc.step_levels_sigma = 0.2;  // many raw draws negative
  DeviceModel a(dc, 3);
  DeviceModel b(dc, 3);
  DeviceModel::CellDraws ca = a.write(5, 0).cell(7);
  DeviceModel::CellDraws cb = b.write(5, 0).cell(7);
  DeviceModel::CellDraws other = a.write(5, 0).cell(8);
  int differ = 0;
  for (int i = 0; i < 1000; ++i) {
    const double s = ca.step();
    EXPECT_GE(s, a.min_step());
    EXPECT_EQ(s, cb.step());
    differ += s != other.step() ? 1 : 0;
  }
  EXPECT_GT(differ, 500);  // the clamp makes some equal; the streams are not
  EXPECT_THROW(DeviceModel(DeviceConfig{0, 0, 0.0, 0}, 1), std::invalid_argument);
}

}  // namespace
