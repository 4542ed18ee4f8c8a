// The issue stage: operand and unit readiness, dispatch to the unit's
// executor (executors/), then the scoreboard, statistics and trace. What an
// instruction does and how long it takes come from the instruction table.
#include "vp/hw/cu/execution_core.h"

#include <algorithm>

#include "executors/issue.h"
#include "executors/timing_column.h"

namespace vp::hw {

using isa::Unit;

const char* core_state_name(CoreState s) {
  switch (s) {
    case CoreState::Idle: return "idle";
    case CoreState::Running: return "running";
    case CoreState::Halted: return "halted";
    case CoreState::Faulted: return "faulted";
    case CoreState::Trapped: return "trapped";
  }
  return "?";
}

ExecutionCore::ExecutionCore(const CoreIdentity& id, const CoreTiming& timing, uint64_t spad_bytes,
                             uint64_t imem_words)
    : id_(id),
      timing_(timing),
      latency_(latencies_from_table(timing)),
      spad_(spad_bytes),
      imem_words_(imem_words) {}

bool ExecutionCore::load_program(const uint64_t* words, uint64_t count, uint64_t at, std::string* why) {
  if (at + count > imem_words_) {
    if (why)
      *why = "program of " + std::to_string(at + count) + " instructions exceeds the instruction memory of " +
             std::to_string(imem_words_);
    return false;
  }
  if (program_.size() < at + count) program_.resize(at + count);
  for (uint64_t i = 0; i < count; ++i) {
    std::string reason;
    auto inst = isa::decode(words[i], &reason);
    if (!inst) {
      if (why) *why = "instruction " + std::to_string(at + i) + ": " + reason;
      return false;
    }
    program_[at + i] = *inst;
  }
  return true;
}

void ExecutionCore::start(uint32_t pc, uint64_t cycle) {
  pc_ = pc;
  issue_ = std::max(issue_, cycle);
  state_ = CoreState::Running;
  if (stats_.instructions == 0) stats_.first_cycle = issue_;
}

void ExecutionCore::fault(const std::string& what) {
  std::string where = id_.is_control() ? std::string("control processor")
                                       : "core " + std::to_string(id_.core) + " (cluster " +
                                             std::to_string(id_.cluster) + ", cu " + std::to_string(id_.cu) + ")";
  fault_msg_ = where + " pc " + std::to_string(pc_) + " cycle " + std::to_string(issue_) + ": " + what;
  state_ = CoreState::Faulted;
  end_cycle_ = issue_;
}

bool ExecutionCore::check_range(uint64_t addr, uint64_t len, const char* what) {
  if (spad_.in_range(addr, len)) return true;
  fault(std::string(what) + " local[" + std::to_string(addr) + " .. +" + std::to_string(len) +
        "] is outside the scratchpad of " + std::to_string(spad_.size()) + " bytes");
  return false;
}

void ExecutionCore::step(CoreEnvironment& env, TraceSink* trace) {
  if (state_ != CoreState::Running) return;
  if (pc_ >= program_.size()) {
    fault("pc ran past the end of the program (" + std::to_string(program_.size()) + " instructions)");
    return;
  }
  const isa::Instruction& in = program_[pc_];
  const isa::InstrInfo& info = *isa::find(in.opcode);

  // Operands ready: registers read and the unit.
  uint64_t start = issue_;
  for (size_t i = 0; i < info.fields.size(); ++i) {
    const auto k = info.fields[i].kind;
    if (k == isa::FieldKind::RegRead || k == isa::FieldKind::RegReadWrite)
      start = std::max(start, sb_.reg_ready(static_cast<int>(in.operand[i])));
  }
  const Unit unit = info.unit;
  start = std::max(start, sb_.unit_free(unit));
  // Concurrent mvm: an mvm waits for its own crossbars only; the crossbar
  // unit's other instructions wait for every crossbar.
  const bool mvm = in.opcode == isa::Opcode::MVM && timing_.concurrent_mvm;
  uint32_t xb_first = 0, xb_mask = 0;
  if (mvm) {
    const isa::ops::MVM o(in);
    xb_first = o.xb;
    xb_mask = o.mask;
    start = std::max(start, sb_.xbars_free(xb_first, xb_mask));
  } else if (unit == Unit::Crossbar) {
    start = std::max(start, sb_.all_xbars_free());
  }
  // The DMA engine: a new transfer once the one `dma_outstanding` back is done.
  const bool dma = unit == Unit::Dma && timing_.dma_outstanding > 1;
  if (dma) {
    if (dma_done_.size() != timing_.dma_outstanding) dma_done_.assign(timing_.dma_outstanding, 0);
    start = std::max(start, dma_done_[dma_count_ % dma_done_.size()]);
  }

  Issue is(*this, env, start, latency_[static_cast<uint8_t>(in.opcode)]);
  executor_for(in.opcode)(is, in);
  if (is.faulted()) return;
  const uint64_t end = is.finish();
  start = is.start();

  if (mvm && xb_mask != 0) {
    sb_.occupy_xbars(xb_first, xb_mask, end);
  } else if (dma) {
    sb_.occupy(unit, std::min(end, start + std::max<uint64_t>(1, timing_.dma_setup_cycles)), end);
    dma_done_[dma_count_++ % dma_done_.size()] = end;
  } else {
    sb_.occupy(unit, end);
  }
  if (is.read_count() || is.write_count())
    sb_.record(is.read_ranges(), is.read_count(), is.write_ranges(), is.write_count(), end);
  if (is.wrote_reg() && is.dst_reg() != 0) {
    regs_[is.dst_reg()] = is.dst_val();
    sb_.set_reg_ready(is.dst_reg(), end);
  }
  stats_.instructions++;
  // Busy time is the union of the unit's instructions (concurrent mvms
  // overlap; every other unit runs one instruction at a time).
  uint64_t& until = busy_until_[static_cast<size_t>(unit)];
  if (end > until) stats_.unit_busy[static_cast<size_t>(unit)] += end - std::max(start, until);
  until = std::max(until, end);
  stats_.unit_insts[static_cast<size_t>(unit)]++;
  if (unit == Unit::Scalar) stats_.scalar_ops++;
  stats_.last_cycle = std::max(stats_.last_cycle, end);

  if (trace) trace->retire(id_, RetireEvent{&in, &info, pc_, start, end, layer_});

  // In-order issue: the next instruction issues one slot later, or after a
  // branch resolves (no prediction).
  issue_ = is.is_branch() || is.holds_issue() ? end : start + timing_.issue_cycles;
  sb_.retire_before(issue_);
  pc_ = is.next_pc();
  if (is.stop() != CoreState::Running) {
    state_ = is.stop();
    if (state_ == CoreState::Trapped) trap_code_ = is.trap_code();
    end_cycle_ = end;
  }
}

}  // namespace vp::hw
