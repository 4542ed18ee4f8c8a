// Control: the trace's layer marker, halt and trap on every core, and the
// control processor's instructions that load, start and watch the compute
// units (timed by the environment, which owns the other cores).
#include "executors/issue.h"

namespace vp::hw {
namespace {

// cload, cstart, cwait and cstat exist only on the control processor.
bool on_control_processor(Issue& is, isa::Opcode op) {
  if (is.id().is_control()) return true;
  is.fault(isa::find(op)->mnemonic + " runs on the control processor, not on a compute unit");
  return false;
}

}  // namespace

void exec_LAYER(Issue& is, const isa::ops::LAYER& o) { is.set_layer(static_cast<int32_t>(o.id)); }

// Halt and trap take effect once every unit has drained.
void exec_HALT(Issue& is, const isa::ops::HALT&) {
  is.start_after(is.scoreboard().all_units_idle());
  is.halt();
}

void exec_TRAP(Issue& is, const isa::ops::TRAP& o) {
  is.start_after(is.scoreboard().all_units_idle());
  is.trap(o.code);
}

void exec_CLOAD(Issue& is, const isa::ops::CLOAD& o) {
  if (!on_control_processor(is, o.kOpcode)) return;
  CoreFault f;
  const uint64_t end = is.env().load_core(is.reg(o.rc), is.reg(o.rg), is.reg(o.rn), is.start(), f);
  if (!is.ok(f)) return;
  is.end_at(end);
}

void exec_CSTART(Issue& is, const isa::ops::CSTART& o) {
  if (!on_control_processor(is, o.kOpcode)) return;
  CoreFault f;
  const uint64_t end = is.env().start_core(is.reg(o.rc), is.reg(o.rp), is.start(), f);
  if (!is.ok(f)) return;
  is.end_at(end);
}

void exec_CWAIT(Issue& is, const isa::ops::CWAIT& o) {
  if (!on_control_processor(is, o.kOpcode)) return;
  CoreFault f;
  is.waiting_for("core " + std::to_string(is.reg(o.rc)) + " to halt");
  const uint64_t end = is.env().wait_core(is.reg(o.rc), is.start(), f);
  is.done_waiting();
  if (!is.ok(f)) return;
  is.end_at(end);
  is.hold_issue();
}

void exec_CSTAT(Issue& is, const isa::ops::CSTAT& o) {
  if (!on_control_processor(is, o.kOpcode)) return;
  CoreFault f;
  const uint32_t state = is.env().core_state(is.reg(o.rc), f);
  if (!is.ok(f)) return;
  is.write(o.rd, state);
}

}  // namespace vp::hw
