// The unit list (units.def) against the table and the docs: the wait mask's
// bits as the `wait` instruction documents them, and the names traces use.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "vp/isa/isa.h"

namespace vp::isa {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

TEST(Units, WaitBitsAreDistinctSingleBitsThatFitTheMask) {
  const InstrInfo* wait = find("wait");
  ASSERT_NE(wait, nullptr);
  ASSERT_EQ(wait->fields.size(), 1u);
  const uint32_t mask_max = static_cast<uint32_t>(wait->fields[0].max_value());
  std::set<uint32_t> seen;
  for (int u = 0; u < kUnitCount; ++u) {
    const uint32_t b = wait_bit(static_cast<Unit>(u));
    if (b == 0) continue;
    EXPECT_EQ(b & (b - 1), 0u) << unit_name(static_cast<Unit>(u));
    EXPECT_LE(b, mask_max) << unit_name(static_cast<Unit>(u));
    EXPECT_TRUE(seen.insert(b).second) << unit_name(static_cast<Unit>(u));
  }
  EXPECT_EQ(seen.size(), 4u);
}

// The semantics column spells the bits out for docs/isa.md; it must say
// what units.def says: "(1 crossbar, 2 vector, 4 DMA, 8 NoC)".
TEST(Units, WaitSemanticsListTheWaitBits) {
  struct Row {
    std::string name;
    uint32_t bit;
  };
  std::vector<Row> rows = {
#define VP_UNIT(NAME, TRACE_NAME, WAIT_BIT) {#NAME, WAIT_BIT},
#include "vp/isa/units.def"
  };
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.bit < b.bit; });
  std::string expect;
  for (const Row& r : rows)
    if (r.bit) expect += (expect.empty() ? "(" : ", ") + std::to_string(r.bit) + " " + lower(r.name);
  expect += ")";
  const InstrInfo* wait = find("wait");
  ASSERT_NE(wait, nullptr);
  EXPECT_NE(lower(wait->semantics).find(expect), std::string::npos) << wait->semantics << " should list " << expect;
}

TEST(Units, NamesAreTheTraceNames) {
  EXPECT_EQ(unit_name(Unit::Scalar), "scalar");
  EXPECT_EQ(unit_name(Unit::Crossbar), "xbar");
  EXPECT_EQ(unit_name(Unit::Control), "ctrl");
  std::set<std::string_view> names;
  for (int u = 0; u < kUnitCount; ++u) EXPECT_TRUE(names.insert(unit_name(static_cast<Unit>(u))).second);
  EXPECT_EQ(unit_name(static_cast<Unit>(kUnitCount)), "?");
}

}  // namespace
}  // namespace vp::isa
