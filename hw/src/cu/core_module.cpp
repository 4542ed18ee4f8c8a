#include "vp/hw/cu/core_module.h"

#include <algorithm>
#include <cstring>

#include "vp/hw/cluster/cluster_bus.h"
#include "vp/hw/memory/shared_memory.h"

namespace vp::hw {

CoreModule::CoreModule(sc_core::sc_module_name name, const CoreIdentity& id, const CoreTiming& timing,
                       uint64_t spad_bytes, uint64_t imem_words, TraceSink* trace)
    : sc_module(name),
      dma_socket("dma_socket"),
      crossbars("crossbars"),
      fabric("fabric"),
      control("control"),
      run_control("run_control"),
      core_(id, timing, spad_bytes, imem_words),
      trace_(trace),
      quantum_(std::max<uint64_t>(1, timing.quantum_cycles)),
      participant_(id.is_control() ? id.ncores : id.core) {
  SC_HAS_PROCESS(CoreModule);
  SC_THREAD(run);
}

bool CoreModule::stopped() const {
  const CoreState s = core_.state();
  return s == CoreState::Halted || s == CoreState::Faulted || s == CoreState::Trapped;
}

void CoreModule::start(uint32_t pc, uint64_t cycle) {
  core_.start(pc, cycle);
  start_.notify(sc_core::SC_ZERO_TIME);
}

void CoreModule::sync(uint64_t cycle) {
  const sc_core::sc_time t = cycles_to_time(cycle);
  if (t > sc_core::sc_time_stamp()) sc_core::wait(t - sc_core::sc_time_stamp());
  synced_ = std::max(synced_, cycle);
}

void CoreModule::run() {
  for (;;) {
    while (!core_.running()) sc_core::wait(start_);
    synced_ = std::max(synced_, now_cycles());
    uint64_t counted = 0;
    while (core_.running()) {
      core_.step(*this, trace_);
      if ((++counted & 1023) == 0) {
        run_control->count_progress(1024);
        if (run_control->interrupt_requested()) {
          run_control->on_interrupt(core_);
          return;
        }
      }
      const uint64_t limit = run_control->max_cycles();
      if (limit && core_.cycle() > limit) {
        run_control->on_max_cycles(core_);
        return;
      }
      // Temporal decoupling: run ahead at most one quantum, then let the
      // other processes catch up. A core that stopped goes straight on, so
      // its halt is a release before anything can see it stopped.
      if (core_.running() && core_.cycle() >= synced_ + quantum_) sync(core_.cycle());
    }
    if (race_check_) race_check_->halt(participant_, core_.end_cycle());
    sync(core_.end_cycle());
    stopped_.notify(sc_core::SC_ZERO_TIME);
    run_control->on_core_stopped(core_);
  }
}

uint64_t CoreModule::transport(bool read, uint64_t addr, uint8_t* data, uint64_t bytes, uint64_t ready,
                               CoreFault& fault, const char* space) {
  sync(ready);
  tlm::tlm_generic_payload trans;
  trans.set_command(read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
  trans.set_address(addr);
  trans.set_data_ptr(data);
  trans.set_data_length(static_cast<unsigned int>(bytes));
  trans.set_streaming_width(static_cast<unsigned int>(bytes));
  trans.set_byte_enable_ptr(nullptr);
  trans.set_dmi_allowed(false);
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  dma_socket->b_transport(trans, delay);
  if (!trans.is_response_ok()) {
    fault = {true, std::string("dma ") + (read ? "reads " : "writes ") + space + "[" +
                       std::to_string(addr & ~kSramWindow) + " .. +" + std::to_string(bytes) + "], outside the " +
                       space + " memory"};
    return ready;
  }
  const uint64_t end = time_to_cycles(sc_core::sc_time_stamp() + delay);
  if (race_check_) {
    const bool sram = (addr & kSramWindow) != 0;
    const CoreIdentity& id = core_.identity();
    RaceCheck::Site at;
    at.participant = participant_;
    at.pc = core_.pc();
    at.layer = core_.layer();
    at.start = ready;
    at.end = end;
    // A cluster SRAM is its own address space; the control processor has none.
    if (!sram || !id.is_control())
      race_check_->access(at, sram ? id.cluster : -1, addr & ~kSramWindow, bytes, !read);
  }
  return end;
}

uint64_t CoreModule::dma(DmaDirection dir, uint64_t dst, uint64_t src, uint64_t bytes, uint64_t ready,
                         CoreFault& fault) {
  if (bytes == 0) return ready;
  if (bytes > 0xFFFFFFFFull) {
    fault = {true, "dma of " + std::to_string(bytes) + " bytes exceeds one transfer"};
    return ready;
  }
  Scratchpad& spad = core_.scratchpad();
  switch (dir) {
    case DmaDirection::GlobalToLocal: return transport(true, src, spad.at(dst), bytes, ready, fault, "global");
    case DmaDirection::LocalToGlobal: return transport(false, dst, spad.at(src), bytes, ready, fault, "global");
    case DmaDirection::SramToLocal: return transport(true, kSramWindow | src, spad.at(dst), bytes, ready, fault, "sram");
    case DmaDirection::LocalToSram: return transport(false, kSramWindow | dst, spad.at(src), bytes, ready, fault, "sram");
    case DmaDirection::GlobalToSram:
    case DmaDirection::SramToGlobal: {
      // Two legs through the engine's bounce buffer; the second starts when
      // the first has delivered.
      const bool to_sram = dir == DmaDirection::GlobalToSram;
      bounce_.resize(bytes);
      const uint64_t mid = transport(true, to_sram ? src : (kSramWindow | src), bounce_.data(), bytes, ready, fault,
                                     to_sram ? "global" : "sram");
      if (fault.set) return ready;
      return transport(false, to_sram ? (kSramWindow | dst) : dst, bounce_.data(), bytes, mid, fault,
                       to_sram ? "sram" : "global");
    }
  }
  return ready;
}

uint64_t CoreModule::send(uint32_t dst_core, uint32_t tag, const uint8_t* data, uint64_t bytes, uint64_t ready,
                          CoreFault& fault) {
  sync(ready);
  const uint64_t done = fabric->send(participant_, dst_core, tag, data, bytes, ready, fault);
  if (race_check_ && !fault.set) race_check_->send(participant_, dst_core, tag, ready);
  return done;
}

uint64_t CoreModule::recv(uint32_t src_core, uint32_t tag, uint8_t* data, uint64_t bytes, uint64_t ready,
                          CoreFault& fault) {
  sync(ready);
  const uint64_t done = fabric->recv(participant_, src_core, tag, data, bytes, ready, fault);
  if (race_check_ && !fault.set) race_check_->recv(participant_, src_core, tag);
  return done;
}

uint64_t CoreModule::barrier(uint32_t id, uint32_t count, uint64_t ready, CoreFault& fault) {
  sync(ready);
  if (race_check_) race_check_->barrier_arrive(participant_, id, count, ready);
  const uint64_t done = fabric->barrier(participant_, id, count, ready, fault);
  if (race_check_ && !fault.set) race_check_->barrier_leave(participant_, id);
  return done;
}

uint64_t CoreModule::mvm(const MvmRequest& req, CoreFault& fault) {
  const CoreIdentity& id = core_.identity();
  return crossbars->mvm(id.core * id.xbars + req.xbar, req.input, req.input_bits, req.output, fault);
}

void CoreModule::set_adc_range(uint32_t xbar, uint32_t range, CoreFault& fault) {
  const CoreIdentity& id = core_.identity();
  crossbars->set_adc_range(id.core * id.xbars + xbar, range, fault);
}

void CoreModule::set_xbar_format(uint32_t xbar, uint32_t wbits, bool differential, CoreFault& fault) {
  const CoreIdentity& id = core_.identity();
  crossbars->set_format(id.core * id.xbars + xbar, wbits, differential, fault);
}

uint32_t CoreModule::xbar_logical_cols(uint32_t xbar) {
  const CoreIdentity& id = core_.identity();
  return crossbars->logical_cols_of(id.core * id.xbars + xbar);
}

uint64_t CoreModule::program_row(uint32_t xbar_global, uint32_t row, const uint8_t* levels, uint64_t,
                                 CoreFault& fault) {
  ProgramStatus status;
  const uint64_t cycles = crossbars->program_row(xbar_global, row, levels, status, fault);
  if (!fault.set) last_program_ = status;
  return cycles;
}

uint64_t CoreModule::read_row(uint32_t xbar_global, uint32_t row, uint8_t* levels, uint64_t, CoreFault& fault) {
  return crossbars->read_row(xbar_global, row, levels, fault);
}

bool CoreModule::has_control(const char* op, CoreFault& fault) {
  if (control.size() > 0) return true;
  fault = {true, std::string(op) + " runs on the control processor"};
  return false;
}

uint64_t CoreModule::load_core(uint32_t core, uint64_t global_addr, uint64_t words, uint64_t ready,
                               CoreFault& fault) {
  if (!has_control("cload", fault)) return ready;
  if (core >= control->cores()) {
    fault = {true, "cload of core " + std::to_string(core) + ", but the chip has " + std::to_string(control->cores())};
    return ready;
  }
  std::vector<uint8_t> buf(words * 8);
  const uint64_t fetched = transport(true, global_addr, buf.data(), buf.size(), ready, fault, "global");
  if (fault.set) return ready;
  std::vector<uint64_t> w(words);
  std::memcpy(w.data(), buf.data(), buf.size());
  std::string why;
  uint64_t write_cycles = 0;
  if (!control->load_program(core, w.data(), words, write_cycles, why)) {
    fault = {true, "cload into core " + std::to_string(core) + ": " + why};
    return ready;
  }
  return fetched + write_cycles;
}

uint64_t CoreModule::start_core(uint32_t core, uint32_t pc, uint64_t ready, CoreFault& fault) {
  if (!has_control("cstart", fault)) return ready;
  if (core >= control->cores()) {
    fault = {true, "cstart of core " + std::to_string(core) + ", which does not exist"};
    return ready;
  }
  sync(ready);
  if (race_check_) race_check_->start(participant_, core, ready);
  control->start(core, pc, ready + 1);
  return ready + 1;
}

uint64_t CoreModule::wait_core(uint32_t core, uint64_t ready, CoreFault& fault) {
  if (!has_control("cwait", fault)) return ready;
  if (core >= control->cores()) {
    fault = {true, "cwait on core " + std::to_string(core) + ", which does not exist"};
    return ready;
  }
  sync(ready);
  control->wait_stopped(core);
  if (race_check_) race_check_->waited(participant_, core);
  if (control->state(core) == CoreState::Faulted) {
    fault = {true, "core " + std::to_string(core) + " faulted: " + control->fault_message(core)};
    return ready;
  }
  return std::max(ready, control->end_cycle(core));
}

uint32_t CoreModule::core_state(uint32_t core, CoreFault& fault) {
  if (!has_control("cstat", fault)) return 0;
  if (core >= control->cores()) {
    fault = {true, "cstat of core " + std::to_string(core) + ", which does not exist"};
    return 0;
  }
  return static_cast<uint32_t>(control->state(core));
}

}  // namespace vp::hw
