// The chip top from a small ChipConfig (2 clusters of 2 CUs on a 2 x 1
// mesh): elaboration binds every processor's ports, the control processor
// starts and waits for CUs through its control path, CUs in different
// clusters exchange a message over the mesh, and a fault or the cycle limit
// ends the run. Cycles from docs/chip-model.md and docs/noc.md; the
// platform-level behaviour is in tests/platform/chip.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "vp/as/assembler.h"
#include "../plain_chip.h"
#include "../test_program.h"
#include "vp/hw/chip/chip.h"

namespace vp::hw {
namespace {

ChipConfig small() {
  ChipConfig c = test::plain_chip();
  c.memory.cp_dmem_bytes = 4096;
  c.memory.cp_imem_words = 1024;
  return c;
}

struct Retired {
  std::string mnemonic;
  int32_t core;  // -1: the control processor
  uint64_t start, end;
};
class Recorder : public TraceSink {
 public:
  std::vector<Retired> events;
  void retire(const CoreIdentity& who, const RetireEvent& ev) override {
    events.push_back({ev.info->mnemonic, who.is_control() ? -1 : static_cast<int32_t>(who.core), ev.start, ev.end});
  }
  const Retired& at(const std::string& m, int32_t core, int nth = 0) const {
    for (const auto& e : events)
      if (e.mnemonic == m && e.core == core && nth-- == 0) return e;
    throw std::runtime_error("no " + m + " on core " + std::to_string(core));
  }
};

void load(CoreModule& m, const std::string& src) { test::load_text(m, src); }

TEST(Chip, ElaborationBindsEveryProcessor) {
  Recorder trace;
  Chip chip("chip", small(), &trace);
  ASSERT_EQ(chip.cores(), 4u);
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t u = 0; u < 2; ++u) {
      const uint32_t i = chip.core_index(c, u);
      EXPECT_EQ(&chip.cluster(c).cu(u), &chip.core(i));
      EXPECT_EQ(chip.core(i).core().identity().cluster, static_cast<int32_t>(c));
      EXPECT_EQ(chip.core(i).participant(), i);
    }
  EXPECT_EQ(chip.control_processor().participant(), 4u);
  EXPECT_EQ(chip.fabric().participants(), 5u);
  EXPECT_EQ(chip.crossbars().count(), 8u);
  // Nothing started: the run elaborates (an unbound port would stop it
  // here) and ends at once.
  const RunResult r = chip.run(0);
  EXPECT_EQ(r.status, RunStatus::Completed);
  EXPECT_EQ(r.cycles, 0u);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(chip.core(i).crossbars.size(), 1);
    EXPECT_EQ(chip.core(i).fabric.size(), 1);
    EXPECT_EQ(chip.core(i).run_control.size(), 1);
    EXPECT_EQ(chip.core(i).control.size(), 0);  // CUs do not control other cores
  }
  EXPECT_EQ(chip.control_processor().control.size(), 1);
  EXPECT_TRUE(trace.events.empty());
}

TEST(Chip, ControlProcessorStartsCoresThatMessageAcrossTheMesh) {
  Recorder trace;
  Chip chip("chip", small(), &trace);
  load(chip.control_processor(), R"(.cp
    li r2, 0
    li r1, 1
    cstart r1, r2        ; issues at 2: core 1 starts at 3
    li r1, 2
    cstart r1, r2        ; issues at 4: core 2 starts at 5
    li r1, 1
    cwait r1
    li r1, 2
    cwait r1
    cstat r3, r1
    halt
)");
  load(chip.core(1), R"(.core 0, 1
    li r1, 0
    li r2, 32
    li r3, 2
    send r1, r2, r3, 4   ; issues at 6
    halt
)");
  load(chip.core(2), R"(.core 1, 0
    li r1, 64
    li r2, 32
    li r3, 1
    recv r1, r2, r3, 4   ; issues at 8, waits for the packet
    halt
)");
  for (int i = 0; i < 32; ++i) *chip.core(1).core().scratchpad().at(static_cast<uint64_t>(i)) = static_cast<uint8_t>(100 + i);
  chip.control_processor().start(0, 0);
  const RunResult r = chip.run(0);
  ASSERT_EQ(r.status, RunStatus::Completed) << r.message;

  EXPECT_EQ(trace.at("li", 1).start, 3u);
  EXPECT_EQ(trace.at("li", 2).start, 5u);
  // Cluster 0 to cluster 1 is one hop: 2P + H + S(32) = 2 + 2 + 2.
  EXPECT_EQ(trace.at("send", 1).start, 6u);
  EXPECT_EQ(trace.at("send", 1).end, 6u + 2);
  EXPECT_EQ(trace.at("recv", 2).end, 6u + 6);
  for (int i = 0; i < 32; ++i)
    ASSERT_EQ(*chip.core(2).core().scratchpad().at(64 + static_cast<uint64_t>(i)), 100 + i) << i;
  // cwait ends when the core it waits for has halted.
  EXPECT_EQ(trace.at("cwait", -1, 0).end, chip.core(1).core().end_cycle());
  EXPECT_EQ(trace.at("cwait", -1, 1).end, chip.core(2).core().end_cycle());
  EXPECT_EQ(chip.control_processor().core().reg(3), static_cast<uint32_t>(CoreState::Halted));
  EXPECT_EQ(chip.noc().totals().packets, 1u);
  EXPECT_EQ(chip.fabric().undelivered(), 0u);
  EXPECT_EQ(r.cycles, chip.control_processor().core().end_cycle());
  EXPECT_EQ(chip.core(0).core().state(), CoreState::Idle);
}

TEST(Chip, AFaultingCoreEndsTheRun) {
  Chip chip("chip", small());
  load(chip.core(3), ".core 1, 1\n    li r1, 0\n    li r2, 64\n    li r3, 0x100000\n    dma.gl r1, r3, r2\n    halt\n");
  load(chip.core(0), ".core 0, 0\n    li r1, 1\n    recv r1, r1, r1, 1\n    halt\n");  // would wait forever
  chip.core(3).start(0, 0);
  chip.core(0).start(0, 0);
  const RunResult r = chip.run(0);
  EXPECT_EQ(r.status, RunStatus::Fault);
  EXPECT_NE(r.message.find("outside the global memory"), std::string::npos) << r.message;
}

TEST(Chip, ABlockedCoreIsADeadlock) {
  Chip chip("chip", small());
  load(chip.core(0), ".core 0, 0\n    li r1, 1\n    recv r1, r1, r1, 7\n    halt\n");
  chip.core(0).start(0, 0);
  const RunResult r = chip.run(0);
  EXPECT_EQ(r.status, RunStatus::Deadlock);
  ASSERT_EQ(r.waiting.size(), 1u);
  EXPECT_NE(r.waiting[0].find("recv from core 1 tag 7"), std::string::npos) << r.waiting[0];
}

TEST(Chip, AMessageNobodyReceivesIsAFault) {
  Chip chip("chip", small());
  load(chip.core(0), ".core 0, 0\n    li r1, 0\n    li r2, 4\n    li r3, 2\n    send r1, r2, r3, 9\n    halt\n");
  load(chip.core(2), ".core 1, 0\n    halt\n");
  chip.core(0).start(0, 0);
  chip.core(2).start(0, 0);
  const RunResult r = chip.run(0);
  EXPECT_EQ(r.status, RunStatus::Fault);
  EXPECT_NE(r.message.find("1 message(s) sent but never received, the first from core 0 to core 2, tag 9, 4 bytes"),
            std::string::npos)
      << r.message;
}

TEST(Chip, StopsAtTheCycleLimit) {
  Chip chip("chip", small());
  load(chip.core(1), ".core 0, 1\nloop:\n    jmp loop\n");
  chip.core(1).start(0, 0);
  const RunResult r = chip.run(1000);
  EXPECT_EQ(r.status, RunStatus::MaxCycles);
  EXPECT_GT(chip.core(1).core().cycle(), 1000u);
}

}  // namespace
}  // namespace vp::hw
