// What the firmware left in its status block after a run (docs/firmware.md),
// its error codes in words, and the firmware part of the statistics: deploy
// time, load time and per-inference time, pulses, failed cells, retries.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "vp/hw/chip/chip.h"
#include "vp/platform/model_image.h"

namespace vp::platform {

struct FirmwareReport {
  uint32_t code = 0, phase = 0, detail0 = 0, detail1 = 0;
  uint64_t t_boot = 0, t_deploy = 0, t_load = 0, t_infer = 0, t_end = 0;
  uint64_t pulses = 0, failed_cells = 0;
  uint32_t retries = 0, rows = 0, inferences_done = 0;
  std::vector<std::pair<uint64_t, uint64_t>> inferences;  // (start, end) cycles of each completed element
};

FirmwareReport read_firmware_report(hw::Chip& chip, const ModelImage& image);

// "boot", "deploy", ... for a phase number.
const char* firmware_phase_name(uint32_t phase);
// The error a firmware trap code stands for, in words with the status
// details; empty for a code the firmware does not use.
std::string firmware_error_message(uint32_t trap_code, const FirmwareReport& report);

nlohmann::json firmware_statistics(const FirmwareReport& report, const ModelImage& image, const hw::ChipConfig& cfg);

}  // namespace vp::platform
