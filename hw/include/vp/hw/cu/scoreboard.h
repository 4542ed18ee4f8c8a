// The issue stage's scoreboard: when each unit is free, when each register's
// value is ready, and which scratchpad ranges in-flight instructions still
// read or write. An instruction starts at the first cycle where its unit is
// free and none of its operands (registers or memory) is still in flight.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "vp/isa/isa.h"

namespace vp::hw {

struct MemRange {
  uint64_t lo = 0, hi = 0;  // [lo, hi)
  bool empty() const { return hi <= lo; }
  bool overlaps(const MemRange& o) const { return lo < o.hi && o.lo < hi; }
};

class Scoreboard {
 public:
  uint64_t unit_free(isa::Unit u) const { return unit_free_[static_cast<int>(u)]; }
  void occupy(isa::Unit u, uint64_t until) { occupy(u, until, until); }
  // A unit that accepts its next instruction at `free_at` while this one
  // completes at `done_at` (the DMA engine with transfers in flight).
  void occupy(isa::Unit u, uint64_t free_at, uint64_t done_at) {
    unit_free_[static_cast<int>(u)] = free_at;
    drained_[static_cast<int>(u)] = std::max(drained_[static_cast<int>(u)], done_at);
  }
  // When everything the unit has started is complete (`wait`, halt).
  uint64_t unit_drained(isa::Unit u) const;
  uint64_t all_units_idle() const;
  // With concurrent mvm (cu.xbar.concurrent_mvm) every crossbar is a unit of
  // its own: an mvm waits only for the crossbars of its mask, while the
  // crossbar unit's other work (programming, read-back) waits for all.
  uint64_t xbars_free(uint32_t first, uint32_t mask) const;
  uint64_t all_xbars_free() const;
  void occupy_xbars(uint32_t first, uint32_t mask, uint64_t until);

  uint64_t reg_ready(int r) const { return reg_ready_[static_cast<size_t>(r)]; }
  void set_reg_ready(int r, uint64_t at) { reg_ready_[static_cast<size_t>(r)] = at; }

  // Earliest start for an access that reads `reads` and writes `writes`:
  // after in-flight writers of either (RAW, WAW) and in-flight readers of the
  // written ranges (WAR).
  uint64_t memory_ready(const MemRange* reads, int nreads, const MemRange* writes, int nwrites) const;
  // Record an instruction's ranges, in flight until `end`.
  void record(const MemRange* reads, int nreads, const MemRange* writes, int nwrites, uint64_t end);
  // Forget accesses that finished before `now`; keeps the lists short.
  void retire_before(uint64_t now);

 private:
  struct Access {
    MemRange range;
    uint64_t end;
    bool write;
  };
  std::array<uint64_t, isa::kUnitCount> unit_free_{};
  std::vector<uint64_t> xbar_free_;
  std::array<uint64_t, isa::kUnitCount> drained_{};
  std::array<uint64_t, isa::kRegisterCount> reg_ready_{};
  std::vector<Access> inflight_;
};

}  // namespace vp::hw
