#include "vp/common/parse_number.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

using vp::common::NumberError;
using vp::common::parse_int;
using vp::common::parse_real;
using vp::common::parse_uint;

namespace {

std::string error_of(void (*f)()) {
  try {
    f();
  } catch (const NumberError& e) {
    return e.what();
  }
  return "";
}

TEST(ParseNumber, IntegersInRange) {
  EXPECT_EQ(parse_int("42", "n"), 42);
  EXPECT_EQ(parse_int("-7", "n"), -7);
  EXPECT_EQ(parse_int("+7", "n"), 7);
  EXPECT_EQ(parse_int("0x1F", "n"), 31);
  EXPECT_EQ(parse_int("-9223372036854775808", "n"), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(parse_int("9223372036854775807", "n"), std::numeric_limits<std::int64_t>::max());
}

TEST(ParseNumber, IntegersRefused) {
  for (const char* bad : {"", "-", "abc", "12abc", " 12", "12 ", "1.5", "9223372036854775808",
                          "-9223372036854775809", "0x", "--1", "18446744073709551616"})
    EXPECT_THROW(parse_int(bad, "n"), NumberError) << bad;
  EXPECT_THROW(parse_int("11", "n", 0, 10), NumberError);
  EXPECT_THROW(parse_int("-1", "n", 0, 10), NumberError);
}

TEST(ParseNumber, CountsDoNotWrap) {
  EXPECT_EQ(parse_uint("18446744073709551615", "c"), std::numeric_limits<std::uint64_t>::max());
  EXPECT_THROW(parse_uint("-5", "--max-cycles"), NumberError);
  EXPECT_THROW(parse_uint("18446744073709551616", "c"), NumberError);
  EXPECT_THROW(parse_uint("5", "c", 4), NumberError);
}

TEST(ParseNumber, MessageNamesWhatAndRange) {
  const std::string m = error_of([] { parse_uint("-5", "--max-cycles", 1000); });
  EXPECT_EQ(m, "--max-cycles: expected a whole number from 0 to 1000, got '-5'");
  const std::string r = error_of([] { parse_real("abc", "--calib-percentile", 0, 100); });
  EXPECT_EQ(r, "--calib-percentile: expected a finite number from 0 to 100, got 'abc'");
}

TEST(ParseNumber, RealsFiniteAndInRange) {
  EXPECT_DOUBLE_EQ(parse_real("99.9", "p", 0, 100), 99.9);
  EXPECT_DOUBLE_EQ(parse_real("1e-3", "p"), 1e-3);
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "1e400", "", " 1", "1x", "101"})
    EXPECT_THROW(parse_real(bad, "p", 0, 100), NumberError) << bad;
}

}  // namespace
