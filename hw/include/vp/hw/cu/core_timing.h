// Latencies of the units inside one compute unit (or the control processor),
// in core clock cycles, taken from the parameter registry when the chip is
// built. The execution core only adds and compares these numbers.
#pragma once

#include <cstdint>

namespace vp::hw {

struct CoreTiming {
  uint32_t issue_cycles = 1;        // cu.issue_cycles: in-order issue slot
  uint32_t alu_cycles = 1;          // cu.scalar.alu_cycles
  uint32_t mul_cycles = 3;          // cu.scalar.mul_cycles
  uint32_t branch_cycles = 1;       // cu.scalar.branch_cycles
  uint32_t spad_access_cycles = 2;  // cu.spad.access_cycles
  uint32_t vector_lanes = 32;       // cu.vector.lanes [elements/cycle]
  uint32_t vector_startup_cycles = 2;  // cu.vector.startup_cycles
  uint32_t dma_setup_cycles = 4;    // cu.dma.setup_cycles
  uint32_t barrier_cycles = 4;      // sync.barrier_cycles
  uint64_t quantum_cycles = 10000;  // temporal-decoupling quantum of the core
};

// Identity and chip shape as the rdsr instruction reports them.
struct CoreIdentity {
  int32_t cluster = -1;  // -1: control processor
  int32_t cu = -1;
  uint32_t core = 0;     // chip-wide index cluster * cus + cu
  uint32_t ncores = 0;
  uint32_t clusters = 0, cus = 0, xbars = 0, rows = 0, cols = 0, lcols = 0;
  bool is_control() const { return cluster < 0; }
};

}  // namespace vp::hw
