// Core-to-core messages over the mesh (send/recv) and barriers. A send
// reserves the packet's route on the NoC at the sender's time and leaves the
// data in the receiver's mailbox stamped with its arrival cycle; a recv
// takes the oldest matching packet (same source and tag), waiting on the
// mailbox's event until one is there. Barriers release every participant at
// the cycle the last one arrives.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "vp/hw/chip/message_fabric_if.h"
#include "vp/hw/cu/core_environment.h"
#include "vp/hw/noc/mesh_noc.h"

namespace vp::hw {

class MessageFabric : public sc_core::sc_module, public MessageFabricIf {
 public:
  // `endpoints[i]` is where participant i (cores, then the control
  // processor) attaches to the mesh.
  MessageFabric(sc_core::sc_module_name name, noc::MeshNoc& noc, std::vector<noc::Endpoint> endpoints,
                uint64_t barrier_cycles);

  uint32_t participants() const { return static_cast<uint32_t>(endpoints_.size()); }

  // MessageFabricIf
  uint64_t send(uint32_t src, uint32_t dst, uint32_t tag, const uint8_t* data, uint64_t bytes, uint64_t ready,
                CoreFault& fault) override;
  uint64_t recv(uint32_t dst, uint32_t src, uint32_t tag, uint8_t* data, uint64_t bytes, uint64_t ready,
                CoreFault& fault) override;
  uint64_t barrier(uint32_t who, uint32_t id, uint32_t count, uint64_t ready, CoreFault& fault) override;

  // Packets delivered but never received, for the end-of-run report.
  uint64_t undelivered() const;
  // The first of them ("from core 3 to core 7, tag 2, 4 bytes"), or "".
  std::string first_undelivered() const;

 private:
  struct Packet {
    uint32_t src, tag;
    std::vector<uint8_t> data;
    uint64_t arrival;
  };
  struct Mailbox {
    std::deque<Packet> packets;
    sc_core::sc_event arrived;
  };
  struct Barrier {
    uint32_t count = 0, arrived = 0;
    uint64_t latest = 0;
    uint64_t generation = 0;
    uint64_t release_cycle = 0;
    sc_core::sc_event released;
  };

  noc::MeshNoc& noc_;
  std::vector<noc::Endpoint> endpoints_;
  std::vector<std::unique_ptr<Mailbox>> mailboxes_;
  std::map<uint32_t, std::unique_ptr<Barrier>> barriers_;
  uint64_t barrier_cycles_;
};

}  // namespace vp::hw
