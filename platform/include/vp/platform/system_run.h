// One run of a system of chips (vp-run --system): N chips, each with its
// own program and firmware, and the chip-to-chip link (hw/system/
// chip_link.h) between them, in one SystemC simulation. The host writes the
// model's inputs into the first chip's image and reads its outputs from the
// last; every value in between crosses the link, element by element, so a
// batch flows through the chips as a pipeline. docs/multi-chip.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vp/hw/chip/chip.h"
#include "vp/obj/object.h"
#include "vp/platform/firmware_report.h"
#include "vp/platform/host_io.h"
#include "vp/platform/model_image.h"
#include "vp/platform/model_run.h"
#include "vp/platform/system_file.h"

namespace vp::platform {

struct SystemSetup {
  hw::ChipConfig cfg;                       // every chip's, link.* included
  std::vector<const obj::Object*> models;   // one program per chip
  const obj::Object* firmware = nullptr;
  std::vector<HostIo> io;                   // per chip: plan_host_io for the first, link_fed_io for the others
  std::vector<SystemRoute> routes;
  ImageOptions image;
  uint64_t max_cycles = 0;
  std::string trace_path;  // chip k's trace goes to system_trace_path(trace_path, k); empty: none
  const std::atomic<bool>* interrupt = nullptr;
};

struct SystemOutcome {
  hw::RunResult result;   // the first chip that did not complete, its message prefixed "chip K: "
  double wall_seconds = 0;
  nlohmann::json stats;   // "system" (latency, interval, link, energy) and "chips" (each chip's statistics)
  std::vector<FirmwareReport> firmware;
  std::vector<OutputTensor> outputs;  // the last chip's bound outputs
  std::string error;
};

// The host side of a chip whose inputs arrive over the link: every binding
// of the model, `batch` elements, the input areas zero until the link
// fills them; `outputs` as vp-run's --output (the last chip's).
HostIo link_fed_io(const obj::Object& model, uint32_t batch, const std::vector<std::string>& outputs);

// "run/t.trace", 1 -> "run/t.chip1.trace".
std::string system_trace_path(const std::string& path, uint32_t chip);

// Throws RunStartError for what stops the run before it starts (a route to
// a binding that is not there or of another size, an image that does not fit).
SystemOutcome run_system(const SystemSetup& setup);

// A dozen lines for the terminal.
std::string system_summary(const nlohmann::json& stats);

}  // namespace vp::platform
