// What a run cost: cycles, per-unit busy time, crossbar, ISPP, NoC and
// memory activity, energy per component from the energy parameters, and the
// host's own figures. One JSON document (--stats) and a short summary.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "vp/hw/chip/chip.h"
#include "vp/platform/program_loader.h"

namespace vp::platform {

struct HostFigures {
  double wall_seconds = 0;
  uint64_t trace_records = 0;
};

nlohmann::json run_statistics(const hw::Chip& chip, const hw::RunResult& result, const LoadSummary& load,
                              const HostFigures& host);

// A dozen lines for the terminal.
std::string run_summary(const nlohmann::json& stats);

}  // namespace vp::platform
