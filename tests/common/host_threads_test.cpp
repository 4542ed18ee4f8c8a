// for_each_index: every index once on any thread count, and the error of the
// lowest failing index whatever the threads' timing.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "vp/common/host_threads.h"

namespace vp::common {
namespace {

TEST(HostThreads, EveryIndexOnceOnAnyThreadCount) {
  for (unsigned threads : {1u, 2u, 3u, 16u}) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{100}}) {
      std::vector<std::atomic<int>> hits(n);
      for_each_index(n, threads, [&](std::size_t k) { hits[k]++; });
      for (std::size_t k = 0; k < n; ++k) EXPECT_EQ(hits[k].load(), 1) << threads << " threads, index " << k;
    }
  }
}

TEST(HostThreads, LowestFailingIndexIsReported) {
  for (unsigned threads : {1u, 2u, 4u}) {
    std::atomic<int> ran{0};
    try {
      for_each_index(50, threads, [&](std::size_t k) {
        ++ran;
        if (k == 31 || k == 9 || k == 40) throw std::runtime_error("index " + std::to_string(k));
      });
      FAIL() << "no error";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "index 9");
    }
    EXPECT_EQ(ran.load(), 50);  // the others still ran
  }
}

TEST(HostThreads, DefaultIsBetweenOneAndEight) {
  EXPECT_GE(host_threads(), 1u);
  EXPECT_LE(host_threads(), 8u);
  EXPECT_EQ(host_threads(3), 3u);
}

}  // namespace
}  // namespace vp::common
