// The sizes a configuration implies -- cores, crossbars, memories -- checked
// against what the models can address and what this machine can hold,
// before anything is allocated. Without it an oversized chip ends in
// std::bad_alloc after minutes of construction.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "vp/hw/chip/chip_config.h"

namespace vp::platform {

struct ChipSizeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct MachineLimits {
  uint64_t ram_bytes = 0;           // physical memory; 0 = unknown (not checked)
  uint64_t address_bytes = 1ull << 46;  // virtual address space the memories may reserve
};

// This machine: physical memory from sysconf.
MachineLimits this_machine();

// Throws ChipSizeError naming the parameters that make the chip too large
// and the figure they imply.
void check_chip_size(const hw::ChipConfig& cfg, const MachineLimits& machine = this_machine());

}  // namespace vp::platform
