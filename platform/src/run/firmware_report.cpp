#include "vp/platform/firmware_report.h"

#include <cstring>

namespace vp::platform {

namespace {

uint32_t get32(hw::Chip& chip, uint64_t at) {
  uint32_t v = 0;
  std::memcpy(&v, chip.global_memory().data() + at, 4);
  return v;
}
uint64_t get64(hw::Chip& chip, uint64_t at) { return get32(chip, at) | (uint64_t{get32(chip, at + 4)} << 32); }

}  // namespace

FirmwareReport read_firmware_report(hw::Chip& chip, const ModelImage& image) {
  FirmwareReport r;
  const uint64_t s = image.status;
  r.code = get32(chip, s + fw::kCode);
  r.phase = get32(chip, s + fw::kPhase);
  r.detail0 = get32(chip, s + fw::kDetail0);
  r.detail1 = get32(chip, s + fw::kDetail1);
  r.t_boot = get64(chip, s + fw::kTBoot);
  r.t_deploy = get64(chip, s + fw::kTDeploy);
  r.t_load = get64(chip, s + fw::kTLoad);
  r.t_infer = get64(chip, s + fw::kTInfer);
  r.t_end = get64(chip, s + fw::kTEnd);
  r.pulses = get64(chip, s + fw::kPulses);
  r.failed_cells = get64(chip, s + fw::kFailed);
  r.retries = get32(chip, s + fw::kRetriesDone);
  r.rows = get32(chip, s + fw::kRowsDone);
  r.inferences_done = get32(chip, s + fw::kDone);
  for (uint32_t e = 0; e < r.inferences_done && e < image.batch; ++e)
    r.inferences.emplace_back(get64(chip, image.times + e * fw::kTimeRecord),
                              get64(chip, image.times + e * fw::kTimeRecord + 8));
  return r;
}

const char* firmware_phase_name(uint32_t phase) {
  switch (phase) {
    case fw::kPhaseBoot: return "boot";
    case fw::kPhaseDeploy: return "deploy";
    case fw::kPhaseLoad: return "load";
    case fw::kPhaseInfer: return "infer";
    case fw::kPhaseDone: return "done";
    default: return "start";
  }
}

std::string firmware_error_message(uint32_t code, const FirmwareReport& r) {
  const std::string need = std::to_string(r.detail0), have = std::to_string(r.detail1);
  switch (code) {
    case fw::kErrBootBlock: return "firmware: the boot block has a bad magic number or version (ERR_BOOT_BLOCK)";
    case fw::kErrClusters:
      return "firmware: the model needs " + need + " clusters, the chip has " + have + " (ERR_CLUSTERS)";
    case fw::kErrCus:
      return "firmware: the model needs " + need + " CUs per cluster, the chip has " + have + " (ERR_CUS)";
    case fw::kErrXbars:
      return "firmware: the model needs " + need + " crossbars per CU, the chip has " + have + " (ERR_XBARS)";
    case fw::kErrRows:
      return "firmware: the model was built for crossbars of " + need + " rows, the chip's have " + have +
             " (ERR_ROWS)";
    case fw::kErrCols:
      return "firmware: the model was built for crossbars of " + need + " columns, the chip's have " + have +
             " (ERR_COLS)";
    case fw::kErrProgram:
      return "firmware: a CU program is for core " + std::to_string(static_cast<int32_t>(r.detail0)) +
             ", which is not on this chip of " + have + " cores (ERR_PROGRAM)";
    case fw::kErrCells:
      return "firmware: a cell program lies outside the chip's crossbars (ERR_CELLS)";
    default: return "";
  }
}

nlohmann::json firmware_statistics(const FirmwareReport& r, const ModelImage& image, const hw::ChipConfig& cfg) {
  using nlohmann::json;
  const double us_per_cycle = cfg.cycle_ns() * 1e-3;
  json inf = json::array();
  uint64_t sum = 0;
  for (const auto& [a, b] : r.inferences) {
    inf.push_back(b - a);
    sum += b - a;
  }
  const double images = static_cast<double>(r.inferences.size()) * image.images_per_start;
  const bool finished = r.code == fw::kStatusDone;
  const uint64_t deploy = image.deploy && r.phase > fw::kPhaseDeploy ? r.t_load - r.t_deploy : 0;
  const uint64_t load = r.phase > fw::kPhaseLoad ? r.t_infer - r.t_load : 0;
  json j = {{"status", finished ? "done" : (r.code ? "error" : "unfinished")},
            {"phase", firmware_phase_name(r.phase)},
            {"code", r.code},
            {"deploy", image.deploy},
            {"deploy_cycles", deploy},
            {"deploy_us", static_cast<double>(deploy) * us_per_cycle},
            {"load_cycles", load},
            {"batch", image.batch},
            {"inferences", static_cast<uint64_t>(r.inferences_done) * image.images_per_start},
            {"inference_cycles", inf},
            // An inference is one image: a stream's start handles several.
            {"images_per_start", image.images_per_start},
            {"inference_cycles_mean", r.inferences.empty() ? 0.0 : static_cast<double>(sum) / images},
            {"inference_us_mean", r.inferences.empty() ? 0.0 : static_cast<double>(sum) / images * us_per_cycle},
            {"cu_programs", image.cu_programs},
            {"cell_programs", image.cell_programs},
            {"cells", image.cells},
            {"rows_programmed", r.rows},
            {"pulses", image.deploy ? r.pulses : image.preload_pulses},
            {"failed_cells", image.deploy ? r.failed_cells : image.preload_failed},
            {"retries", r.retries},
            {"image_bytes", image.end - fw::kBootAddress},
            {"model_cp_replaced", image.model_cp_replaced}};
  if (!image.deploy)
    j["note"] = "--no-deploy: the crossbars were assumed programmed; the platform wrote the levels through the ISPP "
                "model without simulated time, so deploy_cycles is 0 and pulses/failed cells are the untimed write's";
  return j;
}

}  // namespace vp::platform
