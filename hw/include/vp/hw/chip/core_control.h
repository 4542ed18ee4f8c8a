// The control path from the control processor to the compute units: their
// instruction memories (written at memory.cp_load_bytes_per_cycle), start
// and stop. The chip binds the control processor's control port to it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/hw/chip/core_control_if.h"

namespace vp::hw {

class CoreModule;

class CoreControl : public CoreControlIf {
 public:
  // `cores[i]` is chip-wide core i; the modules outlive this object.
  CoreControl(std::vector<CoreModule*> cores, double load_bytes_per_cycle);

  uint32_t cores() const override { return static_cast<uint32_t>(cores_.size()); }
  bool load_program(uint32_t core, const uint64_t* words, uint64_t count, uint64_t& cycles,
                    std::string& why) override;
  void start(uint32_t core, uint32_t pc, uint64_t cycle) override;
  void wait_stopped(uint32_t core) override;
  CoreState state(uint32_t core) const override;
  uint64_t end_cycle(uint32_t core) const override;
  std::string fault_message(uint32_t core) const override;

 private:
  std::vector<CoreModule*> cores_;
  double load_bytes_per_cycle_;
};

}  // namespace vp::hw
