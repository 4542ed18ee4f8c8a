// The CU's interpreter and scoreboard on their own, with a fake environment:
// functional results of each instruction class, and the cycle each
// instruction starts and ends as the timing rules say.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "vp/as/assembler.h"
#include "vp/hw/cu/execution_core.h"

namespace vp::hw {
namespace {

// DMA copies within a private "global" array and takes a fixed latency; the
// other shared operations are not used by these tests and fault if called.
class FakeEnvironment : public CoreEnvironment {
 public:
  std::vector<uint8_t> global = std::vector<uint8_t>(1 << 16, 0);
  uint64_t dma_latency = 50;
  Scratchpad* spad = nullptr;

  void sync(uint64_t) override {}
  uint64_t dma(DmaDirection dir, uint64_t dst, uint64_t src, uint64_t bytes, uint64_t ready, CoreFault&) override {
    if (dir == DmaDirection::GlobalToLocal) std::memcpy(spad->at(dst), global.data() + src, bytes);
    if (dir == DmaDirection::LocalToGlobal) std::memcpy(global.data() + dst, spad->at(src), bytes);
    return ready + dma_latency;
  }
  uint64_t send(uint32_t, uint32_t, const uint8_t*, uint64_t, uint64_t r, CoreFault& f) override { return unused(r, f); }
  uint64_t recv(uint32_t, uint32_t, uint8_t*, uint64_t, uint64_t r, CoreFault& f) override { return unused(r, f); }
  uint64_t barrier(uint32_t, uint32_t, uint64_t r, CoreFault& f) override { return unused(r, f); }
  // mvm: each crossbar returns row sums of its input times (crossbar + 1)
  // after `mvm_latency` cycles (0: not available).
  uint64_t mvm_latency = 0;
  uint32_t rows = 0, lcols = 0;
  uint64_t mvm(const MvmRequest& q, CoreFault& f) override {
    if (mvm_latency == 0) return unused(0, f);
    int64_t s = 0;
    for (uint32_t i = 0; i < rows; ++i) s += q.input[i];
    for (uint32_t c = 0; c < lcols; ++c) q.output[c] = s * (q.xbar + 1);
    return mvm_latency;
  }
  uint64_t program_row(uint32_t, uint32_t, const uint8_t*, uint64_t r, CoreFault& f) override { return unused(r, f); }
  uint64_t read_row(uint32_t, uint32_t, uint8_t*, uint64_t r, CoreFault& f) override { return unused(r, f); }
  uint64_t load_core(uint32_t, uint64_t, uint64_t, uint64_t r, CoreFault& f) override { return unused(r, f); }
  uint64_t start_core(uint32_t, uint32_t, uint64_t r, CoreFault& f) override { return unused(r, f); }
  uint64_t wait_core(uint32_t, uint64_t r, CoreFault& f) override { return unused(r, f); }
  uint32_t core_state(uint32_t, CoreFault& f) override { return static_cast<uint32_t>(unused(0, f)); }

 private:
  uint64_t unused(uint64_t r, CoreFault& f) {
    f = {true, "not available in this test"};
    return r;
  }
};

struct Retired {
  std::string mnemonic;
  uint32_t pc;
  uint64_t start, end;
};

class Recorder : public TraceSink {
 public:
  std::vector<Retired> events;
  void retire(const CoreIdentity&, const RetireEvent& ev) override {
    events.push_back({ev.info->mnemonic, ev.pc, ev.start, ev.end});
  }
};

CoreTiming test_timing() {
  CoreTiming t;
  t.issue_cycles = 1;
  t.alu_cycles = 1;
  t.mul_cycles = 3;
  t.branch_cycles = 2;
  t.spad_access_cycles = 2;
  t.vector_lanes = 8;
  t.vector_startup_cycles = 2;
  t.dma_setup_cycles = 4;
  return t;
}

struct CoreRun {
  ExecutionCore core;
  FakeEnvironment env;
  Recorder trace;
  explicit CoreRun(const std::string& body, const CoreTiming& timing = test_timing(), uint64_t mvm_latency = 0)
      : core(identity(), timing, 4096, 1024) {
    env.mvm_latency = mvm_latency;
    env.rows = identity().rows;
    env.lcols = identity().lcols;
    as::Result r = as::assemble_string(".core 0, 0\n" + body, "test.s");
    if (!r.ok()) throw std::runtime_error(r.error_text());
    const obj::CoreText& t = r.object.texts.at(0);
    std::string why;
    if (!core.load_program(t.words.data(), t.words.size(), 0, &why)) throw std::runtime_error(why);
    for (const auto& d : r.object.data)
      if (d.space == obj::DataSegment::Space::Local) std::memcpy(core.scratchpad().at(d.address), d.bytes.data, d.bytes.size);
    env.spad = &core.scratchpad();
    core.start(0, 0);
    for (int guard = 0; core.running() && guard < 100000; ++guard) core.step(env, &trace);
  }
  static CoreIdentity identity() {
    CoreIdentity id;
    id.cluster = 1;
    id.cu = 2;
    id.core = 7;
    id.ncores = 16;
    id.xbars = 4;
    id.rows = id.cols = 64;
    id.lcols = 16;
    return id;
  }
  int32_t reg(int r) const { return static_cast<int32_t>(core.reg(r)); }
  const Retired& at(const std::string& mnemonic, int nth = 0) const {
    for (const auto& e : trace.events)
      if (e.mnemonic == mnemonic && nth-- == 0) return e;
    throw std::runtime_error("no " + mnemonic);
  }
  int8_t i8(uint64_t a) { return static_cast<int8_t>(*core.scratchpad().at(a)); }
  int32_t i32(uint64_t a) { return core.scratchpad().load32(a); }
};

TEST(ExecutionCore, ScalarArithmeticWrapsAndCompares) {
  CoreRun r(R"(
    li r1, 0x7fffffff
    addi r2, r1, 1          ; wraps to INT32_MIN
    li r3, -7
    li r4, 3
    mul r5, r3, r4
    sra r6, r3, r4          ; -7 >> 3 = -1 (arithmetic)
    shr r7, r3, r4          ; logical
    slt r8, r3, r4
    min r9, r3, r4
    max r10, r3, r4
    andi r11, r3, 0xff
    rdsr r12, core
    rdsr r13, cluster
    li r0, 55               ; r0 stays zero
    halt
  )");
  EXPECT_EQ(r.core.state(), CoreState::Halted);
  EXPECT_EQ(r.reg(2), INT32_MIN);
  EXPECT_EQ(r.reg(5), -21);
  EXPECT_EQ(r.reg(6), -1);
  EXPECT_EQ(static_cast<uint32_t>(r.reg(7)), 0xFFFFFFF9u >> 3);
  EXPECT_EQ(r.reg(8), 1);
  EXPECT_EQ(r.reg(9), -7);
  EXPECT_EQ(r.reg(10), 3);
  EXPECT_EQ(r.reg(11), 0xF9);
  EXPECT_EQ(r.reg(12), 7);
  EXPECT_EQ(r.reg(13), 1);
  EXPECT_EQ(r.reg(0), 0);
}

TEST(ExecutionCore, CountedLoopAndCall) {
  CoreRun r(R"(
    li r1, 0
    li r2, 10
  loop:
    addi r1, r1, 3
    dbnz r2, loop
    jal r31, sub
    halt
  sub:
    addi r1, r1, 100
    jr r31
  )");
  EXPECT_EQ(r.reg(1), 130);
  EXPECT_EQ(r.reg(2), 0);
  EXPECT_EQ(r.core.state(), CoreState::Halted);
}

TEST(ExecutionCore, LoadsAndStoresOnTheScratchpad) {
  CoreRun r(R"(
    li r1, 256
    li r2, -5
    st r2, r1, 4
    ld r3, r1, 4
    stb r2, r1, 9
    ldb r4, r1, 9
    halt
  )");
  EXPECT_EQ(r.reg(3), -5);
  EXPECT_EQ(r.reg(4), -5);
  EXPECT_EQ(r.i32(260), -5);
}

TEST(ExecutionCore, IndependentInstructionsIssueOnePerCycle) {
  CoreRun r("li r1, 1\nli r2, 2\nli r3, 3\nhalt\n");
  EXPECT_EQ(r.at("li", 0).start, 0u);
  EXPECT_EQ(r.at("li", 1).start, 1u);
  EXPECT_EQ(r.at("li", 2).start, 2u);
  EXPECT_EQ(r.at("li", 2).end, 3u);
}

TEST(ExecutionCore, ADependentInstructionWaitsForItsOperand) {
  CoreRun r("li r1, 6\nli r2, 7\nmul r3, r1, r2\naddi r4, r3, 1\nhalt\n");
  const Retired& mul = r.at("mul");
  const Retired& add = r.at("addi");
  EXPECT_EQ(mul.end - mul.start, 3u);  // cu.scalar.mul_cycles
  EXPECT_EQ(add.start, mul.end);       // RAW on r3
  EXPECT_EQ(r.reg(4), 43);
}

TEST(ExecutionCore, ReciprocalSquareRootTakesItsOwnLatency) {
  CoreRun r("li r1, 1000000\nrsqrt r2, r1\nrsqrt r3, r0\nhalt\n");
  const Retired& rs = r.at("rsqrt");
  EXPECT_EQ(rs.end - rs.start, 11u);  // cu.scalar.rsqrt_cycles
  EXPECT_EQ(r.reg(2), 2147483);       // floor(2^31 / 1000)
  EXPECT_EQ(r.reg(3), INT32_MAX);
}

TEST(ExecutionCore, ReciprocalTakesItsOwnLatency) {
  CoreRun r("li r1, 1000\nrecip r2, r1\nrecip r3, r0\nhalt\n");
  const Retired& rc = r.at("recip");
  EXPECT_EQ(rc.end - rc.start, 14u);  // cu.scalar.recip_cycles
  EXPECT_EQ(r.reg(2), 2147483);       // floor(2^31 / 1000)
  EXPECT_EQ(r.reg(3), INT32_MAX);
}

TEST(ExecutionCore, ABranchStallsIssueUntilItResolves) {
  CoreRun r("li r1, 1\nbeq r1, r0, 3\nli r2, 5\nhalt\n");
  const Retired& br = r.at("beq");
  EXPECT_EQ(br.end - br.start, 2u);
  EXPECT_EQ(r.at("li", 1).start, br.end);
}

TEST(ExecutionCore, VectorWorkWaitsForTheDmaThatFillsItsInput) {
  CoreRun r(R"(
    li r1, 0
    li r2, 0
    li r3, 64
    dma.gl r1, r2, r3
    li r4, 128
    li r5, 9
    vfill r4, r5, r3, i8      ; independent of the DMA: runs alongside
    vadd r4, r4, r1, r3, i8   ; reads the DMA's destination
    halt
  )");
  const Retired& dma = r.at("dma.gl");
  const Retired& fill = r.at("vfill");
  const Retired& add = r.at("vadd");
  EXPECT_EQ(dma.end, dma.start + 4 + 50);  // setup + the environment's latency
  EXPECT_LT(fill.start, dma.end);
  EXPECT_EQ(add.start, std::max(dma.end, fill.end));
  EXPECT_EQ(add.end - add.start, 2u + 64 / 8);  // startup + elements / lanes
  EXPECT_EQ(r.at("halt").start, add.end);        // halt waits for every unit
}

TEST(ExecutionCore, Int8ArithmeticSaturates) {
  CoreRun r(R"(
    li r1, 0
    li r2, 4
    li r3, 8
    li r4, 4
    vadd r3, r1, r2, r4, i8
    halt
  .data local, 0
    .byte 100, -100, 5, -128
    .byte 100, -100, -9, -1
  )");
  EXPECT_EQ(r.i8(8), 127);
  EXPECT_EQ(r.i8(9), -128);
  EXPECT_EQ(r.i8(10), -4);
  EXPECT_EQ(r.i8(11), -128);
}

// The ISA's requantizer, written out again: sat8(zp + ((a*M + 2^(S-1)) >> S)).
int rq(int64_t a, int64_t m, int s, int zp) {
  const int64_t v = zp + ((a * m + (s > 0 ? int64_t{1} << (s - 1) : 0)) >> s);
  return static_cast<int>(std::min<int64_t>(127, std::max<int64_t>(-128, v)));
}

TEST(ExecutionCore, RequantizationRoundsShiftsAndSaturates) {
  CoreRun r(R"(
    li r1, 0
    li r2, 4
    li r3, 64
    li r4, 128
    vrq r4, r1, r2, r3, -3
    li r5, 7
    li r6, 160
    vrqs r6, r1, r2, r5, 2, 1
    halt
  .data local, 0
    .word 1000, -1000, 3, -35
  .data local, 64
    .word 3, 4,   1, 5,   1, 1,   5, 1
  )");
  const int64_t a[] = {1000, -1000, 3, -35};
  const int64_t m[] = {3, 1, 1, 5};
  const int s[] = {4, 5, 1, 1};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(r.i8(128 + static_cast<uint64_t>(i)), rq(a[i], m[i], s[i], -3)) << i;
    EXPECT_EQ(r.i8(160 + static_cast<uint64_t>(i)), rq(a[i], 7, 2, 1)) << i;
  }
  EXPECT_EQ(r.i8(128), 127);   // saturates
  EXPECT_EQ(r.i8(161), -128);  // saturates low
}

TEST(ExecutionCore, PoolingHelpersReduceWindows) {
  CoreRun r(R"(
    li r1, 0
    li r2, 4        ; outputs
    li r3, 3        ; window
    li r4, 4        ; stride between window members
    li r5, 64
    vpmax r5, r1, r2, r3, r4, i8
    li r6, 128
    vpsum r6, r1, r2, r3, r4, i8
    halt
  .data local, 0
    .byte 1, -2, 3, -4,   5, -6, 7, -8,   -9, 10, -11, 12
  )");
  const int expect_max[] = {5, 10, 7, 12};
  const int expect_sum[] = {1 + 5 - 9, -2 - 6 + 10, 3 + 7 - 11, -4 - 8 + 12};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(r.i8(64 + i), expect_max[i]);
    EXPECT_EQ(r.i32(128 + 4 * i), expect_sum[i]);
  }
}

TEST(ExecutionCore, LookupTableActivation) {
  // T[i] = (3 * i) mod 256 as int8: index i = a + 128.
  std::string table = ".data local, 256\n    .byte ";
  for (int i = 0; i < 256; ++i) table += (i ? ", " : "") + std::to_string(static_cast<int8_t>((3 * i) & 0xFF));
  CoreRun r(R"(
    li r1, 0
    li r2, 4
    li r3, 256
    li r4, 16
    vlut r4, r1, r2, r3
    halt
  .data local, 0
    .byte -128, 0, 127, -1
  )" + table + "\n");
  const int in[] = {-128, 0, 127, -1};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(r.i8(16 + static_cast<uint64_t>(i)), static_cast<int8_t>((3 * (in[i] + 128)) & 0xFF)) << i;
}

TEST(ExecutionCore, OutOfRangeAccessFaultsWithTheAddress) {
  CoreRun r("li r1, 4090\nli r2, 16\nli r3, 0\nvadd r3, r1, r1, r2, i8\nhalt\n");
  EXPECT_EQ(r.core.state(), CoreState::Faulted);
  EXPECT_NE(r.core.fault_message().find("local[4090 .. +16]"), std::string::npos) << r.core.fault_message();
  EXPECT_NE(r.core.fault_message().find("pc 3"), std::string::npos) << r.core.fault_message();
}

TEST(ExecutionCore, ControlInstructionsFaultOnAComputeUnit) {
  CoreRun r("li r1, 0\ncstart r1, r1\nhalt\n");
  EXPECT_EQ(r.core.state(), CoreState::Faulted);
  EXPECT_NE(r.core.fault_message().find("control processor"), std::string::npos);
}

TEST(ExecutionCore, RunningOffTheProgramFaults) {
  CoreRun r("li r1, 1\n");
  EXPECT_EQ(r.core.state(), CoreState::Faulted);
  EXPECT_NE(r.core.fault_message().find("past the end"), std::string::npos);
}

// Concurrent mvm (cu.xbar.concurrent_mvm): mvms on disjoint crossbars run at
// once, one on a crossbar still busy waits for it; without it the crossbar
// unit runs one mvm at a time. Results are the same either way.
const char* kThreeMvms = R"(
    li r1, 0
    li r2, 1
    li r3, 64
    vfill r1, r2, r3, i8     ; 64 inputs of 1
    li r4, 256
    li r5, 512
    li r6, 768
    mvm r4, r1, 0, 0b0011, 8, 32, concat, 0   ; crossbars 0 and 1
    mvm r5, r1, 2, 0b0001, 8, 32, sum, 0      ; crossbar 2: free, runs at once
    mvm r6, r1, 1, 0b0001, 8, 32, sum, 0      ; crossbar 1: waits for the first
    halt
)";

TEST(ExecutionCore, ConcurrentMvmOnDisjointCrossbars) {
  CoreTiming t = test_timing();
  t.concurrent_mvm = true;
  CoreRun r(kThreeMvms, t, 100);
  ASSERT_EQ(r.core.state(), CoreState::Halted) << r.core.fault_message();
  const Retired &a = r.at("mvm", 0), &b = r.at("mvm", 1), &c = r.at("mvm", 2);
  EXPECT_EQ(a.end - a.start, 100u);
  EXPECT_EQ(b.start, a.start + 1);  // the next issue slot
  EXPECT_EQ(c.start, a.end);        // crossbar 1 is the first mvm's
  EXPECT_EQ(r.i32(256), 64);        // crossbar 0: sum x 1
  EXPECT_EQ(r.i32(256 + 4 * 16), 128);
  EXPECT_EQ(r.i32(512), 192);
  EXPECT_EQ(r.i32(768), 128);
  // The unit's busy time is the union of the three, not their sum.
  EXPECT_EQ(r.core.stats().unit_busy[static_cast<size_t>(isa::Unit::Crossbar)], c.end - a.start);
  EXPECT_GE(r.at("halt").start, c.end);
}

TEST(ExecutionCore, OneMvmAtATimeWithoutConcurrency) {
  CoreTiming t = test_timing();
  t.concurrent_mvm = false;
  CoreRun r(kThreeMvms, t, 100);
  ASSERT_EQ(r.core.state(), CoreState::Halted) << r.core.fault_message();
  const Retired &a = r.at("mvm", 0), &b = r.at("mvm", 1), &c = r.at("mvm", 2);
  EXPECT_EQ(b.start, a.end);
  EXPECT_EQ(c.start, b.end);
  EXPECT_EQ(r.i32(512), 192);
  EXPECT_EQ(r.core.stats().unit_busy[static_cast<size_t>(isa::Unit::Crossbar)], 300u);
}

// The DMA engine keeps cu.dma.outstanding transfers in flight: the next
// starts one setup after the previous while fewer are outstanding, then
// waits for the oldest; `wait` and halt wait for all of them.
const char* kFourStores = R"(
    li r1, 0
    li r2, 1024
    li r3, 16
    dma.lg r2, r1, r3
    addi r2, r2, 16
    dma.lg r2, r1, r3
    addi r2, r2, 16
    dma.lg r2, r1, r3
    addi r2, r2, 16
    dma.lg r2, r1, r3
    wait 0b111111
    halt
)";

TEST(ExecutionCore, DmaTransfersInFlight) {
  CoreTiming t = test_timing();
  t.dma_outstanding = 2;
  CoreRun r(kFourStores, t);
  ASSERT_EQ(r.core.state(), CoreState::Halted) << r.core.fault_message();
  const Retired &a = r.at("dma.lg", 0), &b = r.at("dma.lg", 1), &c = r.at("dma.lg", 2), &d = r.at("dma.lg", 3);
  EXPECT_EQ(a.end - a.start, 4u + 50u);
  EXPECT_EQ(b.start, a.start + 4);  // accepted one setup later
  EXPECT_EQ(c.start, a.end);        // two in flight: waits for the first
  EXPECT_EQ(d.start, b.end);
  EXPECT_GE(r.at("wait").start, d.end);
}

TEST(ExecutionCore, DmaOneTransferAtATime) {
  CoreTiming t = test_timing();
  t.dma_outstanding = 1;
  CoreRun r(kFourStores, t);
  ASSERT_EQ(r.core.state(), CoreState::Halted) << r.core.fault_message();
  const Retired &a = r.at("dma.lg", 0), &b = r.at("dma.lg", 1), &d = r.at("dma.lg", 3);
  EXPECT_EQ(b.start, a.end);
  EXPECT_EQ(d.end, a.start + 4 * (4 + 50));
}

}  // namespace
}  // namespace vp::hw
