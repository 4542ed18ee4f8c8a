#include "vp/hw/crossbar/dac.h"

#include <algorithm>
#include <stdexcept>

namespace vp::hw {

Dac::Dac(int bits) : bits_(bits) {
  if (bits < 1 || bits > 8) throw std::invalid_argument("dac.bits: must be in [1, 8]");
}

std::vector<DacStep> Dac::schedule(int input_bits, bool input_signed) const {
  if (input_bits < 1 || input_bits > 16) throw std::invalid_argument("MVM input bits must be in [1, 16]");
  std::vector<DacStep> steps;
  const int magnitude_bits = input_signed ? input_bits - 1 : input_bits;
  for (int shift = 0; shift < magnitude_bits; shift += bits_) {
    steps.push_back({shift, std::min(bits_, magnitude_bits - shift), false});
  }
  if (input_signed) steps.push_back({input_bits - 1, 1, true});
  return steps;
}

int Dac::steps(int input_bits, bool input_signed) const {
  return static_cast<int>(schedule(input_bits, input_signed).size());
}

}  // namespace vp::hw
