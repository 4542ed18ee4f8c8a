// RTL blocks against their TLM models on the same work: one 64-cell ISPP
// row (platform defaults) and one 8-bit MVM on a 64x64 crossbar (small
// preset). "rtl_cycles/s" is the rate at which the adaptor steps the
// verilated block, analog side included.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/device_model.h"
#include "vp/hw/crossbar/ispp_write_path.h"
#include "vp/hw/crossbar/mvm_engine.h"
#include "vp/hw/crossbar/mvm_timing.h"
#include "vp/hw/rtl/rtl_ispp_write_path.h"
#include "vp/hw/rtl/rtl_mvm_engine.h"

namespace {

using namespace vp::hw;

IsppConfig ispp_config() {
  IsppConfig c;
  c.verify_ns = 200;
  c.tolerance_levels = 0.2;
  return c;
}

DeviceConfig device_config() {
  DeviceConfig d;
  d.step_levels_mean = 0.25;
  d.start_sigma = 0.05;
  return d;
}

CrossbarConfig small_crossbar() {
  CrossbarConfig c;
  c.rows = 64;
  c.cols = 64;
  c.adc_columns_per_adc = 16;
  return c;
}

template <class WritePath>
void program_rows(benchmark::State& state, WritePath& path, std::uint64_t (*stepped)(const WritePath&)) {
  Crossbar xb(64, 64, 2);
  DeviceModel dev(device_config(), 1);
  std::mt19937 rng(1);
  std::vector<std::uint8_t> t(64);
  std::uint64_t cycles = 0;
  const std::uint64_t before = stepped(path);
  for (auto _ : state) {
    for (auto& e : t) e = static_cast<std::uint8_t>(rng() % 4);
    dev.reset_row(xb, 0);
    const IsppRowResult r = path.program_row(xb, 0, 0, t.data(), 64, dev);
    cycles += r.cycles;
    benchmark::DoNotOptimize(r.total_pulses);
  }
  state.counters["row_cycles/s"] = benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
  state.counters["rtl_cycles/s"] =
      benchmark::Counter(static_cast<double>(stepped(path) - before), benchmark::Counter::kIsRate);
}

void BM_IsppRowTlm(benchmark::State& state) {
  IsppWritePath p(ispp_config());
  program_rows<IsppWritePath>(state, p, [](const IsppWritePath&) { return std::uint64_t{0}; });
}
BENCHMARK(BM_IsppRowTlm);

void BM_IsppRowRtl(benchmark::State& state) {
  rtl::RtlIsppWritePath p(ispp_config());
  program_rows<rtl::RtlIsppWritePath>(state, p, [](const rtl::RtlIsppWritePath& w) { return w.cycles_stepped(); });
}
BENCHMARK(BM_IsppRowRtl);

struct MvmSetup {
  CrossbarConfig cfg = small_crossbar();
  Crossbar xb{cfg};
  std::vector<std::int32_t> x;
  std::vector<std::int64_t> y;
  MvmSetup() : x(64), y(32) {
    std::mt19937 rng(2);
    std::vector<std::uint8_t> row(64);
    for (int r = 0; r < 64; ++r) {
      for (auto& e : row) e = static_cast<std::uint8_t>(rng() % 4);
      xb.program_row_exact(r, 0, row.data(), 64);
    }
    for (auto& e : x) e = static_cast<std::int32_t>(rng() % 256) - 128;
  }
};

void BM_MvmTlm(benchmark::State& state) {
  MvmSetup s;
  MvmEngine engine(s.cfg);
  const std::uint64_t cycles = MvmTiming(s.cfg, MvmTimingConfig{}).cycles(8);
  for (auto _ : state) {
    engine.run(s.xb, s.x.data(), 64, MvmOptions{}, s.y.data());
    benchmark::DoNotOptimize(s.y.data());
  }
  state.counters["mvm_cycles/s"] = benchmark::Counter(static_cast<double>(cycles * state.iterations()),
                                                      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MvmTlm);

void BM_MvmRtl(benchmark::State& state) {
  MvmSetup s;
  rtl::RtlMvmEngine engine(s.cfg, MvmTimingConfig{});
  std::uint64_t cycles = 0;
  const std::uint64_t before = engine.cycles_stepped();
  for (auto _ : state) {
    cycles += engine.run(s.xb, s.x.data(), 64, MvmOptions{}, s.y.data());
    benchmark::DoNotOptimize(s.y.data());
  }
  state.counters["mvm_cycles/s"] = benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
  state.counters["rtl_cycles/s"] = benchmark::Counter(static_cast<double>(engine.cycles_stepped() - before),
                                                      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MvmRtl);

}  // namespace
