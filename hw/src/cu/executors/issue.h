// One instruction passing the issue stage of an execution core, as its unit's
// executor sees it: register values read at issue, the scratchpad ranges it
// touches, the environment, and what it reports back for the scoreboard and
// the trace (register result, branch, latency or end cycle, faults).
//
// Every executor is `void exec_NAME(Issue&, const isa::ops::NAME&)`, NAME the
// instruction's Opcode enumerator; its operands arrive by field name from the
// generated vp/isa/operands.h. The executors are declared here from the
// table and defined in their unit's file; the dispatch table (dispatch.cpp)
// is built from the same table, so an instruction without an executor does
// not link.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vp/hw/cu/execution_core.h"
#include "vp/isa/operands.h"

namespace vp::hw {

class Issue {
 public:
  // `start`: the cycle the unit and the register operands are ready;
  // `latency`: the instruction's cycles from the table's timing column.
  Issue(ExecutionCore& core, CoreEnvironment& env, uint64_t start, uint64_t latency)
      : core_(core), env_(env), start_(start), latency_(latency) {}

  // ---- the core around the instruction -----------------------------------
  const CoreIdentity& id() const { return core_.id_; }
  const CoreTiming& timing() const { return core_.timing_; }
  CoreEnvironment& env() { return env_; }
  Scratchpad& spad() { return core_.spad_; }
  CoreStats& stats() { return core_.stats_; }
  const Scoreboard& scoreboard() const { return core_.sb_; }
  uint32_t pc() const { return core_.pc_; }
  uint32_t reg(uint8_t r) const { return core_.regs_[r]; }
  int32_t sreg(uint8_t r) const { return static_cast<int32_t>(core_.regs_[r]); }
  // Work buffers of the crossbar unit, kept across instructions.
  std::vector<int32_t>& mvm_in() { return core_.mvm_in_; }
  std::vector<int64_t>& mvm_acc() { return core_.mvm_acc_; }
  std::vector<int64_t>& mvm_part() { return core_.mvm_part_; }

  // ---- results ------------------------------------------------------------
  // The register result; it lands (and the register becomes ready) when the
  // instruction ends. r0 stays zero.
  void write(uint8_t rd, uint32_t value) {
    wrote_reg_ = true;
    dst_reg_ = rd;
    dst_val_ = value;
  }
  // A branch resolves at its end and holds issue until then (no prediction).
  void branch(bool taken, uint32_t target) {
    branch_ = true;
    if (taken) next_pc_ = target;
  }
  // Checked scratchpad ranges; the scoreboard orders the instruction after
  // in-flight accesses that conflict. False (the core faulted) when out of range.
  bool reads(uint64_t addr, uint64_t len, const char* what) {
    if (!in_range(addr, len, what)) return false;
    reads_[nreads_++] = MemRange{addr, addr + len};
    return true;
  }
  bool writes(uint64_t addr, uint64_t len, const char* what) {
    if (!in_range(addr, len, what)) return false;
    writes_[nwrites_++] = MemRange{addr, addr + len};
    return true;
  }
  // Starts the instruction after the accesses its ranges conflict with;
  // executors that hand their ranges to the environment call it first.
  void wait_for_memory() {
    memory_waited_ = true;
    start_ = std::max(start_, core_.sb_.memory_ready(reads_, nreads_, writes_, nwrites_));
  }
  uint64_t start() const { return start_; }
  void start_after(uint64_t cycle) { start_ = std::max(start_, cycle); }
  // For instructions whose time the executor or the environment computes.
  void set_latency(uint64_t cycles) { latency_ = cycles; }
  void end_at(uint64_t cycle) {
    has_end_ = true;
    end_ = cycle;
  }
  // Stops the core with a message; the executor returns without effects.
  void fault(const std::string& what) {
    faulted_ = true;
    core_.fault(what);
  }
  // False, with the core faulted, when the environment reported a fault.
  bool ok(const CoreFault& f) {
    if (f.set) fault(f.message);
    return !f.set;
  }
  // The next instruction issues only once this one has ended (a blocking
  // send, recv, barrier or cwait), as after a branch.
  void hold_issue() { hold_ = true; }
  // What a blocking environment call waits for, for the deadlock report.
  void waiting_for(std::string what) { core_.waiting_for_ = std::move(what); }
  void done_waiting() { core_.waiting_for_.clear(); }
  void set_layer(int32_t layer) { core_.layer_ = layer; }
  void halt() { stop_ = CoreState::Halted; }
  void trap(uint32_t code) {
    stop_ = CoreState::Trapped;
    trap_code_ = code;
  }

  // ---- read by the issue stage once the executor returns --------------------
  bool faulted() const { return faulted_; }
  // The cycle the instruction ends; memory hazards not yet waited for are.
  uint64_t finish() {
    if ((nreads_ || nwrites_) && !memory_waited_) wait_for_memory();
    return has_end_ ? std::max(end_, start_) : start_ + latency_;
  }
  const MemRange* read_ranges() const { return reads_; }
  int read_count() const { return nreads_; }
  const MemRange* write_ranges() const { return writes_; }
  int write_count() const { return nwrites_; }
  bool wrote_reg() const { return wrote_reg_; }
  uint8_t dst_reg() const { return dst_reg_; }
  uint32_t dst_val() const { return dst_val_; }
  bool is_branch() const { return branch_; }
  bool holds_issue() const { return hold_; }
  uint32_t next_pc() const { return next_pc_; }
  CoreState stop() const { return stop_; }
  uint32_t trap_code() const { return trap_code_; }

 private:
  bool in_range(uint64_t addr, uint64_t len, const char* what) {
    if (core_.check_range(addr, len, what)) return true;
    faulted_ = true;
    return false;
  }

  ExecutionCore& core_;
  CoreEnvironment& env_;
  uint64_t start_;
  uint64_t latency_;
  uint64_t end_ = 0;
  bool has_end_ = false;
  bool hold_ = false;
  bool faulted_ = false;
  bool memory_waited_ = false;
  MemRange reads_[4], writes_[2];
  int nreads_ = 0, nwrites_ = 0;
  bool wrote_reg_ = false;
  uint8_t dst_reg_ = 0;
  uint32_t dst_val_ = 0;
  bool branch_ = false;
  uint32_t next_pc_ = core_.pc_ + 1;
  CoreState stop_ = CoreState::Running;
  uint32_t trap_code_ = 0;
};

// The executors, one per instruction of the table, defined in their unit's file.
#define VP_INST(NAME, CODE, MNEM, UNIT, FIELDS, TIMING, SEM) void exec_##NAME(Issue& is, const isa::ops::NAME& o);
#include "vp/isa/instructions.def"

// The executor of an opcode: decodes the operands by name and runs it.
using Executor = void (*)(Issue& is, const isa::Instruction& in);
Executor executor_for(isa::Opcode op);

}  // namespace vp::hw
