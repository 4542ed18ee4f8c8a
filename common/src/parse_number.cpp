#include "vp/common/parse_number.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace vp::common {
namespace {

[[noreturn]] void fail(std::string_view what, std::string_view text, const std::string& expected) {
  throw NumberError(std::string(what) + ": expected " + expected + ", got '" + std::string(text) + "'");
}

std::string range_text(const std::string& kind, const std::string& lo, const std::string& hi) {
  return kind + " from " + lo + " to " + hi;
}

// Magnitude of an unsigned decimal or 0x-hex literal; false on junk or
// overflow of 64 bits.
bool magnitude(std::string_view s, std::uint64_t& out) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && end == s.data() + s.size();
}

std::string real_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::int64_t parse_int(std::string_view text, std::string_view what, std::int64_t min, std::int64_t max) {
  const std::string expected = range_text("an integer", std::to_string(min), std::to_string(max));
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  std::uint64_t m = 0;
  if (!magnitude(s, m)) fail(what, text, expected);
  constexpr std::uint64_t kMinMagnitude = std::uint64_t{1} << 63;
  if (negative ? m > kMinMagnitude : m > kMinMagnitude - 1) fail(what, text, expected);
  const std::int64_t v = negative ? (m == kMinMagnitude ? std::numeric_limits<std::int64_t>::min()
                                                        : -static_cast<std::int64_t>(m))
                                  : static_cast<std::int64_t>(m);
  if (v < min || v > max) fail(what, text, expected);
  return v;
}

std::uint64_t parse_uint(std::string_view text, std::string_view what, std::uint64_t max) {
  const std::string expected = range_text("a whole number", "0", std::to_string(max));
  std::string_view s = text;
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  std::uint64_t m = 0;
  if (!magnitude(s, m) || m > max) fail(what, text, expected);
  return m;
}

double parse_real(std::string_view text, std::string_view what, double min, double max) {
  const std::string expected = range_text("a finite number", real_text(min), real_text(max));
  // strtod needs a terminated string; it also accepts "nan"/"inf", refused below.
  const std::string s(text);
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) fail(what, text, expected);
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v) || v < min || v > max)
    fail(what, text, expected);
  return v;
}

}  // namespace vp::common
