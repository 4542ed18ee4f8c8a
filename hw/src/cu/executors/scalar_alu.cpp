// The scalar ALU: register-register arithmetic and logic, immediates and the
// system registers. 32-bit wrap-around; shifts use the low five bits of the
// amount.
#include <algorithm>

#include "executors/issue.h"
#include "vp/common/rsqrt.h"

namespace vp::hw {

void exec_NOP(Issue&, const isa::ops::NOP&) {}

void exec_ADD(Issue& is, const isa::ops::ADD& o) { is.write(o.rd, is.reg(o.rs1) + is.reg(o.rs2)); }
void exec_SUB(Issue& is, const isa::ops::SUB& o) { is.write(o.rd, is.reg(o.rs1) - is.reg(o.rs2)); }
void exec_MUL(Issue& is, const isa::ops::MUL& o) { is.write(o.rd, is.reg(o.rs1) * is.reg(o.rs2)); }
void exec_AND(Issue& is, const isa::ops::AND& o) { is.write(o.rd, is.reg(o.rs1) & is.reg(o.rs2)); }
void exec_OR(Issue& is, const isa::ops::OR& o) { is.write(o.rd, is.reg(o.rs1) | is.reg(o.rs2)); }
void exec_XOR(Issue& is, const isa::ops::XOR& o) { is.write(o.rd, is.reg(o.rs1) ^ is.reg(o.rs2)); }
void exec_SHL(Issue& is, const isa::ops::SHL& o) { is.write(o.rd, is.reg(o.rs1) << (is.reg(o.rs2) & 31)); }
void exec_SHR(Issue& is, const isa::ops::SHR& o) { is.write(o.rd, is.reg(o.rs1) >> (is.reg(o.rs2) & 31)); }
void exec_SRA(Issue& is, const isa::ops::SRA& o) {
  is.write(o.rd, static_cast<uint32_t>(is.sreg(o.rs1) >> (is.reg(o.rs2) & 31)));
}
void exec_SLT(Issue& is, const isa::ops::SLT& o) { is.write(o.rd, is.sreg(o.rs1) < is.sreg(o.rs2) ? 1 : 0); }
void exec_MIN(Issue& is, const isa::ops::MIN& o) {
  is.write(o.rd, static_cast<uint32_t>(std::min(is.sreg(o.rs1), is.sreg(o.rs2))));
}
void exec_MAX(Issue& is, const isa::ops::MAX& o) {
  is.write(o.rd, static_cast<uint32_t>(std::max(is.sreg(o.rs1), is.sreg(o.rs2))));
}

void exec_RSQRT(Issue& is, const isa::ops::RSQRT& o) { is.write(o.rd, vp::common::rsqrt_q31(is.reg(o.rs1))); }
void exec_RECIP(Issue& is, const isa::ops::RECIP& o) { is.write(o.rd, vp::common::recip_q31(is.reg(o.rs1))); }

void exec_LI(Issue& is, const isa::ops::LI& o) { is.write(o.rd, static_cast<uint32_t>(o.imm)); }
void exec_ADDI(Issue& is, const isa::ops::ADDI& o) { is.write(o.rd, is.reg(o.rs1) + static_cast<uint32_t>(o.imm)); }
void exec_MULI(Issue& is, const isa::ops::MULI& o) { is.write(o.rd, is.reg(o.rs1) * static_cast<uint32_t>(o.imm)); }
void exec_ANDI(Issue& is, const isa::ops::ANDI& o) { is.write(o.rd, is.reg(o.rs1) & static_cast<uint32_t>(o.imm)); }
void exec_SHLI(Issue& is, const isa::ops::SHLI& o) { is.write(o.rd, is.reg(o.rs1) << o.sh); }
void exec_SHRI(Issue& is, const isa::ops::SHRI& o) { is.write(o.rd, is.reg(o.rs1) >> o.sh); }
void exec_SRAI(Issue& is, const isa::ops::SRAI& o) { is.write(o.rd, static_cast<uint32_t>(is.sreg(o.rs1) >> o.sh)); }
void exec_SLTI(Issue& is, const isa::ops::SLTI& o) { is.write(o.rd, is.sreg(o.rs1) < o.imm ? 1 : 0); }

void exec_RDSR(Issue& is, const isa::ops::RDSR& o) {
  using isa::Sysreg;
  const CoreIdentity& id = is.id();
  uint32_t v = 0;
  // No default: a system register added to the table and not read here is a
  // compile error (-Wswitch).
  switch (o.sr) {
    case Sysreg::cluster: v = static_cast<uint32_t>(id.cluster); break;
    case Sysreg::cu: v = static_cast<uint32_t>(id.cu); break;
    case Sysreg::core: v = id.core; break;
    case Sysreg::ncores: v = id.ncores; break;
    case Sysreg::cycle: v = static_cast<uint32_t>(is.start()); break;
    case Sysreg::cycleh: v = static_cast<uint32_t>(is.start() >> 32); break;
    case Sysreg::xbars: v = id.xbars; break;
    case Sysreg::rows: v = id.rows; break;
    case Sysreg::cols: v = id.cols; break;
    case Sysreg::lcols: v = id.lcols; break;
    case Sysreg::clusters: v = id.clusters; break;
    case Sysreg::cus: v = id.cus; break;
  }
  is.write(o.rd, v);
}

}  // namespace vp::hw
