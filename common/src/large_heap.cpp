#include "vp/common/large_heap.h"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace vp::common {

namespace {
// mmap_threshold: glibc's largest (HEAP_MAX_SIZE / 2 on 64-bit hosts).
constexpr const char* kTunables[] = {"glibc.malloc.hugetlb=1", "glibc.malloc.mmap_threshold=33554432",
                                     "glibc.malloc.top_pad=67108864", "glibc.malloc.trim_threshold=4294967295"};
}  // namespace

std::string large_heap_tunables(const std::string& users) {
  // Ours, less those the user set (glibc keeps whichever comes first), then
  // the user's.
  std::string out;
  for (const std::string entry : kTunables) {
    const std::string name = entry.substr(0, entry.find('=') + 1);
    if ((":" + users).find(":" + name) == std::string::npos) out += (out.empty() ? "" : ":") + entry;
  }
  return users.empty() ? out : out + (out.empty() ? "" : ":") + users;
}

void prefer_large_heap(int argc, char** argv, unsigned long long bytes) {
  if (bytes < (16ull << 20) || std::getenv(kLargeHeapEnv) != nullptr) return;
  const char* had = std::getenv("GLIBC_TUNABLES");
  const std::string old = had ? had : "", tunables = large_heap_tunables(old);
  if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0 || setenv(kLargeHeapEnv, "1", 1) != 0) return;
  // A copy, null-terminated whatever the caller's array is (SystemC's
  // sc_main gets a copy of its own).
  std::vector<char*> args(argv, argv + argc);
  args.push_back(nullptr);
  execv("/proc/self/exe", args.data());
  // Not executed (no /proc, say): go on with the environment as it was.
  if (had)
    setenv("GLIBC_TUNABLES", old.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
  unsetenv(kLargeHeapEnv);
}

}  // namespace vp::common
