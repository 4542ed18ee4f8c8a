// A shared resource with a latency and a bandwidth: global memory, a
// cluster's SRAM, a DMA engine. Like MeshNoc it is pure C++; the caller asks
// for a transfer at the cycle its data is ready and gets start and end back.
//
// Why this shape: the latency is pipelined (a DRAM access or an SRAM read
// pipeline overlaps the next request), so only the data beats occupy the
// channel. A transfer of B bytes therefore holds the channel for
// ceil(B / bytes_per_cycle) cycles, and its data is complete `latency` cycles
// after those beats:
//   start = ready, or later while the channel is busy
//   occupancy = ceil(B / bytes_per_cycle)
//   end = start + latency + occupancy,   free_at = start + occupancy
// Back-to-back transfers thus stream at the full bandwidth and each pays the
// latency once.
//
// Requests do not arrive in cycle order: a loosely-timed core asks at its
// own local time, which may be ahead of another core's later call. So the
// channel keeps the intervals its beats are reserved for, and a transfer
// takes the first gap at or after its ready cycle that holds all its beats
// (as the mesh links do, mesh_noc.h): a request is never queued behind one
// that is ready only later in simulated time. Intervals that ended before
// advance()'s cycle are forgotten; every later request must be ready at or
// after it (a SystemC caller passes sc_time_stamp()). free_at is then the
// end of the latest reservation. The bandwidth is held as an exact fraction (rationalize), so
// the rounding is one ceil per transfer and nothing else.
#pragma once

#include <cstdint>
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "vp/hw/noc/cycle_math.h"

namespace vp::hw::noc {

struct BandwidthChannelConfig {
  // Key in the statistics, e.g. "gmem", "cluster3.sram", "cluster3.cu7.dma".
  std::string name = "channel";
  // Pipelined access latency [core cycles]: cluster.sram.latency_cycles, or
  // gmem.latency_ns converted with ns_to_cycles at chip.clock_mhz.
  Cycle latency_cycles = 0;
  // Bandwidth [bytes per core cycle]: cluster.sram.bytes_per_cycle, or
  // gmem.bandwidth_gbps converted with gbps_to_bytes_per_cycle.
  double bytes_per_cycle = 1.0;

  // Throws std::invalid_argument naming the parameter.
  void validate() const;
};

// The global-memory channel from its parameters: gmem.latency_ns [ns],
// gmem.bandwidth_gbps [GB/s, 1e9 bytes/s], chip.clock_mhz [MHz].
BandwidthChannelConfig gmem_channel_config(double latency_ns, double bandwidth_gbps,
                                           double core_clock_mhz, const std::string& name = "gmem");

struct ChannelTransfer {
  Cycle ready_cycle = 0;      // as passed
  Cycle start_cycle = 0;      // first data beat: the first free gap at or after ready
  Cycle end_cycle = 0;        // data complete: start + latency + occupancy
  Cycle occupancy_cycles = 0; // ceil(bytes / bytes_per_cycle)
  Cycle latency() const { return end_cycle - ready_cycle; }
};

struct ChannelStats {
  std::uint64_t bytes = 0;
  std::uint64_t transfers = 0;
  Cycle busy_cycles = 0;      // sum of occupancies
  Cycle wait_cycles = 0;      // sum of (start - ready): queueing behind others
  Cycle last_end_cycle = 0;   // latest end seen
};

class BandwidthChannel {
 public:
  explicit BandwidthChannel(const BandwidthChannelConfig& config);

  const BandwidthChannelConfig& config() const { return config_; }
  const std::string& name() const { return config_.name; }
  // bytes_per_cycle as the exact fraction used for the arithmetic.
  Rational rate() const { return rate_; }
  Cycle latency() const { return config_.latency_cycles; }

  // ceil(bytes / bytes_per_cycle); 0 for 0 bytes.
  Cycle occupancy(std::uint64_t bytes) const { return ceil_div(bytes, rate_); }
  // end - ready of a transfer on an idle channel.
  Cycle unloaded_latency(std::uint64_t bytes) const { return config_.latency_cycles + occupancy(bytes); }

  ChannelTransfer transfer(std::uint64_t bytes, Cycle ready_cycle);

  // No request will be ready before `now`: reservations that ended by then go.
  void advance(Cycle now) { now_ = std::max(now_, now); }

  Cycle free_at() const { return free_at_; }
  const ChannelStats& stats() const { return stats_; }
  void reset();

 private:
  BandwidthChannelConfig config_;
  Rational rate_;
  Cycle free_at_ = 0;
  Cycle now_ = 0;
  std::vector<std::pair<Cycle, Cycle>> busy_;  // reserved [start, end), sorted
  ChannelStats stats_;
};

}  // namespace vp::hw::noc
