#include "vp/hw/rtl/rtl_wide.h"

namespace vp::hw::rtl {

void set_bits(std::uint32_t* words, int lsb, int width, std::uint64_t value) {
  for (int b = 0; b < width;) {
    const int w = (lsb + b) / 32;
    const int off = (lsb + b) % 32;
    const int take = (32 - off) < (width - b) ? (32 - off) : (width - b);
    const std::uint32_t mask = take == 32 ? ~0u : ((1u << take) - 1u);
    const auto chunk = static_cast<std::uint32_t>(value >> b) & mask;
    words[w] = (words[w] & ~(mask << off)) | (chunk << off);
    b += take;
  }
}

std::uint64_t get_bits(const std::uint32_t* words, int lsb, int width) {
  std::uint64_t v = 0;
  for (int b = 0; b < width;) {
    const int w = (lsb + b) / 32;
    const int off = (lsb + b) % 32;
    const int take = (32 - off) < (width - b) ? (32 - off) : (width - b);
    const std::uint32_t mask = take == 32 ? ~0u : ((1u << take) - 1u);
    v |= static_cast<std::uint64_t>((words[w] >> off) & mask) << b;
    b += take;
  }
  return v;
}

}  // namespace vp::hw::rtl
