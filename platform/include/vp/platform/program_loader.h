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

// An object in which no core has an instruction and that has no crossbar
// cell program would run as an empty program (the firmware boots, finds
// nothing to deploy or start and reports success): a LoadError instead,
// before any chip is built. Cell programs alone are a model to deploy.
void check_has_code(const obj::Object& obj);

// Checks the object's chip requirements against the chip.
void check_fits(const obj::Object& obj, const hw::ChipConfig& cfg);

struct LoadSummary {
  uint32_t cu_programs = 0;
  bool has_control_program = false;
  uint64_t data_bytes = 0;
  uint64_t cell_programs = 0, cells = 0;
  uint64_t preload_ispp_cycles = 0;  // row-serial ISPP time of the preloaded cells
};

// Writes the object's data segments into global memory, SRAMs and
// scratchpads; returns the bytes written. skip_missing: segments for a
// cluster or core the chip lacks are left out (the firmware reports the
// model as too big) instead of being an error.
uint64_t load_data_segments(const obj::Object& obj, hw::Chip& chip, bool skip_missing);

// Every cell level against the chip's cell bits; the error names crossbar,
// row, column and level.
void check_levels(const obj::Object& obj, const hw::ChipConfig& cfg);

// The cell programs written straight through the ISPP write path (levels,
// pulses and failures simulated, no simulated time): vp-run --no-deploy.
struct PreloadResult {
  uint64_t programs = 0, cells = 0;
  uint64_t cycles = 0;  // row-serial ISPP time the rows would take
  uint64_t pulses = 0, failed = 0;
};
PreloadResult preload_cells(const obj::Object& obj, hw::Chip& chip);

// Runs the object bare, without firmware: loads texts and data; programs the cell programs through the ISPP write
// path (functional: levels, pulses and failures are real, but no simulated
// time passes); starts the control processor if the object has a program
// for it, otherwise every CU with a program at its entry.
LoadSummary load_program(const obj::Object& obj, hw::Chip& chip);

}  // namespace vp::platform
