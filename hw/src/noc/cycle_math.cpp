#include "vp/hw/noc/cycle_math.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace vp::hw::noc {
namespace {

// GCC and Clang provide 128-bit integers; __extension__ keeps -Wpedantic
// quiet about a type ISO C++ does not name.
__extension__ typedef unsigned __int128 u128;

std::uint64_t narrow(u128 v) {
  if (v > std::numeric_limits<std::uint64_t>::max()) {
    throw std::overflow_error("cycle arithmetic overflows 64 bits");
  }
  return static_cast<std::uint64_t>(v);
}

}  // namespace

Rational rationalize(double x, std::uint64_t max_den) {
  if (!(x > 0.0) || !(x < 1e15) || max_den == 0) {
    throw std::invalid_argument("rationalize: value must be in (0, 1e15), got " + std::to_string(x));
  }
  // Convergents p/q of the continued fraction of x; stop before the
  // denominator would exceed max_den, then compare the last convergent with
  // the best semiconvergent that still fits (limit_denominator).
  std::uint64_t p0 = 0, q0 = 1, p1 = 1, q1 = 0;
  double v = x;
  bool exact = false;
  for (;;) {
    // A term past max_den cannot be used; checking before the cast keeps a
    // huge (or infinite) 1/frac from overflowing the integer conversion.
    if (q1 != 0 && v >= static_cast<double>(max_den) + 1.0) break;
    const double fa = std::floor(v);
    const auto a = static_cast<std::uint64_t>(fa);
    if (q1 != 0 && a > (max_den - q0) / q1) break;
    const std::uint64_t q2 = q0 + a * q1;
    if (q2 > max_den) break;
    const std::uint64_t p2 = p0 + a * p1;
    p0 = p1;
    q0 = q1;
    p1 = p2;
    q1 = q2;
    const double frac = v - fa;
    if (frac <= 0.0) {
      exact = true;
      break;
    }
    v = 1.0 / frac;
  }
  // The first step always fits (q = 1), so q1 >= 1 here.
  Rational best{p1, q1};
  if (!exact) {
    const std::uint64_t k = (max_den - q0) / q1;
    const Rational semi{p0 + k * p1, q0 + k * q1};
    if (std::fabs(semi.value() - x) < std::fabs(best.value() - x)) best = semi;
  }
  if (best.num == 0) {
    throw std::invalid_argument("rationalize: value " + std::to_string(x) +
                                " is below the resolution 1/" + std::to_string(max_den));
  }
  return best;
}

std::uint64_t ceil_mul(std::uint64_t n, Rational r) {
  const u128 prod = static_cast<u128>(n) * r.num;
  return narrow((prod + r.den - 1) / r.den);
}

std::uint64_t ceil_div(std::uint64_t n, Rational r) {
  const u128 prod = static_cast<u128>(n) * r.den;
  return narrow((prod + r.num - 1) / r.num);
}

double gbps_to_bytes_per_cycle(double gbps, double clock_mhz) {
  if (!(clock_mhz > 0.0)) throw std::invalid_argument("gbps_to_bytes_per_cycle: clock_mhz must be > 0");
  return gbps * 1000.0 / clock_mhz;
}

}  // namespace vp::hw::noc
