// The on-disk layout of a .vpo object shared by its writer and its reader:
// the ELF constants it uses, little-endian field access, and the .vp.io
// dtype codes. Every record is described in docs/object-format.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/obj/object.h"

namespace vp::obj::layout {

// ---- ELF constants (the subset we use) --------------------------------------
inline constexpr uint32_t kShtNull = 0, kShtProgbits = 1, kShtSymtab = 2, kShtStrtab = 3;
inline constexpr uint64_t kShfWrite = 1, kShfAlloc = 2, kShfExec = 4;
inline constexpr uint64_t kEhdrSize = 64, kShdrSize = 64, kSymSize = 24;
inline constexpr uint8_t kSttFunc = 2, kStbLocal = 0, kStbGlobal = 1;

// ---- little-endian helpers ---------------------------------------------------
inline void put16(std::vector<uint8_t>& v, uint16_t x) {
  v.push_back(static_cast<uint8_t>(x));
  v.push_back(static_cast<uint8_t>(x >> 8));
}
inline void put32(std::vector<uint8_t>& v, uint32_t x) {
  for (int i = 0; i < 4; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
}
inline void put64(std::vector<uint8_t>& v, uint64_t x) {
  for (int i = 0; i < 8; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
}
inline uint16_t get16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t get32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}
inline uint64_t get64(const uint8_t* p) { return uint64_t{get32(p)} | (uint64_t{get32(p + 4)} << 32); }

inline uint64_t align8(uint64_t x) { return (x + 7) & ~uint64_t{7}; }

// .vp.io dtype codes; the index is the on-disk code (never renumber).
struct IoType {
  const char* name;
  uint64_t size;
};
inline constexpr IoType kIoTypes[] = {{"int8", 1}, {"uint8", 1}, {"int16", 2}, {"int32", 4}, {"float32", 4}};
inline constexpr uint32_t kIoTypeCount = sizeof kIoTypes / sizeof kIoTypes[0];

// .vp.io record flags.
inline constexpr uint32_t kIoFlagOutput = 1, kIoFlagChannelsLast = 2, kIoFlagHostSoftmax = 4, kIoFlagIndirect = 8;
inline constexpr uint32_t kIoFlagsKnown = kIoFlagOutput | kIoFlagChannelsLast | kIoFlagHostSoftmax | kIoFlagIndirect;

inline int io_type_code(const std::string& dtype) {
  for (uint32_t i = 0; i < kIoTypeCount; ++i)
    if (dtype == kIoTypes[i].name) return static_cast<int>(i);
  return -1;
}

// bytes == product(shape) * element size, without overflow.
inline bool io_size_matches(const IoBinding& b, uint64_t esize) {
  if (b.shape.empty()) return true;
  uint64_t n = esize;
  for (uint64_t d : b.shape) {
    if (d == 0 || n > UINT64_MAX / d) return false;
    n *= d;
  }
  return n == b.bytes;
}

// "cp" or "c<cluster>.<cu>": the core part of text and scratchpad names.
inline std::string core_suffix(CoreId c) {
  return c.is_control() ? "cp" : "c" + std::to_string(c.cluster) + "." + std::to_string(c.cu);
}

}  // namespace vp::obj::layout
