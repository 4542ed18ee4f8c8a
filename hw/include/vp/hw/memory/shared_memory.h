// A memory shared by several initiators: the chip's global memory (DRAM/HBM
// at the mesh edge) or a cluster's SRAM. A TLM-2.0 loosely-timed target:
// b_transport copies the data and annotates the delay its single channel
// gives (fixed latency plus bytes / bandwidth, transfers serialised on the
// channel in the order they arrive, which is global time order because
// initiators synchronise before they call).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "vp/hw/memory/zeroed_pages.h"
#include "vp/hw/noc/bandwidth_channel.h"

namespace vp::hw {

struct SharedMemoryStats {
  uint64_t reads = 0, writes = 0, bytes_read = 0, bytes_written = 0;
};

class SharedMemory : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<SharedMemory> socket;

  SharedMemory(sc_core::sc_module_name name, uint64_t bytes, const noc::BandwidthChannelConfig& channel);

  uint64_t size() const { return mem_.size(); }
  uint8_t* data() { return mem_.data(); }
  const SharedMemoryStats& stats() const { return stats_; }
  const noc::BandwidthChannel& channel() const { return channel_; }
  // Called for every transfer with the cycles it occupies the channel
  // (waveforms of memory activity); none by default.
  using Listener = std::function<void(uint64_t start, uint64_t end, uint64_t bytes, bool read)>;
  void set_listener(Listener l) { listener_ = std::move(l); }
  // Writes that touch a watched range, each with the cycle its data is in
  // memory: when a stream's image has its whole result (its slots of the
  // output bindings, platform/stream_images.h). None watched by default.
  struct WriteMark {
    uint64_t addr = 0, bytes = 0, end_cycle = 0;
  };
  void watch_writes(uint64_t addr, uint64_t bytes) { watched_.push_back({addr, bytes}); }
  const std::vector<WriteMark>& write_marks() const { return marks_; }

 private:
  void b_transport(int port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

  ZeroedPages mem_;
  noc::BandwidthChannel channel_;
  Listener listener_;
  SharedMemoryStats stats_;
  std::vector<std::pair<uint64_t, uint64_t>> watched_;  // (address, bytes)
  std::vector<WriteMark> marks_;
};

// SystemC time counts core cycles: 1 ns of simulated time is one cycle of
// chip.clock_mhz, whatever the clock. Cycle counts stay exact integers;
// reports convert to seconds with the clock.
inline sc_core::sc_time cycles_to_time(uint64_t c) { return sc_core::sc_time(static_cast<double>(c), sc_core::SC_NS); }
inline uint64_t time_to_cycles(const sc_core::sc_time& t) { return static_cast<uint64_t>(t.to_seconds() * 1e9 + 0.5); }
inline uint64_t now_cycles() { return time_to_cycles(sc_core::sc_time_stamp()); }

}  // namespace vp::hw
