#include "vp/hw/crossbar/crossbar_config.h"

#include <cmath>
#include <stdexcept>

namespace vp::hw {

namespace {
void require(bool ok, const char* param, const std::string& what) {
  if (!ok) throw std::invalid_argument(std::string(param) + ": " + what);
}
}  // namespace

void CrossbarConfig::validate() const {
  require(rows >= 1 && rows <= 65536, "xbar.rows", "must be in [1, 65536]");
  require(cols >= 1 && cols <= 65536, "xbar.cols", "must be in [1, 65536]");
  // Targets are stored in one byte per cell.
  require(cell_bits >= 1 && cell_bits <= 8, "xbar.cell_bits", "must be in [1, 8]");
  require(weight_bits >= 2 && weight_bits <= 16, "xbar.weight_bits", "must be in [2, 16]");
  require(dac_bits >= 1 && dac_bits <= 8, "dac.bits", "must be in [1, 8]");
  require(dac_rows_per_step >= 0, "dac.rows_per_step", "must be >= 0 (0 = all rows)");
  require(adc_bits >= 1 && adc_bits <= 24, "adc.bits", "must be in [1, 24]");
  require(adc_columns_per_adc >= 1, "adc.columns_per_adc", "must be >= 1");
  require(adc_full_scale >= 0.0 && std::isfinite(adc_full_scale), "adc.full_scale",
          "must be >= 0 (0 = auto)");
  // Column sums accumulate in float; keep every integer sum exact.
  require(max_column_sum() < 16777216.0, "dac.rows_per_step",
          "rows_per_step * (2^cell_bits-1) * (2^dac.bits-1) must stay below 2^24");
  const int slices = (weight_bits + cell_bits - 1) / cell_bits;
  const int per_weight = signed_encoding == SignedEncoding::differential ? 2 * slices : slices;
  require(cols >= per_weight, "xbar.cols",
          "must hold at least one weight column (" + std::to_string(per_weight) + " cells)");
}

const char* to_string(SignedEncoding e) {
  return e == SignedEncoding::differential ? "differential" : "offset_slices";
}

const char* to_string(AdcMode m) { return m == AdcMode::quantize ? "quantize" : "ideal"; }

SignedEncoding parse_signed_encoding(const std::string& s) {
  if (s == "offset_slices") return SignedEncoding::offset_slices;
  if (s == "differential") return SignedEncoding::differential;
  throw std::invalid_argument("xbar.signed_encoding: '" + s +
                              "' is not one of offset_slices, differential");
}

AdcMode parse_adc_mode(const std::string& s) {
  if (s == "ideal") return AdcMode::ideal;
  if (s == "quantize") return AdcMode::quantize;
  throw std::invalid_argument("adc.mode: '" + s + "' is not one of ideal, quantize");
}

}  // namespace vp::hw
