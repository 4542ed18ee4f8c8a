// A Softmax run in integers, the steps emit_softmax.cpp gives the vector and
// scalar units, written once for the golden model: the largest code of the
// run (vpmax), each code's difference from it in int32 (vwiden, vadds),
// halved with rounding when the input's step is fine (`shift` 1: a
// difference of up to 255 codes then fits int8 whole) and narrowed to int8
// (vrqs by 1), the masked channels forced to -128 (vmin), their exponentials
// from a table (vlut: QuantParams::lut), the sum (vpsum), its reciprocal
// (recip), and each output code round(e * 127 * floor(2^31 / sum) / 2^31)
// (muli, vrqs).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "int_arith.h"
#include "vp/common/rsqrt.h"

namespace vp::cc {

// Shift of the output requantization: the reciprocal is in 2^-31 steps.
inline constexpr int kSoftmaxShift = 31;
// The output's step: probabilities in [0, 1] as codes 0..127.
inline constexpr double kSoftmaxScale = 1.0 / 127.0;

// The difference's shift: 0 when 128 input steps already make an
// exponential round to 0 (127 * exp(-128 s) < 1/2: saturating at -128 loses
// nothing), else 1 (every difference fits after halving, at half the
// resolution).
inline int softmax_shift(double input_scale) { return 128.0 * input_scale >= std::log(254.0) ? 0 : 1; }

// One run of `len` codes and their mask (127 where a code counts, -128
// where it is masked: a causal mask's or a Softmax's mask input).
inline void softmax_run(const std::int8_t* x, std::int8_t* y, std::int64_t len, const std::int8_t* mask,
                        const std::vector<std::int8_t>& lut, int shift) {
  auto keep = [&](std::int64_t j) -> std::int64_t { return mask[j]; };
  std::int64_t m = -128;
  for (std::int64_t j = 0; j < len; ++j) m = std::max(m, std::min<std::int64_t>(x[j], keep(j)));
  std::vector<std::int64_t> e(static_cast<std::size_t>(len));
  std::int64_t sum = 0;
  for (std::int64_t j = 0; j < len; ++j) {
    const std::int64_t d = std::min(requant(std::min<std::int64_t>(x[j], keep(j)) - m, 1, shift), keep(j));
    e[static_cast<std::size_t>(j)] = lut[static_cast<std::size_t>(d + 128)];
    sum += e[static_cast<std::size_t>(j)];
  }
  const std::uint32_t r = vp::common::recip_q31(static_cast<std::uint32_t>(sat32(sum)));
  const auto rm = static_cast<std::int32_t>(r * 127u);  // muli: the low 32 bits
  for (std::int64_t j = 0; j < len; ++j)
    y[j] = static_cast<std::int8_t>(requant(e[static_cast<std::size_t>(j)], rm, kSoftmaxShift));
}

}  // namespace vp::cc
