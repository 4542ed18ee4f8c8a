// Core-to-core messages and barriers as a processor sees them. Participants
// are numbered chip-wide: cores 0 .. ncores-1, then the control processor.
// recv and barrier block the calling thread until they can complete; all
// three return the cycle the operation completes for the caller.
#pragma once

#include <cstdint>

#include <systemc>

#include "vp/hw/cu/core_environment.h"

namespace vp::hw {

class MessageFabricIf : public virtual sc_core::sc_interface {
 public:
  // Returns when the packet's tail has left `src`'s port.
  virtual uint64_t send(uint32_t src, uint32_t dst, uint32_t tag, const uint8_t* data, uint64_t bytes,
                        uint64_t ready, CoreFault& fault) = 0;
  // Takes the oldest packet from `src` with `tag` in `dst`'s mailbox.
  virtual uint64_t recv(uint32_t dst, uint32_t src, uint32_t tag, uint8_t* data, uint64_t bytes, uint64_t ready,
                        CoreFault& fault) = 0;
  // Releases every participant of barrier `id` once `count` have arrived.
  virtual uint64_t barrier(uint32_t who, uint32_t id, uint32_t count, uint64_t ready, CoreFault& fault) = 0;
};

}  // namespace vp::hw
