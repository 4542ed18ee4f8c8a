// A heap for programs that allocate hundreds of megabytes in a few large
// blocks (vp-cc's float weights, their packed and quantized copies, the
// activations of the calibration inputs; vp-run's crossbars and their
// deployment).
//
// glibc's malloc serves each block of 128 KiB or more (its threshold rises
// as blocks are freed) from a fresh anonymous mapping and returns it to the
// kernel when freed, so every one is paged in again, 4 KiB per fault. A
// ResNet-50 compile took about 97,000 faults; on a virtual machine each
// costs microseconds and they were a third of its time. The remedy is
// glibc's own tunables: blocks up to 32 MiB from the heap, the heap never
// trimmed and grown 64 MiB at a time, and transparent huge pages asked for
// it (`glibc.malloc.hugetlb=1`; the kernel's `enabled` mode `madvise` or
// `always`). The same compile then takes about 1,900 faults. Nothing
// computed depends on where a block lies.
//
// Tunables are read only when a program starts, so the program executes
// itself again with them set (once: the marker variable below stops a
// second time). VP_LARGE_HEAP=0 keeps glibc's defaults; a tunable a user
// set in GLIBC_TUNABLES is kept and ours of that name left out. When the
// program cannot be executed again it goes on as it is.
#pragma once

#include <string>

namespace vp::common {

// The marker: set (to 1) in the program executed again; set by a user to
// anything, it keeps the defaults.
inline constexpr const char* kLargeHeapEnv = "VP_LARGE_HEAP";

// What prefer_large_heap sets GLIBC_TUNABLES to, given the user's setting
// of it (empty: none).
std::string large_heap_tunables(const std::string& users = "");

// Executes /proc/self/exe with argv[0..argc) and the tunables, unless the
// marker is set or `bytes` (the input the program is about to load) is
// under 16 MiB, where the faults do not matter. Returns only when it did
// not.
void prefer_large_heap(int argc, char** argv, unsigned long long bytes);

}  // namespace vp::common
