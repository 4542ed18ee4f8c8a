// The issue stage's table-driven parts: every row's timing parameter
// resolves to the core's timing, every opcode has an executor, and the
// generated operand accessors name the fields the table gives.
#include <gtest/gtest.h>

#include "executors/issue.h"
#include "executors/timing_column.h"
#include "vp/isa/operands.h"

namespace vp::hw {
namespace {

// Distinct values, so a parameter resolved to the wrong member shows.
CoreTiming distinct_timing() {
  CoreTiming t;
  t.issue_cycles = 2;
  t.alu_cycles = 3;
  t.mul_cycles = 5;
  t.branch_cycles = 7;
  t.spad_access_cycles = 11;
  t.vector_lanes = 13;
  t.vector_startup_cycles = 17;
  t.dma_setup_cycles = 19;
  t.barrier_cycles = 23;
  return t;
}

TEST(ExecutionTable, EveryTimingParameterIsKnown) {
  for (const isa::InstrInfo& in : isa::instructions())
    EXPECT_NE(find_timing_param(in.timing_param), nullptr) << in.mnemonic << ": " << in.timing_param;
  EXPECT_EQ(find_timing_param("cu.no_such_cycles"), nullptr);
}

TEST(ExecutionTable, LatenciesComeFromTheNamedParameter) {
  const CoreTiming t = distinct_timing();
  const auto cycles = latencies_from_table(t);
  auto of = [&](isa::Opcode op) { return cycles[static_cast<uint8_t>(op)]; };
  EXPECT_EQ(of(isa::Opcode::NOP), t.alu_cycles);
  EXPECT_EQ(of(isa::Opcode::ADD), t.alu_cycles);
  EXPECT_EQ(of(isa::Opcode::MUL), t.mul_cycles);
  EXPECT_EQ(of(isa::Opcode::MULI), t.mul_cycles);
  EXPECT_EQ(of(isa::Opcode::RDSR), t.alu_cycles);
  EXPECT_EQ(of(isa::Opcode::LD), t.spad_access_cycles);
  EXPECT_EQ(of(isa::Opcode::STB), t.spad_access_cycles);
  EXPECT_EQ(of(isa::Opcode::JMP), t.branch_cycles);
  EXPECT_EQ(of(isa::Opcode::DBNZ), t.branch_cycles);
  EXPECT_EQ(of(isa::Opcode::XSTAT), t.alu_cycles);
  EXPECT_EQ(of(isa::Opcode::CSTAT), t.alu_cycles);
  // Only the issue slot.
  EXPECT_EQ(of(isa::Opcode::LAYER), 0u);
  EXPECT_EQ(of(isa::Opcode::HALT), 0u);
  EXPECT_EQ(of(isa::Opcode::WAIT), 0u);
  for (const isa::InstrInfo& in : isa::instructions()) {
    const TimingParam* p = find_timing_param(in.timing_param);
    ASSERT_NE(p, nullptr);
    if (p->source == TimingSource::Cycles) EXPECT_EQ(of(in.opcode), t.*(p->cycles)) << in.mnemonic;
    else EXPECT_EQ(of(in.opcode), 0u) << in.mnemonic;
  }
}

TEST(ExecutionTable, EveryOpcodeHasAnExecutor) {
  for (const isa::InstrInfo& in : isa::instructions()) EXPECT_NE(executor_for(in.opcode), nullptr) << in.mnemonic;
}

isa::Instruction decoded(const char* mnemonic, std::initializer_list<int64_t> operands) {
  isa::Instruction in;
  in.opcode = isa::find(mnemonic)->opcode;
  size_t i = 0;
  for (int64_t v : operands) in.operand[i++] = v;
  auto back = isa::decode(isa::encode(in));
  if (!back) throw std::runtime_error(std::string("does not round-trip: ") + mnemonic);
  return *back;
}

TEST(ExecutionTable, OperandsByFieldName) {
  const isa::Instruction add = decoded("add", {3, 4, 5});
  const isa::ops::ADD a(add);
  EXPECT_EQ(a.rd, add.field("rd"));
  EXPECT_EQ(a.rs1, add.field("rs1"));
  EXPECT_EQ(a.rs2, add.field("rs2"));

  const isa::Instruction ld = decoded("ld", {1, 2, -8});
  EXPECT_EQ(isa::ops::LD(ld).off, -8);

  const isa::Instruction mvm = decoded("mvm", {6, 7, 2, 0x5, 8, 24, 1, 1});
  const isa::ops::MVM m(mvm);
  EXPECT_EQ(m.rd, 6);
  EXPECT_EQ(m.rs1, 7);
  EXPECT_EQ(m.xb, 2u);
  EXPECT_EQ(m.mask, 0x5u);
  EXPECT_EQ(m.ib, 8u);
  EXPECT_EQ(m.ob, 24u);
  EXPECT_EQ(m.mode, isa::Mvmmode::concat);
  EXPECT_EQ(m.acc, 1u);

  const isa::Instruction clamp = decoded("vclamp", {1, 2, 3, -6, 6, 0});
  const isa::ops::VCLAMP c(clamp);
  EXPECT_EQ(c.lo, -6);
  EXPECT_EQ(c.hi, 6);
  EXPECT_EQ(c.dt, isa::Dtype::i8);

  const isa::Instruction rdsr = decoded("rdsr", {9, 11});
  EXPECT_EQ(isa::ops::RDSR(rdsr).sr, isa::Sysreg::cus);
  EXPECT_EQ(isa::ops::RDSR::kOpcode, isa::Opcode::RDSR);
}

// The named choices are the table's VP_ENUM rows.
TEST(ExecutionTable, ChoiceEnumsMatchTheTable) {
  for (const isa::EnumSet& set : isa::enum_sets())
    if (set.name == "sysreg") {
      EXPECT_EQ(set.by_name("cycleh")->value, static_cast<uint32_t>(isa::Sysreg::cycleh));
      EXPECT_EQ(set.by_name("cus")->value, static_cast<uint32_t>(isa::Sysreg::cus));
    } else if (set.name == "xstat") {
      EXPECT_EQ(set.by_name("rounds")->value, static_cast<uint32_t>(isa::Xstat::rounds));
    }
}

}  // namespace
}  // namespace vp::hw
