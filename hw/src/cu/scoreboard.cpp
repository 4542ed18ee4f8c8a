#include "vp/hw/cu/scoreboard.h"

#include <algorithm>

namespace vp::hw {

uint64_t Scoreboard::all_units_idle() const {
  uint64_t t = all_xbars_free();
  for (int u = 0; u < isa::kUnitCount; ++u) t = std::max(t, unit_drained(static_cast<isa::Unit>(u)));
  return t;
}

uint64_t Scoreboard::unit_drained(isa::Unit u) const {
  const int i = static_cast<int>(u);
  const uint64_t t = std::max(unit_free_[i], drained_[i]);
  return u == isa::Unit::Crossbar ? std::max(t, all_xbars_free()) : t;
}

uint64_t Scoreboard::xbars_free(uint32_t first, uint32_t mask) const {
  uint64_t t = 0;
  for (uint32_t i = first; mask != 0 && i < xbar_free_.size(); ++i, mask >>= 1)
    if (mask & 1) t = std::max(t, xbar_free_[i]);
  return t;
}

uint64_t Scoreboard::all_xbars_free() const {
  return xbar_free_.empty() ? 0 : *std::max_element(xbar_free_.begin(), xbar_free_.end());
}

void Scoreboard::occupy_xbars(uint32_t first, uint32_t mask, uint64_t until) {
  const uint32_t top = first + 32 - static_cast<uint32_t>(__builtin_clz(mask));
  if (xbar_free_.size() < top) xbar_free_.resize(top, 0);
  for (uint32_t i = first; mask != 0; ++i, mask >>= 1)
    if (mask & 1) xbar_free_[i] = until;
}

uint64_t Scoreboard::memory_ready(const MemRange* reads, int nreads, const MemRange* writes,
                                  int nwrites) const {
  uint64_t ready = 0;
  for (const Access& a : inflight_) {
    if (a.end <= ready) continue;
    bool conflict = false;
    for (int i = 0; i < nwrites && !conflict; ++i) conflict = a.range.overlaps(writes[i]);
    if (a.write)
      for (int i = 0; i < nreads && !conflict; ++i) conflict = a.range.overlaps(reads[i]);
    if (conflict) ready = a.end;
  }
  return ready;
}

void Scoreboard::record(const MemRange* reads, int nreads, const MemRange* writes, int nwrites,
                        uint64_t end) {
  for (int i = 0; i < nreads; ++i)
    if (!reads[i].empty()) inflight_.push_back({reads[i], end, false});
  for (int i = 0; i < nwrites; ++i)
    if (!writes[i].empty()) inflight_.push_back({writes[i], end, true});
}

void Scoreboard::retire_before(uint64_t now) {
  // Cheap in the common case: most instructions finish before the next issues.
  if (inflight_.empty()) return;
  inflight_.erase(std::remove_if(inflight_.begin(), inflight_.end(),
                                 [now](const Access& a) { return a.end <= now; }),
                  inflight_.end());
}

}  // namespace vp::hw
