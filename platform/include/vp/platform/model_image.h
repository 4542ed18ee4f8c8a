// The host driver's side of the firmware (docs/firmware.md): writes a model
// into global memory as the firmware expects it (boot block at kBootAddress,
// program and cell-program tables, texts, levels, the batch's input and
// output areas), loads the firmware into the control processor and starts
// it. The layout constants mirror firmware/boot_block.inc; a test checks
// that they agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/hw/chip/chip.h"
#include "vp/obj/object.h"
#include "vp/platform/host_io.h"

namespace vp::platform {

namespace fw {
inline constexpr uint64_t kBootAddress = 0x02000000;  // BOOT
inline constexpr uint32_t kMagic = 0x31574653;        // "SFW1"
inline constexpr uint32_t kVersion = 4;
inline constexpr uint64_t kBootSize = 128, kStatusSize = 128;
inline constexpr uint64_t kProgRecord = 16, kCellRecord = 32, kIoRecord = 16, kResultRecord = 16, kTimeRecord = 16;
inline constexpr uint32_t kFlagDeploy = 1;
// In a system of chips (system_run.h): each element's inputs arrive over the
// link (wait for its doorbell), its outputs leave over it (ring the doorbell).
inline constexpr uint32_t kFlagLinkIn = 2, kFlagLinkOut = 4;
inline constexpr uint32_t kLinkTagIn = 1, kLinkTagOut = 2;  // LINK_TAG_IN, LINK_TAG_OUT
inline constexpr uint64_t kCpProgramCache = 0x4400;  // CP_PROGS: the program table in CP data memory
// An io record's field past address, bytes and offset: 1 for an input the
// program reads through a pointer (obj::IoBinding::indirect), whose record's
// address is the pointer word's, else 0 (IO_INDIRECT).
inline constexpr uint64_t kIoIndirect = 12;
inline constexpr uint64_t kKernelRowBuffer = 0x100;  // K_BUF: the deploy kernel's rows in the CU scratchpad
// A deploy table record per core: its first cell program, their count, and
// the whole rows its kernel programs in one block (xprogn): as many rows of
// levels as its scratchpad holds from K_BUF up to the model's own data
// there, at most kKernelBlockRows (at least one: a model whose data leaves
// no room for one row on a deploying core is refused).
inline constexpr uint64_t kDeployRecord = 16;
// A cell-program record's field (CELL_PACKED) that gives the bytes of one
// row of its levels packed xbar.cell_bits bits each, as xprogn takes them,
// for a program of whole rows whose levels the image holds packed; 0 for a
// partial one (a rectangle narrower than the crossbar), whose levels are one
// byte each because its rows are read back first and programmed by xprog.
inline constexpr uint64_t kCellPackedField = 24;
inline constexpr uint32_t kKernelBlockRows = 32;
inline constexpr uint32_t kNotOnChip = 0xFFFFFFFF;

// Boot block fields (byte offsets of uint32 fields).
enum BootField : uint32_t {
  kMagicField = 0, kVersionField = 4, kClusters = 8, kCus = 12, kXbars = 16, kRows = 20, kCols = 24, kFlags = 28,
  kNProg = 32, kProg = 36, kNCell = 40, kCell = 44, kNDCore = 48, kDCores = 52, kDeploy = 56, kKernel = 60,
  kKWords = 64, kNIn = 68, kIn = 72, kNOut = 76, kOut = 80, kBatch = 84, kBin = 88, kBinStride = 92, kBout = 96,
  kBoutStride = 100, kStatus = 104, kTimes = 108, kResults = 112, kRetries = 116, kLink = 120,
};

// Status block fields.
enum StatusField : uint32_t {
  kCode = 0, kPhase = 4, kDetail0 = 8, kDetail1 = 12, kTBoot = 16, kTDeploy = 24, kTLoad = 32, kTInfer = 40,
  kTEnd = 48, kPulses = 56, kFailed = 64, kRetriesDone = 72, kRowsDone = 76, kDone = 80,
};

inline constexpr uint32_t kStatusDone = 1;
enum Phase : uint32_t { kPhaseBoot = 1, kPhaseDeploy = 2, kPhaseLoad = 3, kPhaseInfer = 4, kPhaseDone = 5 };

// Error codes the firmware traps with (ERR_* in boot_block.inc).
enum Error : uint32_t {
  kErrBootBlock = 0x101, kErrClusters = 0x102, kErrCus = 0x103, kErrXbars = 0x104, kErrRows = 0x105,
  kErrCols = 0x106, kErrProgram = 0x107, kErrCells = 0x108,
};
}  // namespace fw

struct ImageOptions {
  bool deploy = true;    // false: --no-deploy, the host writes the levels (untimed ISPP)
  uint32_t retries = 2;  // extra program-and-verify passes of a row with failed cells
  // A chip of a system: the link port's participant on the message fabric,
  // and whether inputs arrive and outputs leave over the link.
  uint32_t link_participant = 0;
  bool link_in = false, link_out = false;
};

// Where the image put what the run's results are read from.
struct ModelImage {
  uint64_t end = 0;  // first byte after the image
  uint64_t status = 0, times = 0;
  uint32_t batch = 1;
  // Images each start of the CU programs handles: a stream compiled with
  // vp-cc --batch N has every binding lead with N (images_per_start()).
  uint32_t images_per_start = 1;
  uint64_t batch_out = 0, batch_out_stride = 0;
  std::vector<uint64_t> output_offsets;  // per HostIo::output_bindings entry, in an element's area
  uint64_t batch_in = 0, batch_in_stride = 0;
  std::vector<uint64_t> input_offsets;   // per HostIo::input_bindings entry, in an element's area
  uint32_t cu_programs = 0;
  // [read_only, read_only_end): the tables, texts and cell levels, which the
  // firmware and the programs read and never write (vp-run --check-races).
  uint64_t read_only = 0, read_only_end = 0;
  uint64_t cell_programs = 0, cells = 0;
  bool deploy = true;
  bool model_cp_replaced = false;  // the model had control-processor code; the firmware runs instead
  uint64_t preload_ispp_cycles = 0;  // --no-deploy: row-serial ISPP time of the levels the host wrote
  uint64_t preload_pulses = 0, preload_failed = 0;
};

// N when every .input/.output binding of the model has a host view (a
// scale: vp-cc's bindings) and the same leading dimension N > 1, else 1.
uint32_t images_per_start(const obj::Object& model);

// Writes the image and starts the firmware. Throws LoadError (program_loader.h)
// for what the host itself cannot do: an image larger than global memory,
// model data inside the firmware region, a firmware without a control-processor
// program or deploy kernel. What the firmware checks (the model against the
// chip) is left to it.
ModelImage install_model(const obj::Object& model, const obj::Object& firmware, const HostIo& io, hw::Chip& chip,
                         const ImageOptions& options);

}  // namespace vp::platform
