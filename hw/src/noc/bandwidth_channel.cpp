#include "vp/hw/noc/bandwidth_channel.h"

#include <algorithm>
#include <stdexcept>

namespace vp::hw::noc {

void BandwidthChannelConfig::validate() const {
  if (!(bytes_per_cycle > 0.0) || !(bytes_per_cycle < 1e12)) {
    throw std::invalid_argument(name + ".bytes_per_cycle: must be in (0, 1e12), got " +
                                std::to_string(bytes_per_cycle));
  }
}

BandwidthChannelConfig gmem_channel_config(double latency_ns, double bandwidth_gbps,
                                           double core_clock_mhz, const std::string& name) {
  if (!(core_clock_mhz > 0.0)) throw std::invalid_argument("chip.clock_mhz: must be > 0");
  if (latency_ns < 0.0) throw std::invalid_argument("gmem.latency_ns: must be >= 0");
  if (!(bandwidth_gbps > 0.0)) throw std::invalid_argument("gmem.bandwidth_gbps: must be > 0");
  BandwidthChannelConfig c;
  c.name = name;
  c.latency_cycles = ns_to_cycles(latency_ns, core_clock_mhz);
  c.bytes_per_cycle = gbps_to_bytes_per_cycle(bandwidth_gbps, core_clock_mhz);
  return c;
}

BandwidthChannel::BandwidthChannel(const BandwidthChannelConfig& config) : config_(config) {
  config_.validate();
  rate_ = rationalize(config_.bytes_per_cycle);
}

ChannelTransfer BandwidthChannel::transfer(std::uint64_t bytes, Cycle ready_cycle) {
  ChannelTransfer t;
  t.ready_cycle = ready_cycle;
  t.occupancy_cycles = occupancy(bytes);
  std::size_t gone = 0;
  while (gone < busy_.size() && busy_[gone].second <= now_) ++gone;
  if (gone) busy_.erase(busy_.begin(), busy_.begin() + static_cast<std::ptrdiff_t>(gone));
  Cycle start = ready_cycle;
  std::size_t at = 0;
  for (; at < busy_.size(); ++at) {
    if (busy_[at].second <= start) continue;
    if (start + t.occupancy_cycles <= busy_[at].first) break;
    start = busy_[at].second;
  }
  if (t.occupancy_cycles > 0) {
    // Merge with the neighbours it touches: back-to-back streams stay one interval.
    const Cycle end = start + t.occupancy_cycles;
    const bool left = at > 0 && busy_[at - 1].second == start;
    const bool right = at < busy_.size() && busy_[at].first == end;
    if (left && right) {
      busy_[at - 1].second = busy_[at].second;
      busy_.erase(busy_.begin() + static_cast<std::ptrdiff_t>(at));
    } else if (left) {
      busy_[at - 1].second = end;
    } else if (right) {
      busy_[at].first = start;
    } else {
      busy_.insert(busy_.begin() + static_cast<std::ptrdiff_t>(at), {start, end});
    }
  }
  t.start_cycle = start;
  t.end_cycle = t.start_cycle + config_.latency_cycles + t.occupancy_cycles;
  free_at_ = std::max(free_at_, t.start_cycle + t.occupancy_cycles);
  stats_.bytes += bytes;
  stats_.transfers += 1;
  stats_.busy_cycles += t.occupancy_cycles;
  stats_.wait_cycles += t.start_cycle - ready_cycle;
  stats_.last_end_cycle = std::max(stats_.last_end_cycle, t.end_cycle);
  return t;
}

void BandwidthChannel::reset() {
  free_at_ = 0;
  now_ = 0;
  busy_.clear();
  stats_ = ChannelStats{};
}

}  // namespace vp::hw::noc
