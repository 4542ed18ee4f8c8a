// What a processor reports to the one who runs the simulation: progress,
// that it stopped, and that it went past the run's cycle limit. The chip
// turns a fault, a trap or the limit into sc_stop().
#pragma once

#include <cstdint>

#include <systemc>

#include "vp/hw/cu/execution_core.h"

namespace vp::hw {

class RunControlIf : public virtual sc_core::sc_interface {
 public:
  // Instructions executed, counted in batches (progress line).
  virtual void count_progress(uint64_t n) = 0;
  // The cycle limit of this run; 0 = none.
  virtual uint64_t max_cycles() const = 0;
  virtual void on_max_cycles(const ExecutionCore& core) = 0;
  virtual void on_core_stopped(const ExecutionCore& core) = 0;
  // Whether the one running the simulation asked it to stop (a signal);
  // polled with the progress count, so a core stops within 1024
  // instructions. Test benches without a driver never stop this way.
  virtual bool interrupt_requested() const { return false; }
  virtual void on_interrupt(const ExecutionCore& core) { (void)core; }
};

}  // namespace vp::hw
