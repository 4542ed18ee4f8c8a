// Signed integer weights -> non-negative cell levels, and back.
//
// A weight of b = xbar.weight_bits bits is cut into S = ceil(b / cell_bits)
// slices of cell_bits bits, one slice per physical column, LSB slice first
// (slice j holds bits [j*cell_bits, (j+1)*cell_bits) and carries digital
// weight 2^(j*cell_bits) in the shift-and-add). Logical column n occupies the
// physical columns [n*W, (n+1)*W) with W = columns_per_weight():
//
//   offset_slices: W = S. The cells hold u = w + 2^(b-1) (0 .. 2^b-1), so
//     sum_r w_r x_r = sum_r u_r x_r - 2^(b-1) * sum_r x_r. The correction
//     needs only the sum of the inputs, which the digital back end forms
//     from the input buffer (an adder tree), not from the array.
//   differential: W = 2S. Columns [n*W, n*W+S) hold p = max(w, 0), columns
//     [n*W+S, (n+1)*W) hold q = max(-w, 0), both LSB slice first, and the
//     back end subtracts the q group from the p group. |w| can be 2^(b-1)
//     (for w = -2^(b-1)), so each part gets the full b bits.
#pragma once

#include <cstdint>
#include <vector>

#include "vp/hw/crossbar/crossbar_config.h"

namespace vp::hw {

class WeightEncoding {
 public:
  explicit WeightEncoding(const CrossbarConfig& cfg);

  int weight_bits() const { return weight_bits_; }
  int cell_bits() const { return cell_bits_; }
  SignedEncoding encoding() const { return encoding_; }
  // S: slices per weight (per polarity).
  int slices() const { return slices_; }
  // W: physical columns one logical column (one weight per row) occupies.
  int columns_per_weight() const {
    return encoding_ == SignedEncoding::differential ? 2 * slices_ : slices_;
  }
  // Logical columns that fit in `physical_cols` columns.
  int logical_cols(int physical_cols) const { return physical_cols / columns_per_weight(); }
  // 2^(b-1) for offset_slices (the bias stored in every weight), 0 for differential.
  std::int64_t offset() const { return offset_; }
  std::int32_t min_weight() const { return -(std::int32_t{1} << (weight_bits_ - 1)); }
  std::int32_t max_weight() const { return (std::int32_t{1} << (weight_bits_ - 1)) - 1; }

  // Physical column (relative to the start of logical column 0) of slice
  // `slice` of logical column `logical`; `negative` selects the q group of
  // the differential encoding.
  int physical_col(int logical, int slice, bool negative = false) const {
    return logical * columns_per_weight() + (negative ? slices_ : 0) + slice;
  }

  // One row of N weights -> N*W levels. Throws std::out_of_range when a
  // weight does not fit in weight_bits.
  void encode_row(const std::int32_t* weights, int n, std::uint8_t* levels) const;
  // K x N weights (row-major) -> K x (N*W) levels (row-major).
  std::vector<std::uint8_t> encode(const std::int32_t* weights, int k, int n) const;
  std::vector<std::uint8_t> encode(const std::vector<std::int32_t>& weights, int k, int n) const {
    return encode(weights.data(), k, n);
  }

  // Inverse of encode_row/encode, for read-back checks.
  void decode_row(const std::uint8_t* levels, int n, std::int32_t* weights) const;
  std::vector<std::int32_t> decode(const std::uint8_t* levels, int k, int n) const;

 private:
  int weight_bits_;
  int cell_bits_;
  SignedEncoding encoding_;
  int slices_;
  std::int64_t offset_;
};

// Physical columns / (slices * (differential ? 2 : 1)).
int logical_cols_per_crossbar(const CrossbarConfig& cfg);

}  // namespace vp::hw
