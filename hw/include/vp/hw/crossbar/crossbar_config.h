// Geometry and periphery of one crossbar: the parameters that decide what an
// MVM computes (cells, slicing, DAC, ADC). Timing, ISPP, device and
// non-ideality parameters live with the model that uses them.
#pragma once

#include <cstdint>
#include <string>

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

struct CrossbarConfig {
  int rows = 256;                 // xbar.rows [cells] (NeuRRAM, Hermes: 256)
  int cols = 256;                 // xbar.cols [cells]
  int cell_bits = 2;              // xbar.cell_bits [bits per cell] (ISAAC, PUMA: 2)
  int weight_bits = 8;            // xbar.weight_bits [bits] two's complement weights
  SignedEncoding signed_encoding = SignedEncoding::offset_slices;  // xbar.signed_encoding
  int dac_bits = 1;               // dac.bits [bits per step] (ISAAC, PUMA: 1, bit-serial)
  int dac_rows_per_step = 0;      // dac.rows_per_step [rows driven at once]; 0 = all rows
  int adc_bits = 8;               // adc.bits [bits] (ISAAC: 8)
  int adc_columns_per_adc = 8;    // adc.columns_per_adc [columns sharing one ADC]
  AdcMode adc_mode = AdcMode::ideal;  // adc.mode; ideal by default like every non-ideality
  double adc_full_scale = 0.0;    // adc.full_scale [column-sum units = level x DAC code];
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

// ns -> clock cycles, rounded up (a stage occupies whole cycles). A tiny
// tolerance keeps 100 ns at 1000 MHz at exactly 100 cycles.
std::uint64_t ns_to_cycles(double ns, double clock_mhz);

}  // namespace vp::hw
