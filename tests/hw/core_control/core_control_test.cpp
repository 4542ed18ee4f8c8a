// The control path from the control processor to the CUs (cload, cstart,
// cwait, cstat): writing a CU's instruction memory takes
// ceil(bytes / cp.load_bytes_per_cycle) cycles, a started CU runs from
// the given cycle, and a wait returns in simulated time when the CU stops.
// The CUs are real CoreModules whose other ports go to idle doubles.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <tlm_utils/multi_passthrough_target_socket.h>

#include "../test_program.h"
#include "../sc_stimulus.h"
#include "vp/as/assembler.h"
#include "vp/hw/chip/core_control.h"
#include "vp/hw/cu/core_module.h"

namespace vp::hw {
namespace {

// Nothing here reaches memory, crossbars or the fabric; a call would fault.
class Unused : public sc_core::sc_module, public CrossbarBankIf, public MessageFabricIf, public RunControlIf {
 public:
  tlm_utils::multi_passthrough_target_socket<Unused> memory;  // every CU's DMA
  explicit Unused(sc_core::sc_module_name n) : sc_module(n), memory("memory") {
    memory.register_b_transport(this, &Unused::b_transport);
  }
  uint64_t mvm(uint32_t, const int32_t*, uint32_t, int64_t*, CoreFault& f) override { return fail(f); }
  uint64_t program_row(uint32_t, uint32_t, const uint8_t*, ProgramStatus&, CoreFault& f) override { return fail(f); }
  uint64_t read_row(uint32_t, uint32_t, uint8_t*, CoreFault& f) override { return fail(f); }
  void set_adc_range(uint32_t, uint32_t, CoreFault& f) override { fail(f); }
  uint64_t send(uint32_t, uint32_t, uint32_t, const uint8_t*, uint64_t, uint64_t, CoreFault& f) override {
    return fail(f);
  }
  uint64_t recv(uint32_t, uint32_t, uint32_t, uint8_t*, uint64_t, uint64_t, CoreFault& f) override { return fail(f); }
  uint64_t barrier(uint32_t, uint32_t, uint32_t, uint64_t, CoreFault& f) override { return fail(f); }
  void count_progress(uint64_t) override {}
  uint64_t max_cycles() const override { return 0; }
  void on_max_cycles(const ExecutionCore&) override {}
  void on_core_stopped(const ExecutionCore&) override {}

 private:
  void b_transport(int, tlm::tlm_generic_payload& t, sc_core::sc_time&) {
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
  }
  static uint64_t fail(CoreFault& f) {
    f = {true, "not in this test"};
    return 0;
  }
};

CoreIdentity identity(uint32_t core) {
  CoreIdentity id;
  id.cluster = 0;
  id.cu = static_cast<int32_t>(core);
  id.core = core;
  id.ncores = 2;
  id.clusters = 1;
  id.cus = 2;
  id.xbars = 1;
  id.rows = id.cols = 16;
  id.lcols = 4;
  return id;
}

std::vector<uint64_t> assemble(const std::string& src) { return test::assemble_text(src); }

struct Bench {
  Unused unused{"unused"};
  std::vector<std::unique_ptr<CoreModule>> cus;
  std::unique_ptr<CoreControl> control;
  explicit Bench(double load_bytes_per_cycle) {
    std::vector<CoreModule*> raw;
    for (uint32_t i = 0; i < 2; ++i) {
      cus.push_back(std::make_unique<CoreModule>(("cu" + std::to_string(i)).c_str(), identity(i), CoreTiming{}, 1024, 16));
      CoreModule& cu = *cus.back();
      cu.dma_socket.bind(unused.memory);
      cu.crossbars.bind(unused);
      cu.fabric.bind(unused);
      cu.run_control.bind(unused);
      raw.push_back(&cu);
    }
    control = std::make_unique<CoreControl>(raw, load_bytes_per_cycle);
  }
};

TEST(CoreControl, LoadsStartsAndWaitsForACore) {
  Bench b(3.0);
  EXPECT_EQ(b.control->cores(), 2u);
  // Started at pc 1: three li of one cycle, then the halt at the cycle the
  // last one ends.
  const std::vector<uint64_t> prog =
      assemble(".core 0, 1\n    li r1, 1\n    li r2, 2\n    li r3, 3\n    li r4, 4\n    halt\n");
  ASSERT_EQ(prog.size(), 5u);
  uint64_t load_cycles = 0, woke = 0;
  bool loaded = false;
  CoreState before = CoreState::Running, after = CoreState::Idle;
  test::Script cp("cp", [&] {
    std::string why;
    loaded = b.control->load_program(1, prog.data(), prog.size(), load_cycles, why);
    before = b.control->state(1);
    test::wait_until(20);
    b.control->start(1, 1, 20);  // from pc 1: r1 stays 0
    b.control->wait_stopped(1);
    woke = test::now();
    after = b.control->state(1);
  });
  sc_core::sc_start();
  ASSERT_TRUE(loaded);
  EXPECT_EQ(load_cycles, 14u);  // 40 bytes at 3 bytes per cycle
  EXPECT_EQ(before, CoreState::Idle);
  EXPECT_EQ(after, CoreState::Halted);
  EXPECT_EQ(b.control->end_cycle(1), 20u + 3);
  EXPECT_EQ(woke, 23u);
  EXPECT_EQ(b.cus[1]->core().reg(1), 0u);
  EXPECT_EQ(b.cus[1]->core().reg(4), 4u);
  EXPECT_EQ(b.cus[0]->core().state(), CoreState::Idle);
}

TEST(CoreControl, WholeLoadCyclesAndRefusedPrograms) {
  Bench b(8.0);
  const std::vector<uint64_t> prog = assemble(".core 0, 0\n    halt\n");
  std::vector<uint64_t> four(4, prog[0]), too_long(17, prog[0]);
  uint64_t cycles = 0;
  std::string why;
  EXPECT_TRUE(b.control->load_program(0, four.data(), four.size(), cycles, why));
  EXPECT_EQ(cycles, 4u);  // 32 bytes at 8 per cycle: exactly 4, not rounded up to 5
  EXPECT_FALSE(b.control->load_program(0, too_long.data(), too_long.size(), cycles, why));
  EXPECT_NE(why.find("exceeds the instruction memory of 16"), std::string::npos) << why;
}

TEST(CoreControl, AFaultedCoreReportsWhy) {
  Bench b(8.0);
  const std::vector<uint64_t> prog = assemble(".core 0, 0\n    li r1, 0\n    li r2, 8\n    li r3, 0\n    dma.gl r1, r3, r2\n    halt\n");
  std::string why;
  uint64_t cycles = 0;
  ASSERT_TRUE(b.control->load_program(0, prog.data(), prog.size(), cycles, why));
  test::Script cp("cp", [&] {
    b.control->start(0, 0, 0);
    b.control->wait_stopped(0);
  });
  sc_core::sc_start();
  EXPECT_EQ(b.control->state(0), CoreState::Faulted);
  EXPECT_NE(b.control->fault_message(0).find("dma reads global[0 .. +8]"), std::string::npos)
      << b.control->fault_message(0);
}

}  // namespace
}  // namespace vp::hw
