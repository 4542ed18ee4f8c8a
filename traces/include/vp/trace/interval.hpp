// The fixed-size form of a record that conversion sorts and streams: what
// every output needs, with names replaced by Catalog ids.
#pragma once

#include <cstdint>

namespace vp::trace {

struct Interval {
  std::int64_t start = 0;     // cycles, after clipping to the time window
  std::int64_t end = 0;
  std::int64_t inst_idx = 0;
  std::uint64_t line = 0;     // source line, a stable tie-breaker
  std::uint32_t track = 0;
  std::uint32_t opcode = 0;
  std::uint32_t layer = 0;
  std::uint32_t payload = 0;  // bytes of per-record payload that follow it in the sorter

  std::int64_t cycles() const { return end - start; }
};

// Start order; equal starts keep file order so output is deterministic.
inline bool start_before(const Interval& a, const Interval& b) {
  return a.start != b.start ? a.start < b.start : a.line < b.line;
}

}  // namespace vp::trace
