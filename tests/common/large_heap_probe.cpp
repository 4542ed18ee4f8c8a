// Runs prefer_large_heap(argc, argv, BYTES) and prints what the running process
// got: its start count (one line per start, the output shared across the
// exec), the tunables, the marker, and whether a freed 8 MiB block came
// back from the heap below the break (glibc's tunables applied) or from a
// mapping of its own (the defaults).
//   large_heap_probe BYTES
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "vp/common/large_heap.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::printf("start\n");
  std::fflush(stdout);  // the exec would drop what is still buffered
  vp::common::prefer_large_heap(argc, argv, std::strtoull(argv[1], nullptr, 10));
  const char* t = std::getenv("GLIBC_TUNABLES");
  const char* m = std::getenv(vp::common::kLargeHeapEnv);
  std::printf("tunables=%s\nmarker=%s\n", t ? t : "(unset)", m ? m : "(unset)");
  void* first = std::malloc(8u << 20);
  std::memset(first, 1, 8u << 20);
  std::free(first);
  char* block = static_cast<char*>(std::malloc(8u << 20));
  std::memset(block, 2, 8u << 20);
  const bool in_heap = block + (8u << 20) <= static_cast<char*>(sbrk(0));
  std::printf("heap=%d\n", in_heap ? 1 : 0);
  std::free(block);
  return 0;
}
