// Latencies of the units inside one compute unit (or the control processor),
// in core clock cycles, taken from the parameter registry when the chip is
// built. The execution core only adds and compares these numbers.
#pragma once

#include <cstdint>

#include "vp/hw/param_defaults.h"

namespace vp::hw {

// Defaults: a compute unit as the parameter table describes it
// (vp/config/params.def); control_processor() gives the cp.* variant.
struct CoreTiming {
  uint32_t issue_cycles = param_default::cu_issue_cycles;         // cu.issue_cycles: in-order issue slot
  uint32_t alu_cycles = param_default::cu_scalar_alu_cycles;      // cu.scalar.alu_cycles
  uint32_t mul_cycles = param_default::cu_scalar_mul_cycles;      // cu.scalar.mul_cycles
  uint32_t rsqrt_cycles = param_default::cu_scalar_rsqrt_cycles;  // cu.scalar.rsqrt_cycles
  uint32_t recip_cycles = param_default::cu_scalar_recip_cycles;  // cu.scalar.recip_cycles
  uint32_t branch_cycles = param_default::cu_scalar_branch_cycles;     // cu.scalar.branch_cycles
  uint32_t spad_access_cycles = param_default::cu_spad_access_cycles;  // cu.spad.access_cycles
  uint32_t vector_lanes = param_default::cu_vector_lanes;         // cu.vector.lanes [elements/cycle]
  uint32_t vector_startup_cycles = param_default::cu_vector_startup_cycles;  // cu.vector.startup_cycles
  uint32_t dma_setup_cycles = param_default::cu_dma_setup_cycles;  // cu.dma.setup_cycles
  uint32_t barrier_cycles = param_default::sync_barrier_cycles;    // sync.barrier_cycles
  uint32_t dma_outstanding = param_default::cu_dma_outstanding;  // cu.dma.outstanding: transfers in flight
  bool concurrent_mvm = param_default::cu_xbar_concurrent_mvm;  // cu.xbar.concurrent_mvm
  uint64_t quantum_cycles = 10000;  // temporal-decoupling quantum of the core (a simulator setting)

  // The control processor: the CU's core with its own scalar and data-memory
  // latencies (cp.*).
  static CoreTiming control_processor() {
    CoreTiming t;
    t.alu_cycles = param_default::cp_alu_cycles;
    t.mul_cycles = param_default::cp_mul_cycles;
    t.branch_cycles = param_default::cp_branch_cycles;
    t.spad_access_cycles = param_default::cp_mem_cycles;
    return t;
  }
};

// Identity and chip shape as the rdsr instruction reports them.
struct CoreIdentity {
  int32_t cluster = -1;  // -1: control processor
  int32_t cu = -1;
  uint32_t core = 0;     // chip-wide index cluster * cus + cu
  uint32_t ncores = 0;
  uint32_t clusters = 0, cus = 0, xbars = 0, rows = 0, cols = 0, lcols = 0;
  uint32_t cell_bits = 8;  // xbar.cell_bits: the width of a level xprogn takes packed
  bool is_control() const { return cluster < 0; }
};

}  // namespace vp::hw
