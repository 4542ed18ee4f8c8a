// Bit fields of Verilator's wide ports (VlWide: little-endian 32-bit words)
// as plain integers, so the adaptors read and drive packed per-cell vectors
// without knowing the generated types.
#pragma once

#include <cstdint>

namespace vp::hw::rtl {

// Writes `width` (<= 64) bits of `value` at bit `lsb`.
void set_bits(std::uint32_t* words, int lsb, int width, std::uint64_t value);
// Reads `width` (<= 64) bits at bit `lsb`.
std::uint64_t get_bits(const std::uint32_t* words, int lsb, int width);

}  // namespace vp::hw::rtl
