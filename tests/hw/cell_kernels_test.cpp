// The SIMD cell kernels against the scalar loop they replace, bit for bit,
// and the ISPP write path against the cell-by-cell loop on DeviceModel's
// per-cell draws (the reference the kernels must reproduce).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "vp/hw/crossbar/cell_kernels.h"
#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/device_model.h"
#include "vp/hw/crossbar/ispp_write_path.h"
#include "vp/hw/crossbar/rng.h"

namespace {

using namespace vp::hw;

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct Case {
  double mean, sigma, tol;
  int top, cap, n;
};

// Random cells outside their windows, as the write path hands them over.
void make_cells(const Case& c, std::uint64_t seed, std::vector<std::uint64_t>& keys, std::vector<double>& targets,
                std::vector<double>& levels) {
  std::mt19937_64 rng(seed);
  keys.clear();
  targets.clear();
  levels.clear();
  while (static_cast<int>(keys.size()) < c.n) {
    const double t = static_cast<double>(rng() % static_cast<std::uint64_t>(c.top + 1));
    const double v = std::ldexp(static_cast<double>(rng() >> 11), -53) * c.top;
    if (std::fabs(v - t) <= c.tol) continue;
    keys.push_back(rng());
    targets.push_back(t);
    levels.push_back(v);
  }
}

TEST(CellKernels, Avx512LanesEqualTheScalarLoopBitForBit) {
  if (!host_has_avx512()) GTEST_SKIP() << "no AVX-512 on this host";
  // Default device; a wide spread (ziggurat tail and wedge paths often,
  // overshoots past both limits); a cap that fails many cells; rows shorter
  // than one group of lanes and not a multiple of eight.
  const Case cases[] = {{0.25, 0.05, 0.2, 3, 30, 256}, {0.25, 2.0, 0.2, 3, 30, 251},  {0.5, 0.3, 0.05, 15, 4, 100},
                        {0.1, 0.08, 0.01, 255, 65535, 37}, {0.25, 0.05, 0.2, 3, 30, 5}, {0.25, 0.05, 0.2, 3, 1, 9},
                        {0.25, 0.05, 0.2, 3, 30, 0}};
  std::uint64_t pulses_total = 0;
  for (const Case& c : cases) {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      std::vector<std::uint64_t> keys;
      std::vector<double> targets, levels;
      make_cells(c, seed, keys, targets, levels);
      CellPulseParams p;
      p.step_mean = c.mean;
      p.step_sigma = c.sigma;
      p.min_step = 0.01 * c.mean;
      p.tolerance = c.tol;
      p.top = c.top;
      p.cap = c.cap;
      std::vector<double> a = levels, b = levels;
      std::vector<std::int32_t> pa(keys.size(), -1), pb(keys.size(), -2);
      pulse_cells_scalar(p, {keys.data(), targets.data(), a.data(), pa.data(), c.n});
      ASSERT_TRUE(pulse_cells_avx512(p, {keys.data(), targets.data(), b.data(), pb.data(), c.n}));
      for (int i = 0; i < c.n; ++i) {
        const auto u = static_cast<std::size_t>(i);
        ASSERT_EQ(pa[u], pb[u]) << "cell " << i << " seed " << seed << " sigma " << c.sigma;
        ASSERT_TRUE(same_bits(a[u], b[u])) << "cell " << i << ": " << a[u] << " vs " << b[u];
        ASSERT_GE(pa[u], 1);
        ASSERT_LE(pa[u], c.cap);
        pulses_total += static_cast<std::uint64_t>(pa[u]);
      }
    }
  }
  EXPECT_GT(pulses_total, 100000u);  // enough draws to pass through the ziggurat's rare paths
}

TEST(CellKernels, Avx512StartLevelsEqualTheScalarDraws) {
  if (!host_has_avx512()) GTEST_SKIP() << "no AVX-512 on this host";
  for (int n : {0, 1, 7, 8, 9, 256, 1000}) {
    std::vector<std::uint64_t> keys(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) keys[static_cast<std::size_t>(i)] = mix64(static_cast<std::uint64_t>(i) + 99);
    for (double sigma : {0.05, 1.0, 4.0}) {
      std::vector<float> a(keys.size() + 1, -7.0f), b(keys.size() + 1, -7.0f);
      start_levels_scalar(keys.data(), 0.5, sigma, 3.0, a.data(), n);
      ASSERT_TRUE(start_levels_avx512(keys.data(), 0.5, sigma, 3.0, b.data(), n));
      EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float))) << n << " cells, sigma " << sigma;
      EXPECT_EQ(b[keys.size()], -7.0f);  // nothing written past the end
    }
  }
}

// Levels on and around the window's edges (|level - target| exactly the
// tolerance, one float step either side), far off, and at the limits.
std::vector<float> edge_levels(const std::vector<std::uint8_t>& targets, double tol, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> lv(targets.size());
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const double t = targets[i];
    float v = 0.0f;
    switch (rng() % 6) {
      case 0: v = static_cast<float>(t + tol); break;
      case 1: v = static_cast<float>(t - tol); break;
      case 2: v = std::nextafter(static_cast<float>(t + tol), 100.0f); break;
      case 3: v = std::nextafter(static_cast<float>(t - tol), -100.0f); break;
      case 4: v = static_cast<float>(t); break;
      default: v = static_cast<float>(std::ldexp(static_cast<double>(rng() >> 11), -53) * 3.0); break;
    }
    lv[i] = std::max(v, 0.0f);
  }
  return lv;
}

TEST(CellKernels, RowListAndEndInLanesEqualTheScalarLoops) {
  if (!host_has_avx512()) GTEST_SKIP() << "no AVX-512 on this host";
  int listed = 0;
  int failed = 0;
  for (int n : {0, 1, 7, 8, 9, 250, 256}) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      std::mt19937_64 rng(seed * 31 + static_cast<std::uint64_t>(n));
      std::vector<std::uint8_t> targets(static_cast<std::size_t>(n));
      for (auto& t : targets) t = static_cast<std::uint8_t>(rng() % 4);
      const double tol = seed % 2 ? 0.2 : 0.05;
      const std::vector<float> lv = edge_levels(targets, tol, seed);
      const std::size_t room = targets.size() + 1;
      std::vector<double> la(room, -1.0), lb(room, -1.0), ta(room, -1.0), tb(room, -1.0), va(room, -1.0),
          vb(room, -1.0);
      std::vector<std::int32_t> ca(room, -1), cb(room, -1);
      const int ma = cells_outside_scalar(lv.data(), targets.data(), n, tol, 5, la.data(), {ca.data(), ta.data(), va.data()});
      int mb = -1;
      ASSERT_TRUE(detail::cells_outside_avx512(lv.data(), targets.data(), n, tol, 5, lb.data(),
                                               {cb.data(), tb.data(), vb.data()}, mb));
      ASSERT_EQ(ma, mb);
      EXPECT_EQ(ca, cb);
      EXPECT_EQ(0, std::memcmp(la.data(), lb.data(), room * sizeof(double)));
      EXPECT_EQ(0, std::memcmp(ta.data(), tb.data(), room * sizeof(double)));
      EXPECT_EQ(0, std::memcmp(va.data(), vb.data(), room * sizeof(double)));
      listed += ma;
      // The end of the write on the same levels, with pulse counts.
      std::vector<std::int32_t> pulses(targets.size());
      for (auto& p : pulses) p = static_cast<std::int32_t>(rng() % 31);
      for (bool keep : {false, true}) {
        std::vector<float> oa(room, -3.0f), ob(room, -3.0f);
        const RowEnd ea = finish_cells_scalar(la.data(), pulses.data(), targets.data(), n, tol, keep, oa.data());
        RowEnd eb;
        ASSERT_TRUE(detail::finish_cells_avx512(la.data(), pulses.data(), targets.data(), n, tol, keep, ob.data(), eb));
        EXPECT_EQ(ea.pulses, eb.pulses);
        EXPECT_EQ(ea.iterations, eb.iterations);
        EXPECT_EQ(ea.failed, eb.failed);
        EXPECT_EQ(0, std::memcmp(oa.data(), ob.data(), room * sizeof(float))) << n << " cells, keep " << keep;
        failed += ea.failed;
      }
    }
  }
  EXPECT_GT(listed, 1000);  // both sides of the window's edges were met
  EXPECT_GT(failed, 1000);
}

TEST(CellKernels, RowStartLevelsEqualKeysThenStartLevels) {
  const DeviceModel dev(DeviceConfig{}, 41);
  for (int n : {0, 1, 7, 9, 256, 300}) {
    for (double sigma : {0.05, 2.0}) {
      const std::uint64_t row_key = dev.write(n % 3, 0).row_key();
      std::vector<std::int32_t> cols(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) cols[static_cast<std::size_t>(i)] = i;
      std::vector<std::uint64_t> keys(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) keys[static_cast<std::size_t>(i)] = cell_stream_key(row_key, i);
      std::vector<float> a(keys.size() + 1, -7.0f), b(keys.size() + 1, -7.0f);
      start_levels_scalar(keys.data(), 0.3, sigma, 3.0, a.data(), n);
      start_row_levels(row_key, 0.3, sigma, 3.0, b.data(), n);
      EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float))) << n << " cells, sigma " << sigma;
    }
  }
}

TEST(CellKernels, StreamKeysInLanesEqualRowDrawsKeys) {
  const DeviceModel dev(DeviceConfig{}, 77);
  for (int n : {0, 1, 8, 13, 256}) {
    const DeviceModel::RowDraws draws = dev.write(n % 5, 3);
    std::vector<std::int32_t> cols(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) cols[static_cast<std::size_t>(i)] = (i * 37) % 256;
    std::vector<std::uint64_t> keys(static_cast<std::size_t>(n) + 1, 5u);
    cell_stream_keys(draws.row_key(), cols.data(), n, keys.data());
    for (int i = 0; i < n; ++i) ASSERT_EQ(keys[static_cast<std::size_t>(i)], draws.key(cols[static_cast<std::size_t>(i)])) << i;
    EXPECT_EQ(keys.back(), 5u);
  }
}

// The cell-by-cell loop on DeviceModel::CellDraws, as the write path ran it
// before the kernels: the numbers every implementation must give.
struct RefCell {
  double level;
  int pulses;
};
std::vector<RefCell> reference_row(const std::vector<float>& start, const std::uint8_t* targets, int n,
                                   const DeviceModel::RowDraws& draws, double tol, int cap, int top) {
  std::vector<RefCell> out;
  for (int i = 0; i < n; ++i) {
    const double target = targets[i];
    double v = start[static_cast<std::size_t>(i)];
    int p = 0;
    if (std::fabs(v - target) > tol) {
      DeviceModel::CellDraws cell = draws.cell(i);
      do {
        const double step = cell.step();
        v = std::clamp(v < target ? v + step : v - step, 0.0, static_cast<double>(top));
        ++p;
      } while (p < cap && std::fabs(v - target) > tol);
    }
    out.push_back({v, p});
  }
  return out;
}

TEST(CellKernels, IsppRowsEqualTheCellByCellReference) {
  DeviceConfig dc;
  dc.step_levels_sigma = 0.3;  // wide: overshoots, oscillation, failures
  dc.start_sigma = 0.4;
  IsppConfig ic;
  ic.keep_residual = true;  // compare the analog levels reached
  ic.max_pulses = 12;
  const IsppWritePath ispp(ic);
  Crossbar xb(16, 256, 2);
  DeviceModel dev(dc, 42);
  DeviceModel ref_dev(dc, 42);
  dev.reset(xb);
  std::mt19937 rng(5);
  for (int round = 0; round < 3; ++round) {
    for (int r = 0; r < xb.rows(); ++r) {
      std::vector<std::uint8_t> t(256);
      for (auto& x : t) x = static_cast<std::uint8_t>(rng() % 4);
      const std::vector<float> start(xb.row_levels(r), xb.row_levels(r) + 256);
      ref_dev.next_write(r);  // the reset, or the previous round's write
      const DeviceModel::RowDraws draws = ref_dev.write(r, ref_dev.writes(r));
      const std::vector<RefCell> want = reference_row(start, t.data(), 256, draws, ic.tolerance_levels,
                                                      ic.max_pulses, xb.max_level());
      const IsppRowResult got = ispp.program_row(xb, r, 0, t.data(), 256, dev);
      for (int c = 0; c < 256; ++c) {
        const auto u = static_cast<std::size_t>(c);
        ASSERT_EQ(got.pulses[u], want[u].pulses) << "row " << r << " col " << c;
        ASSERT_EQ(got.final_levels[u], static_cast<float>(want[u].level)) << "row " << r << " col " << c;
      }
    }
  }
}

}  // namespace
