#include "vp/hw/crossbar/mvm_engine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/mvm_vnni.h"
#include "vp/hw/crossbar/non_ideality.h"

namespace vp::hw {

namespace {

const CrossbarConfig& validated(const CrossbarConfig& cfg) {
  cfg.validate();
  return cfg;
}

// sums[c] += code * levels[c] (* scale[c]): the analog accumulation of one
// driven row onto every column, where an MVM spends its time. Kept
// branch-free so it vectorizes; on x86-64 GCC also builds AVX2 and AVX-512
// clones picked at load time, since the default target stops at SSE2.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define VP_HOT_LOOP __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define VP_HOT_LOOP
#endif

VP_HOT_LOOP void accumulate_row(float* __restrict sums, const float* __restrict levels, int n) {
  for (int c = 0; c < n; ++c) sums[c] += levels[c];
}
VP_HOT_LOOP void accumulate_row(float* __restrict sums, const float* __restrict levels, float code, int n) {
  for (int c = 0; c < n; ++c) sums[c] += code * levels[c];
}
VP_HOT_LOOP void accumulate_row(float* __restrict sums, const float* __restrict levels,
                                const float* __restrict scale, float code, int n) {
  for (int c = 0; c < n; ++c) sums[c] += code * (levels[c] * scale[c]);
}

// Integer path: targets are the levels, sums fit 16 bits.
VP_HOT_LOOP void accumulate_row(std::uint16_t* __restrict sums, const std::uint8_t* __restrict levels, int n) {
  for (int c = 0; c < n; ++c) sums[c] = static_cast<std::uint16_t>(sums[c] + levels[c]);
}
VP_HOT_LOOP void accumulate_row(std::uint16_t* __restrict sums, const std::uint8_t* __restrict levels,
                                std::uint16_t code, int n) {
  for (int c = 0; c < n; ++c) sums[c] = static_cast<std::uint16_t>(sums[c] + code * levels[c]);
}

// Direct path: acc[c] += x * levels[c], the whole input at once.
VP_HOT_LOOP void accumulate_row(std::int32_t* __restrict acc, const std::uint8_t* __restrict levels,
                                std::int32_t x, int n) {
  for (int c = 0; c < n; ++c) acc[c] += x * static_cast<std::int32_t>(levels[c]);
}

std::int64_t saturate(std::int64_t v, int bits, std::uint64_t& saturated) {
  if (bits >= 64) return v;
  const std::int64_t hi = (std::int64_t{1} << (bits - 1)) - 1;
  const std::int64_t lo = -hi - 1;
  if (v > hi) {
    ++saturated;
    return hi;
  }
  if (v < lo) {
    ++saturated;
    return lo;
  }
  return v;
}

}  // namespace

MvmEngine::MvmEngine(const CrossbarConfig& cfg)
    : cfg_(validated(cfg)),
      encoding_(cfg),
      adc_(Adc::for_crossbar(cfg)),
      dac_(cfg.dac_bits),
      adc_passes_every_sum_(adc_.mode() == AdcMode::ideal ||
                            (adc_.lsb_shift() == 0 && static_cast<double>(adc_.max_code()) >= cfg.max_column_sum())) {}

const Adc& MvmEngine::adc_at(int range) {
  if (range == 0) return adc_;
  if (range < 0 || range > kMaxAdcRange)
    throw std::out_of_range("ADC range " + std::to_string(range) + " outside 0.." + std::to_string(kMaxAdcRange));
  if (ranged_.empty())
    for (int k = 1; k <= kMaxAdcRange; ++k)
      ranged_.emplace_back(adc_.mode(), adc_.bits(), static_cast<double>(adc_.max_code()) * std::ldexp(1.0, k - 1));
  return ranged_[static_cast<std::size_t>(range - 1)];
}

int MvmEngine::output_count(const MvmOptions& opt) const {
  const int total = encoding_.logical_cols(cfg_.cols);
  if (opt.first_logical_col < 0 || opt.first_logical_col > total) {
    throw std::out_of_range("MVM first logical column " + std::to_string(opt.first_logical_col) +
                            " outside 0.." + std::to_string(total));
  }
  const int count = opt.logical_cols < 0 ? total - opt.first_logical_col : opt.logical_cols;
  if (opt.first_logical_col + count > total) {
    throw std::out_of_range("MVM logical columns [" + std::to_string(opt.first_logical_col) + ", " +
                            std::to_string(opt.first_logical_col + count) + ") exceed the " +
                            std::to_string(total) + " a crossbar holds");
  }
  return count;
}

std::vector<std::int64_t> MvmEngine::run(const Crossbar& xb, const std::vector<std::int32_t>& x,
                                         const MvmOptions& opt, MvmStats* stats) {
  std::vector<std::int64_t> y(static_cast<std::size_t>(output_count(opt)));
  run(xb, x.data(), static_cast<int>(x.size()), opt, y.data(), stats);
  return y;
}

void MvmEngine::run(const Crossbar& xb, const std::int32_t* x, int n_inputs, const MvmOptions& opt,
                    std::int64_t* y, MvmStats* stats) {
  if (xb.rows() != cfg_.rows || xb.cols() != cfg_.cols || xb.cell_bits() != cfg_.cell_bits) {
    throw std::invalid_argument("MVM engine configured for a different crossbar geometry");
  }
  if (n_inputs < 0 || n_inputs > cfg_.rows) {
    throw std::out_of_range("MVM input length " + std::to_string(n_inputs) + " exceeds " +
                            std::to_string(cfg_.rows) + " rows");
  }
  if (opt.output_bits < 2 || opt.output_bits > 64) {
    throw std::invalid_argument("MVM output bits must be in [2, 64]");
  }
  const std::vector<DacStep> steps = dac_.schedule(opt.input_bits, opt.input_signed);
  const int n_out = output_count(opt);
  const Adc& adc = adc_at(opt.adc_range);
  const bool passes_every_sum = opt.adc_range == 0 ? adc_passes_every_sum_
                                                   : adc.mode() == AdcMode::ideal ||
                                                         (adc.lsb_shift() == 0 &&
                                                          static_cast<double>(adc.max_code()) >= cfg_.max_column_sum());
  double max_sum = 0;
  const int w_cols = encoding_.columns_per_weight();
  const int col0 = opt.first_logical_col * w_cols;
  const int n_phys = n_out * w_cols;

  // Only the low input_bits bits reach the DACs; the digital input sum (for
  // the offset correction) uses the same two's complement value.
  const int n_bits = opt.input_bits;
  const std::uint32_t in_mask = (n_bits >= 32) ? ~0u : ((1u << n_bits) - 1u);
  bits_.resize(static_cast<std::size_t>(n_inputs));
  xvals_.resize(static_cast<std::size_t>(n_inputs));
  std::int64_t input_sum = 0;
  std::int64_t input_max = 0;  // largest |value|
  for (int r = 0; r < n_inputs; ++r) {
    const std::uint32_t b = static_cast<std::uint32_t>(x[r]) & in_mask;
    bits_[static_cast<std::size_t>(r)] = b;
    std::int64_t v = b;
    if (opt.input_signed && ((b >> (n_bits - 1)) & 1u)) v -= std::int64_t{1} << n_bits;
    xvals_[static_cast<std::size_t>(r)] = v;
    input_sum += v;
    input_max = std::max(input_max, v < 0 ? -v : v);
  }

  sums_.resize(static_cast<std::size_t>(n_phys));
  values_.resize(static_cast<std::size_t>(n_phys));
  acc_.assign(static_cast<std::size_t>(n_phys), 0);
  float* sums = sums_.data();
  std::int64_t* values = values_.data();
  std::int64_t* acc = acc_.data();

  NonIdeality* ni = xb.non_ideality();
  const float* scale = ni != nullptr ? ni->read_scale(xb) : nullptr;
  const bool integer_path = ni == nullptr && cfg_.max_column_sum() <= 65535.0 && xb.levels_are_targets();
  if (integer_path) isums_.resize(static_cast<std::size_t>(n_phys));
  std::uint16_t* isums = isums_.data();
  const int group_rows = cfg_.rows_per_step();
  const int n_groups = (n_inputs + group_rows - 1) / group_rows;
  const std::size_t stride = static_cast<std::size_t>(cfg_.cols);
  std::uint64_t clipped = 0;

  // Integer path with an ADC that returns every column sum unchanged: the
  // shift-and-add of the step sums is linear, and the DAC schedule splits
  // each input exactly into its steps (dac.h), so sum over steps of
  // weight x sum_r code_r t_rc = sum_r x_r t_rc with x_r the input's own
  // value. One pass over the driven rows gives the same integers as the
  // step-by-step loop below, and rows whose input is 0 cost nothing.
  const bool direct = integer_path && passes_every_sum && !opt.profile_sums;
  if (direct) {
    const std::int64_t bound = input_max;  // x max_level x rows: int32 or int64 accumulation
    if (bound * xb.max_level() * static_cast<std::int64_t>(n_inputs) <= std::numeric_limits<std::int32_t>::max()) {
      iacc_.assign(static_cast<std::size_t>(n_phys), 0);
      std::int32_t* ia = iacc_.data();
      const bool quads = mvm_direct_vnni(xb, xvals_.data(), n_inputs, col0, n_phys, ia);  // same integers
      for (int r = 0; r < n_inputs && !quads; ++r) {
        const std::int64_t v = xvals_[static_cast<std::size_t>(r)];
        if (v == 0) continue;
        accumulate_row(ia, xb.targets() + static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(col0),
                       static_cast<std::int32_t>(v), n_phys);
      }
      for (int c = 0; c < n_phys; ++c) acc[c] = ia[c];
    } else {
      for (int r = 0; r < n_inputs; ++r) {
        const std::int64_t v = xvals_[static_cast<std::size_t>(r)];
        if (v == 0) continue;
        const std::uint8_t* t = xb.targets() + static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(col0);
        for (int c = 0; c < n_phys; ++c) acc[c] += v * t[c];
      }
    }
  }

  const std::vector<DacStep> none;
  for (const DacStep& step : direct ? none : steps) {
    const std::uint32_t code_mask = (1u << step.width) - 1u;
    const std::int64_t step_weight = step.negative ? -(std::int64_t{1} << step.shift)
                                                   : (std::int64_t{1} << step.shift);
    for (int g0 = 0; g0 < n_inputs; g0 += group_rows) {
      const int g1 = std::min(g0 + group_rows, n_inputs);
      if (integer_path) {
        std::fill(isums, isums + n_phys, std::uint16_t{0});
        bool driven = false;
        for (int r = g0; r < g1; ++r) {
          const std::uint32_t code = (bits_[static_cast<std::size_t>(r)] >> step.shift) & code_mask;
          if (code == 0) continue;
          driven = true;
          const std::uint8_t* t = xb.targets() + static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(col0);
          if (code == 1) {
            accumulate_row(isums, t, n_phys);
          } else {
            accumulate_row(isums, t, static_cast<std::uint16_t>(code), n_phys);
          }
        }
        if (!driven) continue;
        if (opt.profile_sums) max_sum = std::max<double>(max_sum, *std::max_element(isums, isums + n_phys));
        clipped += adc.convert(isums, n_phys, values);
        for (int c = 0; c < n_phys; ++c) acc[c] += step_weight * values[c];
        continue;
      }
      std::fill(sums, sums + n_phys, 0.0f);
      double drive_sq = 0.0;
      for (int r = g0; r < g1; ++r) {
        const std::uint32_t code = (bits_[static_cast<std::size_t>(r)] >> step.shift) & code_mask;
        if (code == 0) continue;
        drive_sq += static_cast<double>(code) * code;
        const std::size_t base = static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(col0);
        const float* lv = xb.levels() + base;
        if (scale != nullptr) {
          accumulate_row(sums, lv, scale + base, static_cast<float>(code), n_phys);
        } else if (code == 1) {
          accumulate_row(sums, lv, n_phys);
        } else {
          accumulate_row(sums, lv, static_cast<float>(code), n_phys);
        }
      }
      // An undriven group reads 0 on an ideal array: the conversion is
      // counted but the result is known.
      if (drive_sq == 0.0 && ni == nullptr) continue;
      if (ni != nullptr) ni->on_column_read(sums, n_phys, ColumnReadInfo{g0, g1, col0, drive_sq});
      if (opt.profile_sums && n_phys > 0) max_sum = std::max<double>(max_sum, *std::max_element(sums, sums + n_phys));
      clipped += adc.convert(sums, n_phys, values);
      for (int c = 0; c < n_phys; ++c) acc[c] += step_weight * values[c];
    }
  }

  // Shift-and-add over slices, then the signed-encoding correction.
  const int n_slices = encoding_.slices();
  const bool differential = encoding_.encoding() == SignedEncoding::differential;
  const std::int64_t offset_correction = encoding_.offset() * input_sum;
  std::uint64_t saturated = 0;
  for (int o = 0; o < n_out; ++o) {
    const std::int64_t* a = acc + static_cast<std::ptrdiff_t>(o) * w_cols;
    std::int64_t v = 0;
    for (int s = 0; s < n_slices; ++s) {
      const std::int64_t slice_weight = std::int64_t{1} << (s * cfg_.cell_bits);
      v += slice_weight * a[s];
      if (differential) v -= slice_weight * a[n_slices + s];
    }
    y[o] = saturate(v - offset_correction, opt.output_bits, saturated);
  }

  if (stats != nullptr) {
    stats->dac_steps = static_cast<int>(steps.size());
    stats->row_groups = n_groups;
    stats->dac_conversions = static_cast<std::uint64_t>(n_inputs) * steps.size();
    stats->adc_conversions = static_cast<std::uint64_t>(n_phys) * steps.size() *
                             static_cast<std::uint64_t>(n_groups);
    stats->adc_clipped = clipped;
    stats->max_column_sum = max_sum;
    stats->outputs_saturated = saturated;
  }
}

}  // namespace vp::hw
