// A CoreModule on its own, its ports bound to test doubles that record what
// reaches them and when: the DMA engine's TLM transactions, the crossbar
// bank, the message fabric, the control path (control processor) and the
// run supervisor. The module must synchronise SystemC time to the core's
// cycle before every shared operation, hand the doubles' completion cycles
// back to the core, and report when it stops. Cycles follow the issue rules
// of docs/chip-model.md with the default CoreTiming (issue 1, alu 1, DMA
// setup 4) and the doubles' fixed latencies.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include <tlm_utils/simple_target_socket.h>

#include "../test_program.h"
#include "../sc_stimulus.h"
#include "vp/as/assembler.h"
#include "vp/hw/cluster/cluster_bus.h"
#include "vp/hw/cu/core_module.h"

namespace vp::hw {
namespace {

using test::now;

// ---- test doubles -----------------------------------------------------------

constexpr uint64_t kMemoryCycles = 30;

struct Transaction {
  uint64_t cycle;  // when it reached the memory
  bool read;
  uint64_t address;
  uint32_t bytes;
};

// Global memory and SRAM behind one target, answering after kMemoryCycles.
class MemoryDouble : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<MemoryDouble> socket;
  std::vector<uint8_t> global = std::vector<uint8_t>(1 << 16, 0);
  std::vector<uint8_t> sram = std::vector<uint8_t>(1 << 12, 0);
  std::vector<Transaction> log;

  explicit MemoryDouble(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
    socket.register_b_transport(this, &MemoryDouble::b_transport);
  }

 private:
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    const uint64_t a = t.get_address();
    const bool in_sram = a & kSramWindow;
    std::vector<uint8_t>& mem = in_sram ? sram : global;
    const uint64_t off = a & ~kSramWindow;
    log.push_back({now() + static_cast<uint64_t>(delay.to_seconds() * 1e9 + 0.5), t.is_read(), a,
                   t.get_data_length()});
    if (off + t.get_data_length() > mem.size()) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    if (t.is_read()) std::memcpy(t.get_data_ptr(), mem.data() + off, t.get_data_length());
    else std::memcpy(mem.data() + off, t.get_data_ptr(), t.get_data_length());
    delay += sc_core::sc_time(static_cast<double>(kMemoryCycles), sc_core::SC_NS);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

struct Call {
  std::string op;
  uint64_t at;      // SystemC cycle of the call
  uint64_t ready;   // the core's cycle passed with it (0 where none)
  std::vector<uint32_t> args;
  std::vector<uint8_t> data;
};

class BankDouble : public CrossbarBankIf {
 public:
  std::vector<Call> calls;
  uint64_t mvm(uint32_t xbar, const int32_t* input, uint32_t bits, int64_t* output, CoreFault&) override {
    calls.push_back({"mvm", now(), 0, {xbar, bits, static_cast<uint32_t>(input[0])}, {}});
    for (int i = 0; i < 4; ++i) output[i] = int64_t{xbar} * 100 + input[i];
    return 17;
  }
  uint64_t program_row(uint32_t xbar, uint32_t row, const uint8_t* levels, ProgramStatus& st, CoreFault&) override {
    calls.push_back({"program_row", now(), 0, {xbar, row}, std::vector<uint8_t>(levels, levels + 16)});
    st = {11, 1, 3};
    return 40;
  }
  uint64_t read_row(uint32_t xbar, uint32_t row, uint8_t* levels, CoreFault&) override {
    calls.push_back({"read_row", now(), 0, {xbar, row}, {}});
    for (int i = 0; i < 16; ++i) levels[i] = static_cast<uint8_t>(row + i);
    return 9;
  }
  void set_adc_range(uint32_t xbar, uint32_t range, CoreFault&) override {
    calls.push_back({"set_adc_range", now(), 0, {xbar, range}, {}});
  }
};

class FabricDouble : public MessageFabricIf {
 public:
  std::vector<Call> calls;
  uint64_t send(uint32_t src, uint32_t dst, uint32_t tag, const uint8_t* data, uint64_t bytes, uint64_t ready,
                CoreFault&) override {
    calls.push_back({"send", now(), ready, {src, dst, tag}, std::vector<uint8_t>(data, data + bytes)});
    return ready + 5;
  }
  uint64_t recv(uint32_t dst, uint32_t src, uint32_t tag, uint8_t* data, uint64_t bytes, uint64_t ready,
                CoreFault&) override {
    calls.push_back({"recv", now(), ready, {dst, src, tag}, {}});
    std::memset(data, 0x5A, bytes);
    return ready + 12;
  }
  uint64_t barrier(uint32_t who, uint32_t id, uint32_t count, uint64_t ready, CoreFault&) override {
    calls.push_back({"barrier", now(), ready, {who, id, count}, {}});
    return ready + 9;
  }
};

class RunDouble : public RunControlIf {
 public:
  uint64_t limit = 0;
  std::vector<std::pair<CoreState, uint64_t>> stopped;
  uint64_t limit_hit_at = 0;
  int limit_calls = 0;
  void count_progress(uint64_t) override {}
  uint64_t max_cycles() const override { return limit; }
  void on_max_cycles(const ExecutionCore& c) override {
    limit_hit_at = now();
    limit_calls++;
    core_cycle_at_limit = c.cycle();
  }
  uint64_t core_cycle_at_limit = 0;
  void on_core_stopped(const ExecutionCore& c) override { stopped.emplace_back(c.state(), now()); }
};

// The CUs the control processor controls: core 3 "runs" from its start
// until cycle 500.
class ControlDouble : public CoreControlIf {
 public:
  std::vector<Call> calls;
  std::vector<uint64_t> loaded;
  sc_core::sc_event stops;
  CoreState core3 = CoreState::Idle;
  uint32_t cores() const override { return 4; }
  bool load_program(uint32_t core, const uint64_t* words, uint64_t count, uint64_t& cycles, std::string&) override {
    calls.push_back({"load", now(), 0, {core, static_cast<uint32_t>(count)}, {}});
    loaded.assign(words, words + count);
    cycles = 8;
    return true;
  }
  void start(uint32_t core, uint32_t pc, uint64_t cycle) override {
    calls.push_back({"start", now(), cycle, {core, pc}, {}});
    core3 = CoreState::Running;
    stops.notify(sc_core::sc_time(static_cast<double>(500 - now()), sc_core::SC_NS));
  }
  void wait_stopped(uint32_t core) override {
    calls.push_back({"wait", now(), 0, {core}, {}});
    while (core3 == CoreState::Running) {
      sc_core::wait(stops);
      core3 = CoreState::Halted;
    }
  }
  CoreState state(uint32_t) const override { return core3; }
  uint64_t end_cycle(uint32_t) const override { return 500; }
  std::string fault_message(uint32_t) const override { return {}; }
};

struct Retired {
  std::string mnemonic;
  uint64_t start, end;
};
class Recorder : public TraceSink {
 public:
  std::vector<Retired> events;
  void retire(const CoreIdentity&, const RetireEvent& ev) override {
    events.push_back({ev.info->mnemonic, ev.start, ev.end});
  }
  const Retired& at(const std::string& m) const {
    for (const auto& e : events)
      if (e.mnemonic == m) return e;
    throw std::runtime_error("no " + m);
  }
};

// ---- the bench --------------------------------------------------------------

CoreIdentity cu_identity() {
  CoreIdentity id;
  id.cluster = 0;
  id.cu = 1;
  id.core = 1;
  id.ncores = 4;
  id.clusters = 1;
  id.cus = 4;
  id.xbars = 2;
  id.rows = id.cols = 16;
  id.lcols = 4;
  return id;
}

CoreIdentity cp_identity() {
  CoreIdentity id = cu_identity();
  id.cluster = id.cu = -1;
  id.core = id.ncores;
  return id;
}

std::vector<uint64_t> assemble(const std::string& src) { return test::assemble_text(src); }

struct Bench {
  MemoryDouble memory{"memory"};
  BankDouble bank;
  FabricDouble fabric;
  RunDouble run;
  ControlDouble control;
  Recorder trace;
  CoreModule core;

  Bench(const std::string& src, const CoreIdentity& id, CoreTiming timing = {})
      : core("core", id, timing, 4096, 1024, &trace) {
    core.dma_socket.bind(memory.socket);
    core.crossbars.bind(bank);
    core.fabric.bind(fabric);
    core.run_control.bind(run);
    if (id.is_control()) core.control.bind(control);
    const std::vector<uint64_t> words = assemble(src);
    std::string why;
    if (!core.core().load_program(words.data(), words.size(), 0, &why)) throw std::runtime_error(why);
    core.start(0, 0);
  }
  uint8_t spad(uint64_t a) { return *core.core().scratchpad().at(a); }
};

TEST(CoreModule, DmaAndMessagesReachTheirPortsAtTheCoresCycle) {
  Bench b(R"(.core 0, 1
    li r1, 0
    li r2, 64
    li r3, 256
    dma.gl r1, r3, r2    ; issues at 3, the transaction leaves after the 4-cycle setup
    li r4, 2
    send r1, r2, r4, 9   ; reads what the DMA writes: starts when it ends
    li r5, 128           ; issues once the send has injected its packet
    recv r5, r2, r4, 3
    bar 1, 4             ; issues once the recv's packet is in
    halt
)",
          cu_identity());
  for (int i = 0; i < 64; ++i) b.memory.global[256 + static_cast<size_t>(i)] = static_cast<uint8_t>(i * 3);
  sc_core::sc_start();

  ASSERT_EQ(b.core.core().state(), CoreState::Halted) << b.core.core().fault_message();
  ASSERT_EQ(b.memory.log.size(), 1u);
  EXPECT_EQ(b.memory.log[0].cycle, 3u + 4);
  EXPECT_TRUE(b.memory.log[0].read);
  EXPECT_EQ(b.memory.log[0].address, 256u);
  EXPECT_EQ(b.memory.log[0].bytes, 64u);
  EXPECT_EQ(b.trace.at("dma.gl").end, 7 + kMemoryCycles);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(b.spad(static_cast<uint64_t>(i)), static_cast<uint8_t>(i * 3)) << i;

  ASSERT_EQ(b.fabric.calls.size(), 3u);
  const Call& send = b.fabric.calls[0];
  EXPECT_EQ(send.op, "send");
  EXPECT_EQ(send.ready, 37u);
  EXPECT_EQ(send.at, 37u);  // SystemC time caught up before the fabric was called
  EXPECT_EQ(send.args, (std::vector<uint32_t>{1, 2, 9}));  // participant = chip-wide core
  EXPECT_EQ(send.data, std::vector<uint8_t>(b.memory.global.begin() + 256, b.memory.global.begin() + 320));
  EXPECT_EQ(b.trace.at("send").end, 42u);

  const Call& recv = b.fabric.calls[1];
  EXPECT_EQ(recv.op, "recv");
  EXPECT_EQ(recv.ready, 43u);  // the send held issue until 42, then the li
  EXPECT_EQ(recv.at, 43u);
  EXPECT_EQ(recv.args, (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(b.trace.at("recv").end, 55u);
  EXPECT_EQ(b.spad(128), 0x5A);
  EXPECT_EQ(b.spad(191), 0x5A);

  const Call& bar = b.fabric.calls[2];
  EXPECT_EQ(bar.op, "barrier");
  EXPECT_EQ(bar.ready, 55u);  // the recv held issue until its packet was in
  EXPECT_EQ(bar.at, 55u);
  EXPECT_EQ(bar.args, (std::vector<uint32_t>{1, 1, 4}));
  EXPECT_EQ(b.trace.at("bar").end, 64u);

  // halt issues once the barrier is released, and ends there.
  EXPECT_EQ(b.core.core().end_cycle(), 64u);
  ASSERT_EQ(b.run.stopped.size(), 1u);
  EXPECT_EQ(b.run.stopped[0].first, CoreState::Halted);
  EXPECT_EQ(b.run.stopped[0].second, 64u);
  EXPECT_TRUE(b.core.stopped());
  EXPECT_TRUE(b.bank.calls.empty());
}

TEST(CoreModule, CrossbarOperationsGoToTheBankWithChipWideIndices) {
  Bench b(R"(.core 0, 1
    li r1, 0
    li r2, 64
    mvm r2, r1, 1, 0x1, 8, 32, sum, 0
    li r3, 5
    li r4, 6
    xprog r1, r3, r4
    xstat r5, pulses
    xstat r6, failed
    xstat r7, rounds
    li r8, 256
    xread r8, r3, r4
    halt
)",
          cu_identity());
  for (int i = 0; i < 16; ++i) *b.core.core().scratchpad().at(static_cast<uint64_t>(i)) = static_cast<uint8_t>(i + 1);
  sc_core::sc_start();
  ASSERT_EQ(b.core.core().state(), CoreState::Halted) << b.core.core().fault_message();
  ASSERT_EQ(b.bank.calls.size(), 3u);
  // Crossbar 1 of core 1 with two crossbars per CU is chip-wide crossbar 3.
  EXPECT_EQ(b.bank.calls[0].op, "mvm");
  EXPECT_EQ(b.bank.calls[0].args, (std::vector<uint32_t>{3, 8, 1}));
  const Retired& mvm = b.trace.at("mvm");
  EXPECT_EQ(mvm.end - mvm.start, 17u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(b.core.core().scratchpad().load32(64 + 4 * static_cast<uint64_t>(i)), 301 + i);

  EXPECT_EQ(b.bank.calls[1].op, "program_row");
  EXPECT_EQ(b.bank.calls[1].args, (std::vector<uint32_t>{5, 6}));  // xprog takes chip-wide indices
  EXPECT_EQ(b.bank.calls[1].data[15], 16);
  const Retired& xprog = b.trace.at("xprog");
  EXPECT_EQ(xprog.end - xprog.start, 40u);
  EXPECT_EQ(b.core.core().reg(5), 11u);
  EXPECT_EQ(b.core.core().reg(6), 1u);
  EXPECT_EQ(b.core.core().reg(7), 3u);

  EXPECT_EQ(b.bank.calls[2].op, "read_row");
  const Retired& xread = b.trace.at("xread");
  EXPECT_EQ(xread.end - xread.start, 9u);
  EXPECT_EQ(b.spad(256), 6);
  EXPECT_EQ(b.spad(271), 21);
}

TEST(CoreModule, TheControlProcessorLoadsStartsAndWaitsThroughItsControlPort) {
  Bench b(R"(.cp
    li r1, 3
    li r2, 0x200
    li r3, 4
    cload r1, r2, r3     ; 4 words = 32 bytes fetched over DMA, then written
    li r4, 2
    cstart r1, r4
    cwait r1
    cstat r5, r1
    halt
)",
          cp_identity());
  for (int i = 0; i < 32; ++i) b.memory.global[0x200 + static_cast<size_t>(i)] = static_cast<uint8_t>(i);
  sc_core::sc_start();
  ASSERT_EQ(b.core.core().state(), CoreState::Halted) << b.core.core().fault_message();
  ASSERT_EQ(b.memory.log.size(), 1u);
  EXPECT_EQ(b.memory.log[0].address, 0x200u);
  EXPECT_EQ(b.memory.log[0].bytes, 32u);
  const uint64_t fetched = b.memory.log[0].cycle + kMemoryCycles;
  EXPECT_EQ(b.trace.at("cload").end, fetched + 8);  // then the double's write time
  ASSERT_EQ(b.control.loaded.size(), 4u);
  EXPECT_EQ(b.control.loaded[0], 0x0706050403020100ull);

  ASSERT_EQ(b.control.calls.size(), 3u);
  const Call& start = b.control.calls[1];
  EXPECT_EQ(start.op, "start");
  EXPECT_EQ(start.args, (std::vector<uint32_t>{3, 2}));
  EXPECT_EQ(start.ready, start.at + 1);  // the core starts the cycle after cstart issues
  EXPECT_EQ(b.trace.at("cstart").end, start.at + 1);
  EXPECT_EQ(b.control.calls[2].op, "wait");
  EXPECT_EQ(b.trace.at("cwait").end, 500u);  // when core 3 stopped
  EXPECT_EQ(b.core.core().reg(5), static_cast<uint32_t>(CoreState::Halted));
  EXPECT_GE(b.core.core().end_cycle(), 500u);
}

TEST(CoreModule, ADmaOutsideMemoryFaultsTheCore) {
  Bench b(".core 0, 1\n    li r1, 0\n    li r2, 64\n    li r3, 0x10000\n    dma.gl r1, r3, r2\n    halt\n",
          cu_identity());
  sc_core::sc_start();
  EXPECT_EQ(b.core.core().state(), CoreState::Faulted);
  EXPECT_NE(b.core.core().fault_message().find("dma reads global[65536 .. +64], outside the global memory"),
            std::string::npos)
      << b.core.core().fault_message();
  ASSERT_EQ(b.run.stopped.size(), 1u);
  EXPECT_EQ(b.run.stopped[0].first, CoreState::Faulted);
}

TEST(CoreModule, RunsAheadOneQuantumThenLetsSimulatedTimeCatchUp) {
  // A counted loop touches nothing shared: the core synchronises only when
  // its cycle reaches the last synchronisation point plus the quantum.
  CoreTiming t;
  t.quantum_cycles = 500;
  Bench b(".core 0, 1\n    li r1, 1000\nloop:\n    dbnz r1, loop\n    halt\n", cu_identity(), t);
  uint64_t at_1 = 0, at_600 = 0;
  test::Script probe("probe", [&] {
    test::wait_until(1);
    at_1 = b.core.core().cycle();
    test::wait_until(600);
    at_600 = b.core.core().cycle();
  });
  sc_core::sc_start();
  ASSERT_EQ(b.core.core().state(), CoreState::Halted);
  // By cycle 1 of simulated time the core has run one quantum ahead (and
  // not more than one instruction past it); by 600, two.
  EXPECT_GE(at_1, 500u);
  EXPECT_LT(at_1, 500u + 4);
  EXPECT_GE(at_600, 1000u);
  EXPECT_LT(at_600, 1000u + 4);
  EXPECT_EQ(b.run.stopped.at(0).second, b.core.core().end_cycle());
}

TEST(CoreModule, StopsAtTheRunsCycleLimit) {
  Bench b(".core 0, 1\nloop:\n    jmp loop\n", cu_identity());
  b.run.limit = 300;
  sc_core::sc_start();
  EXPECT_EQ(b.core.core().state(), CoreState::Running);
  EXPECT_EQ(b.run.limit_calls, 1);
  // The first instruction past the limit reports it; the thread ends there.
  EXPECT_GT(b.run.core_cycle_at_limit, 300u);
  EXPECT_LE(b.run.core_cycle_at_limit, 302u);
  EXPECT_EQ(b.core.core().cycle(), b.run.core_cycle_at_limit);
  EXPECT_TRUE(b.run.stopped.empty());
  // The core ran ahead without synchronising: the limit is seen on its own cycle.
  EXPECT_EQ(b.run.limit_hit_at, 0u);
}

}  // namespace
}  // namespace vp::hw
