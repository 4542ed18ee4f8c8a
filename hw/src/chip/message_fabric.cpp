#include "vp/hw/chip/message_fabric.h"

#include <algorithm>

#include "vp/hw/memory/shared_memory.h"

namespace vp::hw {

MessageFabric::MessageFabric(sc_core::sc_module_name name, noc::MeshNoc& noc, std::vector<noc::Endpoint> endpoints,
                             uint64_t barrier_cycles)
    : sc_module(name), noc_(noc), endpoints_(std::move(endpoints)), barrier_cycles_(barrier_cycles) {
  for (size_t i = 0; i < endpoints_.size(); ++i) mailboxes_.push_back(std::make_unique<Mailbox>());
}

uint64_t MessageFabric::send(uint32_t src, uint32_t dst, uint32_t tag, const uint8_t* data, uint64_t bytes,
                             uint64_t ready, CoreFault& fault) {
  if (dst >= endpoints_.size()) {
    fault = {true, "send to core " + std::to_string(dst) + ", but the chip has " +
                       std::to_string(endpoints_.size() - 1) + " cores (the control processor is " +
                       std::to_string(endpoints_.size() - 1) + ")"};
    return ready;
  }
  noc_.advance(std::min(ready, time_to_cycles(sc_core::sc_time_stamp())));
  const noc::NocTransfer t = noc_.send(endpoints_[src], endpoints_[dst], bytes, ready);
  Mailbox& box = *mailboxes_[dst];
  box.packets.push_back(Packet{src, tag, std::vector<uint8_t>(data, data + bytes), t.arrival_cycle});
  box.arrived.notify(sc_core::SC_ZERO_TIME);
  return t.inject_done_cycle;
}

uint64_t MessageFabric::recv(uint32_t dst, uint32_t src, uint32_t tag, uint8_t* data, uint64_t bytes,
                             uint64_t ready, CoreFault& fault) {
  if (src >= endpoints_.size()) {
    fault = {true, "recv from core " + std::to_string(src) + ", which does not exist"};
    return ready;
  }
  Mailbox& box = *mailboxes_[dst];
  for (;;) {
    auto it = std::find_if(box.packets.begin(), box.packets.end(),
                           [&](const Packet& p) { return p.src == src && p.tag == tag; });
    if (it != box.packets.end()) {
      if (it->data.size() != bytes) {
        fault = {true, "recv of " + std::to_string(bytes) + " bytes from core " + std::to_string(src) + " tag " +
                           std::to_string(tag) + " matched a packet of " + std::to_string(it->data.size()) + " bytes"};
        return ready;
      }
      std::copy(it->data.begin(), it->data.end(), data);
      const uint64_t done = std::max(ready, it->arrival);
      box.packets.erase(it);
      return done;
    }
    sc_core::wait(box.arrived);
  }
}

uint64_t MessageFabric::barrier(uint32_t, uint32_t id, uint32_t count, uint64_t ready, CoreFault& fault) {
  auto& slot = barriers_[id];
  if (!slot) slot = std::make_unique<Barrier>();
  Barrier& b = *slot;
  if (count == 0 || count > endpoints_.size()) {
    fault = {true, "barrier " + std::to_string(id) + " for " + std::to_string(count) + " cores, but the chip has " +
                       std::to_string(endpoints_.size())};
    return ready;
  }
  if (b.arrived == 0) b.count = count;
  else if (b.count != count) {
    fault = {true, "barrier " + std::to_string(id) + " reached with count " + std::to_string(count) +
                       " while others wait for " + std::to_string(b.count)};
    return ready;
  }
  b.latest = std::max(b.latest, ready);
  if (++b.arrived == b.count) {
    b.release_cycle = b.latest + barrier_cycles_;
    b.arrived = 0;
    b.latest = 0;
    b.generation++;
    b.released.notify(sc_core::SC_ZERO_TIME);
    return b.release_cycle;
  }
  const uint64_t gen = b.generation;
  while (b.generation == gen) sc_core::wait(b.released);
  return b.release_cycle;
}

uint64_t MessageFabric::undelivered() const {
  uint64_t n = 0;
  for (const auto& m : mailboxes_) n += m->packets.size();
  return n;
}

std::string MessageFabric::first_undelivered() const {
  for (std::size_t dst = 0; dst < mailboxes_.size(); ++dst)
    if (!mailboxes_[dst]->packets.empty()) {
      const Packet& p = mailboxes_[dst]->packets.front();
      return "from core " + std::to_string(p.src) + " to core " + std::to_string(dst) + ", tag " +
             std::to_string(p.tag) + ", " + std::to_string(p.data.size()) + " bytes";
    }
  return "";
}

}  // namespace vp::hw
