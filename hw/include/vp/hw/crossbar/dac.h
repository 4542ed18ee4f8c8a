// The row drivers: inputs enter the array bit-serially, dac.bits bits per
// step, as unsigned DAC codes 0 .. 2^dac.bits-1 (a unipolar DAC drives no
// negative voltages). The digital shift-and-add weights each step by
// 2^shift, negatively for the sign step.
//
// Step schedule for an n-bit input:
//   unsigned: ceil(n / d) steps over bits [0, n), LSB chunk first.
//   signed (two's complement, x = -b[n-1] 2^(n-1) + sum b[i] 2^i):
//     the magnitude bits [0, n-1) in ceil((n-1) / d) chunks of d bits, then
//     the sign bit alone as the MSB step, weighted -2^(n-1). With 1-bit DACs
//     that is n steps, the textbook bit-serial scheme; a multi-bit DAC needs
//     one extra step because a chunk holding the sign bit and magnitude bits
//     would need a bipolar DAC.
#pragma once

#include <vector>

namespace vp::hw {

struct DacStep {
  int shift;      // bit position of the chunk's LSB = digital weight 2^shift
  int width;      // bits in this chunk (<= dac.bits)
  bool negative;  // the sign step of a signed input
};

class Dac {
 public:
  explicit Dac(int bits);  // dac.bits
  int bits() const { return bits_; }
  std::vector<DacStep> schedule(int input_bits, bool input_signed) const;
  int steps(int input_bits, bool input_signed) const;

 private:
  int bits_;
};

}  // namespace vp::hw
