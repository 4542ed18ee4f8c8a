#include "vp/hw/cluster/cluster_bus.h"

#include <algorithm>

#include "vp/hw/memory/shared_memory.h"

namespace vp::hw {

ClusterBus::ClusterBus(sc_core::sc_module_name name, uint32_t router, noc::MeshNoc& noc, noc::Endpoint gmem_port,
                       SramGlobalWindow window)
    : sc_module(name), cores("cores"), to_sram("to_sram"), to_global("to_global"),
      to_cluster_sram("to_cluster_sram"), router_(router), noc_(noc), gmem_port_(gmem_port), window_(window) {
  cores.register_b_transport(this, &ClusterBus::b_transport);
}

void ClusterBus::b_transport(int, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const uint64_t addr = trans.get_address();
  if (addr & kSramWindow) {
    trans.set_address(addr & ~kSramWindow);
    to_sram->b_transport(trans, delay);
    trans.set_address(addr);
    return;
  }
  if (window_.inside(addr)) {
    window_transport(trans, delay);
    return;
  }
  // Global memory: a write carries its data to the controller; a read sends
  // a header-only request and gets the data back in a response packet.
  const uint64_t bytes = trans.get_data_length();
  const noc::Endpoint here = noc_.cluster_endpoint(router_);
  const uint64_t ready = time_to_cycles(sc_core::sc_time_stamp() + delay);
  noc_.advance(time_to_cycles(sc_core::sc_time_stamp()));
  const bool read = trans.is_read();
  const noc::NocTransfer out = noc_.send(here, gmem_port_, read ? 0 : bytes, ready);
  sc_core::sc_time mem_delay = cycles_to_time(out.arrival_cycle) - sc_core::sc_time_stamp();
  to_global->b_transport(trans, mem_delay);
  uint64_t done = time_to_cycles(sc_core::sc_time_stamp() + mem_delay);
  if (read && trans.is_response_ok()) done = noc_.send(gmem_port_, here, bytes, done).arrival_cycle;
  delay = cycles_to_time(done) - sc_core::sc_time_stamp();
}

// A transfer into the window, granule by granule: each piece crosses the
// mesh to its cluster (a write with its data, a read as a header that the
// data answers) unless it is this cluster's own, then that SRAM's channel.
// The DMA engine issues every piece at once; the transfer ends with the last.
void ClusterBus::window_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const uint64_t addr = trans.get_address(), bytes = trans.get_data_length();
  if (addr + bytes > window_.end() || to_cluster_sram.size() < window_.clusters) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const bool read = trans.is_read();
  const noc::Endpoint here = noc_.cluster_endpoint(router_);
  const uint64_t ready = time_to_cycles(sc_core::sc_time_stamp() + delay);
  noc_.advance(time_to_cycles(sc_core::sc_time_stamp()));
  uint64_t done = ready, off = addr - window_.base, left = bytes;
  uint8_t* data = trans.get_data_ptr();
  while (left > 0) {
    const uint64_t g = off / window_.granule, in = off % window_.granule;
    const uint64_t n = std::min(left, window_.granule - in);
    const auto cluster = static_cast<uint32_t>(g % window_.clusters);
    tlm::tlm_generic_payload piece;
    piece.set_command(trans.get_command());
    piece.set_address((g / window_.clusters) * window_.granule + in);
    piece.set_data_ptr(data);
    piece.set_data_length(static_cast<unsigned int>(n));
    piece.set_streaming_width(static_cast<unsigned int>(n));
    piece.set_byte_enable_ptr(nullptr);
    piece.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    const bool remote = cluster != router_;
    const noc::Endpoint there = window_.ports.empty() ? noc_.cluster_endpoint(cluster) : window_.ports[cluster];
    const uint64_t arrive = remote ? noc_.send(here, there, read ? 0 : n, ready).arrival_cycle : ready;
    sc_core::sc_time d = cycles_to_time(arrive) - sc_core::sc_time_stamp();
    to_cluster_sram[static_cast<int>(cluster)]->b_transport(piece, d);
    if (!piece.is_response_ok()) {
      trans.set_response_status(piece.get_response_status());
      return;
    }
    uint64_t end = time_to_cycles(sc_core::sc_time_stamp() + d);
    if (remote && read) end = noc_.send(there, here, n, end).arrival_cycle;
    done = std::max(done, end);
    data += n;
    off += n;
    left -= n;
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  delay = cycles_to_time(done) - sc_core::sc_time_stamp();
}

}  // namespace vp::hw
