// The path of a DMA between a cluster and global memory: over the mesh from
// the cluster's router to the router the memory controller is attached to,
// then through the global-memory channel (or the reverse for a read).
//
// Why this shape:
// - The memory controller sits at the mesh edge on its own local port of the
//   router of cluster gmem.attach_cluster (default 0, the north-west corner), so
//   memory traffic contends with cluster traffic on mesh links but not on the
//   attached cluster's own port. The ports are named "gmem->r(x,y)" and
//   "r(x,y)->gmem" in the link statistics.
// - Store and forward at the controller: a write's data crosses the mesh as
//   one packet and the channel starts when its tail has arrived; a read sends
//   a header-only request packet, the channel serves it when it arrives, and
//   the data returns as one packet when the channel is done. This is an upper
//   bound on a DMA that would stream mesh and memory beats in parallel (the
//   difference is at most the smaller of the two serialization times).
// - Writes are posted: a write is complete when the memory has taken its
//   data; no acknowledgement packet is modelled.
#pragma once

#include <cstdint>

#include "vp/hw/noc/bandwidth_channel.h"
#include "vp/hw/noc/mesh_noc.h"

namespace vp::hw::noc {

struct GlobalMemoryConfig {
  std::uint32_t attach_cluster = param_default::gmem_attach_cluster;  // gmem.attach_cluster [index]: its router
  BandwidthChannelConfig channel;     // gmem.latency_ns, gmem.bandwidth_gbps (gmem_channel_config)
  bool read_request_packet = true;    // reads send a header-only request over the mesh first
};

struct GmemTransfer {
  Cycle ready_cycle = 0;
  Cycle end_cycle = 0;                // write: data in memory; read: tail at the cluster
  NocTransfer request;                // read only, and only with read_request_packet
  NocTransfer data;                   // the data packet over the mesh
  ChannelTransfer memory;             // the global-memory channel
  Cycle latency() const { return end_cycle - ready_cycle; }
};

class GlobalMemoryPath {
 public:
  // Attaches the controller's port to `noc` (which must outlive this object).
  GlobalMemoryPath(MeshNoc& noc, const GlobalMemoryConfig& config);

  // cluster -> global memory (dma.lg, dma.sg).
  GmemTransfer write(std::uint32_t cluster, std::uint64_t bytes, Cycle ready_cycle);
  // global memory -> cluster (dma.gl, dma.gs).
  GmemTransfer read(std::uint32_t cluster, std::uint64_t bytes, Cycle ready_cycle);

  // Latency on an idle chip, the sum of the parts.
  Cycle unloaded_write_latency(std::uint32_t cluster, std::uint64_t bytes) const;
  Cycle unloaded_read_latency(std::uint32_t cluster, std::uint64_t bytes) const;

  Endpoint controller() const { return controller_; }
  const BandwidthChannel& channel() const { return channel_; }
  const GlobalMemoryConfig& config() const { return config_; }
  void reset() { channel_.reset(); }  // the mesh is reset by its owner

 private:
  MeshNoc& noc_;
  GlobalMemoryConfig config_;
  BandwidthChannel channel_;
  Endpoint controller_;
};

}  // namespace vp::hw::noc
