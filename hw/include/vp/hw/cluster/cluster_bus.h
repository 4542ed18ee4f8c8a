// The cluster's memory interconnect as its CUs' DMA engines see it: the
// cluster SRAM at kSramWindow, global memory everywhere below, and in the
// global address space a window where every cluster's SRAM appears,
// interleaved granule by granule over the clusters (a distributed on-chip
// memory). Global accesses cross the mesh from this cluster's router to the
// memory controller's port (reserving NoC links, so DMA traffic and
// core-to-core messages contend), then the memory's own channel; window
// accesses cross it to each granule's cluster instead.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "vp/hw/noc/mesh_noc.h"

namespace vp::hw {

// Address map of a DMA engine: bit 40 selects the cluster SRAM.
inline constexpr uint64_t kSramWindow = 1ull << 40;

// The cluster SRAMs in the global address space: granule g of the window
// [base, base + clusters * bytes) is in cluster g % clusters at offset
// (g / clusters) * granule.
struct SramGlobalWindow {
  uint64_t base = 0;        // 0: not mapped
  uint64_t bytes = 0;       // per cluster
  uint64_t granule = 0;
  uint32_t clusters = 0;
  // Each cluster SRAM's own port on its router (attach_device), so remote
  // pieces do not queue behind the cluster's CUs on their local port; empty:
  // the cluster's CU port.
  std::vector<noc::Endpoint> ports;
  bool mapped() const { return base != 0 && granule != 0 && clusters != 0 && bytes != 0; }
  uint64_t end() const { return base + bytes * clusters; }
  bool inside(uint64_t addr) const { return mapped() && addr >= base && addr < end(); }
};

class ClusterBus : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<ClusterBus> cores;   // CU DMA engines
  tlm_utils::simple_initiator_socket<ClusterBus> to_sram;
  tlm_utils::simple_initiator_socket<ClusterBus> to_global;
  // Every cluster's SRAM, bound in cluster order (the global window).
  tlm_utils::multi_passthrough_initiator_socket<ClusterBus, 32, tlm::tlm_base_protocol_types, 0,
                                                sc_core::SC_ZERO_OR_MORE_BOUND>
      to_cluster_sram;

  ClusterBus(sc_core::sc_module_name name, uint32_t router, noc::MeshNoc& noc, noc::Endpoint gmem_port,
             SramGlobalWindow window = {});
  void set_sram_ports(std::vector<noc::Endpoint> ports) { window_.ports = std::move(ports); }

 private:
  void b_transport(int port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  void window_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

  uint32_t router_;
  noc::MeshNoc& noc_;
  noc::Endpoint gmem_port_;
  SramGlobalWindow window_;
};

}  // namespace vp::hw
