#include "vp/hw/memory/zeroed_pages.h"

#include <sys/mman.h>

#include <new>

namespace vp::hw {

ZeroedPages::ZeroedPages(uint64_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<uint8_t*>(p);
}

ZeroedPages::~ZeroedPages() {
  if (data_) munmap(data_, size_);
}

}  // namespace vp::hw
