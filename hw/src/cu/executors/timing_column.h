// Each instruction's cycles from the table's timing column: the parameter a
// row names, resolved once per core to that core's CoreTiming value.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "vp/hw/cu/core_timing.h"

namespace vp::hw {

// How a timing parameter prices an instruction.
enum class TimingSource : uint8_t {
  Cycles,     // a CoreTiming member: the cycles the instruction keeps its unit
  IssueSlot,  // nothing beyond the issue slot every instruction pays
  Computed,   // per instruction, by the executor or the environment
};

// What the core knows of a timing parameter; nullptr for a name it does not know.
struct TimingParam {
  std::string_view name;
  TimingSource source;
  uint32_t CoreTiming::*cycles;  // for TimingSource::Cycles
};
const TimingParam* find_timing_param(std::string_view name);

// Cycles of every opcode (indexed by its code) for a core with `timing`;
// executors of Computed instructions set their own. Throws
// std::invalid_argument naming the row when its parameter is unknown.
std::array<uint32_t, 256> latencies_from_table(const CoreTiming& timing);

}  // namespace vp::hw
