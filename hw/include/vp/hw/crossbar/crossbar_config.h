// Geometry and periphery of one crossbar: the parameters that decide what an
// MVM computes (cells, slicing, DAC, ADC). Timing, ISPP, device and
// non-ideality parameters live with the model that uses them.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "vp/config/cycles.h"
#include "vp/hw/param_defaults.h"

namespace vp::hw {

// How a signed weight becomes non-negative conductance levels.
enum class SignedEncoding {
  // Store w + 2^(b-1) as an unsigned b-bit number in slices over adjacent
  // columns; the digital back end subtracts 2^(b-1) * sum(x).
  offset_slices,
  // Positive part and negative part in two column groups; the back end
  // subtracts the negative group's result from the positive group's.
  differential,
};

// What the ADC does to an analog column sum.
enum class AdcMode {
  ideal,     // exact rounding to the nearest integer, no range limit
  quantize,  // adc.bits codes, power-of-two LSB, clipping (see adc.h)
};

// The enum a value of the table names (its defaults are text); a misspelt
// default fails loudly instead of picking the first value.
constexpr SignedEncoding signed_encoding_named(std::string_view s) {
  return s == "offset_slices" ? SignedEncoding::offset_slices
         : s == "differential" ? SignedEncoding::differential
                               : throw std::invalid_argument("xbar.signed_encoding: unknown value");
}
constexpr AdcMode adc_mode_named(std::string_view s) {
  return s == "ideal"      ? AdcMode::ideal
         : s == "quantize" ? AdcMode::quantize
                           : throw std::invalid_argument("adc.mode: unknown value");
}

// Defaults: the parameter table's (vp/config/params.def).
struct CrossbarConfig {
  int rows = param_default::xbar_rows;                  // xbar.rows [cells]
  int cols = param_default::xbar_cols;                  // xbar.cols [cells]
  int cell_bits = param_default::xbar_cell_bits;        // xbar.cell_bits [bits per cell]
  int weight_bits = param_default::xbar_weight_bits;    // xbar.weight_bits [bits] two's complement
  SignedEncoding signed_encoding = signed_encoding_named(param_default::xbar_signed_encoding);
  int dac_bits = param_default::dac_bits;               // dac.bits [bits per step] (bit-serial: 1)
  int dac_rows_per_step = param_default::dac_rows_per_step;  // dac.rows_per_step; <= 0 = all rows
  int adc_bits = param_default::adc_bits;               // adc.bits [bits]
  int adc_columns_per_adc = param_default::adc_columns_per_adc;  // adc.columns_per_adc
  AdcMode adc_mode = adc_mode_named(param_default::adc_mode);    // adc.mode
  double adc_full_scale = param_default::adc_full_scale;  // adc.full_scale [level x DAC code];
                                                          // 0 = auto: the largest possible column sum

  // Highest cell level, 2^cell_bits - 1.
  int max_level() const { return (1 << cell_bits) - 1; }
  // Highest DAC code, 2^dac_bits - 1.
  int max_dac_code() const { return (1 << dac_bits) - 1; }
  // Rows whose currents add up on a column in one conversion.
  int rows_per_step() const {
    return dac_rows_per_step <= 0 || dac_rows_per_step > rows ? rows : dac_rows_per_step;
  }
  // Largest analog column sum one conversion can see: every driven row at
  // the highest DAC code on a cell at the highest level.
  double max_column_sum() const {
    return static_cast<double>(rows_per_step()) * max_level() * max_dac_code();
  }
  // Throws std::invalid_argument naming the offending parameter.
  void validate() const;
};

const char* to_string(SignedEncoding e);
const char* to_string(AdcMode m);
// Parse the names above; throw std::invalid_argument on anything else.
SignedEncoding parse_signed_encoding(const std::string& s);
AdcMode parse_adc_mode(const std::string& s);

// ns -> clock cycles, rounded up (a stage occupies whole cycles): the one
// conversion of the configuration library.
using config::ns_to_cycles;

}  // namespace vp::hw
