// Crossbar hot paths: one MVM on a full default crossbar, and ISPP
// programming of one row.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/device_model.h"
#include "vp/hw/crossbar/cell_kernels.h"
#include "vp/hw/crossbar/ispp_write_path.h"
#include "vp/hw/crossbar/rng.h"
#include "vp/hw/crossbar/mvm_engine.h"
#include "vp/hw/crossbar/non_ideality.h"
#include "vp/hw/crossbar/weight_encoding.h"

namespace {

using namespace vp::hw;

struct Fixture {
  CrossbarConfig cfg;
  Crossbar xb;
  std::vector<std::int32_t> x;

  explicit Fixture(const CrossbarConfig& c, std::shared_ptr<NonIdeality> ni = nullptr)
      : cfg(c), xb(c) {
    std::mt19937_64 rng(1);
    std::uniform_int_distribution<int> d(-128, 127);
    const WeightEncoding enc(cfg);
    const int n = enc.logical_cols(cfg.cols);
    std::vector<std::int32_t> w(static_cast<std::size_t>(cfg.rows) * n);
    for (auto& v : w) v = d(rng);
    xb.attach(std::move(ni));
    const auto lv = enc.encode(w, cfg.rows, n);
    xb.program_block_exact(0, cfg.rows, 0, n * enc.columns_per_weight(), lv.data());
    x.resize(static_cast<std::size_t>(cfg.rows));
    for (auto& v : x) v = d(rng);
  }
};

void run_mvm(benchmark::State& state, Fixture& f, int input_bits) {
  MvmEngine engine(f.cfg);
  MvmOptions opt;
  opt.input_bits = input_bits;
  std::vector<std::int64_t> y(static_cast<std::size_t>(engine.output_count(opt)));
  for (auto _ : state) {
    engine.run(f.xb, f.x.data(), static_cast<int>(f.x.size()), opt, y.data());
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.counters["MAC/s"] = benchmark::Counter(
      static_cast<double>(f.cfg.rows) * static_cast<double>(y.size()), benchmark::Counter::kIsIterationInvariantRate);
}

// 256x256, 2-bit cells, 8-bit weights (64 logical columns), 8-bit signed inputs.
void BM_Mvm256x256_8bit_Ideal(benchmark::State& state) {
  Fixture f{CrossbarConfig{}};
  run_mvm(state, f, 8);
}
BENCHMARK(BM_Mvm256x256_8bit_Ideal)->Unit(benchmark::kMicrosecond);

void BM_Mvm256x256_8bit_QuantizedAdc(benchmark::State& state) {
  CrossbarConfig c;
  c.adc_mode = AdcMode::quantize;
  Fixture f{c};
  run_mvm(state, f, 8);
}
BENCHMARK(BM_Mvm256x256_8bit_QuantizedAdc)->Unit(benchmark::kMicrosecond);

void BM_Mvm256x256_8bit_ReadNoiseIrDrop(benchmark::State& state) {
  NonIdealityConfig nc;
  nc.read_noise_sigma = 0.02;
  nc.ir_drop_ohm_per_cell = 2.82;
  Fixture f{CrossbarConfig{}, std::make_shared<NonIdealityModel>(nc, 1)};
  run_mvm(state, f, 8);
}
BENCHMARK(BM_Mvm256x256_8bit_ReadNoiseIrDrop)->Unit(benchmark::kMicrosecond);

void BM_Mvm256x256_16bit_Dac2(benchmark::State& state) {
  CrossbarConfig c;
  c.dac_bits = 2;
  Fixture f{c};
  run_mvm(state, f, 16);
}
BENCHMARK(BM_Mvm256x256_16bit_Dac2)->Unit(benchmark::kMicrosecond);

// One 256-cell row programmed from HRS to random 2-bit targets; the row is
// reset to HRS (outside the timed region) before each programming.
void BM_IsppRow256(benchmark::State& state) {
  const bool stochastic = state.range(0) != 0;
  Crossbar xb(1, 256, 2);
  DeviceConfig dc;
  if (!stochastic) dc.step_levels_sigma = 0.0;
  DeviceModel dev(dc, 7);
  const IsppWritePath ispp(IsppConfig{});
  std::vector<std::uint8_t> targets(256);
  std::mt19937 rng(3);
  for (auto& t : targets) t = static_cast<std::uint8_t>(rng() % 4);
  const std::vector<std::uint8_t> zero(256, 0);
  std::uint64_t pulses = 0;
  for (auto _ : state) {
    state.PauseTiming();
    xb.program_row_exact(0, 0, zero.data(), 256);
    state.ResumeTiming();
    const IsppRowResult r = ispp.program_row(xb, 0, 0, targets.data(), 256, dev);
    pulses += r.total_pulses;
    benchmark::DoNotOptimize(r.iterations);
  }
  state.counters["pulses/s"] = benchmark::Counter(static_cast<double>(pulses), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_IsppRow256)->Arg(0)->Arg(1)->ArgName("stochastic")->Unit(benchmark::kMicrosecond);

// The pulses of 256 cells from HRS to random 2-bit targets (the cells
// already in their window left out, as the write path does), default
// device: the scalar loop (0) against the AVX-512 lanes (1).
void BM_PulseCells256(benchmark::State& state) {
  const bool simd = state.range(0) != 0;
  if (simd && !host_has_avx512()) {
    state.SkipWithError("no AVX-512 on this host");
    return;
  }
  CellPulseParams p;
  const DeviceConfig dc;
  p.step_mean = dc.step_levels_mean;
  p.step_sigma = dc.step_levels_sigma;
  p.min_step = 0.01 * dc.step_levels_mean;
  p.tolerance = IsppConfig{}.tolerance_levels;
  p.top = 3.0;
  p.cap = IsppConfig{}.max_pulses;
  std::mt19937 rng(3);
  std::vector<std::uint64_t> keys;
  std::vector<double> targets;
  for (int i = 0; i < 256; ++i) {
    const int t = static_cast<int>(rng() % 4);
    if (t == 0) continue;
    keys.push_back(mix64(static_cast<std::uint64_t>(i)));
    targets.push_back(t);
  }
  const int n = static_cast<int>(keys.size());
  std::vector<double> levels(keys.size());
  std::vector<std::int32_t> pulses(keys.size());
  std::uint64_t total = 0;
  std::uint64_t round = 0;
  for (auto _ : state) {
    ++round;
    for (int i = 0; i < n; ++i) {
      levels[static_cast<std::size_t>(i)] = 0.0;
      keys[static_cast<std::size_t>(i)] += round;  // other draws each round
    }
    const CellPulseJob job{keys.data(), targets.data(), levels.data(), pulses.data(), n};
    if (simd) {
      pulse_cells_avx512(p, job);
    } else {
      pulse_cells_scalar(p, job);
    }
    for (int i = 0; i < n; ++i) total += static_cast<std::uint64_t>(pulses[static_cast<std::size_t>(i)]);
    benchmark::DoNotOptimize(levels.data());
  }
  state.counters["pulses/s"] = benchmark::Counter(static_cast<double>(total), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PulseCells256)->Arg(0)->Arg(1)->ArgName("simd")->Unit(benchmark::kMicrosecond);

// The start states of a 256-cell row (a row's first write draws them
// before its pulses; ResNet-50's deployment draws 340 M), default device,
// a new row each round.
void BM_StartRowLevels256(benchmark::State& state) {
  const DeviceConfig dc;
  std::vector<float> out(256);
  std::uint64_t row = 0;
  for (auto _ : state) {
    start_row_levels(mix64(++row), dc.start_level, dc.start_sigma, 3.0, out.data(), 256);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["cells/s"] = benchmark::Counter(256.0 * static_cast<double>(row), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_StartRowLevels256)->Unit(benchmark::kMicrosecond);

}  // namespace
