#include <gtest/gtest.h>

#include <random>

#include "vp/trace/interval_sorter.hpp"

using namespace vp::trace;

namespace {

std::vector<std::pair<Interval, std::string>> drain(IntervalSorter& s) {
  std::vector<std::pair<Interval, std::string>> out;
  s.drain([&out](const Interval& iv, std::string_view p) { out.emplace_back(iv, std::string(p)); });
  return out;
}

}  // namespace

TEST(IntervalSorter, SpilledMergeEqualsInMemorySort) {
  std::mt19937 rng(1);
  IntervalSorter small(1 << 16), big(1u << 30);
  for (std::uint64_t k = 0; k < 20000; ++k) {
    Interval iv;
    iv.start = rng() % 5000;  // many equal starts: order must fall back to the line
    iv.end = iv.start + rng() % 100;
    iv.line = k + 1;
    iv.track = static_cast<std::uint32_t>(rng() % 9);
    const std::string payload(rng() % 40, static_cast<char>('a' + k % 26));
    small.add(iv, payload);
    big.add(iv, payload);
  }
  EXPECT_GT(small.spilled_runs(), 5u);
  EXPECT_EQ(big.spilled_runs(), 0u);
  const auto a = drain(small);
  const auto b = drain(big);
  ASSERT_EQ(a.size(), 20000u);
  ASSERT_EQ(b.size(), 20000u);
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].first.line, b[k].first.line);
    EXPECT_EQ(a[k].second, b[k].second);
    EXPECT_EQ(a[k].first.payload, a[k].second.size());
    if (k) {
      EXPECT_FALSE(start_before(a[k].first, a[k - 1].first));
    }
  }
}

TEST(IntervalSorter, EmptyDrainsNothing) {
  IntervalSorter s;
  EXPECT_TRUE(drain(s).empty());
}
