#include "vp/hw/cluster/cluster_bus.h"

#include "vp/hw/memory/shared_memory.h"

namespace vp::hw {

ClusterBus::ClusterBus(sc_core::sc_module_name name, uint32_t router, noc::MeshNoc& noc, noc::Endpoint gmem_port)
    : sc_module(name), cores("cores"), to_sram("to_sram"), to_global("to_global"), router_(router), noc_(noc),
      gmem_port_(gmem_port) {
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
  // Global memory: a write carries its data to the controller; a read sends
  // a header-only request and gets the data back in a response packet.
  const uint64_t bytes = trans.get_data_length();
  const noc::Endpoint here = noc_.cluster_endpoint(router_);
  const uint64_t ready = time_to_cycles(sc_core::sc_time_stamp() + delay);
  const bool read = trans.is_read();
  const noc::NocTransfer out = noc_.send(here, gmem_port_, read ? 0 : bytes, ready);
  sc_core::sc_time mem_delay = cycles_to_time(out.arrival_cycle) - sc_core::sc_time_stamp();
  to_global->b_transport(trans, mem_delay);
  uint64_t done = time_to_cycles(sc_core::sc_time_stamp() + mem_delay);
  if (read && trans.is_response_ok()) done = noc_.send(gmem_port_, here, bytes, done).arrival_cycle;
  delay = cycles_to_time(done) - sc_core::sc_time_stamp();
}

}  // namespace vp::hw
