// One cluster: its CUs, the shared SRAM and the bus that joins the CUs' DMA
// engines to the SRAM and, through the mesh, to global memory. The CUs'
// ports to the crossbars, the message fabric and the run's supervisor are
// bound to the cluster's own ports, which the chip binds.
#pragma once

#include <memory>
#include <vector>

#include <systemc>

#include "vp/hw/chip/chip_config.h"
#include "vp/hw/chip/crossbar_bank_if.h"
#include "vp/hw/chip/message_fabric_if.h"
#include "vp/hw/chip/run_control_if.h"
#include "vp/hw/cluster/cluster_bus.h"
#include "vp/hw/cu/core_module.h"
#include "vp/hw/memory/shared_memory.h"

namespace vp::hw {

class Cluster : public sc_core::sc_module {
 public:
  sc_core::sc_port<CrossbarBankIf> crossbars;
  sc_core::sc_port<MessageFabricIf> fabric;
  sc_core::sc_port<RunControlIf> run_control;

  // `trace` (may be null) receives every instruction the CUs retire.
  Cluster(sc_core::sc_module_name name, const ChipConfig& cfg, uint32_t index, noc::MeshNoc& noc,
          noc::Endpoint gmem_port, TraceSink* trace = nullptr);

  uint32_t index() const { return index_; }
  uint32_t cus() const { return static_cast<uint32_t>(cus_.size()); }
  CoreModule& cu(uint32_t i) { return *cus_.at(i); }
  SharedMemory& sram() { return *sram_; }
  const SharedMemory& sram() const { return *sram_; }
  ClusterBus& bus() { return *bus_; }

 private:
  uint32_t index_;
  std::unique_ptr<SharedMemory> sram_;
  std::unique_ptr<ClusterBus> bus_;
  std::vector<std::unique_ptr<CoreModule>> cus_;
};

// Identity of CU `cu` of cluster `cluster` as rdsr reports it.
CoreIdentity core_identity(const ChipConfig& cfg, int32_t cluster, int32_t cu);
// The global window of the cluster SRAMs the chip configuration describes.
SramGlobalWindow sram_window(const ChipConfig& cfg);

}  // namespace vp::hw
