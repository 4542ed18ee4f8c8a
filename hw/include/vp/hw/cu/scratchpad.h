// A core's local scratchpad: a flat byte array. Every access is bounds
// checked by the caller through `in_range`, because a program that runs off
// the end is a fault the user must see with its address, never a host crash.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace vp::hw {

class Scratchpad {
 public:
  explicit Scratchpad(uint64_t bytes = 0) : mem_(bytes, 0) {}
  uint64_t size() const { return mem_.size(); }
  bool in_range(uint64_t addr, uint64_t len) const { return addr <= mem_.size() && len <= mem_.size() - addr; }
  uint8_t* at(uint64_t addr) { return mem_.data() + addr; }
  const uint8_t* at(uint64_t addr) const { return mem_.data() + addr; }

  int32_t load32(uint64_t a) const {
    int32_t v;
    std::memcpy(&v, at(a), 4);
    return v;
  }
  void store32(uint64_t a, int32_t v) { std::memcpy(at(a), &v, 4); }

 private:
  std::vector<uint8_t> mem_;
};

}  // namespace vp::hw
