#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "vp/hw/system/chip_link.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "vp/hw/chip/chip.h"
#include "vp/hw/memory/shared_memory.h"

namespace vp::hw {

namespace {
// Doorbell tags: the firmware's LINK_TAG_OUT and LINK_TAG_IN
// (firmware/boot_block.inc).
constexpr uint32_t kTagOut = 2, kTagIn = 1;
constexpr int kSwitch = -1;
}  // namespace

ChipLink::ChipLink(sc_core::sc_module_name name, const LinkConfig& cfg, std::vector<Chip*> chips,
                   std::vector<LinkRoute> routes, uint32_t elements)
    : sc_module(name), cfg_(cfg), chips_(std::move(chips)), routes_(std::move(routes)), elements_(elements) {
  const uint32_t n = static_cast<uint32_t>(chips_.size());
  routes_into_.assign(n, 0);
  landed_.assign(n, std::vector<std::pair<uint32_t, uint64_t>>(elements_, {0, 0}));
  std::vector<bool> sends(n, false);
  for (const LinkRoute& r : routes_) {
    if (r.from >= n || r.to >= n || r.from == r.to)
      throw std::invalid_argument("link route from chip " + std::to_string(r.from) + " to chip " +
                                  std::to_string(r.to) + " in a system of " + std::to_string(n) + " chips");
    ++routes_into_[r.to];
    sends[r.from] = true;
  }
  for (uint32_t c = 0; c < n; ++c)
    if (sends[c]) sc_core::sc_spawn([this, c] { engine(c); }, sc_core::sc_gen_unique_name("engine"));
}

std::vector<std::pair<int, int>> ChipLink::path(int a, int b) const {
  const int n = static_cast<int>(chips_.size());
  std::vector<std::pair<int, int>> hops;
  switch (cfg_.topology) {
    case LinkTopology::Chain:
      for (int c = a; c != b; c += b > a ? 1 : -1) hops.emplace_back(c, c + (b > a ? 1 : -1));
      break;
    case LinkTopology::Ring: {
      // The shorter way round; forward on a tie.
      const int fwd = ((b - a) % n + n) % n;
      const int step = fwd <= n - fwd ? 1 : -1;
      for (int c = a; c != b; c = ((c + step) % n + n) % n) hops.emplace_back(c, ((c + step) % n + n) % n);
      break;
    }
    case LinkTopology::Switch:
      hops.emplace_back(a, kSwitch);
      hops.emplace_back(kSwitch, b);
      break;
  }
  return hops;
}

uint64_t ChipLink::serialization_cycles(uint64_t bytes) const {
  const double ns = static_cast<double>(bytes) / cfg_.gbytes_per_s();
  return static_cast<uint64_t>(std::ceil(ns * cfg_.clock_mhz / 1000.0));
}

uint64_t ChipLink::hop_cycles() const {
  return static_cast<uint64_t>(std::ceil(cfg_.latency_ns * cfg_.clock_mhz / 1000.0));
}

// Cut-through: the transfer holds every link of its path at once from the
// cycle all are free, and lands one hop latency per link after its last
// byte left.
uint64_t ChipLink::reserve(uint32_t from, uint32_t to, uint64_t bytes, uint64_t ready) {
  const auto hops = path(static_cast<int>(from), static_cast<int>(to));
  uint64_t start = ready;
  for (const auto& h : hops) start = std::max(start, free_at_[h]);
  const uint64_t ser = serialization_cycles(bytes);
  for (const auto& h : hops) {
    LinkStats& s = links_[h];
    s.from = h.first;
    s.to = h.second;
    ++s.transfers;
    s.bytes += bytes;
    s.busy_cycles += ser;
    s.wait_cycles += start - ready;
    s.energy_pj += static_cast<double>(bytes) * 8.0 * cfg_.pj_per_bit;
    free_at_[h] = start + ser;
  }
  ++transfers_;
  return start + ser + hop_cycles() * hops.size();
}

void ChipLink::engine(uint32_t c) {
  Chip& src = *chips_[c];
  for (uint32_t e = 0; e < elements_; ++e) {
    uint8_t word[4];
    CoreFault f;
    const uint64_t rung =
        src.fabric().recv(src.link_participant(), src.cp_participant(), kTagOut, word, sizeof word, now_cycles(), f);
    if (f.set) {
      fault_ = "chip " + std::to_string(c) + " link port: " + f.message;
      sc_core::sc_stop();
      return;
    }
    for (const LinkRoute& r : routes_) {
      if (r.from != c) continue;
      Chip& dst = *chips_[r.to];
      const uint64_t s = r.src + e * r.src_stride, d = r.dst + e * r.dst_stride;
      if (s + r.bytes > src.global_memory().size() || d + r.bytes > dst.global_memory().size()) {
        fault_ = "link route from chip " + std::to_string(c) + " to chip " + std::to_string(r.to) +
                 " lies outside global memory";
        sc_core::sc_stop();
        return;
      }
      std::memcpy(dst.global_memory().data() + d, src.global_memory().data() + s, r.bytes);
      const uint64_t landed = reserve(c, r.to, r.bytes, rung);
      auto& [count, latest] = landed_[r.to][e];
      ++count;
      latest = std::max(latest, landed);
      if (count == routes_into_[r.to]) {
        uint8_t elem[4];
        std::memcpy(elem, &e, sizeof elem);
        dst.fabric().send(dst.link_participant(), dst.cp_participant(), kTagIn, elem, sizeof elem, latest, f);
        if (f.set) {
          fault_ = "chip " + std::to_string(r.to) + " link port: " + f.message;
          sc_core::sc_stop();
          return;
        }
      }
    }
  }
}

std::vector<LinkStats> ChipLink::stats() const {
  std::vector<LinkStats> out;
  for (const auto& [k, s] : links_) out.push_back(s);
  return out;
}

double ChipLink::energy_pj() const {
  double e = 0;
  for (const auto& [k, s] : links_) e += s.energy_pj;
  return e;
}

}  // namespace vp::hw
