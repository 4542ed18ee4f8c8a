#include "vp/hw/noc/global_memory_path.h"

#include <stdexcept>
#include <string>

namespace vp::hw::noc {

GlobalMemoryPath::GlobalMemoryPath(MeshNoc& noc, const GlobalMemoryConfig& config)
    : noc_(noc), config_(config), channel_(config.channel) {
  if (config_.attach_cluster >= noc_.clusters()) {
    throw std::invalid_argument("gmem.attach: cluster " + std::to_string(config_.attach_cluster) +
                                " outside the mesh of " + std::to_string(noc_.clusters()) + " clusters");
  }
  controller_ = noc_.attach_device(config_.attach_cluster, config_.channel.name);
}

GmemTransfer GlobalMemoryPath::write(std::uint32_t cluster, std::uint64_t bytes, Cycle ready_cycle) {
  GmemTransfer t;
  t.ready_cycle = ready_cycle;
  t.data = noc_.send(noc_.cluster_endpoint(cluster), controller_, bytes, ready_cycle);
  t.memory = channel_.transfer(bytes, t.data.arrival_cycle);
  t.end_cycle = t.memory.end_cycle;
  return t;
}

GmemTransfer GlobalMemoryPath::read(std::uint32_t cluster, std::uint64_t bytes, Cycle ready_cycle) {
  GmemTransfer t;
  t.ready_cycle = ready_cycle;
  const Endpoint self = noc_.cluster_endpoint(cluster);
  Cycle at_controller = ready_cycle;
  if (config_.read_request_packet) {
    t.request = noc_.send(self, controller_, 0, ready_cycle);
    at_controller = t.request.arrival_cycle;
  }
  t.memory = channel_.transfer(bytes, at_controller);
  t.data = noc_.send(controller_, self, bytes, t.memory.end_cycle);
  t.end_cycle = t.data.arrival_cycle;
  return t;
}

Cycle GlobalMemoryPath::unloaded_write_latency(std::uint32_t cluster, std::uint64_t bytes) const {
  return noc_.zero_load_latency(cluster, config_.attach_cluster, bytes) + channel_.unloaded_latency(bytes);
}

Cycle GlobalMemoryPath::unloaded_read_latency(std::uint32_t cluster, std::uint64_t bytes) const {
  const Cycle request = config_.read_request_packet ? noc_.zero_load_latency(cluster, config_.attach_cluster, 0) : 0;
  return request + channel_.unloaded_latency(bytes) + noc_.zero_load_latency(config_.attach_cluster, cluster, bytes);
}

}  // namespace vp::hw::noc
