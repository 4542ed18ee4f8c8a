// Branches and loops. Targets are instruction indices; every branch, taken
// or not, holds issue until it resolves.
#include "executors/issue.h"

namespace vp::hw {

void exec_JMP(Issue& is, const isa::ops::JMP& o) { is.branch(true, o.target); }
void exec_BEQ(Issue& is, const isa::ops::BEQ& o) { is.branch(is.reg(o.rs1) == is.reg(o.rs2), o.target); }
void exec_BNE(Issue& is, const isa::ops::BNE& o) { is.branch(is.reg(o.rs1) != is.reg(o.rs2), o.target); }
void exec_BLT(Issue& is, const isa::ops::BLT& o) { is.branch(is.sreg(o.rs1) < is.sreg(o.rs2), o.target); }
void exec_BGE(Issue& is, const isa::ops::BGE& o) { is.branch(is.sreg(o.rs1) >= is.sreg(o.rs2), o.target); }

void exec_DBNZ(Issue& is, const isa::ops::DBNZ& o) {
  const uint32_t v = is.reg(o.rc) - 1;
  is.write(o.rc, v);
  is.branch(v != 0, o.target);
}

void exec_JAL(Issue& is, const isa::ops::JAL& o) {
  is.write(o.rd, is.pc() + 1);
  is.branch(true, o.target);
}

void exec_JR(Issue& is, const isa::ops::JR& o) { is.branch(true, is.reg(o.rs1)); }

}  // namespace vp::hw
