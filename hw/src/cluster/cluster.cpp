#include "vp/hw/cluster/cluster.h"

#include <string>

#include "vp/hw/crossbar/weight_encoding.h"

namespace vp::hw {

CoreIdentity core_identity(const ChipConfig& cfg, int32_t cluster, int32_t cu) {
  CoreIdentity id;
  id.cluster = cluster;
  id.cu = cu;
  id.ncores = cfg.cores();
  id.core = cluster < 0 ? cfg.cores() : static_cast<uint32_t>(cluster) * cfg.cus_per_cluster + static_cast<uint32_t>(cu);
  id.clusters = cfg.clusters;
  id.cus = cfg.cus_per_cluster;
  id.xbars = cfg.xbars_per_cu;
  id.rows = static_cast<uint32_t>(cfg.xbar.rows);
  id.cols = static_cast<uint32_t>(cfg.xbar.cols);
  id.cell_bits = static_cast<uint32_t>(cfg.xbar.cell_bits);
  id.lcols = static_cast<uint32_t>(WeightEncoding(cfg.xbar).logical_cols(cfg.xbar.cols));
  return id;
}

SramGlobalWindow sram_window(const ChipConfig& cfg) {
  SramGlobalWindow w;
  w.base = cfg.memory.sram_global_base;
  w.bytes = cfg.memory.sram_bytes;
  w.granule = cfg.memory.sram_interleave_bytes;
  w.clusters = cfg.clusters;
  return w;
}

Cluster::Cluster(sc_core::sc_module_name name, const ChipConfig& cfg, uint32_t index, noc::MeshNoc& noc,
                 noc::Endpoint gmem_port, TraceSink* trace)
    : sc_module(name), crossbars("crossbars"), fabric("fabric"), run_control("run_control"), index_(index) {
  noc::BandwidthChannelConfig ch;
  ch.name = "sram" + std::to_string(index);
  ch.latency_cycles = cfg.memory.sram_latency_cycles;
  ch.bytes_per_cycle = cfg.memory.sram_bytes_per_cycle;
  sram_ = std::make_unique<SharedMemory>("sram", cfg.memory.sram_bytes, ch);
  bus_ = std::make_unique<ClusterBus>("bus", index, noc, gmem_port, sram_window(cfg));
  bus_->to_sram.bind(sram_->socket);
  for (uint32_t u = 0; u < cfg.cus_per_cluster; ++u) {
    const std::string n = "cu" + std::to_string(u);
    cus_.push_back(std::make_unique<CoreModule>(
        n.c_str(), core_identity(cfg, static_cast<int32_t>(index), static_cast<int32_t>(u)), cfg.core,
        cfg.memory.spad_bytes, cfg.memory.imem_words, trace));
    CoreModule& cu = *cus_.back();
    cu.dma_socket.bind(bus_->cores);
    cu.crossbars.bind(crossbars);
    cu.fabric.bind(fabric);
    cu.run_control.bind(run_control);
  }
}

}  // namespace vp::hw
