// A SystemC top level of one's own: the chip from the installed `small`
// preset, a program assembled in memory, run, and its result read back from
// global memory. Prints "sum 55" and exits 0 when the chip computed it.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <systemc>

#include "vp/as/assembler.h"
#include "vp/config/loader.h"
#include "vp/config/param_set.h"
#include "vp/hw/chip/chip.h"
#include "vp/platform/chip_builder.h"
#include "vp/platform/program_loader.h"

namespace {

// examples/loop.s: one CU sums 1..10 and copies the sum to global 0x1000.
const char* kProgram = R"(
.chip clusters=1, cus=1
.cp
    li r1, 0
    li r2, 0
    cstart r1, r2
    cwait r1
    halt
.core 0, 0
.entry start
start:
    li r1, 10
    li r2, 0
loop:
    add r2, r2, r1
    dbnz r1, loop
    li r3, 0x40
    st r2, r3, 0
    li r4, 0x1000
    li r5, 4
    dma.lg r4, r3, r5
    wait 4
    halt
.data local, 0x40
    .word 0
)";

}  // namespace

int sc_main(int, char**) {
  vp::config::add_config_dir(SIDRA_VP_CONFIG_DIR);
  vp::config::ParamSet params;
  params.apply_preset("small");
  params.validate();
  const vp::hw::ChipConfig cfg = vp::platform::chip_config_from(params);

  vp::as::Result program = vp::as::assemble_string(kProgram, "loop.s");
  if (!program.ok()) {
    std::fprintf(stderr, "%s", program.error_text().c_str());
    return 1;
  }
  vp::hw::Chip chip("chip", cfg);
  vp::platform::load_program(program.object, chip);
  const vp::hw::RunResult r = chip.run(0);
  int32_t sum = 0;
  std::memcpy(&sum, chip.global_memory().data() + 0x1000, sizeof sum);
  std::printf("%s after %llu cycles: sum %d\n", vp::hw::run_status_name(r.status),
              static_cast<unsigned long long>(r.cycles), sum);
  return r.status == vp::hw::RunStatus::Completed && sum == 55 ? 0 : 1;
}
