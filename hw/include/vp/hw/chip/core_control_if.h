// The control processor's path to the compute units (cload, cstart, cwait,
// cstat): write a CU's instruction memory, start it, wait for it to stop,
// read its state. Cores are numbered chip-wide.
#pragma once

#include <cstdint>
#include <string>

#include <systemc>

#include "vp/hw/cu/execution_core.h"

namespace vp::hw {

class CoreControlIf : public virtual sc_core::sc_interface {
 public:
  virtual uint32_t cores() const = 0;
  // Writes `count` instruction words into core `core`'s instruction memory
  // from address 0. On success `cycles` is how long the write takes; on
  // failure `why` says what is wrong.
  virtual bool load_program(uint32_t core, const uint64_t* words, uint64_t count, uint64_t& cycles,
                            std::string& why) = 0;
  // Starts core `core` at `pc` no earlier than `cycle`.
  virtual void start(uint32_t core, uint32_t pc, uint64_t cycle) = 0;
  // Blocks the calling thread while core `core` is running.
  virtual void wait_stopped(uint32_t core) = 0;
  virtual CoreState state(uint32_t core) const = 0;
  virtual uint64_t end_cycle(uint32_t core) const = 0;
  virtual std::string fault_message(uint32_t core) const = 0;
};

}  // namespace vp::hw
