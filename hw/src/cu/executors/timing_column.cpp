#include "executors/timing_column.h"

#include <stdexcept>
#include <string>

#include "vp/isa/isa.h"

namespace vp::hw {
namespace {

constexpr TimingParam kParams[] = {
    {"cu.scalar.alu_cycles", TimingSource::Cycles, &CoreTiming::alu_cycles},
    {"cu.scalar.mul_cycles", TimingSource::Cycles, &CoreTiming::mul_cycles},
    {"cu.scalar.rsqrt_cycles", TimingSource::Cycles, &CoreTiming::rsqrt_cycles},
    {"cu.scalar.recip_cycles", TimingSource::Cycles, &CoreTiming::recip_cycles},
    {"cu.scalar.branch_cycles", TimingSource::Cycles, &CoreTiming::branch_cycles},
    {"cu.spad.access_cycles", TimingSource::Cycles, &CoreTiming::spad_access_cycles},
    // The control processor's CoreTiming carries cp.alu_cycles in alu_cycles.
    {"cp.alu_cycles", TimingSource::Cycles, &CoreTiming::alu_cycles},
    // Markers, halt and waits: the issue slot is all they take.
    {"cu.issue_cycles", TimingSource::IssueSlot, nullptr},
    // Vector work: startup + elements / lanes, known once the operands are read.
    {"cu.vector.lanes", TimingSource::Computed, nullptr},
    // The environment times what the core shares: memories, crossbars, NoC,
    // barriers, loading other cores.
    {"gmem.bandwidth_gbps", TimingSource::Computed, nullptr},
    {"cluster.sram.bytes_per_cycle", TimingSource::Computed, nullptr},
    {"xbar.read_ns", TimingSource::Computed, nullptr},
    {"ispp.pulse_ns", TimingSource::Computed, nullptr},
    {"xbar.readback_ns_per_row", TimingSource::Computed, nullptr},
    {"noc.hop_cycles", TimingSource::Computed, nullptr},
    {"sync.barrier_cycles", TimingSource::Computed, nullptr},
    {"cp.load_bytes_per_cycle", TimingSource::Computed, nullptr},
};

}  // namespace

const TimingParam* find_timing_param(std::string_view name) {
  for (const TimingParam& p : kParams)
    if (p.name == name) return &p;
  return nullptr;
}

std::array<uint32_t, 256> latencies_from_table(const CoreTiming& timing) {
  std::array<uint32_t, 256> cycles{};
  for (const isa::InstrInfo& in : isa::instructions()) {
    const TimingParam* p = find_timing_param(in.timing_param);
    if (!p)
      throw std::invalid_argument(in.mnemonic + ": timing parameter " + in.timing_param +
                                  " is not one the execution core knows");
    cycles[static_cast<uint8_t>(in.opcode)] = p->source == TimingSource::Cycles ? timing.*(p->cycles) : 0;
  }
  return cycles;
}

}  // namespace vp::hw
