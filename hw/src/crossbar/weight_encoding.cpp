#include "vp/hw/crossbar/weight_encoding.h"

#include <stdexcept>
#include <string>

namespace vp::hw {

WeightEncoding::WeightEncoding(const CrossbarConfig& cfg)
    : weight_bits_(cfg.weight_bits),
      cell_bits_(cfg.cell_bits),
      encoding_(cfg.signed_encoding),
      slices_((cfg.weight_bits + cfg.cell_bits - 1) / cfg.cell_bits),
      offset_(cfg.signed_encoding == SignedEncoding::offset_slices
                  ? (std::int64_t{1} << (cfg.weight_bits - 1))
                  : 0) {
  if (weight_bits_ < 2 || weight_bits_ > 16) throw std::invalid_argument("xbar.weight_bits: must be in [2, 16]");
  if (cell_bits_ < 1 || cell_bits_ > 8) throw std::invalid_argument("xbar.cell_bits: must be in [1, 8]");
}

void WeightEncoding::encode_row(const std::int32_t* weights, int n, std::uint8_t* levels) const {
  const std::uint32_t cell_mask = (1u << cell_bits_) - 1u;
  const int w_cols = columns_per_weight();
  for (int j = 0; j < n; ++j) {
    const std::int32_t w = weights[j];
    if (w < min_weight() || w > max_weight()) {
      throw std::out_of_range("weight " + std::to_string(w) + " does not fit in " +
                              std::to_string(weight_bits_) + " bits (xbar.weight_bits)");
    }
    std::uint8_t* out = levels + static_cast<std::ptrdiff_t>(j) * w_cols;
    if (encoding_ == SignedEncoding::offset_slices) {
      const auto u = static_cast<std::uint32_t>(w + offset_);
      for (int s = 0; s < slices_; ++s) {
        out[s] = static_cast<std::uint8_t>((u >> (s * cell_bits_)) & cell_mask);
      }
    } else {
      const auto p = static_cast<std::uint32_t>(w > 0 ? w : 0);
      const auto q = static_cast<std::uint32_t>(w < 0 ? -w : 0);
      for (int s = 0; s < slices_; ++s) {
        out[s] = static_cast<std::uint8_t>((p >> (s * cell_bits_)) & cell_mask);
        out[slices_ + s] = static_cast<std::uint8_t>((q >> (s * cell_bits_)) & cell_mask);
      }
    }
  }
}

std::vector<std::uint8_t> WeightEncoding::encode(const std::int32_t* weights, int k, int n) const {
  const std::size_t row_len = static_cast<std::size_t>(n) * static_cast<std::size_t>(columns_per_weight());
  std::vector<std::uint8_t> levels(static_cast<std::size_t>(k) * row_len);
  for (int r = 0; r < k; ++r) {
    encode_row(weights + static_cast<std::ptrdiff_t>(r) * n, n,
               levels.data() + static_cast<std::size_t>(r) * row_len);
  }
  return levels;
}

void WeightEncoding::decode_row(const std::uint8_t* levels, int n, std::int32_t* weights) const {
  const int w_cols = columns_per_weight();
  for (int j = 0; j < n; ++j) {
    const std::uint8_t* in = levels + static_cast<std::ptrdiff_t>(j) * w_cols;
    std::int64_t p = 0;
    std::int64_t q = 0;
    for (int s = 0; s < slices_; ++s) {
      p += static_cast<std::int64_t>(in[s]) << (s * cell_bits_);
      if (encoding_ == SignedEncoding::differential) {
        q += static_cast<std::int64_t>(in[slices_ + s]) << (s * cell_bits_);
      }
    }
    weights[j] = static_cast<std::int32_t>(p - q - offset_);
  }
}

std::vector<std::int32_t> WeightEncoding::decode(const std::uint8_t* levels, int k, int n) const {
  const std::size_t row_len = static_cast<std::size_t>(n) * static_cast<std::size_t>(columns_per_weight());
  std::vector<std::int32_t> weights(static_cast<std::size_t>(k) * static_cast<std::size_t>(n));
  for (int r = 0; r < k; ++r) {
    decode_row(levels + static_cast<std::size_t>(r) * row_len, n,
               weights.data() + static_cast<std::ptrdiff_t>(r) * n);
  }
  return weights;
}

int logical_cols_per_crossbar(const CrossbarConfig& cfg) {
  return WeightEncoding(cfg).logical_cols(cfg.cols);
}

}  // namespace vp::hw
