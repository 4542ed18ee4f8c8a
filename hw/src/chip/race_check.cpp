#include "vp/hw/chip/race_check.h"

#include <algorithm>
#include <iterator>

namespace vp::hw {

RaceCheck::RaceCheck(uint32_t participants, uint32_t keep)
    : participants_(participants),
      keep_(keep),
      clock_(participants, Clock(participants, 0)),
      releases_(participants),
      halted_(participants, Clock(participants, 0)) {}

uint32_t RaceCheck::epoch_of(uint32_t p, uint64_t end) const {
  const std::vector<uint64_t>& r = releases_[p];
  return static_cast<uint32_t>(std::lower_bound(r.begin(), r.end(), end) - r.begin()) + 1;
}

bool RaceCheck::ordered(uint32_t earlier, uint64_t earlier_end, uint32_t later, uint64_t later_start) const {
  if (earlier == later) return true;
  // Still in flight when the later access starts: no release of it can
  // have reached the later processor yet.
  if (earlier_end > later_start) return false;
  return clock_[later][earlier] >= epoch_of(earlier, earlier_end);
}

uint32_t RaceCheck::release(uint32_t p, uint64_t cycle) {
  std::vector<uint64_t>& r = releases_[p];
  r.push_back(r.empty() ? cycle : std::max(r.back(), cycle));
  clock_[p][p] = static_cast<uint32_t>(r.size());
  return clock_[p][p];
}

void RaceCheck::merge(Clock& into, const Clock& from) {
  for (std::size_t i = 0; i < into.size() && i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

void RaceCheck::send(uint32_t from, uint32_t to, uint32_t tag, uint64_t cycle) {
  if (from >= participants_ || to >= participants_) return;
  release(from, cycle);
  channels_[{from, to, tag}].push_back(clock_[from]);
}

void RaceCheck::recv(uint32_t at, uint32_t from, uint32_t tag) {
  if (at >= participants_ || from >= participants_) return;
  auto it = channels_.find({from, at, tag});
  if (it == channels_.end() || it->second.empty()) return;
  merge(clock_[at], it->second.front());
  it->second.pop_front();
}

void RaceCheck::barrier_arrive(uint32_t at, uint32_t id, uint32_t count, uint64_t cycle) {
  if (at >= participants_) return;
  release(at, cycle);
  Clock& join = barrier_join_[id];
  if (join.empty()) join.assign(participants_, 0);
  merge(join, clock_[at]);
  if (++barrier_arrived_[id] >= count) {
    barrier_done_[id] = join;
    barrier_join_.erase(id);
    barrier_arrived_[id] = 0;
  }
}

void RaceCheck::barrier_leave(uint32_t at, uint32_t id) {
  auto it = barrier_done_.find(id);
  if (at < participants_ && it != barrier_done_.end()) merge(clock_[at], it->second);
}

void RaceCheck::start(uint32_t control, uint32_t core, uint64_t cycle) {
  if (control >= participants_ || core >= participants_) return;
  release(control, cycle);
  merge(clock_[core], clock_[control]);
}

void RaceCheck::halt(uint32_t core, uint64_t cycle) {
  if (core >= participants_) return;
  release(core, cycle);
  halted_[core] = clock_[core];
}

void RaceCheck::waited(uint32_t control, uint32_t core) {
  if (control < participants_ && core < participants_) merge(clock_[control], halted_[core]);
}

void RaceCheck::carve(Space& s, uint64_t lo, uint64_t hi) {
  for (const uint64_t cut : {lo, hi}) {
    auto it = s.upper_bound(cut);
    if (it == s.begin()) continue;
    --it;
    if (it->first < cut && cut < it->second.end) {
      Segment tail = it->second;
      it->second.end = cut;
      s.emplace(cut, std::move(tail));
    }
  }
  // Segments now start at lo and end at hi where they cross them; fill
  // the gaps between them.
  uint64_t at = lo;
  auto it = s.lower_bound(lo);
  while (at < hi) {
    if (it != s.end() && it->first <= at) {
      at = it->second.end;
      ++it;
      continue;
    }
    const uint64_t next = it == s.end() ? hi : std::min(hi, it->first);
    Segment gap;
    gap.end = next;
    it = std::next(s.emplace_hint(it, at, gap));
    at = next;
  }
}

void RaceCheck::read_only(int32_t cluster, uint64_t lo, uint64_t hi) {
  if (lo < hi) read_only_[cluster < 0 ? -1 : cluster].emplace_back(lo, hi);
}

void RaceCheck::access(const Site& at, int32_t cluster, uint64_t addr, uint64_t bytes, bool write) {
  if (bytes == 0 || at.participant >= participants_) return;
  ++accesses_;
  const int32_t key = cluster < 0 ? -1 : cluster;
  const uint64_t lo = addr, hi = addr + bytes;
  if (const auto ro = read_only_.find(key); ro != read_only_.end()) {
    for (const auto& [a, b] : ro->second) {
      if (hi <= a || b <= lo) continue;
      if (write) {
        // The loader is the earlier "access": no processor, cycle 0.
        Site loader;
        loader.participant = participants_;
        report(Kind::WriteOfReadOnly, at, loader, std::max(lo, a), std::min(hi, b), cluster);
        break;
      }
      if (a <= lo && hi <= b) return;
    }
  }
  Space& s = spaces_[key];
  carve(s, lo, hi);
  // One pass: each segment is checked (one race reported per access) and,
  // for a read, takes the read.
  bool raced = false;
  const auto first = s.lower_bound(lo);
  for (auto it = first; it != s.end() && it->first < hi; ++it) {
    Segment& g = it->second;
    if (!raced && g.written && !ordered(g.writer.participant, g.writer.end, at.participant, at.start)) {
      report(write ? Kind::WriteAfterWrite : Kind::ReadAfterWrite, at, g.writer, it->first, g.end, cluster);
      raced = true;
    }
    if (write) {
      for (const Site& r : g.reads)
        if (!raced && !ordered(r.participant, r.end, at.participant, at.start)) {
          report(Kind::WriteAfterRead, at, r, it->first, g.end, cluster);
          raced = true;
        }
      continue;
    }
    auto same = std::find_if(g.reads.begin(), g.reads.end(), [&](const Site& r) { return r.participant == at.participant; });
    if (same == g.reads.end()) {
      g.reads.push_back(at);
    } else if (same->end <= at.end) {
      *same = at;
    }
  }
  if (!write) return;
  s.erase(first, s.lower_bound(hi));
  Segment w;
  w.end = hi;
  w.written = true;
  w.writer = at;
  s.emplace(lo, std::move(w));
}

void RaceCheck::report(Kind k, const Site& access, const Site& earlier, uint64_t lo, uint64_t hi, int32_t cluster) {
  ++races_;
  if (kept_.size() >= keep_) return;
  Race r;
  r.kind = k;
  r.lo = lo;
  r.hi = hi;
  r.sram = cluster >= 0;
  r.cluster = cluster >= 0 ? static_cast<uint32_t>(cluster) : 0;
  r.access = access;
  r.earlier = earlier;
  kept_.push_back(r);
}

std::string RaceCheck::describe(const Race& r, const std::map<uint32_t, std::string>* layer_names) {
  const auto layer = [&](int32_t id) {
    if (id < 0) return std::string();
    if (layer_names) {
      auto it = layer_names->find(static_cast<uint32_t>(id));
      if (it != layer_names->end()) return ", layer " + std::to_string(id) + " " + it->second;
    }
    return ", layer " + std::to_string(id);
  };
  const auto who = [&](const Site& s) {
    return "core " + std::to_string(s.participant) + " (pc " + std::to_string(s.pc) + layer(s.layer) + ")";
  };
  const std::string where = (r.sram ? "cluster " + std::to_string(r.cluster) + "'s SRAM" : std::string("global")) +
                            " [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + ")";
  switch (r.kind) {
    case Kind::ReadAfterWrite:
      return who(r.access) + " reads " + where + " at cycle " + std::to_string(r.access.start) + ", written by " +
             who(r.earlier) + " until cycle " + std::to_string(r.earlier.end) +
             " with no message, barrier or start between them (read-after-write race)";
    case Kind::WriteAfterRead:
      return who(r.access) + " writes " + where + " at cycle " + std::to_string(r.access.start) + ", read by " +
             who(r.earlier) + " until cycle " + std::to_string(r.earlier.end) +
             " with no message, barrier or start between them (write-after-read race)";
    case Kind::WriteAfterWrite:
      return who(r.access) + " writes " + where + " at cycle " + std::to_string(r.access.start) + ", written by " +
             who(r.earlier) + " until cycle " + std::to_string(r.earlier.end) +
             " with no message, barrier or start between them (write-after-write race)";
    case Kind::WriteOfReadOnly:
      return who(r.access) + " writes " + where + " at cycle " + std::to_string(r.access.start) +
             ", which the host loaded as read-only (the model image's program texts, tables and cell levels)";
  }
  return {};
}

}  // namespace vp::hw
