// A large zero-initialised byte array whose pages the OS provides on first
// touch (anonymous mapping). A sidra-y1 has 2 GiB of global memory; a model
// uses a fraction of it, and host memory should follow what is used, not
// what the chip has.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vp::hw {

class ZeroedPages {
 public:
  explicit ZeroedPages(uint64_t bytes);  // throws std::bad_alloc when the mapping fails
  ~ZeroedPages();
  ZeroedPages(const ZeroedPages&) = delete;
  ZeroedPages& operator=(const ZeroedPages&) = delete;

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace vp::hw
