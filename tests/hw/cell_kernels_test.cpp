// The SIMD cell kernels against the scalar loop they replace, bit for bit,
// and the ISPP write path against the cell-by-cell loop on DeviceModel's
// per-cell draws (the reference the kernels must reproduce).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

// The write path's parameters of a case (min_step: the device model's).
CellPulseParams params_of(const Case& c) {
  CellPulseParams p;
  p.step_mean = c.mean;
  p.step_sigma = c.sigma;
  p.min_step = 0.01 * c.mean;
  p.tolerance = c.tol;
  p.top = c.top;
  p.cap = c.cap;
  return p;
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
      const CellPulseParams p = params_of(c);
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

// The scalar ziggurat (StreamRng::normal and rng.cpp's rare path, the tail
// left to splitmix_normal_slow) on a SplitMix64 stream, counting the paths
// its draws take, so the tests below can require that the lanes met each
// branch of their rare path. With band > 0 it also counts the wedge tests
// the lanes cannot decide with their exp and ask of glibc's.
struct Paths {
  std::uint64_t draws = 0;
  std::uint64_t rare = 0;         // first word outside its rectangle
  std::uint64_t wedges = 0;       // wedge tests
  std::uint64_t rejected = 0;     // wedge tests failed: a new word
  std::uint64_t wedge_again = 0;  // wedge tests after a rejection
  std::uint64_t first_tails = 0;  // the first word in the base strip's tail
  std::uint64_t later_tails = 0;  // the tail after a rejection
  std::uint64_t asked = 0;        // wedge tests within the band
};

double traced_normal(SplitMix64& eng, double band, Paths& p) {
  const detail::Ziggurat& t = detail::ziggurat();
  ++p.draws;
  std::uint64_t w = eng();
  auto layer = static_cast<unsigned>(w & 127u);
  auto hz = static_cast<std::int32_t>(static_cast<std::uint32_t>(w >> 32));
  if (std::llabs(hz) < t.k[layer]) return hz * t.w[layer];
  ++p.rare;
  for (bool first = true;; first = false) {
    const double x = hz * t.w[layer];
    if (layer == 0) {
      ++(first ? p.first_tails : p.later_tails);
      std::uint64_t ctr = eng.state();
      const double tail = detail::splitmix_normal_slow(ctr, hz, 0);
      eng = SplitMix64(ctr);
      return tail;
    }
    ++p.wedges;
    if (!first) ++p.wedge_again;
    const double y = t.f[layer] + static_cast<double>(eng() >> 11) * 0x1.0p-53 * (t.f[layer - 1] - t.f[layer]);
    const double a = -0.5 * x * x;
    if (band > 0.0) {
      double e = 0.0;
      EXPECT_TRUE(detail::wedge_exp_avx512(&a, &e, 1));
      if (!(y < e * (1.0 - band)) && !(y >= e * (1.0 + band))) ++p.asked;
    }
    if (y < std::exp(a)) return x;
    ++p.rejected;
    w = eng();
    layer = static_cast<unsigned>(w & 127u);
    hz = static_cast<std::int32_t>(static_cast<std::uint32_t>(w >> 32));
    if (std::llabs(hz) < t.k[layer]) return hz * t.w[layer];
  }
}

// Many normals from each of many streams in lanes (the first word of each
// draw in the vector, the rare path in lanes) against StreamRng::normal on
// the same streams: the same bits, and the same counter after the last
// draw (the next word of each stream agrees). Once with the kernels' band,
// once with one so wide that thousands of wedge tests go to glibc's exp.
TEST(CellKernels, RareZigguratPathInLanesEqualsTheScalarStreams) {
  if (!host_has_avx512()) GTEST_SKIP() << "no AVX-512 on this host";
  const int n = 2045;  // not a multiple of eight: a partly empty vector
  const int draws = 4096;
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) keys[static_cast<std::size_t>(i)] = mix64(static_cast<std::uint64_t>(i) * 7 + 1);
  for (const double band : {0x1.0p-40, 0x1.0p-12}) {
    std::vector<double> out(static_cast<std::size_t>(n) * draws + 1, -99.0);
    std::vector<std::uint64_t> counters(static_cast<std::size_t>(n) + 1, 5u);
    ASSERT_TRUE(detail::stream_normals_avx512(keys.data(), n, draws, band, out.data(), counters.data()));
    EXPECT_EQ(out.back(), -99.0);  // nothing written past the ends
    EXPECT_EQ(counters.back(), 5u);
    Paths paths;
    for (int i = 0; i < n; ++i) {
      const auto u = static_cast<std::size_t>(i);
      StreamRng rng(keys[u]);
      SplitMix64 traced(keys[u]);
      for (int d = 0; d < draws; ++d) {
        const double want = rng.normal();
        const double got = out[static_cast<std::size_t>(d) * static_cast<std::size_t>(n) + u];
        ASSERT_TRUE(same_bits(want, got)) << "stream " << i << " draw " << d << ": " << want << " vs " << got;
        ASSERT_TRUE(same_bits(want, traced_normal(traced, band, paths))) << "stream " << i << " draw " << d;
      }
      ASSERT_EQ(traced.state(), counters[u]) << "stream " << i;
      ASSERT_EQ(rng.bits(), mix64(counters[u] + 0x9E3779B97F4A7C15ULL)) << "stream " << i;
    }
    // Each branch of the rare path in lanes was taken, most many times.
    EXPECT_GT(paths.rare, 80000u) << band;
    EXPECT_GT(paths.rejected, 8000u) << band;
    EXPECT_GT(paths.wedge_again, 1000u) << band;
    EXPECT_GT(paths.first_tails, 3000u) << band;
    EXPECT_GT(paths.later_tails, 5u) << band;
    if (band > 0x1.0p-20) {
      EXPECT_GT(paths.asked, 1000u);
    }
    std::printf("band %g: %llu draws, %llu rare, %llu wedge tests, %llu rejected, %llu wedge tests after one, "
                "%llu tails first, %llu after a rejection, %llu asked glibc\n",
                band, static_cast<unsigned long long>(paths.draws), static_cast<unsigned long long>(paths.rare),
                static_cast<unsigned long long>(paths.wedges), static_cast<unsigned long long>(paths.rejected),
                static_cast<unsigned long long>(paths.wedge_again),
                static_cast<unsigned long long>(paths.first_tails),
                static_cast<unsigned long long>(paths.later_tails), static_cast<unsigned long long>(paths.asked));
  }
}

// Pulses with a spread four times the mean step and a narrow window: tens
// of pulses per cell, so millions of draws through the lanes' rare path
// inside pulse(), against the scalar loop.
TEST(CellKernels, Avx512PulsesThroughTheRarePathEqualTheScalarLoop) {
  if (!host_has_avx512()) GTEST_SKIP() << "no AVX-512 on this host";
  const Case c{0.25, 1.0, 0.02, 15, 1000, 100000};
  std::vector<std::uint64_t> keys;
  std::vector<double> targets, levels;
  make_cells(c, 99, keys, targets, levels);
  const CellPulseParams p = params_of(c);
  std::vector<double> a = levels, b = levels;
  std::vector<std::int32_t> pa(keys.size(), -1), pb(keys.size(), -2);
  pulse_cells_scalar(p, {keys.data(), targets.data(), a.data(), pa.data(), c.n});
  ASSERT_TRUE(pulse_cells_avx512(p, {keys.data(), targets.data(), b.data(), pb.data(), c.n}));
  Paths paths;
  for (int i = 0; i < c.n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    ASSERT_EQ(pa[u], pb[u]) << "cell " << i;
    ASSERT_TRUE(same_bits(a[u], b[u])) << "cell " << i << ": " << a[u] << " vs " << b[u];
    SplitMix64 traced(keys[u]);
    for (int d = 0; d < pa[u]; ++d) traced_normal(traced, 0.0, paths);
  }
  EXPECT_GT(paths.rare, 150000u);
  EXPECT_GT(paths.rejected, 60000u);
  EXPECT_GT(paths.wedge_again, 1500u);
  EXPECT_GT(paths.first_tails, 3000u);
  EXPECT_GT(paths.later_tails, 20u);
  std::printf("%llu pulses, %llu rare, %llu rejected, %llu tails first, %llu after a rejection\n",
              static_cast<unsigned long long>(paths.draws), static_cast<unsigned long long>(paths.rare),
              static_cast<unsigned long long>(paths.rejected), static_cast<unsigned long long>(paths.first_tails),
              static_cast<unsigned long long>(paths.later_tails));
}

// The lanes' exp against glibc's and against expl (64-bit mantissa, within
// 2^-63 here) over the wedge test's arguments [-6, 0]: a fine grid, random
// points, the arguments the ziggurat's layers give, and the points around
// the range reduction's switches from k to k - 1 (a = -(j + 1/2) ln 2).
// The bounds are the ones ziggurat_lanes_avx512.cpp derives: 2^-47 of
// exp(a), 2^-46 of glibc's value (the wedge test's band is 2^-40).
TEST(CellKernels, WedgeExpInLanesIsWithinItsBound) {
  if (!host_has_avx512()) GTEST_SKIP() << "no AVX-512 on this host";
  std::vector<double> args = {0.0, -0.0, -6.0, -0x1.0p-1074, -0x1.0p-60, -5.925};
  const int grid = 1 << 22;
  for (int i = 0; i <= grid; ++i) args.push_back(-6.0 * i / grid);
  std::mt19937_64 rng(2024);
  for (int i = 0; i < grid; ++i) args.push_back(-6.0 * std::ldexp(static_cast<double>(rng() >> 11), -53));
  const detail::Ziggurat& t = detail::ziggurat();
  for (int i = 0; i < grid; ++i) {
    const auto layer = 1 + static_cast<unsigned>(rng() % 127);
    const double x = static_cast<std::int32_t>(static_cast<std::uint32_t>(rng())) * t.w[layer];
    args.push_back(-0.5 * x * x);
  }
  for (int j = 0; j < 9; ++j) {
    double a = -(j + 0.5) * 0.693147180559945309417;
    for (int s = 0; s < 64; ++s) a = std::nextafter(a, 0.0);
    for (int s = 0; s < 128; ++s) {
      args.push_back(a);
      a = std::nextafter(a, -7.0);
    }
  }
  std::vector<double> e(args.size());
  ASSERT_TRUE(detail::wedge_exp_avx512(args.data(), e.data(), static_cast<int>(args.size())));
  double worst_true = 0.0;
  double worst_glibc = 0.0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    ASSERT_GE(args[i], -6.0);
    const long double exact = std::exp(static_cast<long double>(args[i]));
    const double g = std::exp(args[i]);
    const double off_true = static_cast<double>(std::fabs(static_cast<long double>(e[i]) - exact) / exact);
    const double off_glibc = std::fabs(e[i] - g) / g;
    worst_true = std::max(worst_true, off_true);
    worst_glibc = std::max(worst_glibc, off_glibc);
    ASSERT_LE(off_true, 0x1.0p-47) << "exp(" << args[i] << ")";
    ASSERT_LE(off_glibc, 0x1.0p-46) << "exp(" << args[i] << ")";
  }
  std::printf("%zu arguments: lanes' exp within %.3g of exp (%.2f u), within %.3g of glibc's (%.2f u)\n",
              args.size(), worst_true, worst_true / 0x1.0p-53, worst_glibc, worst_glibc / 0x1.0p-53);
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

// Whole rows of start states: thousands of cells take the ziggurat's rare
// path (one draw in 37), in lanes, and read what the scalar draws give.
TEST(CellKernels, RowStartLevelsOfManyRowsEqualTheScalarDraws) {
  const DeviceModel dev(DeviceConfig{}, 5);
  std::vector<std::uint64_t> keys(256);
  std::vector<float> a(256), b(256);
  for (int row = 0; row < 2000; ++row) {
    const std::uint64_t row_key = dev.write(row, static_cast<std::uint32_t>(row % 3)).row_key();
    for (int i = 0; i < 256; ++i) keys[static_cast<std::size_t>(i)] = cell_stream_key(row_key, i);
    start_levels_scalar(keys.data(), 1.5, 0.7, 3.0, a.data(), 256);
    start_row_levels(row_key, 1.5, 0.7, 3.0, b.data(), 256);
    ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float))) << "row " << row;
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
