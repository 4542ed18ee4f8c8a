#include "vp/hw/cu/core_module.h"

#include <algorithm>
#include <cstring>

#include "vp/hw/chip/chip.h"
#include "vp/hw/cluster/cluster_bus.h"
#include "vp/hw/memory/shared_memory.h"

namespace vp::hw {

CoreModule::CoreModule(sc_core::sc_module_name name, Chip& chip, const CoreIdentity& id, const CoreTiming& timing,
                       uint64_t spad_bytes, uint64_t imem_words)
    : sc_module(name),
      dma_socket("dma_socket"),
      chip_(chip),
      core_(id, timing, spad_bytes, imem_words),
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
  const uint64_t quantum = std::max<uint64_t>(1, core_.identity().is_control() ? chip_.config().cp_core.quantum_cycles
                                                                              : chip_.config().core.quantum_cycles);
  for (;;) {
    while (!core_.running()) sc_core::wait(start_);
    synced_ = std::max(synced_, now_cycles());
    uint64_t counted = 0;
    while (core_.running()) {
      core_.step(*this, chip_.trace_sink());
      if ((++counted & 1023) == 0) chip_.count_progress(1024);
      if (chip_.max_cycles() && core_.cycle() > chip_.max_cycles()) {
        chip_.on_max_cycles(*this);
        return;
      }
      // Temporal decoupling: run ahead at most one quantum, then let the
      // other processes catch up.
      if (core_.cycle() >= synced_ + quantum) sync(core_.cycle());
    }
    sync(core_.end_cycle());
    stopped_.notify(sc_core::SC_ZERO_TIME);
    chip_.on_core_stopped(*this);
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
  return time_to_cycles(sc_core::sc_time_stamp() + delay);
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
  return chip_.fabric().send(participant_, dst_core, tag, data, bytes, ready, fault);
}

uint64_t CoreModule::recv(uint32_t src_core, uint32_t tag, uint8_t* data, uint64_t bytes, uint64_t ready,
                          CoreFault& fault) {
  sync(ready);
  return chip_.fabric().recv(participant_, src_core, tag, data, bytes, ready, fault);
}

uint64_t CoreModule::barrier(uint32_t id, uint32_t count, uint64_t ready, CoreFault& fault) {
  sync(ready);
  return chip_.fabric().barrier(participant_, id, count, ready, fault);
}

uint64_t CoreModule::mvm(const MvmRequest& req, CoreFault& fault) {
  const CoreIdentity& id = core_.identity();
  const uint32_t global = id.core * chip_.config().xbars_per_cu + req.xbar;
  try {
    return chip_.crossbars().mvm(global, req.input, static_cast<int>(req.input_bits), req.output);
  } catch (const std::exception& e) {
    fault = {true, std::string("mvm: ") + e.what()};
    return 0;
  }
}

uint64_t CoreModule::program_row(uint32_t xbar_global, uint32_t row, const uint8_t* levels, uint64_t,
                                 CoreFault& fault) {
  CrossbarBank& bank = chip_.crossbars();
  if (xbar_global >= bank.count() || row >= static_cast<uint32_t>(chip_.config().xbar.rows)) {
    fault = {true, "xprog row " + std::to_string(row) + " of crossbar " + std::to_string(xbar_global) +
                       ": the chip has " + std::to_string(bank.count()) + " crossbars of " +
                       std::to_string(chip_.config().xbar.rows) + " rows"};
    return 0;
  }
  const uint32_t max_level = (1u << chip_.config().xbar.cell_bits) - 1;
  for (int c = 0; c < chip_.config().xbar.cols; ++c)
    if (levels[c] > max_level) {
      fault = {true, "xprog level " + std::to_string(levels[c]) + " at column " + std::to_string(c) +
                         " exceeds the highest cell level " + std::to_string(max_level)};
      return 0;
    }
  // The bank counts pulses and failures chip-wide; this row's share is the
  // difference (cores run one at a time in SystemC, so nothing interleaves).
  const CrossbarBankStats before = bank.stats();
  const uint64_t cycles = bank.program_row(xbar_global, row, levels, 0, static_cast<uint32_t>(chip_.config().xbar.cols));
  const CrossbarBankStats& after = bank.stats();
  const uint64_t per_round = IsppWritePath(chip_.config().ispp).cycles_per_iteration();
  last_program_ = {after.ispp_pulses - before.ispp_pulses, after.ispp_failed_cells - before.ispp_failed_cells,
                   per_round ? cycles / per_round : 0};
  return cycles;
}

uint64_t CoreModule::read_row(uint32_t xbar_global, uint32_t row, uint8_t* levels, uint64_t, CoreFault& fault) {
  CrossbarBank& bank = chip_.crossbars();
  if (xbar_global >= bank.count() || row >= static_cast<uint32_t>(chip_.config().xbar.rows)) {
    fault = {true, "xread row " + std::to_string(row) + " of crossbar " + std::to_string(xbar_global) + " does not exist"};
    return 0;
  }
  bank.read_row(xbar_global, row, levels);
  return bank.readback_cycles();
}

uint64_t CoreModule::load_core(uint32_t core, uint64_t global_addr, uint64_t words, uint64_t ready,
                               CoreFault& fault) {
  if (core >= chip_.cores()) {
    fault = {true, "cload of core " + std::to_string(core) + ", but the chip has " + std::to_string(chip_.cores())};
    return ready;
  }
  std::vector<uint8_t> buf(words * 8);
  const uint64_t fetched = transport(true, global_addr, buf.data(), buf.size(), ready, fault, "global");
  if (fault.set) return ready;
  std::vector<uint64_t> w(words);
  std::memcpy(w.data(), buf.data(), buf.size());
  std::string why;
  if (!chip_.core(core).core().load_program(w.data(), words, 0, &why)) {
    fault = {true, "cload into core " + std::to_string(core) + ": " + why};
    return ready;
  }
  const double bpc = chip_.config().memory.cp_load_bytes_per_cycle;
  return fetched + static_cast<uint64_t>(static_cast<double>(buf.size()) / bpc + 0.999999);
}

uint64_t CoreModule::start_core(uint32_t core, uint32_t pc, uint64_t ready, CoreFault& fault) {
  if (core >= chip_.cores()) {
    fault = {true, "cstart of core " + std::to_string(core) + ", which does not exist"};
    return ready;
  }
  sync(ready);
  chip_.core(core).start(pc, ready + 1);
  return ready + 1;
}

uint64_t CoreModule::wait_core(uint32_t core, uint64_t ready, CoreFault& fault) {
  if (core >= chip_.cores()) {
    fault = {true, "cwait on core " + std::to_string(core) + ", which does not exist"};
    return ready;
  }
  sync(ready);
  CoreModule& other = chip_.core(core);
  while (other.core().state() == CoreState::Running) sc_core::wait(other.stopped_event());
  if (other.core().state() == CoreState::Faulted) {
    fault = {true, "core " + std::to_string(core) + " faulted: " + other.core().fault_message()};
    return ready;
  }
  return std::max(ready, other.core().end_cycle());
}

uint32_t CoreModule::core_state(uint32_t core, CoreFault& fault) {
  if (core >= chip_.cores()) {
    fault = {true, "cstat of core " + std::to_string(core) + ", which does not exist"};
    return 0;
  }
  return static_cast<uint32_t>(chip_.core(core).core().state());
}

}  // namespace vp::hw
