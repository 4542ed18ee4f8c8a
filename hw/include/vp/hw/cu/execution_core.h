// The instruction interpreter of a compute unit (and of the control
// processor, which runs the same ISA). Functional effects happen in program
// order at issue; timing comes from the scoreboard: an instruction starts
// when the in-order issue slot, its unit, its registers and the scratchpad
// ranges it touches are all ready, and ends after its unit's latency. The
// core keeps its own local cycle (temporal decoupling) and calls the
// environment, which synchronises with SystemC time, only for shared things.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "vp/hw/cu/core_environment.h"
#include "vp/hw/cu/core_timing.h"
#include "vp/hw/cu/scoreboard.h"
#include "vp/hw/cu/scratchpad.h"
#include "vp/isa/isa.h"

namespace vp::hw {

enum class CoreState : uint8_t { Idle = 0, Running = 1, Halted = 2, Faulted = 3, Trapped = 4 };
const char* core_state_name(CoreState s);

struct RetireEvent {
  const isa::Instruction* inst;
  const isa::InstrInfo* info;
  uint32_t pc;
  uint64_t start, end;
  int32_t layer;
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void retire(const CoreIdentity& who, const RetireEvent& ev) = 0;
};

struct CoreStats {
  uint64_t instructions = 0;
  std::array<uint64_t, isa::kUnitCount> unit_busy{};
  std::array<uint64_t, isa::kUnitCount> unit_insts{};
  uint64_t mvm_instructions = 0, xbar_activations = 0, mvm_macs = 0;
  uint64_t vector_elements = 0;
  uint64_t dma_bytes = 0, noc_bytes_sent = 0;
  uint64_t dma_cluster_bytes = 0;  // of dma_bytes, those of dma.sl and dma.ls (the cluster's own SRAM)
  uint64_t rows_programmed = 0, rows_read = 0;
  uint64_t scalar_ops = 0;
  uint64_t first_cycle = 0, last_cycle = 0;
};

class Issue;

class ExecutionCore {
 public:
  ExecutionCore(const CoreIdentity& id, const CoreTiming& timing, uint64_t spad_bytes, uint64_t imem_words);

  // Replaces the instruction memory (from the object file or cload). Returns
  // false with a message if a word does not decode or it does not fit.
  bool load_program(const uint64_t* words, uint64_t count, uint64_t at, std::string* why);
  void start(uint32_t pc, uint64_t cycle);

  // Executes one instruction. The environment may block (SystemC wait)
  // inside; on return the state tells whether the core goes on.
  void step(CoreEnvironment& env, TraceSink* trace);

  CoreState state() const { return state_; }
  bool running() const { return state_ == CoreState::Running; }
  uint32_t pc() const { return pc_; }
  int32_t layer() const { return layer_; }  // the last `layer` marker's id, -1 before any
  uint64_t cycle() const { return issue_; }          // local issue cycle
  uint64_t end_cycle() const { return end_cycle_; }  // when it halted/faulted
  const std::string& fault_message() const { return fault_msg_; }
  uint32_t trap_code() const { return trap_code_; }
  // While an environment call blocks: what the core waits for, for the
  // deadlock report ("recv from core 3 tag 1").
  const std::string& waiting_for() const { return waiting_for_; }
  void set_waiting_for(std::string s) { waiting_for_ = std::move(s); }

  const CoreIdentity& identity() const { return id_; }
  const CoreStats& stats() const { return stats_; }
  Scratchpad& scratchpad() { return spad_; }
  uint32_t reg(int r) const { return regs_[static_cast<size_t>(r)]; }
  uint64_t program_size() const { return program_.size(); }

 private:
  friend class Issue;  // the per-unit executors' view of the core

  void fault(const std::string& what);
  bool check_range(uint64_t addr, uint64_t len, const char* what);

  CoreIdentity id_;
  CoreTiming timing_;
  // Each opcode's cycles, resolved once from the table's timing column.
  std::array<uint32_t, 256> latency_{};
  Scratchpad spad_;
  uint64_t imem_words_;
  std::vector<isa::Instruction> program_;
  std::array<uint32_t, isa::kRegisterCount> regs_{};
  Scoreboard sb_;
  std::array<uint64_t, isa::kUnitCount> busy_until_{};
  std::vector<uint64_t> dma_done_;  // end cycles of the last cu.dma.outstanding transfers, a ring
  uint64_t dma_count_ = 0;  // end of each unit's last instruction
  CoreStats stats_;
  CoreState state_ = CoreState::Idle;
  uint32_t pc_ = 0;
  uint64_t issue_ = 0;
  uint64_t end_cycle_ = 0;
  int32_t layer_ = -1;
  uint32_t trap_code_ = 0;
  std::string fault_msg_;
  std::string waiting_for_;
  std::vector<int32_t> mvm_in_;
  std::vector<int64_t> mvm_acc_;
  std::vector<int64_t> mvm_part_;  // one crossbar's results in a `sum` group
};

}  // namespace vp::hw
