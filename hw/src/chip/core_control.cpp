#include "vp/hw/chip/core_control.h"

#include "vp/hw/cu/core_module.h"

namespace vp::hw {

CoreControl::CoreControl(std::vector<CoreModule*> cores, double load_bytes_per_cycle)
    : cores_(std::move(cores)), load_bytes_per_cycle_(load_bytes_per_cycle) {}

bool CoreControl::load_program(uint32_t core, const uint64_t* words, uint64_t count, uint64_t& cycles,
                               std::string& why) {
  if (!cores_.at(core)->core().load_program(words, count, 0, &why)) return false;
  cycles = static_cast<uint64_t>(static_cast<double>(count * 8) / load_bytes_per_cycle_ + 0.999999);
  return true;
}

void CoreControl::start(uint32_t core, uint32_t pc, uint64_t cycle) { cores_.at(core)->start(pc, cycle); }

void CoreControl::wait_stopped(uint32_t core) {
  CoreModule& m = *cores_.at(core);
  while (m.core().state() == CoreState::Running) sc_core::wait(m.stopped_event());
}

CoreState CoreControl::state(uint32_t core) const { return cores_.at(core)->core().state(); }
uint64_t CoreControl::end_cycle(uint32_t core) const { return cores_.at(core)->core().end_cycle(); }
std::string CoreControl::fault_message(uint32_t core) const { return cores_.at(core)->core().fault_message(); }

}  // namespace vp::hw
