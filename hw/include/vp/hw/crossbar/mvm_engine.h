// Functional matrix-vector multiply on the actual cell levels.
//
// For y[n] = sum_r W[r][n] x[r] over one crossbar:
//  1. x is taken as input_bits-bit two's complement (or unsigned) integers;
//     only the low input_bits bits of each value reach the DACs, as on chip.
//  2. For every DAC step (dac.h) and every group of rows_per_step rows, each
//     physical column's analog sum S_c = sum_r code_r * g'[r][c] is formed,
//     with g' the cell level (times the non-ideality read scale), plus the
//     non-ideality read perturbation.
//  3. The column ADC (adc.h) converts S_c; the values of all row groups add.
//  4. Shift-and-add: the step values are weighted 2^shift (negative for the
//     sign step), the slices 2^(j*cell_bits); the differential q group is
//     subtracted, or for offset_slices 2^(weight_bits-1) * sum(x) (formed
//     digitally from the inputs).
//  5. The int64 sum saturates to output_bits two's complement.
// When nothing is attached to the crossbar, every level equals its target
// and a column sum fits 16 bits, step 2 sums the one-byte targets in 16-bit
// lanes instead (Crossbar::levels_are_targets): the same numbers, 2-3x
// faster. When moreover the ADC returns every column sum unchanged (ideal,
// or exact with a range over the largest sum), steps 2-4 are linear and
// collapse to sum_r x_r * target[r][c] in one pass over the rows with a
// non-zero input: again the same integers.
// In ideal mode, or quantize mode with 2^adc.bits > rows_per_step *
// (2^cell_bits-1) * (2^dac.bits-1), and with exact levels, y equals the
// integer product exactly.
#pragma once

#include <cstdint>
#include <vector>

#include "vp/hw/crossbar/adc.h"
#include "vp/hw/crossbar/crossbar_config.h"
#include "vp/hw/crossbar/dac.h"
#include "vp/hw/crossbar/weight_encoding.h"

namespace vp::hw {

class Crossbar;

struct MvmOptions {
  int input_bits = 8;          // 1..16
  bool input_signed = true;    // two's complement; false = unsigned
  int output_bits = 32;        // 2..64, saturating
  int first_logical_col = 0;   // first weight column computed
  int logical_cols = -1;       // how many; -1 = through the last that fits
  // ADC range (the xadc instruction): 0 = the configured full scale
  // (adc.full_scale); k >= 1 = an LSB of 2^(k-1) level x code units, so the
  // top code reads max_code x 2^(k-1). Only adc.mode = quantize sees it.
  int adc_range = 0;
  // Record the largest column sum a conversion sees (MvmStats::max_column_sum):
  // every step is summed column by column, never the direct path.
  bool profile_sums = false;
};

// Largest ADC range code: an LSB of 2^30 covers any column sum.
inline constexpr int kMaxAdcRange = 31;

struct MvmStats {
  int dac_steps = 0;                   // input steps (per row group)
  int row_groups = 0;                  // ceil(rows driven / rows_per_step)
  std::uint64_t dac_conversions = 0;   // rows driven x steps (every driven row converts each step)
  std::uint64_t adc_conversions = 0;   // physical columns x steps x row groups
  std::uint64_t adc_clipped = 0;       // conversions whose code was clipped
  std::uint64_t outputs_saturated = 0; // results clamped to output_bits
  double max_column_sum = 0;           // with profile_sums: largest analog sum converted
};

class MvmEngine {
 public:
  explicit MvmEngine(const CrossbarConfig& cfg);

  const CrossbarConfig& config() const { return cfg_; }
  const WeightEncoding& encoding() const { return encoding_; }
  const Adc& adc() const { return adc_; }
  // The ADC at range code k (MvmOptions::adc_range; 0 = adc()).
  const Adc& adc_at(int range);

  // x: n_inputs values for rows [0, n_inputs) (rows beyond are not driven).
  // y: logical_cols results. Not thread-safe (scratch buffers, and the
  // non-ideality's random stream); use one engine per thread.
  void run(const Crossbar& xb, const std::int32_t* x, int n_inputs, const MvmOptions& opt,
           std::int64_t* y, MvmStats* stats = nullptr);
  std::vector<std::int64_t> run(const Crossbar& xb, const std::vector<std::int32_t>& x,
                                const MvmOptions& opt = {}, MvmStats* stats = nullptr);

  // Number of results run() produces for these options.
  int output_count(const MvmOptions& opt) const;

 private:
  CrossbarConfig cfg_;
  WeightEncoding encoding_;
  Adc adc_;
  Dac dac_;
  std::vector<std::uint32_t> bits_;   // inputs masked to input_bits
  std::vector<float> sums_;           // analog column sums of one step
  std::vector<std::uint16_t> isums_;  // the same, integer path
  std::vector<std::int64_t> values_;  // ADC values of one step
  std::vector<std::int64_t> acc_;     // shift-and-add accumulators per physical column
  std::vector<std::int64_t> xvals_;   // direct path: each row's input value
  std::vector<std::int32_t> iacc_;    // direct path: column accumulators
  bool adc_passes_every_sum_;         // ideal, or an exact ADC whose range covers every column sum
  std::vector<Adc> ranged_;           // adc_at(k) for k = 1 .. kMaxAdcRange, built on first use
};

}  // namespace vp::hw
