// prefer_large_heap (large_heap.h): the program executes itself once with
// glibc's tunables, only for a large input, never twice, after a user's
// own tunables (which replace ours of their names), not at all when the
// user set the marker.
#include "vp/common/large_heap.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {

std::string probe(const std::string& env, unsigned long long bytes) {
  const std::string cmd = "env -u GLIBC_TUNABLES -u VP_LARGE_HEAP " + env + " '" VP_LARGE_HEAP_PROBE "' " +
                          std::to_string(bytes) + " 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "popen failed";
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  EXPECT_EQ(pclose(p), 0) << cmd << "\n" << out;
  return out;
}

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// The sanitizers' allocator takes no glibc tunables.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kGlibcMalloc = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kGlibcMalloc = false;
#else
constexpr bool kGlibcMalloc = true;
#endif
#else
constexpr bool kGlibcMalloc = true;
#endif

TEST(LargeHeap, LargeInputRunsOnceMoreWithTheTunables) {
  const std::string out = probe("", 64ull << 20);
  EXPECT_EQ(count(out, "start\n"), 2) << out;
  EXPECT_NE(out.find(std::string("tunables=") + vp::common::large_heap_tunables() + "\n"), std::string::npos) << out;
  EXPECT_NE(out.find("marker=1\n"), std::string::npos) << out;
  if (kGlibcMalloc) {
    EXPECT_NE(out.find("heap=1\n"), std::string::npos) << out;
  }
}

TEST(LargeHeap, SmallInputKeepsTheDefaults) {
  const std::string out = probe("", (16ull << 20) - 1);
  EXPECT_EQ(count(out, "start\n"), 1) << out;
  EXPECT_NE(out.find("tunables=(unset)\n"), std::string::npos) << out;
  // glibc's default threshold maps an 8 MiB block of its own.
  if (kGlibcMalloc) {
    EXPECT_NE(out.find("heap=0\n"), std::string::npos) << out;
  }
}

TEST(LargeHeap, TheUsersMarkerKeepsTheDefaults) {
  const std::string out = probe("VP_LARGE_HEAP=0", 1ull << 30);
  EXPECT_EQ(count(out, "start\n"), 1) << out;
  EXPECT_NE(out.find("tunables=(unset)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("marker=0\n"), std::string::npos) << out;
}

TEST(LargeHeap, TheUsersTunablesReplaceOursOfTheirNames) {
  const std::string out = probe("GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072:glibc.malloc.top_pad=0:glibc.rtld.optional_static_tls=512",
                                1ull << 30);
  EXPECT_EQ(count(out, "start\n"), 2) << out;
  EXPECT_NE(out.find("tunables=glibc.malloc.hugetlb=1:glibc.malloc.trim_threshold=4294967295:"
                     "glibc.malloc.mmap_threshold=131072:glibc.malloc.top_pad=0:glibc.rtld.optional_static_tls=512\n"),
            std::string::npos)
      << out;
  // The user's threshold and padding: the 8 MiB block is mapped again.
  if (kGlibcMalloc) {
    EXPECT_NE(out.find("heap=0\n"), std::string::npos) << out;
  }
}

}  // namespace
