// Exact cycle arithmetic shared by the interconnect models. Every model keeps
// time in core cycles (chip.clock_mhz) as uint64; quantities given in another
// unit (NoC cycles, ns, bytes at a fractional rate) are converted once, with
// an explicit round-up, so that a result never depends on floating-point
// accumulation order and a run is reproducible bit for bit.
#pragma once

#include <cstdint>

#include "vp/config/cycles.h"

namespace vp::hw::noc {

// Time in core cycles (chip.clock_mhz).
using Cycle = std::uint64_t;

// A positive ratio num/den held as integers. Clock ratios and bandwidths are
// given as doubles (1000 MHz / 800 MHz, 12.8 bytes/cycle); holding them as
// the fraction they stand for (5/4, 64/5) makes every later product exact.
struct Rational {
  std::uint64_t num = 1;
  std::uint64_t den = 1;
  double value() const { return static_cast<double>(num) / static_cast<double>(den); }
  bool operator==(const Rational& o) const { return num == o.num && den == o.den; }
  bool operator!=(const Rational& o) const { return !(*this == o); }
};

// Closest fraction to x with a denominator <= max_den (continued fractions,
// as Python's Fraction.limit_denominator): 12.8 -> 64/5, 1.25 -> 5/4,
// 1/3.0 -> 1/3. Throws std::invalid_argument unless 0 < x < 1e15.
Rational rationalize(double x, std::uint64_t max_den = 1000000);

// ceil(n * r) in exact integer arithmetic (128-bit intermediate).
// Throws std::overflow_error when the result does not fit in 64 bits.
std::uint64_t ceil_mul(std::uint64_t n, Rational r);

// ceil(n / r) in exact integer arithmetic.
std::uint64_t ceil_div(std::uint64_t n, Rational r);

// ceil(a / b) for integers, b > 0.
constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

// Core cycles covering `ns` at clock_mhz, rounded up: the configuration
// library's one conversion (vp/config/cycles.h). Negative -> 0.
using config::ns_to_cycles;

// Bytes per core cycle of a bandwidth in GB/s (decimal, 1e9 bytes/s) at a
// core clock in MHz: gbps * 1000 / clock_mhz.
double gbps_to_bytes_per_cycle(double gbps, double clock_mhz);

}  // namespace vp::hw::noc
