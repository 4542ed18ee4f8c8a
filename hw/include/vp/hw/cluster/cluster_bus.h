// The cluster's memory interconnect as its CUs' DMA engines see it: the
// cluster SRAM at kSramWindow, global memory everywhere below. Global
// accesses cross the mesh from this cluster's router to the memory
// controller's port (reserving NoC links, so DMA traffic and core-to-core
// messages contend), then the memory's own channel.
#pragma once

#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "vp/hw/noc/mesh_noc.h"

namespace vp::hw {

// Address map of a DMA engine: bit 40 selects the cluster SRAM.
inline constexpr uint64_t kSramWindow = 1ull << 40;

class ClusterBus : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<ClusterBus> cores;   // CU DMA engines
  tlm_utils::simple_initiator_socket<ClusterBus> to_sram;
  tlm_utils::simple_initiator_socket<ClusterBus> to_global;

  ClusterBus(sc_core::sc_module_name name, uint32_t router, noc::MeshNoc& noc, noc::Endpoint gmem_port);

 private:
  void b_transport(int port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

  uint32_t router_;
  noc::MeshNoc& noc_;
  noc::Endpoint gmem_port_;
};

}  // namespace vp::hw
