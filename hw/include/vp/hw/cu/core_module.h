// A processor of the chip as a SystemC module: a compute unit (CU) or the
// control processor. It wraps an ExecutionCore in one SC_THREAD that runs
// ahead of simulated time (temporal decoupling) and synchronises when the
// core touches something shared, when it blocks, and at least every
// quantum. Its DMA engine is a TLM-2.0 initiator on the cluster bus; the
// crossbars, the message fabric, the control path to other cores (control
// processor only) and the run's supervisor are ports its parent binds.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "vp/hw/chip/core_control_if.h"
#include "vp/hw/chip/crossbar_bank_if.h"
#include "vp/hw/chip/message_fabric_if.h"
#include "vp/hw/chip/race_check.h"
#include "vp/hw/chip/run_control_if.h"
#include "vp/hw/cu/core_environment.h"
#include "vp/hw/cu/execution_core.h"

namespace vp::hw {

class CoreModule : public sc_core::sc_module, public CoreEnvironment {
 public:
  tlm_utils::simple_initiator_socket<CoreModule> dma_socket;
  sc_core::sc_port<CrossbarBankIf> crossbars;  // mvm, xprog, xread
  sc_core::sc_port<MessageFabricIf> fabric;    // send, recv, bar
  // cload, cstart, cwait, cstat: bound on the control processor only.
  sc_core::sc_port<CoreControlIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND> control;
  sc_core::sc_port<RunControlIf> run_control;

  // `trace` (may be null) receives every retired instruction.
  CoreModule(sc_core::sc_module_name name, const CoreIdentity& id, const CoreTiming& timing, uint64_t spad_bytes,
             uint64_t imem_words, TraceSink* trace = nullptr);

  ExecutionCore& core() { return core_; }
  const ExecutionCore& core() const { return core_; }
  uint32_t participant() const { return participant_; }
  // vp-run --check-races: every DMA leg and synchronization of this core
  // reported to `check` (null: none).
  void set_race_check(RaceCheck* check) { race_check_ = check; }

  // Starts the core at `pc` no earlier than `cycle` (wakes its thread).
  void start(uint32_t pc, uint64_t cycle);
  sc_core::sc_event& stopped_event() { return stopped_; }
  bool stopped() const;

  // CoreEnvironment
  void sync(uint64_t cycle) override;
  uint64_t dma(DmaDirection dir, uint64_t dst, uint64_t src, uint64_t bytes, uint64_t ready, CoreFault& fault) override;
  uint64_t send(uint32_t dst_core, uint32_t tag, const uint8_t* data, uint64_t bytes, uint64_t ready,
                CoreFault& fault) override;
  uint64_t recv(uint32_t src_core, uint32_t tag, uint8_t* data, uint64_t bytes, uint64_t ready,
                CoreFault& fault) override;
  uint64_t barrier(uint32_t id, uint32_t count, uint64_t ready, CoreFault& fault) override;
  uint64_t mvm(const MvmRequest& req, CoreFault& fault) override;
  uint64_t program_row(uint32_t xbar_global, uint32_t row, const uint8_t* levels, uint64_t ready,
                       CoreFault& fault) override;
  uint64_t read_row(uint32_t xbar_global, uint32_t row, uint8_t* levels, uint64_t ready, CoreFault& fault) override;
  ProgramStatus last_program_status() const override { return last_program_; }
  void set_last_program_status(const ProgramStatus& status) override { last_program_ = status; }
  void set_adc_range(uint32_t xbar, uint32_t range, CoreFault& fault) override;
  void set_xbar_format(uint32_t xbar, uint32_t wbits, bool differential, CoreFault& fault) override;
  uint32_t xbar_logical_cols(uint32_t xbar) override;
  uint64_t load_core(uint32_t core, uint64_t global_addr, uint64_t words, uint64_t ready, CoreFault& fault) override;
  uint64_t start_core(uint32_t core, uint32_t pc, uint64_t ready, CoreFault& fault) override;
  uint64_t wait_core(uint32_t core, uint64_t ready, CoreFault& fault) override;
  uint32_t core_state(uint32_t core, CoreFault& fault) override;

 private:
  void run();
  // One TLM transaction on the DMA socket; returns the completion cycle.
  uint64_t transport(bool read, uint64_t addr, uint8_t* data, uint64_t bytes, uint64_t ready, CoreFault& fault,
                     const char* space);

  // Fault unless the control port is bound (it is on the control processor).
  bool has_control(const char* op, CoreFault& fault);

  ExecutionCore core_;
  TraceSink* trace_;
  uint64_t quantum_;
  uint32_t participant_;
  sc_core::sc_event start_;
  sc_core::sc_event stopped_;
  uint64_t synced_ = 0;
  std::vector<uint8_t> bounce_;
  ProgramStatus last_program_;  // xstat: this core's last xprog
  RaceCheck* race_check_ = nullptr;
};

}  // namespace vp::hw
