// One run of a model on a chip, as vp-run does it and as a library: build
// the chip from its configuration, write the model (under the firmware, or
// bare), run it, and gather the statistics and the bound outputs. vp-run's
// main parses the command line around it; the Python module (python/) calls
// it with tensors from memory. Nothing here writes an output file but the
// trace and the VCD, which belong to the run itself.
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vp/hw/chip/chip.h"
#include "vp/obj/object.h"
#include "vp/platform/firmware_report.h"
#include "vp/platform/host_io.h"
#include "vp/platform/model_image.h"

namespace vp::platform {

// An object from a .vpo file, or assembled from source (.s, .asm, anything
// else); an assembly error carries the assembler's own text.
obj::Object load_program_file(const std::string& path, const std::vector<std::string>& include_dirs = {});

struct RunSetup {
  hw::ChipConfig cfg;
  const obj::Object* model = nullptr;
  const obj::Object* firmware = nullptr;  // nullptr: the model runs bare
  const HostIo* io = nullptr;
  ImageOptions image;
  uint64_t max_cycles = 0;  // 0: no limit
  std::string trace_path;   // per-instruction trace; empty: none
  std::string vcd_path;     // waveforms (a temporary trace when trace_path is empty)
  bool progress = false;    // a progress line on stderr every two seconds
  bool notes = true;        // notes on stderr (the firmware replacing the model's control-processor code)
  const std::atomic<bool>* interrupt = nullptr;  // set from elsewhere: stop between two instructions
  bool adc_profile = false;  // record each crossbar's largest column sum (RunOutcome::adc_profile)
  bool check_races = false;  // every shared-memory access checked against the program's synchronization
};

// A bound or explicit output as it was read back, ready for a file.
struct OutputTensor {
  std::string path;
  std::vector<uint8_t> bytes;
  std::string dtype;             // numpy descr
  std::vector<uint64_t> shape;   // empty: one dimension over the bytes
};

struct RunOutcome {
  hw::RunResult result;
  double wall_seconds = 0;
  nlohmann::json stats;            // null when the run was interrupted or a step before them failed
  FirmwareReport firmware;         // the status block (runs under the firmware)
  std::vector<OutputTensor> outputs;  // a completed run's outputs, in option order (explicit first)
  std::string error;               // a step after the run failed (trace, VCD, statistics, read-back)
  nlohmann::json adc_profile;      // with RunSetup::adc_profile: adc_profile_json of the run
  // With RunSetup::check_races: accesses checked, races found, the first
  // ones described (hw::RaceCheck::describe).
  bool races_checked = false;
  uint64_t race_accesses = 0, races = 0;
  std::vector<std::string> race_lines;
};

// What stops a run before it starts (the trace cannot be opened, the image
// does not fit global memory, ...); the message is vp-run's after "vp-run: ".
struct RunStartError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The bound and explicit outputs of a completed run, read back from the
// chip's global memory (every element's copy, stacked); nothing is written.
std::vector<OutputTensor> read_outputs(hw::Chip& chip, const obj::Object& model, const HostIo& io,
                                       const ModelImage& image, bool bare);

// One SystemC simulation: SystemC elaborates once per process, so a process
// calls this once.
RunOutcome run_model(const RunSetup& setup);

// How vp-run ends a run that did not complete: its exit status (3 deadlock,
// 4 max cycles, 5 fault, 6 trap, 7 races found by --check-races) and the lines it prints, each without the
// "vp-run: " prefix (waiting cores indented). Exit 0 and no lines for a
// completed run; an interrupted one is the caller's (it knows the signal).
struct RunEnding {
  int exit_code = 0;
  std::vector<std::string> lines;
};
RunEnding run_ending(const RunOutcome& outcome, bool bare);

}  // namespace vp::platform
