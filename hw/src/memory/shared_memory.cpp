#include "vp/hw/memory/shared_memory.h"

#include <cstring>

namespace vp::hw {

SharedMemory::SharedMemory(sc_core::sc_module_name name, uint64_t bytes, const noc::BandwidthChannelConfig& channel)
    : sc_module(name), socket("socket"), mem_(bytes), channel_(channel) {
  socket.register_b_transport(this, &SharedMemory::b_transport);
}

void SharedMemory::b_transport(int, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const uint64_t addr = trans.get_address();
  const uint64_t len = trans.get_data_length();
  if (addr > mem_.size() || len > mem_.size() - addr) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const bool read = trans.is_read();
  if (read) std::memcpy(trans.get_data_ptr(), mem_.data() + addr, len);
  else std::memcpy(mem_.data() + addr, trans.get_data_ptr(), len);

  // The channel is occupied for the transfer time; the access latency is
  // pipelined (a second request's latency overlaps the first's data).
  channel_.advance(time_to_cycles(sc_core::sc_time_stamp()));
  const uint64_t ready = time_to_cycles(sc_core::sc_time_stamp() + delay);
  const noc::ChannelTransfer t = channel_.transfer(len, ready);
  delay = cycles_to_time(t.end_cycle) - sc_core::sc_time_stamp();
  if (listener_) listener_(t.start_cycle, t.start_cycle + t.occupancy_cycles, len, read);
  if (!read)
    for (const auto& [lo, n] : watched_)
      if (addr < lo + n && lo < addr + len) {
        marks_.push_back({addr, len, t.end_cycle});
        break;
      }
  (read ? stats_.reads : stats_.writes)++;
  (read ? stats_.bytes_read : stats_.bytes_written) += len;
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace vp::hw
