// Strict parsing of numbers a user types: command-line options, sweep
// values, directive operands. The whole text must be the number (no
// trailing junk, no leading spaces), it must lie in the caller's range, and
// nothing wraps: "-5" for a count is an error, not 2^64 - 5. Errors name what
// was being read and what was expected.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace vp::common {

class NumberError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A decimal integer (or 0x hexadecimal), optionally signed, in [min, max].
// `what` names the value in the message, e.g. "--max-cycles".
std::int64_t parse_int(std::string_view text, std::string_view what,
                       std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                       std::int64_t max = std::numeric_limits<std::int64_t>::max());

// A non-negative integer up to 2^64 - 1 (counts, cycle limits, addresses).
std::uint64_t parse_uint(std::string_view text, std::string_view what,
                         std::uint64_t max = std::numeric_limits<std::uint64_t>::max());

// A finite real number in [min, max]; NaN and infinities are refused.
double parse_real(std::string_view text, std::string_view what,
                  double min = -std::numeric_limits<double>::max(),
                  double max = std::numeric_limits<double>::max());

}  // namespace vp::common
