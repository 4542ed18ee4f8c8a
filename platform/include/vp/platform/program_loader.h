// Puts an object file into a built chip: instruction memories, data into
// global memory / cluster SRAM / scratchpads, and the crossbar cell programs.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "vp/hw/chip/chip.h"
#include "vp/obj/object.h"

namespace vp::platform {

// A program that does not fit the chip; the message names what and by how much.
struct LoadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Checks the object's chip requirements against the chip.
void check_fits(const obj::Object& obj, const hw::ChipConfig& cfg);

struct LoadSummary {
  uint32_t cu_programs = 0;
  bool has_control_program = false;
  uint64_t data_bytes = 0;
  uint64_t cell_programs = 0, cells = 0;
  uint64_t preload_ispp_cycles = 0;  // row-serial ISPP time of the preloaded cells
};

// Loads texts and data; programs the cell programs through the ISPP write
// path (functional: levels, pulses and failures are real, but no simulated
// time passes); starts the control processor if the object has a program
// for it, otherwise every CU with a program at its entry.
LoadSummary load_program(const obj::Object& obj, hw::Chip& chip);

}  // namespace vp::platform
